package serve_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/flowserve/flowserve/flow"
	"github.com/flowserve/flowserve/serve"
)

// fakeAddr is a local address for requests served without a listener.
type fakeAddr string

func (a fakeAddr) Network() string { return "tcp" }
func (a fakeAddr) String() string  { return string(a) }

// TestHostAndOrigin: the Host and Origin checks against DNS rebinding, on
// the lean 2026-07-28 path and on the go-sdk's session path. By default a
// request that arrived on loopback must name a loopback host, and an
// Origin must be a loopback origin on a loopback connection;
// AllowedHosts and AllowedOrigins widen both.
func TestHostAndOrigin(t *testing.T) {
	const (
		loopback = "127.0.0.1:8787"
		public   = "10.0.0.5:8787"
	)
	type opts = serve.HTTPOptions
	proxied := opts{AllowedHosts: []string{"mcp.example.com"}}
	tests := []struct {
		name   string
		opts   serve.HTTPOptions
		local  string
		host   string
		origin string
		ok     bool
	}{
		{name: "loopback host", local: loopback, host: "localhost:8787", ok: true},
		{name: "loopback IP host", local: loopback, host: "127.0.0.1:8787", ok: true},
		{name: "IPv6 loopback host", local: "[::1]:8787", host: "[::1]:8787", ok: true},
		{name: "rebound host on loopback", local: loopback, host: "evil.example:8787"},
		{name: "loopback origin", local: loopback, host: "localhost:8787", origin: "http://localhost:6274", ok: true},
		{name: "foreign origin on loopback", local: loopback, host: "localhost:8787", origin: "http://evil.example"},
		{name: "null origin", local: loopback, host: "localhost:8787", origin: "null"},
		{name: "origin with a path", local: loopback, host: "localhost:8787", origin: "http://localhost/x"},
		{name: "any host on a public address", local: public, host: "whatever.example", ok: true},
		{name: "foreign origin on a public address", local: public, host: "10.0.0.5:8787", origin: "https://evil.example"},
		{name: "loopback origin on a public address", local: public, host: "10.0.0.5:8787", origin: "http://localhost:3000"},
		{name: "allowed host", opts: proxied, local: public, host: "mcp.example.com", ok: true},
		{name: "allowed host, other case and port", opts: proxied, local: public, host: "MCP.Example.com:443", ok: true},
		{name: "host not allowed", opts: proxied, local: public, host: "other.example.com"},
		{name: "IP host not allowed", opts: proxied, local: public, host: "10.0.0.5:8787"},
		{name: "allowed host behind a local proxy", opts: proxied, local: loopback, host: "mcp.example.com", ok: true},
		{name: "loopback host behind a local proxy", opts: proxied, local: loopback, host: "localhost:8787", ok: true},
		{name: "loopback host on a public address with allowed hosts", opts: proxied, local: public, host: "localhost"},
		{name: "origin of an allowed host", opts: proxied, local: public, host: "mcp.example.com", origin: "https://mcp.example.com", ok: true},
		{name: "foreign origin with allowed hosts", opts: proxied, local: public, host: "mcp.example.com", origin: "https://evil.example"},
		{name: "wildcard host", opts: opts{AllowedHosts: []string{"*.example.com"}}, local: public, host: "a.example.com", ok: true},
		{name: "wildcard host, bare domain", opts: opts{AllowedHosts: []string{"*.example.com"}}, local: public, host: "example.com"},
		{name: "any host", opts: opts{AllowedHosts: []string{"*"}}, local: loopback, host: "evil.example", ok: true},
		{name: "allowed origin", opts: opts{AllowedOrigins: []string{"https://app.example.com/"}}, local: loopback, host: "localhost", origin: "https://app.example.com", ok: true},
		{name: "allowed origin, other port", opts: opts{AllowedOrigins: []string{"https://app.example.com"}}, local: loopback, host: "localhost", origin: "https://app.example.com:444"},
		{name: "allowed origin, other scheme", opts: opts{AllowedOrigins: []string{"https://app.example.com"}}, local: loopback, host: "localhost", origin: "http://app.example.com"},
		{name: "any origin", opts: opts{AllowedOrigins: []string{"*"}}, local: public, host: "10.0.0.5", origin: "https://evil.example", ok: true},
	}
	srv := serverWith(t, []*flow.Program{testFlow(t, "whoami", flow.Env{})}, serve.Options{})
	kinds := []struct {
		name   string
		header http.Header
		body   []byte
	}{
		{"lean", modernHeader("whoami"), modernCallBody(t, "whoami", map[string]any{})},
		{"session", nil, initializeBody(t, v20251125, 0)},
	}
	for _, tc := range tests {
		h := srv.HTTPHandler(tc.opts)
		for _, k := range kinds {
			t.Run(tc.name+"/"+k.name, func(t *testing.T) {
				r := httptest.NewRequest(http.MethodPost, "http://"+tc.host+serve.EndpointPath, strings.NewReader(string(k.body)))
				r.Host = tc.host
				r = r.WithContext(context.WithValue(r.Context(), http.LocalAddrContextKey, net.Addr(fakeAddr(tc.local))))
				r.Header.Set("Content-Type", "application/json")
				r.Header.Set("Accept", "application/json, text/event-stream")
				for key, vs := range k.header {
					r.Header[key] = vs
				}
				if tc.origin != "" {
					r.Header.Set("Origin", tc.origin)
				}
				w := httptest.NewRecorder()
				h.ServeHTTP(w, r)
				if got := w.Code != http.StatusForbidden; got != tc.ok {
					t.Errorf("status %d (%s), want allowed %v", w.Code, strings.TrimSpace(w.Body.String()), tc.ok)
				}
				if tc.ok && w.Code != http.StatusOK {
					t.Errorf("status %d: %s", w.Code, w.Body)
				}
				if !tc.ok && !strings.Contains(w.Body.String(), "Forbidden: invalid") {
					t.Errorf("403 body %q does not name the header", w.Body)
				}
			})
		}
	}
}

