package guard

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/flowserve/flowserve/metrics"
)

// addr is a local address for requests served without a listener.
type addr string

func (a addr) Network() string { return "tcp" }
func (a addr) String() string  { return string(a) }

const (
	alice = "alice-0123456789abcdef"
	bob   = "bob-0123456789abcdef"
)

// TestCheck: the Host, Origin and bearer token rules, in that order,
// with the status each refusal gets.
func TestCheck(t *testing.T) {
	tokens, err := ParseTokens([]byte("alice:" + alice + "\n" + bob + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	const loopback, public = "127.0.0.1:8787", "10.0.0.5:8787"
	proxied := Options{AllowedHosts: []string{"mcp.example.com", "*.example.org"}, AllowedOrigins: []string{"https://app.example.com/"}}
	tests := []struct {
		name   string
		opts   Options
		local  string
		host   string
		origin string
		auth   string
		status int // 0: let through
	}{
		{"loopback host", Options{}, loopback, "localhost:8787", "", "", 0},
		{"rebound host on loopback", Options{}, loopback, "evil.example", "", "", http.StatusForbidden},
		{"any host on a public address", Options{}, public, "whatever.example", "", "", 0},
		{"loopback origin on loopback", Options{}, loopback, "localhost", "http://localhost:6274", "", 0},
		{"loopback origin on a public address", Options{}, public, "10.0.0.5", "http://localhost:6274", "", http.StatusForbidden},
		{"null origin", Options{}, loopback, "localhost", "null", "", http.StatusForbidden},
		{"allowed host", proxied, public, "MCP.example.com:443", "", "", 0},
		{"allowed subdomain", proxied, public, "a.example.org", "", "", 0},
		{"bare domain of a wildcard", proxied, public, "example.org", "", "", http.StatusForbidden},
		{"host not allowed", proxied, public, "10.0.0.5:8787", "", "", http.StatusForbidden},
		{"allowed origin", proxied, public, "mcp.example.com", "https://app.example.com", "", 0},
		{"origin of an allowed host", proxied, public, "mcp.example.com", "https://mcp.example.com", "", 0},
		{"origin on another port", proxied, public, "mcp.example.com", "https://app.example.com:444", "", http.StatusForbidden},
		{"token", Options{Tokens: tokens}, loopback, "localhost", "", "Bearer " + alice, 0},
		{"token, scheme in any case", Options{Tokens: tokens}, loopback, "localhost", "", "bearer " + bob, 0},
		{"no token", Options{Tokens: tokens}, loopback, "localhost", "", "", http.StatusUnauthorized},
		{"wrong token", Options{Tokens: tokens}, loopback, "localhost", "", "Bearer " + alice + "x", http.StatusUnauthorized},
		{"host before token", Options{Tokens: tokens}, loopback, "evil.example", "", "", http.StatusForbidden},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := New(tc.opts, metrics.New())
			r := httptest.NewRequest(http.MethodPost, "http://"+tc.host+"/mcp", nil)
			r.Host = tc.host
			r = r.WithContext(context.WithValue(r.Context(), http.LocalAddrContextKey, net.Addr(addr(tc.local))))
			if tc.origin != "" {
				r.Header.Set("Origin", tc.origin)
			}
			if tc.auth != "" {
				r.Header.Set("Authorization", tc.auth)
			}
			w := httptest.NewRecorder()
			ok := g.Check(w, r)
			if ok != (tc.status == 0) || !ok && w.Code != tc.status {
				t.Errorf("let through %v, status %d (%s); want status %d", ok, w.Code, strings.TrimSpace(w.Body.String()), tc.status)
			}
			if tc.status == http.StatusUnauthorized && !strings.HasPrefix(w.Header().Get("WWW-Authenticate"), "Bearer") {
				t.Errorf("401 without a Bearer challenge: %q", w.Header().Get("WWW-Authenticate"))
			}
		})
	}
}

// TestPrincipal: a bearer token names its caller by a digest, the same
// for the same token, never the token; a named token's caller has its
// name.
func TestPrincipal(t *testing.T) {
	tokens, err := ParseTokens([]byte("alice:" + alice + "\n" + bob + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	header := func(v string) http.Header { return http.Header{"Authorization": {v}} }
	a, b := Principal(header("Bearer "+alice)), Principal(header("BEARER  "+bob))
	if a == "" || b == "" || a == b || strings.Contains(a, alice) || Principal(header("Bearer "+alice)) != a {
		t.Errorf("principals %q and %q", a, b)
	}
	for _, v := range []string{"", "Basic " + alice, "Bearer", "Bearer a b"} {
		if p := Principal(header(v)); p != "" {
			t.Errorf("%q: principal %q", v, p)
		}
	}
	if tokens.NameOf(a) != "alice" || tokens.NameOf(b) != "" || tokens.NameOf("") != "" || (*Tokens)(nil).NameOf(a) != "" {
		t.Errorf("names: %q %q", tokens.NameOf(a), tokens.NameOf(b))
	}
}
