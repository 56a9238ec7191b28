package cli

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/flowserve/flowserve/approve"
	"github.com/flowserve/flowserve/internal/oauthtest"
	"github.com/flowserve/flowserve/oauth"
)

func TestServeOAuthFlagErrors(t *testing.T) {
	dir := t.TempDir()
	tokens := filepath.Join(dir, "tokens")
	if err := os.WriteFile(tokens, []byte("ci:0123456789abcdef0123\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	as := oauthtest.New(t, oauthtest.Options{})
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"audience without issuer", []string{"--oauth-audience", "https://x/mcp"}, 2, "--oauth-audience needs --oauth-issuer"},
		{"sign-in without issuer", []string{"--approval-sign-in"}, 2, "--approval-sign-in needs --oauth-issuer"},
		{"at+jwt without issuer", []string{"--oauth-require-at-jwt"}, 2, "--oauth-require-at-jwt needs --oauth-issuer"},
		{"tokens and issuer", []string{"--tokens", tokens, "--oauth-issuer", as.Issuer()}, 2, "--tokens and --oauth-issuer cannot be used together"},

		{"sign-in without a client", []string{"--oauth-issuer", as.Issuer(), "--oauth-audience", "https://x/mcp", "--approval-sign-in"}, 2, "--approval-sign-in needs --oauth-client-id"},
		{"no audience", []string{"--oauth-issuer", as.Issuer(), exampleFlowsDir}, 1, "--oauth-issuer needs --oauth-audience or --public-url"},
		{"no metadata", []string{"--oauth-issuer", as.Issuer() + "/nowhere", "--oauth-audience", "https://x/mcp", exampleFlowsDir}, 1, "publishes no authorization server metadata"},
		{"client without secret", []string{"--oauth-issuer", as.Issuer(), "--oauth-audience", "https://x/mcp", "--oauth-client-id", "me", exampleFlowsDir}, 1, "FLOWSERVE_OAUTH_CLIENT_SECRET"},
	}
	if _, stderr, code := runBinary(t, "serve", "--stdio", "--oauth-issuer", as.Issuer()); code != 2 || !strings.Contains(stderr, "--oauth-issuer is for HTTP") {
		t.Errorf("stdio: exit %d, stderr %q", code, stderr)
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, stderr, code := runBinary(t, append([]string{"serve", "--http", "127.0.0.1:0"}, tc.args...)...)
			if code != tc.code || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want exit %d containing %q", code, stderr, tc.code, tc.want)
			}
		})
	}
}

// TestServeOAuth runs flowserve serve --oauth-issuer against a real
// authorization server: it serves the metadata, challenges a request
// without a token, and serves one with a token issued for its audience.
func TestServeOAuth(t *testing.T) {
	const aud = "https://mcp.test/mcp"
	as := oauthtest.New(t, oauthtest.Options{Audience: aud})
	s := startHTTPServer(t, "--oauth-issuer", as.Issuer(), "--oauth-audience", aud, exampleFlowsDir)
	base := strings.TrimSuffix(s.url, "/mcp")
	resp, err := http.Get(base + oauth.MetadataPath + "/mcp")
	if err != nil {
		t.Fatal(err)
	}
	var meta map[string]any
	json.NewDecoder(resp.Body).Decode(&meta)
	resp.Body.Close()
	if servers, _ := meta["authorization_servers"].([]any); len(servers) != 1 || servers[0] != as.Issuer() || meta["resource"] != s.url {
		t.Errorf("metadata: %v", meta)
	}
	resp, err = http.Post(s.url, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if want := `Bearer resource_metadata="` + base + oauth.MetadataPath + `/mcp"`; resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("WWW-Authenticate") != want {
		t.Errorf("no token: %d %q, want 401 %q", resp.StatusCode, resp.Header.Get("WWW-Authenticate"), want)
	}
	// An ID token (or any JWT whose typ is not an access token's) signed
	// by the issuer for this audience is refused.
	if code, challenge := postWith(t, s.url, as.Token(t, oauthtest.TokenRequest{Subject: "ci-bot", Type: "id_token+jwt"})); code != http.StatusUnauthorized ||
		!strings.Contains(challenge, `error="invalid_token"`) || !strings.Contains(challenge, "wrong token type") {
		t.Errorf("an id_token+jwt: %d %q, want 401 invalid_token (wrong token type)", code, challenge)
	}
	token := as.Token(t, oauthtest.TokenRequest{Subject: "ci-bot"})
	hc := &http.Client{Transport: bearerTransport{token: token}}
	cs := connectHTTP(t, cliCtx(t, 30*time.Second), hc, s.url)
	list, err := cs.ListTools(cliCtx(t, 30*time.Second), nil)
	if err != nil || len(list.Tools) != 9 {
		t.Fatalf("tools/list with a token: %v, %v", list, err)
	}
}

// TestServeOAuthRealIssuer: serve starts with an issuer whose metadata
// has no code_challenge_methods_supported (Microsoft Entra ID, Amazon
// Cognito), approval sign-in included; with --oauth-require-at-jwt it
// accepts only at+jwt access tokens.
func TestServeOAuthRealIssuer(t *testing.T) {
	const aud = "https://mcp.test/mcp"
	as := oauthtest.New(t, oauthtest.Options{Audience: aud, Metadata: func(doc map[string]any) {
		delete(doc, "code_challenge_methods_supported")
	}})
	id, secret := as.WebClient("http://127.0.0.1:1" + approve.SignInPath)
	secretFile := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(secretFile, []byte(secret), 0o600); err != nil {
		t.Fatal(err)
	}
	s := startHTTPServer(t, "--oauth-issuer", as.Issuer(), "--oauth-audience", aud, "--oauth-require-at-jwt",
		"--oauth-client-id", id, "--oauth-client-secret-file", secretFile, "--approval-sign-in", exampleFlowsDir)
	for _, tc := range []struct {
		typ  string
		code int
	}{
		{"", http.StatusUnauthorized}, // the issuer's own typ, JWT
		{oauthtest.NoType, http.StatusUnauthorized},
		{"id_token+jwt", http.StatusUnauthorized},
		{"at+jwt", http.StatusOK},
		{"application/at+jwt", http.StatusOK},
	} {
		code, challenge := postWith(t, s.url, as.Token(t, oauthtest.TokenRequest{Subject: "ci-bot", Type: tc.typ}))
		if code != tc.code || code == http.StatusUnauthorized && !strings.Contains(challenge, "wrong token type") {
			t.Errorf("typ %q: %d %q, want %d", tc.typ, code, challenge, tc.code)
		}
	}
}

// postWith posts a ping with the bearer token and returns the status and
// the WWW-Authenticate challenge.
func postWith(t *testing.T, u, token string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, u, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2025-06-18")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode, resp.Header.Get("WWW-Authenticate")
}

// bearerTransport adds a bearer token to each request.
type bearerTransport struct{ token string }

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}
