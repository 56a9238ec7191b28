package oauth

import (
	"net/url"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// MetadataPath is where the protected resource metadata document of a
// server is served (RFC 9728 §3): MetadataPath itself, and MetadataPath
// followed by the resource URL's path ("/.well-known/oauth-protected-
// resource/mcp"), which MCP clients try first.
const MetadataPath = "/.well-known/oauth-protected-resource"

// MetadataURL returns the URL of the metadata document of the resource
// with the given URL: the path-suffixed form for a resource with a path.
func MetadataURL(resource string) string {
	u, err := url.Parse(resource)
	if err != nil || u.Host == "" {
		return ""
	}
	path := strings.TrimRight(u.Path, "/")
	u.Path, u.RawPath, u.RawQuery, u.Fragment = MetadataPath+path, "", "", ""
	return u.String()
}

// Metadata returns the protected resource metadata document (RFC 9728
// §2) of the resource with the given URL, protected by the issuer's
// tokens, with the scopes its flows require.
func Metadata(resource, issuer string, scopes []string) *oauthex.ProtectedResourceMetadata {
	return &oauthex.ProtectedResourceMetadata{
		Resource:               resource,
		AuthorizationServers:   []string{issuer},
		ScopesSupported:        scopes,
		BearerMethodsSupported: []string{"header"},
		ResourceName:           "flowserve",
	}
}

// The error codes of a challenge (RFC 6750 §3.1).
const (
	ErrorInvalidToken      = "invalid_token"
	ErrorInsufficientScope = "insufficient_scope"
)

// Challenge is a WWW-Authenticate challenge of the Bearer scheme.
type Challenge struct {
	// ResourceMetadata is the URL of the metadata document (RFC 9728 §5.1).
	ResourceMetadata string
	// Scopes are the scopes the request needs, all of them.
	Scopes []string
	// Error is ErrorInvalidToken, ErrorInsufficientScope or "" (no token
	// was sent), and Description says why in a few words.
	Error, Description string
}

// String formats the challenge as the value of a WWW-Authenticate header.
func (c Challenge) String() string {
	var b strings.Builder
	b.WriteString("Bearer ")
	first := true
	param := func(name, value string) {
		if value == "" {
			return
		}
		if !first {
			b.WriteString(", ")
		}
		first = false
		b.WriteString(name)
		b.WriteString(`="`)
		b.WriteString(quoted(value))
		b.WriteByte('"')
	}
	param("resource_metadata", c.ResourceMetadata)
	param("scope", strings.Join(c.Scopes, " "))
	param("error", c.Error)
	param("error_description", c.Description)
	if first {
		b.WriteString(`realm="flowserve"`)
	}
	return b.String()
}

// quoted escapes a value for a quoted-string: error_description allows
// printable ASCII but '"' and '\' (RFC 6750 §3); anything else becomes a
// space.
func quoted(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r > 0x7e || r == '"' || r == '\\' {
			return ' '
		}
		return r
	}, s)
}