// TestOriginOverHTTP: over a real loopback connection, a foreign Origin
// is 403 on both paths and the go-sdk client (which sends none) is served.
func TestOriginOverHTTP(t *testing.T) {
	ctx := testCtx(t)
	srv := serverWith(t, []*flow.Program{testFlow(t, "whoami", flow.Env{})}, serve.Options{})
	url := startHTTPWith(t, srv, serve.HTTPOptions{})
	evil := http.Header{"Origin": {"http://evil.example"}}
	for name, req := range map[string]struct {
		header http.Header
		body   []byte
	}{
		"lean":    {modernHeader("whoami"), modernCallBody(t, "whoami", map[string]any{})},
		"session": {http.Header{}, initializeBody(t, v20251125, 0)},
	} {
		h := req.header.Clone()
		h.Set("Origin", evil.Get("Origin"))
		if status, _, body := rawPost(t, ctx, url, h, req.body); status != http.StatusForbidden {
			t.Errorf("%s: status %d, want 403: %s", name, status, body)
		}
	}
	cs, err := connectURL(t, ctx, url, v20251125, sessionClient(nil), nil)
	must(t, err)
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "whoami"})
	must(t, err)
	checkText(t, res, false, "ops-session")
}

const (
	aliceToken = "alice-0123456789abcdef"
	bobToken   = "bob-0123456789abcdef0"
)

// testTokens accepts alice's (named) and bob's (unnamed) tokens.
func testTokens(t testing.TB) *serve.Tokens {
	t.Helper()
	tok, err := serve.ParseTokens([]byte("# callers\nalice:" + aliceToken + "  # the first\n\n" + bobToken + "\n"))
	must(t, err)
	return tok
}

