package serve_test

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/flowserve/flowserve/flow"
	"github.com/flowserve/flowserve/internal/oauthtest"
	"github.com/flowserve/flowserve/oauth"
	"github.com/flowserve/flowserve/serve"
)

// oauthServer is a flowserve HTTP server checking the tokens of a real
// authorization server running in the test.
type oauthServer struct {
	as       *oauthtest.Server
	base     string // http://127.0.0.1:port
	endpoint string // base + /mcp, the resource and the tokens' audience
	srv      *serve.Server
	oauth    *serve.OAuth // the server's OAuth configuration
}

// startOAuth serves the example flows, deploy_scoped and deploy_task with
// OAuth on: JWTs checked against the keys, opaque tokens introspected.
func startOAuth(t testing.TB, hide bool) *oauthServer {
	t.Helper()
	return startOAuthWith(t, hide, func(*oauthServer) ([]*flow.Program, serve.Options) {
		return append(compileExamples(t, flow.Env{}), testFlow(t, "deploy_scoped", flow.Env{}), testFlow(t, "deploy_task", flow.Env{})), serve.Options{}
	})
}

// startOAuthWith serves, with OAuth on against a real authorization
// server, the programs and options setup returns; setup sees the issuer
// and the server's address, for options that need them (sign-in).
func startOAuthWith(t testing.TB, hide bool, setup func(o *oauthServer) ([]*flow.Program, serve.Options)) *oauthServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	o := &oauthServer{base: "http://" + ln.Addr().String()}
	o.endpoint = o.base + serve.EndpointPath
	o.as = oauthtest.New(t, oauthtest.Options{Audience: o.endpoint})
	id, secret := o.as.Introspector()
	v, err := oauth.NewVerifier(testCtx(t), oauth.Config{Issuer: o.as.Issuer(), Audience: o.endpoint,
		Introspection: &oauth.Introspection{ClientID: id, ClientSecret: secret}})
	if err != nil {
		t.Fatal(err)
	}
	progs, opts := setup(o)
	o.srv = serverWith(t, progs, opts)
	t.Cleanup(func() {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		o.srv.Close(ctx)
	})
	o.oauth = &serve.OAuth{Verifier: v, Issuer: o.as.Issuer(), HideTools: hide}
	hs := httptest.NewUnstartedServer(o.srv.HTTPHandler(serve.HTTPOptions{OAuth: o.oauth}))
	hs.Listener.Close()
	hs.Listener = ln
	hs.Start()
	t.Cleanup(hs.Close)
	return o
}

// token gets an access token for sub granting scopes, with an email.
func (o *oauthServer) token(t testing.TB, sub string, scopes ...string) string {
	return o.as.Token(t, oauthtest.TokenRequest{Subject: sub, Scopes: scopes, Claims: map[string]any{"email": sub + "@example.com"}})
}

func TestOAuthMetadata(t *testing.T) {
	o := startOAuth(t, false)
	for _, path := range []string{oauth.MetadataPath, oauth.MetadataPath + serve.EndpointPath} {
		resp, err := http.Get(o.base + path)
		if err != nil {
			t.Fatal(err)
		}
		var meta struct {
			Resource             string   `json:"resource"`
			AuthorizationServers []string `json:"authorization_servers"`
			ScopesSupported      []string `json:"scopes_supported"`
			BearerMethods        []string `json:"bearer_methods_supported"`
		}
		err = json.NewDecoder(resp.Body).Decode(&meta)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d %v", path, resp.StatusCode, err)
		}
		if meta.Resource != o.endpoint || len(meta.AuthorizationServers) != 1 || meta.AuthorizationServers[0] != o.as.Issuer() ||
			strings.Join(meta.ScopesSupported, " ") != "deploy:write" || strings.Join(meta.BearerMethods, " ") != "header" {
			t.Errorf("GET %s: %+v", path, meta)
		}
	}
}

