package oauthtest

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"encoding/hex"
	"fmt"
	"net/url"
	"strings"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/zitadel/oidc/v3/pkg/oidc"
	"github.com/zitadel/oidc/v3/pkg/op"
)

// clientKind says what a registered client is for.
type clientKind int

const (
	// kindService is a client_credentials client; its tokens' sub is its subject.
	kindService clientKind = iota
	// kindWeb is an authorization code client (confidential, or public with public set).
	kindWeb
	// kindIntrospector is a client that may only call the introspection endpoint.
	kindIntrospector
)

// client is a registered OAuth client; it implements op.Client.
type client struct {
	id           string
	secret       string
	kind         clientKind
	public       bool
	subject      string
	redirectURIs []string
	loginURL     string
	tokenType    op.AccessTokenType
}

var _ op.Client = (*client)(nil)

// GetID implements op.Client.
func (c *client) GetID() string { return c.id }

// RedirectURIs implements op.Client.
func (c *client) RedirectURIs() []string { return c.redirectURIs }

// PostLogoutRedirectURIs implements op.Client.
func (c *client) PostLogoutRedirectURIs() []string { return nil }

// ApplicationType implements op.Client; every client is a web application,
// which lets the op accept http (loopback) redirect URIs for the code flow.
func (c *client) ApplicationType() op.ApplicationType { return op.ApplicationTypeWeb }

// AuthMethod implements op.Client.
func (c *client) AuthMethod() oidc.AuthMethod {
	if c.public {
		return oidc.AuthMethodNone
	}
	return oidc.AuthMethodBasic
}

// ResponseTypes implements op.Client.
func (c *client) ResponseTypes() []oidc.ResponseType {
	if c.kind == kindWeb {
		return []oidc.ResponseType{oidc.ResponseTypeCode}
	}
	return nil
}

// GrantTypes implements op.Client.
func (c *client) GrantTypes() []oidc.GrantType {
	switch c.kind {
	case kindService:
		return []oidc.GrantType{oidc.GrantTypeClientCredentials}
	case kindWeb:
		return []oidc.GrantType{oidc.GrantTypeCode}
	}
	return nil
}

// LoginURL implements op.Client: the server's login page for the authorization request id.
func (c *client) LoginURL(id string) string {
	return c.loginURL + "?authRequestID=" + url.QueryEscape(id)
}

// AccessTokenType implements op.Client.
func (c *client) AccessTokenType() op.AccessTokenType { return c.tokenType }

// IDTokenLifetime implements op.Client.
func (c *client) IDTokenLifetime() time.Duration { return time.Hour }

// DevMode implements op.Client.
func (c *client) DevMode() bool { return false }

// RestrictAdditionalIdTokenScopes implements op.Client; it restricts nothing.
func (c *client) RestrictAdditionalIdTokenScopes() func([]string) []string {
	return func(scopes []string) []string { return scopes }
}

// RestrictAdditionalAccessTokenScopes implements op.Client; it restricts nothing.
func (c *client) RestrictAdditionalAccessTokenScopes() func([]string) []string {
	return func(scopes []string) []string { return scopes }
}

// IsScopeAllowed implements op.Client; any scope may be requested.
func (c *client) IsScopeAllowed(string) bool { return true }

// IDTokenUserinfoClaimsAssertion implements op.Client; ID tokens carry the
// email and profile claims even when an access token is issued with them.
func (c *client) IDTokenUserinfoClaimsAssertion() bool { return true }

// ClockSkew implements op.Client.
func (c *client) ClockSkew() time.Duration { return 0 }

// authRequest is a stored authorization request; it implements op.AuthRequest.
type authRequest struct {
	id       string
	req      oidc.AuthRequest
	audience []string
	subject  string
	authTime time.Time
	done     bool
}

var _ op.AuthRequest = (*authRequest)(nil)

// GetID implements op.AuthRequest.
func (a *authRequest) GetID() string { return a.id }

// GetACR implements op.AuthRequest.
func (a *authRequest) GetACR() string { return "" }

// GetAMR implements op.AuthRequest.
func (a *authRequest) GetAMR() []string {
	if a.done {
		return []string{"pwd"}
	}
	return nil
}

// GetAudience implements op.AuthRequest: the access token's aud (the ID
// token's aud also gets the client ID).
func (a *authRequest) GetAudience() []string { return a.audience }

// GetAuthTime implements op.AuthRequest.
func (a *authRequest) GetAuthTime() time.Time { return a.authTime }

// GetClientID implements op.AuthRequest.
func (a *authRequest) GetClientID() string { return a.req.ClientID }

