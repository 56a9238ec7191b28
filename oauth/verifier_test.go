package oauth_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/flowserve/flowserve/internal/oauthtest"
	"github.com/flowserve/flowserve/oauth"
)

const audience = "https://mcp.test/mcp"

// newVerifier returns a Verifier of as's tokens for audience, with the
// clock now.
func newVerifier(t *testing.T, as *oauthtest.Server, intro bool, now func() time.Time) *oauth.Verifier {
	t.Helper()
	cfg := oauth.Config{Issuer: as.Issuer(), Audience: audience, Now: now}
	if intro {
		id, secret := as.Introspector()
		cfg.Introspection = &oauth.Introspection{ClientID: id, ClientSecret: secret}
	}
	v, err := oauth.NewVerifier(context.Background(), cfg)
	if err != nil {
		t.Fatalf("NewVerifier: %v", err)
	}
	return v
}

// reasonOf returns the reason of a refusal, or "" for another error.
func reasonOf(err error) oauth.Reason {
	var te *oauth.TokenError
	if errors.As(err, &te) {
		return te.Reason
	}
	return ""
}

func TestVerifyTokens(t *testing.T) {
	as := oauthtest.New(t, oauthtest.Options{Audience: audience})
	other := oauthtest.New(t, oauthtest.Options{Audience: audience})
	later := func() time.Time { return time.Now().Add(2 * time.Hour) }
	earlier := func() time.Time { return time.Now().Add(-2 * time.Hour) }
	tests := []struct {
		name   string
		token  func(t *testing.T) string
		intro  bool
		now    func() time.Time
		reason oauth.Reason // "" means accepted
	}{
		{name: "valid JWT", token: func(t *testing.T) string {
			return as.Token(t, oauthtest.TokenRequest{Subject: "alice", Scopes: []string{"deploy:write", "deploy:read"}})
		}},
		{name: "expired JWT", now: later, reason: oauth.ReasonExpired, token: func(t *testing.T) string {
			return as.Token(t, oauthtest.TokenRequest{Subject: "alice"})
		}},
		{name: "JWT expired by the issuer", reason: oauth.ReasonExpired, token: func(t *testing.T) string {
			return as.Token(t, oauthtest.TokenRequest{Subject: "alice", Lifetime: -time.Minute})
		}},
		{name: "JWT not yet valid", now: earlier, reason: oauth.ReasonNotYetValid, token: func(t *testing.T) string {
			return as.Token(t, oauthtest.TokenRequest{Subject: "alice"})
		}},
		{name: "JWT for another audience", reason: oauth.ReasonAudience, token: func(t *testing.T) string {
			return as.Token(t, oauthtest.TokenRequest{Subject: "alice", Audience: []string{"https://other.test/mcp"}})
		}},
		{name: "JWT of another issuer", reason: oauth.ReasonUnknownKey, token: func(t *testing.T) string {
			return other.Token(t, oauthtest.TokenRequest{Subject: "alice"})
		}},
		{name: "garbage", reason: oauth.ReasonOpaque, token: func(*testing.T) string { return "not-a-token-at-all" }},
		{name: "JWT-shaped garbage", reason: oauth.ReasonMalformed, token: func(*testing.T) string { return "a.b.c" }},
		{name: "opaque token without introspection", reason: oauth.ReasonOpaque, token: func(t *testing.T) string {
			return as.Token(t, oauthtest.TokenRequest{Subject: "alice", Opaque: true})
		}},
		{name: "opaque token, introspected", intro: true, token: func(t *testing.T) string {
			return as.Token(t, oauthtest.TokenRequest{Subject: "alice", Opaque: true, Scopes: []string{"deploy:write", "deploy:read"}})
		}},
		{name: "revoked opaque token", intro: true, reason: oauth.ReasonInactive, token: func(t *testing.T) string {
			tok := as.Token(t, oauthtest.TokenRequest{Subject: "alice", Opaque: true})
			as.Revoke(t, tok)
			return tok
		}},
		{name: "opaque token for another audience", intro: true, reason: oauth.ReasonAudience, token: func(t *testing.T) string {
			return as.Token(t, oauthtest.TokenRequest{Subject: "alice", Opaque: true, Audience: []string{"https://other.test/mcp"}})
		}},
		{name: "garbage, introspected", intro: true, reason: oauth.ReasonInactive, token: func(*testing.T) string { return "not-a-token-at-all" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			now := tt.now
			if now == nil {
				now = time.Now
			}
			v := newVerifier(t, as, tt.intro, now)
			p, err := v.Verify(context.Background(), tt.token(t))
			if tt.reason != "" {
				if got := reasonOf(err); got != tt.reason || !errors.Is(err, oauth.ErrInvalidToken) {
					t.Fatalf("Verify: %v (reason %q), want reason %q", err, got, tt.reason)
				}
				return
			}
			if err != nil {
				t.Fatalf("Verify: %v", err)
			}
			if p.Subject != "alice" || !slices.Equal(p.Scopes, []string{"deploy:write", "deploy:read"}) || p.Expiry.Before(time.Now()) {
				t.Errorf("principal %+v", p)
			}
			if missing := p.Missing([]string{"deploy:write", "admin"}); !slices.Equal(missing, []string{"admin"}) {
				t.Errorf("Missing = %v, want [admin]", missing)
			}
		})
	}
}