func TestOAuthChallenges(t *testing.T) {
	o := startOAuth(t, false)
	meta := `resource_metadata="` + o.base + oauth.MetadataPath + serve.EndpointPath + `"`
	call := func(tool string) string {
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": callParams(tool, map[string]any{}, formCaps)})
		return string(b)
	}
	version := http.Header{"Mcp-Protocol-Version": {v20260728}}
	with := func(token string) http.Header {
		h := version.Clone()
		h.Set("Authorization", "Bearer "+token)
		return h
	}
	expired := o.as.Token(t, oauthtest.TokenRequest{Subject: "alice", Scopes: []string{"deploy:write"}, Lifetime: -time.Hour})
	otherAud := o.as.Token(t, oauthtest.TokenRequest{Subject: "alice", Scopes: []string{"deploy:write"}, Audience: []string{"https://elsewhere.test/mcp"}})
	tests := []struct {
		name   string
		header http.Header
		body   string
		status int
		want   string // the WWW-Authenticate header
	}{
		{"no token", version, call("signup"), 401, "Bearer " + meta},
		{"no token, a scoped tool", version, call("deploy_scoped"), 401, "Bearer " + meta + `, scope="deploy:write"`},
		{"not a token", with("garbage-garbage-garbage"), call("signup"), 401,
			"Bearer " + meta + `, error="invalid_token", error_description="the access token is inactive"`},
		{"expired", with(expired), call("signup"), 401, "Bearer " + meta + `, error="invalid_token", error_description="the access token is expired"`},
		{"another audience", with(otherAud), call("signup"), 401,
			"Bearer " + meta + `, error="invalid_token", error_description="the access token is for another audience"`},
		{"missing scope", with(o.token(t, "alice", "deploy:read")), call("deploy_scoped"), 403,
			"Bearer " + meta + `, scope="deploy:write", error="insufficient_scope", error_description="the deploy_scoped tool needs the scopes deploy:write"`},
		{"missing scope in a batch", with(o.token(t, "alice")), "[" + call("signup") + "," + call("deploy_scoped") + "]", 403,
			"Bearer " + meta + `, scope="deploy:write", error="insufficient_scope", error_description="the deploy_scoped tool needs the scopes deploy:write"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, header, _ := rawPost(t, testCtx(t), o.endpoint, tt.header, []byte(tt.body))
			if status != tt.status || header.Get("WWW-Authenticate") != tt.want {
				t.Errorf("%d %s\nwant %d %s", status, header.Get("WWW-Authenticate"), tt.status, tt.want)
			}
		})
	}
}

// TestOAuthRuns: a caller with the scope runs the flow, which sees it as
// principal; a state issued to one subject is refused to another, even
// one with the same scopes (the tamper check with two principals).
func TestOAuthRuns(t *testing.T) {
	o := startOAuth(t, false)
	ctx := testCtx(t)
	alice, bob := bearer(o.token(t, "alice", "deploy:write")), bearer(o.token(t, "bob", "deploy:write", "deploy:read"))
	first := rawRound(t, ctx, o.endpoint, alice, callParams("deploy_scoped", map[string]any{}, formCaps))
	wantInputRequired(t, first, "confirm")
	next := retry("deploy_scoped", map[string]any{}, first.RequestState, map[string]any{"confirm": map[string]any{"action": "accept", "content": map[string]any{"ok": true}}})
	e := postRaw(t, ctx, o.endpoint, bob, "tools/call", next).rpcErr(t)
	if e.Code != codeInvalidParams || e.Message != "requestState is not valid for this call" {
		t.Errorf("bob continuing alice's run: %d %q", e.Code, e.Message)
	}
	wantComplete(t, rawRound(t, ctx, o.endpoint, alice, next), false, "deployed by alice (alice@example.com) with deploy:write")
	// A new token of the same subject goes on with the run.
	again := bearer(o.token(t, "alice", "deploy:write"))
	wantComplete(t, rawRound(t, ctx, o.endpoint, again, next), false, "deployed by alice")
}

// TestOAuthSessions: session-era clients (the go-sdk's) send the token
// on every request; a call the token has no scope for fails with the
// 403, and tools/list hides what the caller cannot call when asked to.
func TestOAuthSessions(t *testing.T) {
	for _, version := range []string{"2025-06-18", "2025-11-25"} {
		t.Run(version, func(t *testing.T) {
			o := startOAuth(t, true)
			ctx := testCtx(t)
			session := func(token string) *mcp.ClientSession {
				hc := &http.Client{Transport: headerTransport{header: bearer(token), base: http.DefaultTransport}}
				c := mcp.NewClient(&mcp.Implementation{Name: "oauth-test", Version: "1"}, &mcp.ClientOptions{
					ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
						return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"ok": true}}, nil
					},
				})
				cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: o.endpoint, HTTPClient: hc}, &mcp.ClientSessionOptions{ProtocolVersion: version})
				if err != nil {
					t.Fatalf("connect: %v", err)
				}
				t.Cleanup(func() { cs.Close() })
				return cs
			}
			bobToken := o.token(t, "bob")
			writer, reader := session(o.token(t, "alice", "deploy:write")), session(bobToken)
			res, err := writer.CallTool(ctx, &mcp.CallToolParams{Name: "deploy_scoped", Arguments: map[string]any{}})
			if err != nil {
				t.Fatalf("alice's call: %v", err)
			}
			checkText(t, res, false, "deployed by alice (alice@example.com) with deploy:write")
			// The go-sdk client gives up its session on an HTTP error.
			refused := session(bobToken)
			if _, err := refused.CallTool(ctx, &mcp.CallToolParams{Name: "deploy_scoped", Arguments: map[string]any{}}); err == nil || !strings.Contains(err.Error(), "Forbidden") {
				t.Errorf("bob's call without the scope: %v, want 403 Forbidden", err)
			}
			for cs, want := range map[*mcp.ClientSession]bool{writer: true, reader: false} {
				list, err := cs.ListTools(ctx, nil)
				if err != nil {
					t.Fatal(err)
				}
				found := false
				for _, tool := range list.Tools {
					found = found || tool.Name == "deploy_scoped"
				}
				if found != want || len(list.Tools) < 2 {
					t.Errorf("tools/list lists deploy_scoped: %v, want %v (%d tools)", found, want, len(list.Tools))
				}
			}
		})
	}
}

// TestOAuthGoSDKClient: the go-sdk's own OAuth client finds the metadata
// from the 401, signs a person in at the authorization server (code flow
// with PKCE, the resource indicator naming this server), and calls. It
// asks for no scope first, so the scoped call gets the 403 and the client
// steps up to the scope the challenge names.
func TestOAuthGoSDKClient(t *testing.T) {
	for _, version := range []string{v20260728, "2025-11-25"} {
		t.Run(version, func(t *testing.T) {
			o := startOAuth(t, false)
			ctx := testCtx(t)
			ada := oauthtest.User{Username: "ada", Password: "correct horse", Subject: "user-ada", Email: "ada@example.com", Name: "Ada"}
			o.as.AddUser(ada)
			const redirect = "http://127.0.0.1/callback"
			id, secret := o.as.WebClient(redirect)
			var asked [][]string
			h, err := auth.NewAuthorizationCodeHandler(&auth.AuthorizationCodeHandlerConfig{
				PreregisteredClient: &oauthex.ClientCredentials{ClientID: id, ClientSecretAuth: &oauthex.ClientSecretAuth{ClientSecret: secret}},
				RedirectURL:         redirect,
				ScopeFilter: func(scopes []string) []string {
					asked = append(asked, scopes)
					// The authorization server is OpenID Connect's: it wants
					// openid. Least privilege: no scope of ours until one is
					// needed.
					if len(asked) == 1 {
						return []string{"openid", "email"}
					}
					return append([]string{"openid", "email"}, scopes...)
				},
				AuthorizationCodeFetcher: func(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
					back := o.as.Login(t, args.URL, ada)
					return &auth.AuthorizationResult{Code: back.Query().Get("code"), State: back.Query().Get("state"), Iss: back.Query().Get("iss")}, nil
				},
			})
			if err != nil {
				t.Fatal(err)
			}
			c := mcp.NewClient(&mcp.Implementation{Name: "oauth-client", Version: "1"}, &mcp.ClientOptions{
				ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"ok": true}}, nil
				},
			})
			cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: o.endpoint, OAuthHandler: h}, &mcp.ClientSessionOptions{ProtocolVersion: version})
			if err != nil {
				t.Fatalf("connect: %v", err)
			}
			defer cs.Close()
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "deploy_scoped", Arguments: map[string]any{}})
			if err != nil {
				t.Fatalf("call: %v", err)
			}
			checkText(t, res, false, "deployed by user-ada (ada@example.com) with ", "deploy:write")
			if len(asked) != 2 || strings.Join(asked[1], " ") != "deploy:write" {
				t.Errorf("the client asked for scopes %v, want nothing, then deploy:write after the 403", asked)
			}
		})
	}
}

// TestOAuthTask: a task is bound to the subject that started it, and its
// rounds, on a worker, see that caller as principal. The caller's token
// is opaque here: introspected.
func TestOAuthTask(t *testing.T) {
	o := startOAuth(t, false)
	ctx := testCtx(t)
	opaque := func(sub string) http.Header {
		return bearer(o.as.Token(t, oauthtest.TokenRequest{Subject: sub, Scopes: []string{"deploy:write"}, Opaque: true,
			Claims: map[string]any{"email": sub + "@example.com"}}))
	}
	alice, bob := opaque("alice"), opaque("bob")
	var task wireTask
	postRaw(t, ctx, o.endpoint, alice, "tools/call", callParams("deploy_task", map[string]any{}, tasksCaps)).result(t, &task)
	if task.TaskID == "" {
		t.Fatalf("want a task: %+v", task)
	}
	request := func(who http.Header, method string, extra map[string]any) *httpReply {
		h := who.Clone()
		h.Set("Mcp-Name", task.TaskID)
		params := map[string]any{"taskId": task.TaskID, "_meta": modernMeta(tasksCaps)}
		for k, v := range extra {
			params[k] = v
		}
		return postRaw(t, ctx, o.endpoint, h, method, params)
	}
	for _, method := range []string{"tasks/get", "tasks/update", "tasks/cancel"} {
		if e := request(bob, method, nil).rpcErr(t); e.Code != codeInvalidParams {
			t.Errorf("%s by another subject: %+v", method, e)
		}
	}
	var got wireTask
	for deadline := time.Now().Add(20 * time.Second); got.Status != "input_required"; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("task still %s", got.Status)
		}
		request(alice, "tasks/get", nil).result(t, &got)
	}
	responses := map[string]any{}
	for key := range got.InputRequests {
		responses[key] = map[string]any{"action": "accept", "content": map[string]any{"ok": true}}
	}
	var ack map[string]any
	request(alice, "tasks/update", map[string]any{"inputResponses": responses}).result(t, &ack)
	for deadline := time.Now().Add(20 * time.Second); got.Status != "completed"; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) || got.Status == "failed" {
			t.Fatalf("task %s: %+v", got.Status, got.Error)
		}
		request(alice, "tasks/get", nil).result(t, &got)
	}
	if text := got.Result.text(); text != "task deployed by alice (alice@example.com)" {
		t.Errorf("result %q", text)
	}
}