// GetCodeChallenge implements op.AuthRequest.
func (a *authRequest) GetCodeChallenge() *oidc.CodeChallenge {
	if a.req.CodeChallenge == "" {
		return nil
	}
	return &oidc.CodeChallenge{Challenge: a.req.CodeChallenge, Method: a.req.CodeChallengeMethod}
}

// GetNonce implements op.AuthRequest.
func (a *authRequest) GetNonce() string { return a.req.Nonce }

// GetRedirectURI implements op.AuthRequest.
func (a *authRequest) GetRedirectURI() string { return a.req.RedirectURI }

// GetResponseType implements op.AuthRequest.
func (a *authRequest) GetResponseType() oidc.ResponseType { return a.req.ResponseType }

// GetResponseMode implements op.AuthRequest.
func (a *authRequest) GetResponseMode() oidc.ResponseMode { return a.req.ResponseMode }

// GetScopes implements op.AuthRequest.
func (a *authRequest) GetScopes() []string { return a.req.Scopes }

// GetState implements op.AuthRequest.
func (a *authRequest) GetState() string { return a.req.State }

// GetSubject implements op.AuthRequest.
func (a *authRequest) GetSubject() string { return a.subject }

// Done implements op.AuthRequest: the user has signed in.
func (a *authRequest) Done() bool { return a.done }

// ccRequest is a client_credentials token request; it implements op.TokenRequest.
type ccRequest struct {
	clientID string
	subject  string
	audience []string
	scopes   []string
	lifetime time.Duration
	claims   map[string]any
}

// GetSubject implements op.TokenRequest.
func (r *ccRequest) GetSubject() string { return r.subject }

// GetAudience implements op.TokenRequest.
func (r *ccRequest) GetAudience() []string { return r.audience }

// GetScopes implements op.TokenRequest.
func (r *ccRequest) GetScopes() []string { return r.scopes }

// accessToken is an issued access token, JWT or opaque, as introspection sees it.
type accessToken struct {
	id       string
	clientID string
	subject  string
	username string
	audience []string
	scopes   []string
	issued   time.Time
	expires  time.Time
	claims   map[string]any
}

// signingKey is an RSA key the server signs with; it implements op.SigningKey.
type signingKey struct {
	id  string
	key *rsa.PrivateKey
}

// newSigningKey generates a 2048-bit RSA key under a random kid.
func newSigningKey() (*signingKey, error) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, fmt.Errorf("generate signing key: %w", err)
	}
	return &signingKey{id: randomID(), key: key}, nil
}

// SignatureAlgorithm implements op.SigningKey.
func (k *signingKey) SignatureAlgorithm() jose.SignatureAlgorithm { return jose.RS256 }

// Key implements op.SigningKey.
func (k *signingKey) Key() any { return k.key }

// ID implements op.SigningKey.
func (k *signingKey) ID() string { return k.id }

// publicKey is the published half of a signingKey; it implements op.Key.
type publicKey struct{ k *signingKey }

// ID implements op.Key.
func (p publicKey) ID() string { return p.k.id }

// Algorithm implements op.Key.
func (p publicKey) Algorithm() jose.SignatureAlgorithm { return jose.RS256 }

// Use implements op.Key.
func (p publicKey) Use() string { return "sig" }

// Key implements op.Key.
func (p publicKey) Key() any { return &p.k.key.PublicKey }

// colonSafeCrypto wraps the op's token encryption. The op packs an opaque
// token as "tokenID:subject" and, on reading one, refuses anything that does
// not split into exactly two parts; Decrypt escapes the colons of a subject
// such as "urn:x:y" so that such subjects work. The storage reads the subject
// from the stored token, never from the packed value.
type colonSafeCrypto struct{ op.Crypto }

// Decrypt implements op.Crypto.
func (c colonSafeCrypto) Decrypt(s string) (string, error) {
	v, err := c.Crypto.Decrypt(s)
	if err != nil {
		return "", err
	}
	if id, sub, ok := strings.Cut(v, ":"); ok && strings.Contains(sub, ":") {
		return id + ":" + url.QueryEscape(sub), nil
	}
	return v, nil
}

// randomID returns 16 random bytes in hex.
func randomID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b) // crypto/rand.Read never fails
	return hex.EncodeToString(b)
}

// ctxKey keys the per-request parameters the server reads off the wire
// before the op parses the request.
type ctxKey struct{}

// reqParams are the parameters of a request the op does not pass to its storage.
type reqParams struct {
	// resources are the RFC 8707 resource indicators, used as the audience.
	resources []string
	// ticket is the TokenRequest a Token call left for its grant, if any.
	ticket *TokenRequest
}

// paramsFrom returns the request parameters on ctx, or zero ones.
func paramsFrom(ctx context.Context) reqParams {
	p, _ := ctx.Value(ctxKey{}).(reqParams)
	return p
}
