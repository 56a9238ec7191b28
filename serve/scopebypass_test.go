package serve_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/flowserve/flowserve/serve"
)

// The scope bypass of #27: the guard read the body with encoding/json
// (members matched ignoring case, the last duplicate kept) while dispatch
// read it case-sensitively, so {"name":"deploy_scoped","Name":"signup"}
// had the scopes of signup checked and ran deploy_scoped. These tests
// send the attack on every path; deploy_scoped's first question ("Deploy
// as ...") in a reply means it ran.

// attackMeta is the _meta of a 2026-07-28 call, as JSON.
func attackMeta(t *testing.T) string {
	b, err := json.Marshal(callParams("x", map[string]any{}, formCaps)["_meta"])
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// ranScoped reports whether a reply shows deploy_scoped running.
func ranScoped(body []byte) bool { return bytes.Contains(body, []byte("Deploy as")) }

// rpcCode returns the JSON-RPC error code of a reply (an SSE stream or
// JSON), or 0.
func rpcCode(body []byte) int64 {
	s := string(body)
	if i := strings.Index(s, "data: "); i >= 0 {
		s = s[i+len("data: "):]
	}
	var reply struct {
		Error *struct {
			Code int64 `json:"code"`
		} `json:"error"`
	}
	if json.NewDecoder(strings.NewReader(s)).Decode(&reply) != nil || reply.Error == nil {
		return 0
	}
	return reply.Error.Code
}

func TestScopeBypassRefused(t *testing.T) {
	o := startOAuth(t, false)
	ctx := testCtx(t)
	meta := attackMeta(t)
	weak := o.token(t, "mallory") // no deploy:write
	header := func(token, name string) http.Header {
		h := modernHeader(name)
		h.Set("Authorization", "Bearer "+token)
		return h
	}
	tests := []struct {
		name   string
		mcp    string // the Mcp-Name header
		body   string
		status int
		code   int64
	}{
		{"name then Name", "deploy_scoped",
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"deploy_scoped","Name":"signup","arguments":{},"_meta":` + meta + `}}`, 400, -32602},
		{"Name then name", "deploy_scoped",
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"Name":"signup","name":"deploy_scoped","arguments":{},"_meta":` + meta + `}}`, 400, -32602},
		{"name twice", "deploy_scoped",
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"signup","name":"deploy_scoped","arguments":{},"_meta":` + meta + `}}`, 400, -32602},
		{"NAME escaped", "deploy_scoped",
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"deploy_scoped","N\u0041ME":"signup","arguments":{},"_meta":` + meta + `}}`, 400, -32602},
		{"a top-level Method", "deploy_scoped",
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","Method":"ping","params":{"name":"deploy_scoped","arguments":{},"_meta":` + meta + `}}`, 400, -32600},
		{"params twice", "deploy_scoped",
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"signup"},"PARAMS":{"name":"deploy_scoped","arguments":{},"_meta":` + meta + `}}`, 400, -32600},
		{"Kelvin sign", "deploy_scoped",
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"deploy_scoped","arguments":{},"tas\u212aId":"x","taskid":"y","_meta":` + meta + `}}`, 400, -32602},
		{"in a batch", "deploy_scoped",
			`[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"deploy_scoped","Name":"signup","arguments":{},"_meta":` + meta + `}}]`, 400, -32602},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, _, body := rawPost(t, ctx, o.endpoint, header(weak, tt.mcp), []byte(tt.body))
			if ranScoped(body) {
				t.Fatalf("deploy_scoped ran for a token without deploy:write: %s", body)
			}
			if status != tt.status || rpcCode(body) != tt.code {
				t.Errorf("%d %s\nwant %d with code %d", status, body, tt.status, tt.code)
			}
		})
	}
}

// TestScopeBypassSessions sends the attack inside a 2025-11-25 session.
func TestScopeBypassSessions(t *testing.T) {
	o := startOAuth(t, false)
	ctx := testCtx(t)
	h := bearer(o.token(t, "mallory"))
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"attacker","version":"1"}}}`
	status, rh, body := rawPost(t, ctx, o.endpoint, h, []byte(init))
	sid := rh.Get("Mcp-Session-Id")
	if status != 200 || sid == "" {
		t.Fatalf("initialize: %d %s", status, body)
	}
	h.Set("Mcp-Session-Id", sid)
	h.Set("Mcp-Protocol-Version", "2025-11-25")
	rawPost(t, ctx, o.endpoint, h, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	for _, attack := range []string{
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"deploy_scoped","Name":"signup","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":2,"Method":"ping","method":"tools/call","params":{"name":"deploy_scoped","arguments":{}}}`,
	} {
		status, _, body := rawPost(t, ctx, o.endpoint, h, []byte(attack))
		if ranScoped(body) || status != 400 {
			t.Errorf("%s: %d %s, want 400", attack, status, body)
		}
	}
	// The same session calls the open tool as usual.
	status, _, body = rawPost(t, ctx, o.endpoint, h, []byte(`{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{}}`))
	if status != 200 || !bytes.Contains(body, []byte("deploy_scoped")) {
		t.Errorf("tools/list: %d %s", status, body)
	}
}

