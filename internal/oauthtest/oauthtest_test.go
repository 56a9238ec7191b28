package oauthtest

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"golang.org/x/oauth2"
)

// accessClaims are the claims of a JWT access token beyond the registered ones.
type accessClaims struct {
	Scope    string `json:"scope"`
	ClientID string `json:"client_id"`
	Email    string `json:"email"`
	Team     string `json:"team"`
}

// getJSON GETs u and decodes its JSON body into v.
func getJSON(t *testing.T, u string, v any) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("GET %s: %s: %s", u, resp.Status, b)
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
}

// verifyJWT checks the signature of token against the server's JWKS and
// returns its claims and kid.
func verifyJWT(t *testing.T, s *Server, token string) (jwt.Claims, accessClaims, string) {
	t.Helper()
	var set jose.JSONWebKeySet
	getJSON(t, s.JWKSURI(), &set)
	tok, err := jwt.ParseSigned(token, []jose.SignatureAlgorithm{jose.RS256})
	if err != nil {
		t.Fatalf("parse access token: %v", err)
	}
	kid := tok.Headers[0].KeyID
	keys := set.Key(kid)
	if kid == "" || len(keys) != 1 {
		t.Fatalf("kid %q: %d keys in the JWKS", kid, len(keys))
	}
	var std jwt.Claims
	var extra accessClaims
	if err := tok.Claims(keys[0].Key, &std, &extra); err != nil {
		t.Fatalf("verify access token: %v", err)
	}
	return std, extra, kid
}