// TestParseTokens: the tokens file format, and errors that name the line
// and never the token.
func TestParseTokens(t *testing.T) {
	tests := []struct {
		name, text string
		n          int
		err        string
	}{
		{name: "named and not", text: "alice:" + aliceToken + "\n" + bobToken + "\n", n: 2},
		{name: "comments and blanks", text: "\ufeff# tokens\n\n  alice : " + aliceToken + "  # alice's\n", n: 1},
		{name: "padding", text: "QUJDREVGR0hJSktMTU5PUA==\n", n: 1},
		{name: "one caller, two tokens", text: "alice:" + aliceToken + "\nalice:" + bobToken + "\n", n: 2},
		{name: "empty", text: "# nothing\n", err: "tokens: no tokens (want lines of [name:]token)"},
		{name: "short", text: "\nalice:short-token\n", err: "tokens: line 2: the token is shorter than 16 characters"},
		{name: "bad characters", text: "alice:" + aliceToken + "!\n", err: "tokens: line 1: the token has characters a bearer token cannot have"},
		{name: "space inside", text: "alice-0123 456789abcdef\n", err: "tokens: line 1: the token has characters"},
		{name: "bad name", text: "al ice:" + aliceToken + "\n", err: "tokens: line 1: the name before ':' is not valid"},
		{name: "no token", text: "alice:\n", err: "tokens: line 1: no token"},
		{name: "duplicate", text: aliceToken + "\n\nbob:" + aliceToken + "\n", err: "tokens: line 3: the same token as line 1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tok, err := serve.ParseTokens([]byte(tc.text))
			if tc.err != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tc.err) {
					t.Fatalf("got %v, want an error starting %q", err, tc.err)
				}
				for _, secret := range []string{aliceToken, "short-token", "alice-0123"} {
					if strings.Contains(err.Error(), secret) {
						t.Errorf("error %q quotes the token", err)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tok.Len() != tc.n {
				t.Errorf("%d tokens, want %d", tok.Len(), tc.n)
			}
		})
	}
	dir := t.TempDir()
	if _, err := serve.LoadTokens(dir + "/none"); err == nil || !strings.Contains(err.Error(), "read tokens") {
		t.Errorf("missing file: %v", err)
	}
	writeFile(t, dir, "tokens", "alice:"+aliceToken+"\n")
	if tok, err := serve.LoadTokens(dir + "/tokens"); err != nil || tok.Len() != 1 {
		t.Errorf("LoadTokens: %v", err)
	}
	writeFile(t, dir, "bad", "alice:short\n")
	if _, err := serve.LoadTokens(dir + "/bad"); err == nil || !strings.HasPrefix(err.Error(), "tokens file "+dir+"/bad: line 1:") {
		t.Errorf("LoadTokens of a bad file: %v", err)
	}
}

