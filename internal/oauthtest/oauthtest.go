// Package oauthtest runs a real OAuth 2.1 / OpenID Connect authorization
// server for tests, built on github.com/zitadel/oidc/v3/pkg/op and served on
// a loopback httptest.Server over plain http.
//
// It publishes its metadata (RFC 8414 and OpenID Connect Discovery), signs
// JWT access tokens with RS256 keys it generates at start and can rotate,
// issues opaque access tokens for RFC 7662 introspection, and signs users in
// on an HTML login page for the authorization code flow with PKCE (S256,
// required; Options.NoPKCE makes it an issuer that refuses PKCE). Tests
// can rewrite its metadata (Options.Metadata) and the typ header of its
// JWTs (TokenRequest.Type). Refresh tokens, dynamic client registration, the implicit flow
// and JWT client assertions are not supported, though the op's metadata
// lists some of them.
//
// Its endpoints, under Issuer(), are /authorize (and /authorize/callback,
// where the login page sends the browser), /token, /introspect, /userinfo,
// /revoke, /keys (the JWKS) and /login (the login page). The metadata is at
// /.well-known/oauth-authorization-server{path} (RFC 8414),
// /.well-known/openid-configuration{path} and
// {path}/.well-known/openid-configuration, where {path} is Options.Path.
//
// The op logs refused requests with log/slog's default logger, at level WARN.
package oauthtest

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/zitadel/oidc/v3/pkg/oidc"
	"github.com/zitadel/oidc/v3/pkg/op"
)

// DefaultAudience is the aud of tokens when neither Options nor the request names one.
const DefaultAudience = "https://mcp.test/mcp"

// ticketParam is the token request parameter by which a Token call hands the
// server the parts of its TokenRequest that OAuth has no parameter for
// (lifetime, extra claims, opaque). It is not part of any standard.
const ticketParam = "oauthtest_ticket"

// Server is an authorization server running for one test.
type Server struct {
	srv      *httptest.Server
	base     string // scheme and host, no path
	path     string // issuer path, "" or "/x"
	issuer   string
	provider *op.Provider
	store    *storage

	introID, introSecret string
	rewrite              func(map[string]any) // Options.Metadata

	mu       sync.Mutex
	requests map[string]int
	nextWeb  int
}

// Options configure a Server.
type Options struct {
	// Audience is the aud of tokens unless a TokenRequest names one (default "https://mcp.test/mcp").
	Audience string
	// Path is the issuer's path, optional (e.g. "/oauth") to test issuers with a path.
	Path string
	// NoPKCE makes the server an issuer without PKCE S256: its metadata
	// has no code_challenge_methods_supported, and its authorization
	// endpoint refuses a code_challenge_method of S256 with
	// invalid_request, as RFC 7636 §4.4.1 has a server refuse a method it
	// does not support (so no sign-in succeeds there).
	NoPKCE bool
	// Metadata, when set, rewrites the metadata document (the same at
	// every well-known URL) before it is served, e.g. to leave out
	// code_challenge_methods_supported as Microsoft Entra ID and Amazon
	// Cognito do.
	Metadata func(doc map[string]any)
}

// New starts an authorization server, stopped by t.Cleanup. Its issuer is
// http://127.0.0.1:PORT followed by opts.Path.
func New(t testing.TB, opts Options) *Server {
	t.Helper()
	s, err := newServer(opts)
	if err != nil {
		t.Fatalf("oauthtest: %v", err)
	}
	s.srv.Start()
	t.Cleanup(s.srv.Close)
	return s
}

// newServer builds a Server whose httptest.Server is not started yet.
func newServer(opts Options) (*Server, error) {
	aud := opts.Audience
	if aud == "" {
		aud = DefaultAudience
	}
	path := strings.TrimRight(opts.Path, "/")
	if path != "" && !strings.HasPrefix(path, "/") {
		path = "/" + path
	}
	store, err := newStorage(aud)
	if err != nil {
		return nil, err
	}
	store.noPKCE = opts.NoPKCE
	s := &Server{path: path, store: store, requests: map[string]int{}, rewrite: opts.Metadata}
	s.srv = httptest.NewUnstartedServer(s)
	s.base = "http://" + s.srv.Listener.Addr().String()
	s.issuer = s.base + path

	var key [32]byte
	_, _ = rand.Read(key[:]) // crypto/rand.Read never fails
	config := &op.Config{
		CryptoKey:       key,
		CodeMethodS256:  !opts.NoPKCE,
		AuthMethodPost:  true,
		SupportedScopes: []string{oidc.ScopeOpenID, oidc.ScopeProfile, oidc.ScopeEmail},
	}
	s.provider, err = op.NewProvider(config, store, op.StaticIssuer(s.issuer),
		op.WithAllowInsecure(),
		op.WithCustomTokenEndpoint(op.NewEndpoint("token")),
		op.WithCustomIntrospectionEndpoint(op.NewEndpoint("introspect")),
		op.WithCrypto(colonSafeCrypto{op.NewAES256GCMCrypto(key, "oauthtest")}),
	)
	if err != nil {
		s.srv.Listener.Close()
		return nil, fmt.Errorf("new provider: %w", err)
	}
	s.introID, s.introSecret = "oauthtest-introspector", randomID()
	store.addClient(&client{id: s.introID, secret: s.introSecret, kind: kindIntrospector})
	return s, nil
}

