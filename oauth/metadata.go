package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/netip"
	"net/url"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// maxMetadataBytes bounds the metadata document.
const maxMetadataBytes = 1 << 20

// maxMetadataRedirects bounds the redirects followed to the metadata.
const maxMetadataRedirects = 10

// discover fetches the issuer's authorization server metadata from the
// first of metadataURLs that has it, and returns nil, nil when each of
// them answers 4xx. The document must name the issuer, and the URLs it
// names must not use a script scheme, nor plain http off a loopback host
// for the endpoints this server or clients call.
//
// It is go-sdk's auth.GetAuthServerMetadata without the requirement of
// code_challenge_methods_supported: PKCE is for clients running the
// authorization code flow, which a resource server does not, and issuers
// such as Microsoft Entra ID and Amazon Cognito leave the field out. The
// issuer is the operator's choice, so it may be on a private network, as
// the key set and the introspection endpoint may.
func discover(ctx context.Context, issuer string, client *http.Client) (*oauthex.AuthServerMeta, error) {
	urls, err := metadataURLs(issuer)
	if err != nil {
		return nil, err
	}
	client = metadataClient(client)
	for _, u := range urls {
		meta, err := getMetadata(ctx, client, u, issuer)
		if err != nil || meta != nil {
			return meta, err
		}
	}
	return nil, nil
}

// metadataURLs returns where the issuer's metadata may be, in the order
// they are tried (the MCP authorization spec's): RFC 8414's
// oauth-authorization-server, then OpenID Connect discovery, with the
// issuer's path inserted after the well-known prefix, and last OpenID
// Connect's own form, the path followed by the well-known suffix.
func metadataURLs(issuer string) ([]string, error) {
	u, err := url.Parse(issuer)
	if err != nil {
		return nil, fmt.Errorf("issuer %q: %w", issuer, err)
	}
	at := func(path string) string {
		c := *u
		c.Path, c.RawPath = path, ""
		return c.String()
	}
	if u.Path == "" || u.Path == "/" {
		return []string{at("/.well-known/oauth-authorization-server"), at("/.well-known/openid-configuration")}, nil
	}
	path := strings.Trim(u.Path, "/")
	return []string{
		at("/.well-known/oauth-authorization-server/" + path),
		at("/.well-known/openid-configuration/" + path),
		at("/" + path + "/.well-known/openid-configuration"),
	}, nil
}

// metadataClient returns client with a redirect policy that refuses to
// go from https to http and follows at most maxMetadataRedirects.
func metadataClient(client *http.Client) *http.Client {
	c := *client
	own := client.CheckRedirect
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if prev := via[len(via)-1]; prev.URL.Scheme == "https" && req.URL.Scheme != "https" {
			return fmt.Errorf("redirect to non-HTTPS scheme %q is a security downgrade", req.URL.Scheme)
		}
		if own != nil {
			return own(req, via)
		}
		if len(via) >= maxMetadataRedirects {
			return fmt.Errorf("max redirects exceeded (%d)", maxMetadataRedirects)
		}
		return nil
	}
	return &c
}

// errNoDocument is a 4xx answer: no metadata at that URL.
var errNoDocument = errors.New("no metadata document")

// getMetadata fetches and checks the metadata at metadataURL; nil, nil
// when it answers 4xx.
func getMetadata(ctx context.Context, client *http.Client, metadataURL, issuer string) (*oauthex.AuthServerMeta, error) {
	if err := httpsOrLoopback(metadataURL); err != nil {
		return nil, fmt.Errorf("metadataURL: %w", err)
	}
	body, err := getDocument(ctx, client, metadataURL)
	if errors.Is(err, errNoDocument) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var meta oauthex.AuthServerMeta
	if err := json.Unmarshal(body, &meta); err != nil {
		return nil, fmt.Errorf("the metadata at %s is not JSON: %w", metadataURL, err)
	}
	if strings.TrimSuffix(meta.Issuer, "/") != strings.TrimSuffix(issuer, "/") {
		return nil, fmt.Errorf("metadata issuer %q does not match issuer URL %q", meta.Issuer, issuer)
	}
	if err := checkMetadataURLs(&meta); err != nil {
		return nil, err
	}
	return &meta, nil
}

// getDocument GETs a JSON document; errNoDocument for a 4xx answer.
func getDocument(ctx context.Context, client *http.Client, u string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode >= 400 && resp.StatusCode < 500:
		return nil, errNoDocument
	case resp.StatusCode != http.StatusOK:
		return nil, fmt.Errorf("%s: bad status %d", u, resp.StatusCode)
	}
	ct := resp.Header.Get("Content-Type")
	if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != "application/json" {
		return nil, fmt.Errorf("%s: bad content type %q", u, ct)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxMetadataBytes+1))
	if err != nil {
		return nil, err
	}
	if len(body) > maxMetadataBytes {
		return nil, fmt.Errorf("the metadata at %s is over %d bytes", u, maxMetadataBytes)
	}
	return body, nil
}

// checkMetadataURLs checks the URLs the metadata names: none may use a
// script scheme, and the endpoints that are called with credentials must
// use https unless on a loopback host.
func checkMetadataURLs(m *oauthex.AuthServerMeta) error {
	for _, u := range []struct{ name, value string }{
		{"authorization_endpoint", m.AuthorizationEndpoint},
		{"token_endpoint", m.TokenEndpoint},
		{"jwks_uri", m.JWKSURI},
		{"registration_endpoint", m.RegistrationEndpoint},
		{"service_documentation", m.ServiceDocumentation},
		{"op_policy_uri", m.OpPolicyURI},
		{"op_tos_uri", m.OpTOSURI},
		{"revocation_endpoint", m.RevocationEndpoint},
		{"introspection_endpoint", m.IntrospectionEndpoint},
	} {
		if err := safeScheme(u.value); err != nil {
			return fmt.Errorf("%s: %w", u.name, err)
		}
	}
	for _, u := range []struct{ name, value string }{
		{"authorization_endpoint", m.AuthorizationEndpoint},
		{"token_endpoint", m.TokenEndpoint},
		{"registration_endpoint", m.RegistrationEndpoint},
		{"introspection_endpoint", m.IntrospectionEndpoint},
	} {
		if err := httpsOrLoopback(u.value); err != nil {
			return fmt.Errorf("%s: %w", u.name, err)
		}
	}
	return nil
}

// safeScheme refuses a URL with a scheme that runs script in a browser.
func safeScheme(u string) error {
	if u == "" {
		return nil
	}
	p, err := url.Parse(u)
	if err != nil {
		return err
	}
	switch s := strings.ToLower(p.Scheme); s {
	case "javascript", "data", "vbscript":
		return fmt.Errorf("URL has disallowed scheme %q", s)
	}
	return nil
}

// httpsOrLoopback refuses a URL that is neither https nor on a loopback
// host.
func httpsOrLoopback(u string) error {
	if u == "" {
		return nil
	}
	p, err := url.Parse(u)
	if err != nil {
		return err
	}
	if p.Scheme != "https" && !loopback(p.Hostname()) {
		return fmt.Errorf("URL %q does not use HTTPS or is not a loopback address", u)
	}
	return nil
}

// loopback reports whether host is localhost or a loopback address.
func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Unmap().IsLoopback()
}