// introspect asks the introspection endpoint about token as the introspector.
func introspect(t *testing.T, s *Server, token string) map[string]any {
	t.Helper()
	id, secret := s.Introspector()
	req, err := http.NewRequest(http.MethodPost, s.IntrospectionEndpoint(), strings.NewReader(url.Values{"token": {token}}.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth(id, secret)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("introspect: %s: %s", resp.Status, b)
	}
	var m map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestMetadata(t *testing.T) {
	t.Parallel()
	for _, path := range []string{"", "/oauth"} {
		t.Run("path="+path, func(t *testing.T) {
			t.Parallel()
			s := New(t, Options{Path: path})
			if want := s.URL() + path; s.Issuer() != want {
				t.Fatalf("Issuer() = %q, want %q", s.Issuer(), want)
			}
			meta, err := auth.GetAuthServerMetadata(context.Background(), s.Issuer(), nil)
			if err != nil || meta == nil {
				t.Fatalf("GetAuthServerMetadata: %v, %v", meta, err)
			}
			if meta.Issuer != s.Issuer() {
				t.Errorf("issuer %q, want %q", meta.Issuer, s.Issuer())
			}
			for name, got := range map[string]string{
				"authorization_endpoint": meta.AuthorizationEndpoint,
				"token_endpoint":         meta.TokenEndpoint,
				"jwks_uri":               meta.JWKSURI,
				"introspection_endpoint": meta.IntrospectionEndpoint,
			} {
				if !strings.HasPrefix(got, s.Issuer()+"/") {
					t.Errorf("%s = %q, not under the issuer", name, got)
				}
			}
			if meta.JWKSURI != s.JWKSURI() || meta.TokenEndpoint != s.TokenEndpoint() {
				t.Errorf("jwks_uri %q, token_endpoint %q", meta.JWKSURI, meta.TokenEndpoint)
			}
			if !slices.Contains(meta.CodeChallengeMethodsSupported, "S256") {
				t.Errorf("code_challenge_methods_supported = %v", meta.CodeChallengeMethodsSupported)
			}
			if n := s.Requests("/.well-known/oauth-authorization-server" + path); n != 1 {
				t.Errorf("%d requests for the RFC 8414 metadata, want 1", n)
			}
			// OpenID Connect Discovery, path appended and inserted.
			for _, u := range []string{
				s.Issuer() + "/.well-known/openid-configuration",
				s.URL() + "/.well-known/openid-configuration" + path,
			} {
				var oidcMeta struct {
					Issuer string `json:"issuer"`
				}
				getJSON(t, u, &oidcMeta)
				if oidcMeta.Issuer != s.Issuer() {
					t.Errorf("%s: issuer %q", u, oidcMeta.Issuer)
				}
			}
		})
	}
}

func TestJWTToken(t *testing.T) {
	t.Parallel()
	s := New(t, Options{Path: "/oauth"})
	tok := s.Token(t, TokenRequest{
		Subject: "svc-1",
		Scopes:  []string{"mcp:read", "mcp:write"},
		Claims:  map[string]any{"email": "svc@example.com", "team": "blue", "sub": "ignored"},
	})
	std, extra, kid := verifyJWT(t, s, tok)
	if kid != s.KeyID() {
		t.Errorf("kid %q, want %q", kid, s.KeyID())
	}
	err := std.ValidateWithLeeway(jwt.Expected{
		Issuer:      s.Issuer(),
		Subject:     "svc-1",
		AnyAudience: jwt.Audience{DefaultAudience},
		Time:        time.Now(),
	}, 0)
	if err != nil {
		t.Errorf("claims %+v: %v", std, err)
	}
	if life := std.Expiry.Time().Sub(std.IssuedAt.Time()); life != time.Hour {
		t.Errorf("lifetime %v, want 1h", life)
	}
	if extra.Scope != "mcp:read mcp:write" || extra.ClientID != "svc-1" || extra.Email != "svc@example.com" || extra.Team != "blue" {
		t.Errorf("claims %+v", extra)
	}
	if s.Requests("/keys") != 1 || s.Requests("/oauth/keys") != 1 {
		t.Errorf("JWKS requests: %d, %d", s.Requests("/keys"), s.Requests("/oauth/keys"))
	}

	// Another audience, and an expired token.
	tok = s.Token(t, TokenRequest{Subject: "svc-1", Audience: []string{"https://other.test/mcp"}, Lifetime: -time.Minute})
	std, extra, _ = verifyJWT(t, s, tok)
	if !std.Audience.Contains("https://other.test/mcp") || len(std.Audience) != 1 || extra.Scope != "" {
		t.Errorf("aud %v, scope %q", std.Audience, extra.Scope)
	}
	err = std.ValidateWithLeeway(jwt.Expected{Issuer: s.Issuer(), Time: time.Now()}, 0)
	if !errors.Is(err, jwt.ErrExpired) {
		t.Errorf("expired token validates with %v", err)
	}
}

func TestIntrospection(t *testing.T) {
	t.Parallel()
	s := New(t, Options{Audience: "https://rs.test/mcp"})
	opaque := s.Token(t, TokenRequest{
		Subject: "urn:svc:2",
		Scopes:  []string{"tools"},
		Opaque:  true,
		Claims:  map[string]any{"email": "two@example.com"},
	})
	if strings.Count(opaque, ".") == 2 {
		t.Fatalf("opaque token looks like a JWT: %s", opaque)
	}
	m := introspect(t, s, opaque)
	want := map[string]any{
		"active": true, "sub": "urn:svc:2", "scope": "tools", "client_id": "urn:svc:2",
		"iss": s.Issuer(), "email": "two@example.com",
	}
	for k, v := range want {
		if m[k] != v {
			t.Errorf("introspection %s = %v, want %v (%v)", k, m[k], v, m)
		}
	}
	if aud, _ := m["aud"].([]any); len(aud) != 1 || aud[0] != "https://rs.test/mcp" {
		t.Errorf("introspection aud = %v", m["aud"])
	}
	if exp, _ := m["exp"].(float64); time.Until(time.Unix(int64(exp), 0)) < 59*time.Minute {
		t.Errorf("introspection exp = %v", m["exp"])
	}

	// JWTs introspect too.
	if m := introspect(t, s, s.Token(t, TokenRequest{Subject: "svc-3"})); m["active"] != true || m["sub"] != "svc-3" {
		t.Errorf("JWT introspection = %v", m)
	}
	inactive := map[string]string{
		"garbage": "not-a-token",
		"expired": s.Token(t, TokenRequest{Subject: "svc-3", Opaque: true, Lifetime: -time.Second}),
	}
	revoked := s.Token(t, TokenRequest{Subject: "svc-3", Opaque: true})
	s.Revoke(t, revoked)
	inactive["revoked"] = revoked
	for name, tok := range inactive {
		if m := introspect(t, s, tok); m["active"] != false || len(m) != 1 {
			t.Errorf("%s token introspection = %v", name, m)
		}
	}

	// Without client credentials the endpoint refuses.
	resp, err := http.PostForm(s.IntrospectionEndpoint(), url.Values{"token": {opaque}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("introspection without credentials: %s", resp.Status)
	}
}

func TestRotateKey(t *testing.T) {
	t.Parallel()
	s := New(t, Options{})
	_, _, kid1 := verifyJWT(t, s, s.Token(t, TokenRequest{Subject: "a"}))
	s.RotateKey(false)
	_, _, kid2 := verifyJWT(t, s, s.Token(t, TokenRequest{Subject: "a"}))
	if kid1 == kid2 || kid2 != s.KeyID() {
		t.Fatalf("kids %q then %q, KeyID %q", kid1, kid2, s.KeyID())
	}
	var set jose.JSONWebKeySet
	getJSON(t, s.JWKSURI(), &set)
	if len(set.Keys) != 2 || len(set.Key(kid1)) != 1 {
		t.Errorf("JWKS after rotation keeps %d keys", len(set.Keys))
	}
	s.RotateKey(true)
	getJSON(t, s.JWKSURI(), &set)
	if len(set.Keys) != 1 || set.Keys[0].KeyID != s.KeyID() || s.KeyID() == kid2 {
		t.Errorf("JWKS after rotation dropping old keys: %v", set.Keys)
	}
	if n := s.Requests("/keys"); n != 4 {
		t.Errorf("%d JWKS requests, want 4", n)
	}
}

// codeFlow is an oauth2 config for a client of s, and a PKCE verifier.
func codeFlow(s *Server, id, secret, redirect string) (*oauth2.Config, string) {
	return &oauth2.Config{
		ClientID:     id,
		ClientSecret: secret,
		Endpoint: oauth2.Endpoint{
			AuthURL:  s.AuthorizationEndpoint(),
			TokenURL: s.TokenEndpoint(),
		},
		RedirectURL: redirect,
		Scopes:      []string{"openid", "email", "profile", "mcp:tools"},
	}, oauth2.GenerateVerifier()
}

func TestLogin(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := New(t, Options{Path: "/oauth"})
	alice := User{Username: "alice", Password: "wonderland", Subject: "user-alice", Email: "alice@example.com", Name: "Alice"}
	s.AddUser(alice)
	const redirect = "http://127.0.0.1:1/callback"
	id, secret := s.WebClient(redirect)
	cfg, verifier := codeFlow(s, id, secret, redirect)

	back := s.Login(t, cfg.AuthCodeURL("st4te", oauth2.S256ChallengeOption(verifier)), alice)
	if got := back.Scheme + "://" + back.Host + back.Path; got != redirect {
		t.Fatalf("redirected to %s", back)
	}
	code := back.Query().Get("code")
	if code == "" || back.Query().Get("state") != "st4te" {
		t.Fatalf("redirect %s lacks code or state", back)
	}
	if _, err := cfg.Exchange(ctx, code, oauth2.VerifierOption("wrong"+verifier)); err == nil {
		t.Error("code exchanged with a wrong verifier")
	}
	tok, err := cfg.Exchange(ctx, code, oauth2.VerifierOption(verifier))
	if err != nil {
		t.Fatalf("exchange: %v", err)
	}
	if _, err := cfg.Exchange(ctx, code, oauth2.VerifierOption(verifier)); err == nil {
		t.Error("code exchanged twice")
	}

	provider, err := oidc.NewProvider(ctx, s.Issuer())
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := tok.Extra("id_token").(string)
	idToken, err := provider.Verifier(&oidc.Config{ClientID: id}).Verify(ctx, raw)
	if err != nil {
		t.Fatalf("verify ID token: %v", err)
	}
	var claims struct {
		Email string `json:"email"`
		Name  string `json:"name"`
	}
	if err := idToken.Claims(&claims); err != nil {
		t.Fatal(err)
	}
	if idToken.Subject != alice.Subject || claims.Email != alice.Email || claims.Name != alice.Name {
		t.Errorf("ID token sub %q, claims %+v", idToken.Subject, claims)
	}

	std, extra, _ := verifyJWT(t, s, tok.AccessToken)
	if std.Subject != alice.Subject || !std.Audience.Contains(DefaultAudience) || extra.ClientID != id ||
		extra.Scope != "openid email profile mcp:tools" || extra.Email != alice.Email {
		t.Errorf("access token %+v %+v", std, extra)
	}

	// An RFC 8707 resource names the access token's audience.
	back = s.Login(t, cfg.AuthCodeURL("s2", oauth2.S256ChallengeOption(verifier),
		oauth2.SetAuthURLParam("resource", "https://rs.test/mcp")), alice)
	tok, err = cfg.Exchange(ctx, back.Query().Get("code"), oauth2.VerifierOption(verifier))
	if err != nil {
		t.Fatalf("exchange: %v", err)
	}
	if std, _, _ := verifyJWT(t, s, tok.AccessToken); len(std.Audience) != 1 || std.Audience[0] != "https://rs.test/mcp" {
		t.Errorf("access token aud %v", std.Audience)
	}
}

func TestLoginFailures(t *testing.T) {
	t.Parallel()
	s := New(t, Options{})
	bob := User{Username: "bob", Password: "builder"}
	s.AddUser(bob)
	const redirect = "http://127.0.0.1:1/cb"
	cfg, verifier := codeFlow(s, s.PublicClient(redirect), "", redirect)

	if _, err := s.TryLogin(cfg.AuthCodeURL("x", oauth2.S256ChallengeOption(verifier)), User{Username: "bob", Password: "nope"}); err == nil ||
		!strings.Contains(err.Error(), "401") {
		t.Errorf("wrong password: %v", err)
	}
	back, err := s.TryLogin(cfg.AuthCodeURL("x"), bob)
	if err != nil || back.Query().Get("error") != "invalid_request" {
		t.Errorf("login without PKCE: %v, %v", back, err)
	}

	// A public client exchanges its code with the verifier alone.
	back = s.Login(t, cfg.AuthCodeURL("x", oauth2.S256ChallengeOption(verifier)), bob)
	cfg.Endpoint.AuthStyle = oauth2.AuthStyleInParams
	tok, err := cfg.Exchange(context.Background(), back.Query().Get("code"), oauth2.VerifierOption(verifier))
	if err != nil {
		t.Fatalf("public client exchange: %v", err)
	}
	if std, _, _ := verifyJWT(t, s, tok.AccessToken); std.Subject != "bob" {
		t.Errorf("access token sub %q", std.Subject)
	}
}
