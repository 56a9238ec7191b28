package oauth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// DefaultClockSkew is Config.ClockSkew when it is zero.
const DefaultClockSkew = 30 * time.Second

// Config configures a Verifier.
type Config struct {
	// Issuer is the authorization server's issuer URL, exactly as its
	// metadata and its tokens' iss say it (https, or http on a loopback
	// host for development).
	Issuer string
	// Audience is what a token's aud must name: this server's resource
	// URL (RFC 8707), e.g. "https://mcp.example.com/mcp", or the audience
	// the issuer puts in tokens for this server.
	Audience string
	// ClockSkew is how far exp, nbf and iat may be off; default
	// DefaultClockSkew.
	ClockSkew time.Duration
	// Introspection, when set, lets the Verifier introspect tokens that
	// are not JWTs (RFC 7662).
	Introspection *Introspection
	// Client makes the requests to the issuer; default a client with a
	// 30 s timeout.
	Client *http.Client
	// Now is the clock; default time.Now.
	Now func() time.Time
	// RequireATJWT makes the Verifier accept only JWTs whose typ header
	// is at+jwt (or application/at+jwt), as RFC 9068 §4 asks; by default
	// JWT and no typ are accepted too. Either way a typ of another kind
	// of token (id_token+jwt, logout+jwt, ...) is refused.
	RequireATJWT bool
}

// Introspection is how a Verifier introspects opaque tokens.
type Introspection struct {
	// Endpoint is the introspection endpoint; "" means the one the
	// issuer's metadata names.
	Endpoint string
	// ClientID and ClientSecret authenticate this server to the endpoint
	// (HTTP Basic, client_secret_basic).
	ClientID, ClientSecret string
	// CacheTTL is how long an answer is kept (never past the token's
	// expiry); default DefaultIntrospectionTTL. Negative means none.
	CacheTTL time.Duration
}

// Principal is the caller an access token identifies.
type Principal struct {
	// Subject is the token's sub.
	Subject string
	// Scopes are the scopes it grants (its scope claim, or scp).
	Scopes []string
	// ClientID is the OAuth client the token was issued to (client_id or
	// azp), or "".
	ClientID string
	// Expiry is when the token expires.
	Expiry time.Time
	// Claims are the token's claims, or the introspection's answer, as
	// JSON values.
	Claims map[string]any
}

// Missing returns the scopes of need the principal lacks, in need's
// order; nil when it has them all.
func (p *Principal) Missing(need []string) []string {
	var out []string
	for _, s := range need {
		if !slices.Contains(p.Scopes, s) {
			out = append(out, s)
		}
	}
	return out
}

// Verifier checks access tokens for one issuer and audience. It is safe
// for concurrent use.
type Verifier struct {
	issuer, audience string
	skew             time.Duration
	now              func() time.Time
	requireATJWT     bool
	meta             *oauthex.AuthServerMeta
	keys             *keySet // nil when the issuer publishes none
	intro            *introspector
}

// signatureAlgorithms are the JWS algorithms accepted: asymmetric ones.
var signatureAlgorithms = []jose.SignatureAlgorithm{
	jose.RS256, jose.RS384, jose.RS512, jose.PS256, jose.PS384, jose.PS512,
	jose.ES256, jose.ES384, jose.ES512, jose.EdDSA,
}

// NewVerifier discovers the issuer's metadata (RFC 8414, then OpenID
// Connect discovery) and returns a Verifier for it. The metadata need not
// list code_challenge_methods_supported: PKCE is the clients' business.
func NewVerifier(ctx context.Context, cfg Config) (*Verifier, error) {
	if cfg.Issuer == "" {
		return nil, errors.New("oauth: no issuer")
	}
	if cfg.Audience == "" {
		return nil, errors.New("oauth: no audience: name this server's URL, or the audience the issuer puts in its tokens")
	}
	if u, err := url.Parse(cfg.Issuer); err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") || u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("oauth: issuer %q is not an http(s) URL without query or fragment", cfg.Issuer)
	}
	if cfg.Client == nil {
		cfg.Client = &http.Client{Timeout: 30 * time.Second}
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.ClockSkew == 0 {
		cfg.ClockSkew = DefaultClockSkew
	}
	meta, err := discover(ctx, cfg.Issuer, cfg.Client)
	switch {
	case err != nil:
		return nil, fmt.Errorf("oauth: discover the metadata of %s: %w", cfg.Issuer, err)
	case meta == nil:
		return nil, fmt.Errorf("oauth: %s publishes no authorization server metadata (.well-known/oauth-authorization-server or openid-configuration)", cfg.Issuer)
	}
	v := &Verifier{issuer: cfg.Issuer, audience: cfg.Audience, skew: max(cfg.ClockSkew, 0), now: cfg.Now,
		requireATJWT: cfg.RequireATJWT, meta: meta}
	if meta.JWKSURI != "" {
		v.keys = &keySet{url: meta.JWKSURI, client: cfg.Client, now: cfg.Now}
	}
	if in := cfg.Introspection; in != nil {
		endpoint := in.Endpoint
		if endpoint == "" {
			endpoint = meta.IntrospectionEndpoint
		}
		if endpoint == "" {
			return nil, fmt.Errorf("oauth: %s names no introspection_endpoint in its metadata: give the endpoint", cfg.Issuer)
		}
		if in.ClientID == "" {
			return nil, errors.New("oauth: introspection needs a client id")
		}
		v.intro = newIntrospector(endpoint, *in, cfg.Client, v)
	}
	if v.keys == nil && v.intro == nil {
		return nil, fmt.Errorf("oauth: %s publishes no jwks_uri, so its tokens can only be introspected: give introspection credentials", cfg.Issuer)
	}
	return v, nil
}