// Issuer returns the exact issuer URL, as in the metadata and tokens' iss.
func (s *Server) Issuer() string { return s.issuer }

// URL returns the server's base URL (scheme and host, without the issuer path).
func (s *Server) URL() string { return s.base }

// AuthorizationEndpoint returns the URL of the authorization endpoint.
func (s *Server) AuthorizationEndpoint() string {
	return s.provider.AuthorizationEndpoint().Absolute(s.issuer)
}

// TokenEndpoint returns the URL of the token endpoint.
func (s *Server) TokenEndpoint() string { return s.provider.TokenEndpoint().Absolute(s.issuer) }

// IntrospectionEndpoint returns the URL of the RFC 7662 introspection endpoint.
func (s *Server) IntrospectionEndpoint() string {
	return s.provider.IntrospectionEndpoint().Absolute(s.issuer)
}

// JWKSURI returns the URL of the JSON Web Key Set.
func (s *Server) JWKSURI() string { return s.provider.KeysEndpoint().Absolute(s.issuer) }

// MetadataURL returns the URL of the RFC 8414 metadata
// (/.well-known/oauth-authorization-server, with the issuer path after it).
func (s *Server) MetadataURL() string {
	return s.base + oidc.AuthorizationServerMetadataEndpoint + s.path
}

// ServeHTTP counts the request and routes it: metadata to the op's discovery
// handler, the login page to the server, the rest under the issuer path to the op.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	s.count(p)
	switch {
	case s.isMetadataPath(p) && s.rewrite != nil:
		s.serveRewritten(w, r)
	case s.isMetadataPath(p):
		s.forward(w, r, oidc.DiscoveryEndpoint)
	case p == s.path+loginPath:
		s.serveLogin(w, r)
	case s.path == "":
		s.forward(w, r, p)
	case strings.HasPrefix(p, s.path+"/"):
		s.forward(w, r, strings.TrimPrefix(p, s.path))
	default:
		http.NotFound(w, r)
	}
}

// serveRewritten serves the op's metadata document after Options.Metadata
// rewrote it.
func (s *Server) serveRewritten(w http.ResponseWriter, r *http.Request) {
	rec := httptest.NewRecorder()
	s.forward(rec, r, oidc.DiscoveryEndpoint)
	var doc map[string]any
	if rec.Code != http.StatusOK || json.Unmarshal(rec.Body.Bytes(), &doc) != nil {
		http.Error(w, "oauthtest: the op's metadata could not be read", http.StatusInternalServerError)
		return
	}
	s.rewrite(doc)
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(doc)
}

// isMetadataPath reports whether p is one of the well-known URLs of the
// issuer's metadata: RFC 8414 (path inserted), OpenID Connect Discovery with
// the path inserted (RFC 8414 section 5) or appended.
func (s *Server) isMetadataPath(p string) bool {
	return p == oidc.AuthorizationServerMetadataEndpoint+s.path ||
		p == oidc.DiscoveryEndpoint+s.path ||
		p == s.path+oidc.DiscoveryEndpoint
}

// forward serves r on the op as if its path were opPath, after putting on
// its context the parameters the op does not hand its storage.
func (s *Server) forward(w http.ResponseWriter, r *http.Request, opPath string) {
	var params reqParams
	if err := r.ParseForm(); err == nil {
		params.resources = r.Form["resource"]
		if id := r.PostForm.Get(ticketParam); id != "" {
			req, ok := s.store.takeTicket(id)
			if !ok {
				http.Error(w, "unknown "+ticketParam, http.StatusBadRequest)
				return
			}
			params.ticket = &req
		}
	}
	r2 := r.WithContext(context.WithValue(r.Context(), ctxKey{}, params))
	u := *r.URL
	u.Path, u.RawPath = opPath, ""
	r2.URL = &u
	s.provider.ServeHTTP(w, r2)
}