// TestDuplicateMembersFalsePositives: what the duplicate check must not
// refuse — members that repeat only inside arguments, _meta or answers,
// distinct names, and an ordinary call of each tool.
func TestDuplicateMembersFalsePositives(t *testing.T) {
	o := startOAuth(t, false)
	ctx := testCtx(t)
	meta := attackMeta(t)
	strong := o.token(t, "alice", "deploy:write")
	for _, tt := range []struct{ name, tool, body string }{
		{"a plain call", "deploy_scoped", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"deploy_scoped","arguments":{},"_meta":` + meta + `}}`},
		{"case-different keys in arguments", "deploy_scoped", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"deploy_scoped","arguments":{"name":"a","Name":"b","NAME":"c"},"_meta":` + meta + `}}`},
		{"an unknown member", "deploy_scoped", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"deploy_scoped","arguments":{},"names":"x","_meta":` + meta + `}}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := modernHeader(tt.tool)
			h.Set("Authorization", "Bearer "+strong)
			status, _, body := rawPost(t, ctx, o.endpoint, h, []byte(tt.body))
			if status != 200 || !ranScoped(body) {
				t.Errorf("%d %s, want deploy_scoped to ask its question", status, body)
			}
		})
	}
}

// FuzzScopeChecked is the differential test of #27: whatever the body
// and headers, a token without deploy:write never runs deploy_scoped,
// and a body the server answers with a run of it is one whose scopes the
// guard checked. The server runs in the test, behind its real OAuth
// guard; the token is a real issuer's.
func FuzzScopeChecked(f *testing.F) {
	meta := `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}`
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"deploy_scoped","Name":"signup","arguments":{},"_meta":` + meta + `}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"signup","arguments":{},"_meta":` + meta + `}}`,
		`{"jsonrpc":"2.0","id":1,"Method":"ping","method":"tools/call","params":{"name":"deploy_scoped","arguments":{},"_meta":` + meta + `}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"deploy_scoped","arguments":{},"_meta":` + meta + `}}]`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"n\u0061me":"deploy_scoped","arguments":{},"_meta":` + meta + `}}`,
		`{"jsonrpc":"2.0","id":"a","method":"prompts/get","params":{"name":"deploy_scoped","_meta":` + meta + `}}`,
	} {
		f.Add([]byte(seed), "deploy_scoped", true)
		f.Add([]byte(seed), "signup", false)
	}
	o := startOAuth(f, false)
	weak, strong := "Bearer "+o.token(f, "mallory"), "Bearer "+o.token(f, "alice", "deploy:write")
	handler := o.srv.HTTPHandler(serve.HTTPOptions{OAuth: o.oauth})
	send := func(body []byte, mcpName string, modern bool, token string) []byte {
		req := httptest.NewRequest(http.MethodPost, o.endpoint, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", token)
		if modern {
			req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
			req.Header.Set("Mcp-Method", "tools/call")
			req.Header.Set("Mcp-Name", mcpName)
		}
		w := httptest.NewRecorder()
		handler.ServeHTTP(w, req)
		return w.Body.Bytes()
	}
	f.Fuzz(func(t *testing.T, body []byte, mcpName string, modern bool) {
		if reply := send(body, mcpName, modern, weak); ranScoped(reply) {
			t.Fatalf("deploy_scoped ran for a token without its scope:\n%s\nbody %q", reply, body)
		}
		// With the scope it may run, and then only as the guard read it.
		if reply := send(body, mcpName, modern, strong); ranScoped(reply) {
			names, ok := serve.CheckedNames(body)
			if !ok || !slices.Contains(names, "deploy_scoped") {
				t.Fatalf("deploy_scoped ran, but the guard read the body as calling %q (refused: %v):\nbody %q", names, !ok, body)
			}
		}
	})
}