// Issuer returns the issuer URL.
func (v *Verifier) Issuer() string { return v.issuer }

// Audience returns the audience tokens must name.
func (v *Verifier) Audience() string { return v.audience }

// Metadata returns the issuer's authorization server metadata.
func (v *Verifier) Metadata() *oauthex.AuthServerMeta { return v.meta }

// Verify checks an access token and returns the caller it identifies.
// Errors are *TokenError, or wrap ErrUnavailable or ctx's error.
func (v *Verifier) Verify(ctx context.Context, token string) (*Principal, error) {
	if isJWT(token) && v.keys != nil {
		return v.verifyJWT(ctx, token)
	}
	if v.intro != nil {
		return v.intro.introspect(ctx, token)
	}
	if isJWT(token) {
		return nil, refused(ReasonMalformed)
	}
	return nil, refused(ReasonOpaque)
}

// isJWT reports whether a token has the shape of a compact JWS: three
// base64url parts.
func isJWT(token string) bool {
	if strings.Count(token, ".") != 2 {
		return false
	}
	for i := 0; i < len(token); i++ {
		c := token[i]
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

// verifyJWT checks a JWT access token's signature and claims.
func (v *Verifier) verifyJWT(ctx context.Context, token string) (*Principal, error) {
	tok, err := jwt.ParseSigned(token, signatureAlgorithms)
	if err != nil || len(tok.Headers) != 1 {
		return nil, refused(ReasonMalformed)
	}
	h := tok.Headers[0]
	if !v.acceptsType(h) {
		return nil, refused(ReasonTokenType)
	}
	keys, err := v.keys.lookup(ctx, h.KeyID, h.Algorithm)
	if err != nil {
		return nil, err
	}
	var (
		std    jwt.Claims
		claims map[string]any
		ok     bool
	)
	for _, key := range keys {
		if tok.Claims(key.Key, &std, &claims) == nil {
			ok = true
			break
		}
	}
	if !ok {
		return nil, refused(ReasonSignature)
	}
	if err := v.checkClaims(&std); err != nil {
		return nil, err
	}
	return &Principal{Subject: std.Subject, Scopes: scopesOf(claims), ClientID: clientOf(claims),
		Expiry: std.Expiry.Time(), Claims: claims}, nil
}

// checkClaims checks a JWT's registered claims.
func (v *Verifier) checkClaims(c *jwt.Claims) error {
	switch {
	case c.Issuer != v.issuer:
		return refused(ReasonIssuer)
	case !c.Audience.Contains(v.audience):
		return refused(ReasonAudience)
	case c.Subject == "":
		return refused(ReasonNoSubject)
	case c.Expiry == nil:
		return refused(ReasonNoExpiry)
	}
	err := c.ValidateWithLeeway(jwt.Expected{Time: v.now()}, v.skew)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, jwt.ErrExpired):
		return refused(ReasonExpired)
	case errors.Is(err, jwt.ErrNotValidYet), errors.Is(err, jwt.ErrIssuedInTheFuture):
		return refused(ReasonNotYetValid)
	}
	return refused(ReasonMalformed)
}

// scopesOf reads the scopes a token grants: its scope claim (a
// space-separated string, RFC 9068 and RFC 8693), or else scp (a list or
// a string, as some issuers write it).
func scopesOf(claims map[string]any) []string {
	switch s := claims["scope"].(type) {
	case string:
		return strings.Fields(s)
	case []any:
		return stringsOf(s)
	}
	switch s := claims["scp"].(type) {
	case string:
		return strings.Fields(s)
	case []any:
		return stringsOf(s)
	}
	return nil
}

func stringsOf(list []any) []string {
	out := make([]string, 0, len(list))
	for _, v := range list {
		if s, ok := v.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// clientOf reads the client a token was issued to.
func clientOf(claims map[string]any) string {
	if s, ok := claims["client_id"].(string); ok {
		return s
	}
	s, _ := claims["azp"].(string)
	return s
}