// count records a request to p, and to p relative to the issuer path.
func (s *Server) count(p string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests[p]++
	if rel, ok := strings.CutPrefix(p, s.path); ok && s.path != "" && strings.HasPrefix(rel, "/") {
		s.requests[rel]++
	}
}

// Requests counts HTTP requests to a path, e.g. s.Requests("/keys") to assert
// JWKS refetches. The path is the request's URL path or, for requests under
// the issuer path, that path relative to the issuer (both "/oauth/keys" and
// "/keys" count JWKS fetches with Path "/oauth").
func (s *Server) Requests(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests[path]
}

// RotateKey makes the server sign new tokens with a new RSA key under a new
// kid, published in its JWKS. The old keys stay published unless dropOld.
// It panics if no key can be generated.
func (s *Server) RotateKey(dropOld bool) {
	key, err := newSigningKey()
	if err != nil {
		panic(fmt.Sprintf("oauthtest: %v", err))
	}
	s.store.rotate(key, dropOld)
}

// KeyID returns the kid of the key that signs new tokens.
func (s *Server) KeyID() string { return s.store.currentKey().id }

// Introspector returns the credentials of the client allowed to call the
// introspection endpoint (client_secret_basic, or client_secret_post).
func (s *Server) Introspector() (clientID, clientSecret string) {
	return s.introID, s.introSecret
}

// WebClient registers a confidential client for the authorization code flow
// with PKCE and the given redirect URI; it returns its credentials, for
// client_secret_basic (or client_secret_post) at the token endpoint. Its
// access tokens are JWTs.
func (s *Server) WebClient(redirectURI string) (clientID, clientSecret string) {
	c := s.webClient(redirectURI, false)
	return c.id, c.secret
}

// PublicClient registers a public client (token_endpoint_auth_method
// "none") for the authorization code flow with PKCE and the given redirect
// URI, as a native MCP client would be; it returns its client ID.
func (s *Server) PublicClient(redirectURI string) (clientID string) {
	return s.webClient(redirectURI, true).id
}

// webClient registers an authorization code client.
func (s *Server) webClient(redirectURI string, public bool) *client {
	s.mu.Lock()
	s.nextWeb++
	n := s.nextWeb
	s.mu.Unlock()
	c := &client{
		id:           fmt.Sprintf("oauthtest-web-%d", n),
		kind:         kindWeb,
		public:       public,
		redirectURIs: []string{redirectURI},
		loginURL:     s.issuer + loginPath,
		tokenType:    op.AccessTokenTypeJWT,
	}
	if !public {
		c.secret = randomID()
	}
	s.store.addClient(c)
	return c
}

// User is a person who can sign in on the server's login page.
type User struct {
	// Username and Password are what the login form asks for.
	Username, Password string
	// Subject is the sub of the user's tokens (default Username).
	Subject string
	// Email and Name are the ID token's email (with scope email) and name
	// (with scope profile).
	Email, Name string
}

// AddUser registers u, replacing any user with its username. It panics if
// u has no Username.
func (s *Server) AddUser(u User) {
	if u.Username == "" {
		panic("oauthtest: AddUser needs a Username")
	}
	if u.Subject == "" {
		u.Subject = u.Username
	}
	s.store.addUser(u)
}

// TokenRequest describes an access token for Server.Token.
type TokenRequest struct {
	// Subject is the token's sub (required). Each distinct subject is its own
	// client_credentials client, whose client ID is the subject, so the
	// token's client_id is the subject too.
	Subject string
	// Scopes are the granted scopes: the token's "scope" claim (a
	// space-separated string, RFC 9068) and introspection's "scope".
	Scopes []string
	// Audience is the aud; default Options.Audience.
	Audience []string
	// Opaque asks for an opaque access token (to be introspected) instead of a JWT.
	Opaque bool
	// Lifetime is the time to expiry (default 1h). A negative one gives a
	// token that has already expired (exp before iat), to test rejection
	// without waiting.
	Lifetime time.Duration
	// Claims are extra claims put in the JWT and the introspection response
	// (e.g. "email"). They cannot replace the registered claims the op sets
	// (iss, sub, aud, exp, iat, nbf, jti, client_id) nor "scope".
	Claims map[string]any
	// Type, when set, is the JWT's typ header (e.g. "at+jwt" or
	// "id_token+jwt"), or NoType for none: the op's token, typed "JWT",
	// is signed again with the same key and claims under that header.
	// Not for opaque tokens.
	Type string
}

// NoType is the TokenRequest.Type of a JWT without a typ header.
const NoType = "(none)"

