package oauth

import (
	"strings"

	"github.com/go-jose/go-jose/v4"
)

// acceptsType reports whether a JWT's typ header says it is an access
// token this Verifier accepts: at+jwt (RFC 9068 §4); unless RequireATJWT,
// also JWT (what many issuers write on access tokens) or no typ. Another
// typ is another kind of token, such as an ID token (id_token+jwt), a
// logout token (logout+jwt) or a security event (secevent+jwt), which
// must not pass for an access token even when signed by the issuer and
// naming this audience.
func (v *Verifier) acceptsType(h jose.Header) bool {
	raw, present := h.ExtraHeaders[jose.HeaderType]
	if !present {
		return !v.requireATJWT
	}
	typ, ok := raw.(string)
	if !ok {
		return false
	}
	switch mediaType(typ) {
	case "at+jwt":
		return true
	case "jwt":
		return !v.requireATJWT
	}
	return false
}

// mediaType returns typ as the media type it names, in lower case and
// without "application/": RFC 7515 §4.1.9 lets typ leave out
// "application/" when no other "/" appears, and media types compare
// without regard to case (RFC 2045). A typ with parameters is returned
// whole, so it matches nothing.
func mediaType(typ string) string {
	t := strings.ToLower(typ)
	if rest, ok := strings.CutPrefix(t, "application/"); ok && !strings.Contains(rest, "/") {
		return rest
	}
	return t
}