// TestKeyRotation: a token signed with a key the verifier has not seen
// makes it fetch the key set again, once; tokens with a key the issuer
// does not publish do not make it fetch again and again.
func TestKeyRotation(t *testing.T) {
	as := oauthtest.New(t, oauthtest.Options{Audience: audience})
	var skip atomic.Int64 // how far the verifier's clock is ahead
	now := func() time.Time { return time.Now().Add(time.Duration(skip.Load())) }
	v := newVerifier(t, as, false, now)
	ctx := context.Background()
	if _, err := v.Verify(ctx, as.Token(t, oauthtest.TokenRequest{Subject: "alice"})); err != nil {
		t.Fatal(err)
	}
	jwks := as.Requests(pathOf(t, as.JWKSURI()))
	as.RotateKey(true)
	// Within MinKeyRefresh of the first fetch, the set is not fetched
	// again: the new key is not known yet.
	if _, err := v.Verify(ctx, as.Token(t, oauthtest.TokenRequest{Subject: "alice"})); reasonOf(err) != oauth.ReasonUnknownKey {
		t.Fatalf("right after rotation: %v, want unknown key", err)
	}
	skip.Store(int64(oauth.MinKeyRefresh + time.Second))
	if _, err := v.Verify(ctx, as.Token(t, oauthtest.TokenRequest{Subject: "alice"})); err != nil {
		t.Fatalf("after rotation: %v", err)
	}
	if got := as.Requests(pathOf(t, as.JWKSURI())); got != jwks+1 {
		t.Fatalf("the key set was fetched %d times after the rotation, want 1", got-jwks)
	}
	other := oauthtest.New(t, oauthtest.Options{Audience: audience})
	for range 5 {
		_, err := v.Verify(ctx, other.Token(t, oauthtest.TokenRequest{Subject: "mallory"}))
		if reasonOf(err) != oauth.ReasonUnknownKey {
			t.Fatalf("a token of another issuer: %v", err)
		}
	}
	if got := as.Requests(pathOf(t, as.JWKSURI())); got != jwks+1 {
		t.Errorf("tokens with unknown keys fetched the key set %d more times, want none (MinKeyRefresh)", got-jwks-1)
	}
}

func pathOf(t *testing.T, u string) string {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	return req.URL.Path
}

// TestUnavailable: an issuer whose key set cannot be fetched makes
// Verify fail with ErrUnavailable, not refuse the token.
func TestUnavailable(t *testing.T) {
	as := oauthtest.New(t, oauthtest.Options{Audience: audience})
	token := as.Token(t, oauthtest.TokenRequest{Subject: "alice"})
	// A client that reaches the metadata, then nothing.
	client := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		if r.URL.Path == pathOf(t, as.JWKSURI()) {
			return nil, errors.New("connection refused")
		}
		return http.DefaultTransport.RoundTrip(r)
	})}
	v, err := oauth.NewVerifier(context.Background(), oauth.Config{Issuer: as.Issuer(), Audience: audience, Client: client})
	if err != nil {
		t.Fatal(err)
	}
	_, err = v.Verify(context.Background(), token)
	if !errors.Is(err, oauth.ErrUnavailable) || errors.Is(err, oauth.ErrInvalidToken) {
		t.Fatalf("Verify: %v, want ErrUnavailable", err)
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestNewVerifierErrors(t *testing.T) {
	as := oauthtest.New(t, oauthtest.Options{Audience: audience})
	dead := httptest.NewServer(http.NotFoundHandler())
	defer dead.Close()
	tests := []struct {
		name string
		cfg  oauth.Config
	}{
		{"no issuer", oauth.Config{Audience: audience}},
		{"no audience", oauth.Config{Issuer: as.Issuer()}},
		{"not a URL", oauth.Config{Issuer: "issuer", Audience: audience}},
		{"no metadata", oauth.Config{Issuer: dead.URL, Audience: audience}},
		{"another issuer's metadata", oauth.Config{Issuer: as.Issuer() + "/other", Audience: audience}},
		{"introspection without a client id", oauth.Config{Issuer: as.Issuer(), Audience: audience, Introspection: &oauth.Introspection{}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := oauth.NewVerifier(context.Background(), tt.cfg); err == nil {
				t.Error("NewVerifier accepted it")
			}
		})
	}
}

func TestChallenge(t *testing.T) {
	tests := []struct {
		ch   oauth.Challenge
		want string
	}{
		{oauth.Challenge{}, `Bearer realm="flowserve"`},
		{oauth.Challenge{ResourceMetadata: "https://mcp.test/.well-known/oauth-protected-resource/mcp"},
			`Bearer resource_metadata="https://mcp.test/.well-known/oauth-protected-resource/mcp"`},
		{oauth.Challenge{ResourceMetadata: "https://m/x", Scopes: []string{"a:b", "c"}, Error: oauth.ErrorInsufficientScope, Description: `needs "a:b" \ c`},
			`Bearer resource_metadata="https://m/x", scope="a:b c", error="insufficient_scope", error_description="needs  a:b    c"`},
	}
	for _, tt := range tests {
		if got := tt.ch.String(); got != tt.want {
			t.Errorf("%+v:\n got %s\nwant %s", tt.ch, got, tt.want)
		}
	}
	if got := oauth.MetadataURL("https://mcp.test/mcp"); got != "https://mcp.test/.well-known/oauth-protected-resource/mcp" {
		t.Errorf("MetadataURL = %s", got)
	}
	if got := oauth.MetadataURL("https://mcp.test"); got != "https://mcp.test/.well-known/oauth-protected-resource" {
		t.Errorf("MetadataURL of a root = %s", got)
	}
}