// Token gets an access token for req from the server with a real
// client_credentials grant over HTTP, failing t on error.
//
// On the wire it POSTs to the token endpoint, authenticated with
// client_secret_basic as the subject's client: grant_type=client_credentials,
// scope (the Scopes, space-separated), one RFC 8707 resource per Audience,
// and oauthtest_ticket, which names the Lifetime, Claims and Opaque the
// server keeps for that one grant.
func (s *Server) Token(t testing.TB, req TokenRequest) string {
	t.Helper()
	tok, err := s.token(req)
	if err != nil {
		t.Fatalf("oauthtest: token for %q: %v", req.Subject, err)
	}
	return tok
}

// token does the work of Token.
func (s *Server) token(req TokenRequest) (string, error) {
	if req.Subject == "" {
		return "", errors.New("a TokenRequest needs a Subject")
	}
	c, err := s.store.serviceClient(req.Subject)
	if err != nil {
		return "", err
	}
	form := url.Values{
		"grant_type": {string(oidc.GrantTypeClientCredentials)},
		ticketParam:  {s.store.addTicket(req)},
	}
	if len(req.Scopes) > 0 {
		form.Set("scope", strings.Join(req.Scopes, " "))
	}
	for _, aud := range req.Audience {
		form.Add("resource", aud)
	}
	hr, err := http.NewRequest(http.MethodPost, s.TokenEndpoint(), strings.NewReader(form.Encode()))
	if err != nil {
		return "", fmt.Errorf("token request: %w", err)
	}
	hr.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	hr.SetBasicAuth(url.QueryEscape(c.id), url.QueryEscape(c.secret))
	resp, err := s.srv.Client().Do(hr)
	if err != nil {
		return "", fmt.Errorf("token request: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return "", fmt.Errorf("read token response: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("token endpoint answered %s: %s", resp.Status, body)
	}
	var tr oidc.AccessTokenResponse
	if err := json.Unmarshal(body, &tr); err != nil {
		return "", fmt.Errorf("decode token response: %w", err)
	}
	if tr.AccessToken == "" {
		return "", fmt.Errorf("token response has no access_token: %s", body)
	}
	if req.Type != "" && !req.Opaque {
		return s.retype(tr.AccessToken, req.Type)
	}
	return tr.AccessToken, nil
}

// retype signs the claims of the op's JWT again, with the key that signed
// it, under the typ header typ (none for NoType).
func (s *Server) retype(token, typ string) (string, error) {
	jws, err := jose.ParseSigned(token, []jose.SignatureAlgorithm{jose.RS256})
	if err != nil {
		return "", fmt.Errorf("retype: the op's token is not a JWS: %w", err)
	}
	key, ok := s.store.keyByID(jws.Signatures[0].Header.KeyID)
	if !ok {
		return "", errors.New("retype: the key that signed the op's token is gone")
	}
	opts := &jose.SignerOptions{}
	if typ != NoType {
		opts = opts.WithType(jose.ContentType(typ))
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: jose.JSONWebKey{Key: key.key, KeyID: key.id}}, opts)
	if err != nil {
		return "", fmt.Errorf("retype: %w", err)
	}
	signed, err := signer.Sign(jws.UnsafePayloadWithoutVerification())
	if err != nil {
		return "", fmt.Errorf("retype: %w", err)
	}
	return signed.CompactSerialize()
}

// Revoke makes an access token inactive at introspection, as if it had been
// revoked. A JWT stays valid to anyone who checks only its signature.
func (s *Server) Revoke(t testing.TB, token string) {
	t.Helper()
	id, err := s.tokenID(token)
	if err != nil {
		t.Fatalf("oauthtest: revoke: %v", err)
	}
	s.store.revoke(id)
}

// tokenID returns the ID under which the server stores an access token: the
// packed ID of an opaque token or the jti of a JWT (read without checking
// the signature).
func (s *Server) tokenID(token string) (string, error) {
	if v, err := s.provider.Crypto().Decrypt(token); err == nil {
		id, _, _ := strings.Cut(v, ":")
		return id, nil
	}
	jws, err := jose.ParseSigned(token, []jose.SignatureAlgorithm{jose.RS256})
	if err != nil {
		return "", fmt.Errorf("neither an opaque token nor a JWT of this server: %w", err)
	}
	var claims struct {
		ID string `json:"jti"`
	}
	if err := json.Unmarshal(jws.UnsafePayloadWithoutVerification(), &claims); err != nil || claims.ID == "" {
		return "", errors.New("jwt has no jti")
	}
	return claims.ID, nil
}
