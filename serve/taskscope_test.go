package serve_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/flowserve/flowserve/flow"
	"github.com/flowserve/flowserve/oauth"
	"github.com/flowserve/flowserve/serve"
)

// startTaskOAuth serves deploy_task (a task flow that requires
// deploy:write and asks to confirm) and ask (a task flow that requires no
// scope) with OAuth on, the tokens JWTs of a real authorization server.
func startTaskOAuth(t *testing.T) *oauthServer {
	t.Helper()
	return startOAuthWith(t, false, func(*oauthServer) ([]*flow.Program, serve.Options) {
		return []*flow.Program{testFlow(t, "deploy_task", flow.Env{}), compileSource(t, "ask.yaml", []byte(askFlow), flow.Env{})}, serve.Options{}
	})
}

// tasksPost sends a tasks/* request for task id with the bearer token,
// and returns the HTTP status, the WWW-Authenticate header and the
// JSON-RPC error code (0 for none).
func tasksPost(t *testing.T, ctx context.Context, url, token, method, id string, extra map[string]any) (int, string, int) {
	t.Helper()
	params := map[string]any{"taskId": id, "_meta": modernMeta(tasksCaps)}
	for k, v := range extra {
		params[k] = v
	}
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	if err != nil {
		t.Fatal(err)
	}
	h := http.Header{"Authorization": {"Bearer " + token}, "Mcp-Protocol-Version": {v20260728}, "Mcp-Method": {method}, "Mcp-Name": {id}}
	status, header, reply := rawPost(t, ctx, url, h, body)
	var msg struct {
		Error *rpcError `json:"error"`
	}
	if status == http.StatusOK || status == http.StatusBadRequest {
		if err := json.Unmarshal(reply, &msg); err != nil {
			t.Fatalf("%s: HTTP %d, not JSON-RPC: %s", method, status, reply)
		}
	}
	code := 0
	if msg.Error != nil {
		code = int(msg.Error.Code)
	}
	return status, header.Get("WWW-Authenticate"), code
}

// TestTaskScopesChecked: every tasks/* request is checked against the
// scopes of the task's flow, as tools/call is (the attack: a token that
// lost the scope still read, answered and cancelled its task). The same
// subject's token without the scope gets 403 insufficient_scope with the
// challenge, and changes nothing; with the scope it goes on; another
// subject, with or without the scope, gets "unknown task", which does not
// tell that the task exists; a flow with no scopes needs none.
func TestTaskScopesChecked(t *testing.T) {
	o := startTaskOAuth(t)
	ctx := testCtx(t)
	withScope, without := o.token(t, "alice", "deploy:write"), o.token(t, "alice")
	challenge := `Bearer resource_metadata="` + o.base + oauth.MetadataPath + serve.EndpointPath +
		`", scope="deploy:write", error="insufficient_scope", error_description="the deploy_task tool needs the scopes deploy:write"`
	id := startTask(t, ctx, o.endpoint, bearer(withScope), "deploy_task")
	var asked wireTask
	for asked.Status != "input_required" {
		if terminal(asked) || ctx.Err() != nil {
			t.Fatalf("deploy_task did not ask: %+v", asked)
		}
		time.Sleep(10 * time.Millisecond)
		taskAs(t, ctx, o.endpoint, bearer(withScope), "tasks/get", id, nil).result(t, &asked)
	}
	answers := map[string]any{}
	for key := range asked.InputRequests {
		answers[key] = map[string]any{"action": "accept", "content": map[string]any{"ok": true}}
	}
	update := map[string]any{"inputResponses": answers}

	tests := []struct {
		name   string
		token  string
		method string
		extra  map[string]any
		status int
		header string // WWW-Authenticate
		code   int    // JSON-RPC error, 0 for none
	}{
		{"get without the scope", without, "tasks/get", nil, http.StatusForbidden, challenge, 0},
		{"update without the scope", without, "tasks/update", update, http.StatusForbidden, challenge, 0},
		{"cancel without the scope", without, "tasks/cancel", nil, http.StatusForbidden, challenge, 0},
		{"get with the scope", withScope, "tasks/get", nil, http.StatusOK, "", 0},
		{"another subject's get", o.token(t, "bob", "deploy:write"), "tasks/get", nil, http.StatusBadRequest, "", codeInvalidParams},
		{"another subject's cancel", o.token(t, "bob", "deploy:write"), "tasks/cancel", nil, http.StatusBadRequest, "", codeInvalidParams},
		{"another subject's get without the scope", o.token(t, "bob"), "tasks/get", nil, http.StatusBadRequest, "", codeInvalidParams},
		{"another subject's update without the scope", o.token(t, "bob"), "tasks/update", update, http.StatusBadRequest, "", codeInvalidParams},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, header, code := tasksPost(t, ctx, o.endpoint, tt.token, tt.method, id, tt.extra)
			if status != tt.status || header != tt.header || code != tt.code {
				t.Errorf("HTTP %d, code %d, WWW-Authenticate %q\nwant %d, code %d, %q", status, code, header, tt.status, tt.code, tt.header)
			}
		})
	}

	// None of the refused requests changed the task.
	var still wireTask
	taskAs(t, ctx, o.endpoint, bearer(withScope), "tasks/get", id, nil).result(t, &still)
	if still.Status != "input_required" || len(still.InputRequests) != len(asked.InputRequests) {
		t.Fatalf("after the refused requests: %+v", still)
	}
	// With the scope, the answer goes through and the task completes.
	var ack map[string]any
	taskAs(t, ctx, o.endpoint, bearer(withScope), "tasks/update", id, update).result(t, &ack)
	if done := waitTaskAs(t, ctx, o.endpoint, bearer(withScope), id); done.Status != "completed" {
		t.Fatalf("after the update with the scope: %+v", done)
	}

	// A flow with no scopes: a token with none reads and cancels its task.
	open := askTask(t, ctx, o.endpoint, bearer(without))
	for _, method := range []string{"tasks/get", "tasks/cancel"} {
		if status, header, code := tasksPost(t, ctx, o.endpoint, without, method, open, nil); status != http.StatusOK || header != "" || code != 0 {
			t.Errorf("%s of an unscoped flow's task: HTTP %d, code %d, %q", method, status, code, header)
		}
	}
}