// TestBearerAuth: with HTTPOptions.Tokens, every request needs a valid
// bearer token (401 with WWW-Authenticate: Bearer otherwise), the Host
// and Origin checks come first, /metrics is protected too, and a session
// stays bound to the token that opened it.
func TestBearerAuth(t *testing.T) {
	ctx := testCtx(t)
	srv := serverWith(t, []*flow.Program{testFlow(t, "whoami", flow.Env{})}, serve.Options{})
	url := startHTTPWith(t, srv, serve.HTTPOptions{Tokens: testTokens(t), Metrics: true})
	with := func(h http.Header, kv ...string) http.Header {
		h = h.Clone()
		if h == nil {
			h = http.Header{}
		}
		for i := 0; i < len(kv); i += 2 {
			h.Set(kv[i], kv[i+1])
		}
		return h
	}
	lean := modernCallBody(t, "whoami", map[string]any{})
	init := initializeBody(t, v20251125, 0)
	tests := []struct {
		name      string
		header    http.Header
		body      []byte
		status    int
		challenge string
	}{
		{"lean without a token", modernHeader("whoami"), lean, 401, `Bearer realm="flowserve"`},
		{"lean with a wrong token", with(modernHeader("whoami"), "Authorization", "Bearer not-a-token-0123456789"), lean, 401, `Bearer realm="flowserve", error="invalid_token"`},
		{"lean with basic auth", with(modernHeader("whoami"), "Authorization", "Basic YWxpY2U6eA=="), lean, 401, `Bearer realm="flowserve"`},
		{"lean with alice's token", with(modernHeader("whoami"), "Authorization", "Bearer "+aliceToken), lean, 200, ""},
		{"lean with bob's token, lower-case scheme", with(modernHeader("whoami"), "Authorization", "bearer "+bobToken), lean, 200, ""},
		{"session without a token", nil, init, 401, `Bearer realm="flowserve"`},
		{"session with a wrong token", with(nil, "Authorization", "Bearer "+aliceToken+"x"), init, 401, `Bearer realm="flowserve", error="invalid_token"`},
		{"session with a token", with(nil, "Authorization", "Bearer "+aliceToken), init, 200, ""},
		{"foreign origin before the token", with(modernHeader("whoami"), "Origin", "https://evil.example"), lean, 403, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			status, header, body := rawPost(t, ctx, url, tc.header, tc.body)
			if status != tc.status {
				t.Errorf("status %d, want %d: %s", status, tc.status, body)
			}
			if got := header.Get("WWW-Authenticate"); got != tc.challenge {
				t.Errorf("WWW-Authenticate %q, want %q", got, tc.challenge)
			}
		})
	}

	metricsURL := strings.TrimSuffix(url, serve.EndpointPath) + serve.MetricsPath
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, metricsURL, nil)
	resp, err := http.DefaultClient.Do(req)
	must(t, err)
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("/metrics without a token: %d", resp.StatusCode)
	}
	if v := value(scrape(t, ctx, metricsURL, bearer(aliceToken)), "flowserve_http_rejected_total", labels("reason", "unauthorized")); v < 5 {
		t.Errorf("flowserve_http_rejected_total{reason=unauthorized} = %v, want ≥ 5", v)
	}

	// A session opened with alice's token refuses bob's.
	alice, err := connectURL(t, ctx, url, v20251125, sessionClient(nil), bearer(aliceToken))
	must(t, err)
	res, err := alice.CallTool(ctx, &mcp.CallToolParams{Name: "whoami"})
	must(t, err)
	checkText(t, res, false, "ops-session")
	status, _, body := rawPost(t, ctx, url, with(nil, "Authorization", "Bearer "+bobToken, "Mcp-Session-Id", alice.ID(), "Mcp-Protocol-Version", v20251125),
		[]byte(`{"jsonrpc":"2.0","id":9,"method":"tools/list","params":{}}`))
	if status != http.StatusForbidden || !strings.Contains(string(body), "session user mismatch") {
		t.Errorf("alice's session with bob's token: %d %s", status, body)
	}
}

// TestPrincipalFromTokens: with tokens, a run started with one valid
// token does not continue with another valid one.
func TestPrincipalFromTokens(t *testing.T) {
	ctx := testCtx(t)
	srv := serverWith(t, compileExamples(t, flow.Env{}), serve.Options{})
	url := startHTTPWith(t, srv, serve.HTTPOptions{Tokens: testTokens(t)})
	first := rawRound(t, ctx, url, bearer(aliceToken), callParams("signup", map[string]any{}, formCaps))
	wantInputRequired(t, first, "details")
	next := retry("signup", map[string]any{}, first.RequestState, map[string]any{"details": adaAnswer})
	e := postRaw(t, ctx, url, bearer(bobToken), "tools/call", next).rpcErr(t)
	if e.Code != codeInvalidParams || e.Message != "requestState is not valid for this call" {
		t.Errorf("bob continuing alice's run: %d %q", e.Code, e.Message)
	}
	wantComplete(t, rawRound(t, ctx, url, bearer(aliceToken), next), false, "Signed up Ada Lovelace")
}
