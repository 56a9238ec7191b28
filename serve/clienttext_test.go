package serve_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/flowserve/flowserve/flow"
	"github.com/flowserve/flowserve/flow/state"
)

// failingRefundFlow charges through an API that is not there, with no
// on_error: the run fails at the step.
const failingRefundFlow = `name: refund
description: Refunds a charge.
vars:
  api_base: {description: Base URL of the payments API}
nodes:
  - id: charge
    step: http.request
    with:
      method: POST
      url: "{{ vars.api_base }}/refund"
      timeout: 5s
  - return: refunded
`

// failingPromptFlow is a prompt whose step fails the same way.
const failingPromptFlow = `name: refund_prompt
kind: prompt
description: Drafts a refund note.
vars:
  api_base: {description: Base URL of the payments API}
nodes:
  - id: lookup
    step: http.request
    with:
      url: "{{ vars.api_base }}/charge"
      timeout: 5s
  - return: unreachable
`

// TestFailedStepTextNamesNoPath serves flows from an absolute directory:
// a client whose call fails at a step reads the tool and the node in the
// error, never the directory the server keeps its flows in.
func TestFailedStepTextNamesNoPath(t *testing.T) {
	dir := t.TempDir()
	engine := newEngine(t, flow.EngineOptions{Values: flow.Values{Vars: map[string]string{"api_base": closedURL}}})
	var progs []*flow.Program
	// The same tool as a task, whose result a client reads from tasks/get.
	taskFlow := strings.Replace(strings.Replace(failingRefundFlow, "name: refund\n", "name: refund_task\n", 1),
		"nodes:", "task: required\nnodes:", 1)
	for name, src := range map[string]string{"refund.yaml": failingRefundFlow, "refund_prompt.yaml": failingPromptFlow, "refund_task.yaml": taskFlow} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(src), 0o600); err != nil {
			t.Fatal(err)
		}
		progs = append(progs, compileFile(t, path, flow.Env{}))
	}
	srv := newServerOn(t, progs, "", engine)
	t.Cleanup(func() {
		done, cancel := context.WithCancel(context.Background())
		cancel()
		srv.Close(done)
	})
	ctx := testCtx(t)
	for _, e := range eras {
		t.Run(e.name, func(t *testing.T) {
			cs := connect(t, ctx, srv, overHTTP, e.version, clientFor(e, nil, false, nil, nil), nil)
			res, _, err := callTool(t, ctx, cs, e, nil, &mcp.CallToolParams{Name: "refund"})
			if err != nil {
				t.Fatal(err)
			}
			checkText(t, res, true, "refund: node charge: http.request failed: ", "127.0.0.1:1")
			raw, _ := json.Marshal(res)
			if strings.Contains(string(raw), dir) || strings.Contains(string(raw), "refund.yaml") {
				t.Errorf("the error result names the server's path %s:\n%s", dir, raw)
			}
			// A prompt has no error results: its failure is the message
			// of a JSON-RPC error, as clean.
			_, err = cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "refund_prompt"})
			if err == nil || !strings.Contains(err.Error(), "refund_prompt: node lookup: http.request failed: ") || strings.Contains(err.Error(), dir) {
				t.Errorf("the prompt's error %v: want the prompt and node, not %s", err, dir)
			}
		})
	}
	t.Run("task", func(t *testing.T) {
		url := startHTTP(t, srv)
		task := waitTask(t, ctx, url, taskCall(t, ctx, url, "refund_task", map[string]any{}).TaskID, terminal)
		if task.Result == nil || !task.Result.IsError || !strings.HasPrefix(task.Result.text(), "refund_task: node charge: http.request failed: ") {
			t.Fatalf("the task's result: %+v", task)
		}
		raw, _ := json.Marshal(task)
		if strings.Contains(string(raw), dir) {
			t.Errorf("the task names the server's path %s:\n%s", dir, raw)
		}
	})
}

// TestStepOutputSecretRedactedOverMCP: an API that echoes the key a step
// sent it puts the secret in the step's output; neither the sealed state
// nor the questions nor the result reach the client with it.
func TestStepOutputSecretRedactedOverMCP(t *testing.T) {
	const apiKey = `key-"q\u00fc\\te"-✓-7`
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var in struct{ Key string }
		json.Unmarshal(body, &in)
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"owner": "ada", "key": in.Key, "note": "called with " + in.Key, "n": 7})
	}))
	t.Cleanup(api.Close)
	const whoami = `name: whoami
description: Asks the API whose key it is.
vars:
  api_base: {description: Base URL}
secrets:
  api_key: {description: API key}
nodes:
  - id: who
    step: http.request
    with:
      method: POST
      url: "{{ vars.api_base }}/whoami"
      json: {key: "{{ secrets.api_key }}"}
  - id: confirm
    ask: "Act as {{ who.json.owner }} with {{ who.json.key }}?"
    form:
      ok: {type: boolean}
  - return: "{{ who.json.owner }} ({{ who.json.n }}): {{ who.json.key }}; {{ who.json.note }}"
`
	key := state.Key{ID: "k1"}
	copy(key.Secret[:], "redaction test key, 32 bytes ok!")
	ring, err := state.NewKeyRing(key)
	if err != nil {
		t.Fatal(err)
	}
	values := flow.Values{Vars: map[string]string{"api_base": api.URL}, Secrets: map[string]string{"api_key": apiKey}}
	engine := newEngine(t, flow.EngineOptions{Codec: state.NewCodec(ring, state.Options{}), Values: values})
	srv := newServerOn(t, []*flow.Program{compileSource(t, "whoami.yaml", []byte(whoami), flow.Env{})}, "", engine)
	ctx := testCtx(t)
	e := era{name: v20260728 + "-manual", version: v20260728, manual: true}
	cs := connect(t, ctx, srv, overHTTP, v20260728, clientFor(e, nil, false, nil, nil), nil)
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "whoami"})
	if err != nil {
		t.Fatal(err)
	}
	if !res.NeedsInput() {
		t.Fatalf("round 1 did not ask: %s", resultText(res))
	}
	raw, _ := json.Marshal(res)
	plain := openState(t, key, res.RequestState)
	for what, text := range map[string]string{"the input_required result": string(raw), "the sealed state": plain} {
		if strings.Contains(text, apiKey) || strings.Contains(text, `key-\"q`) {
			t.Errorf("%s holds the secret:\n%s", what, text)
		}
	}
	if !strings.Contains(string(raw), "Act as ada with "+flow.Redacted+"?") || !strings.Contains(plain, `"key":"`+flow.Redacted+`"`) {
		t.Errorf("the question or the journal lacks the redacted key:\n%s\n%q", raw, plain)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "whoami", RequestState: res.RequestState,
		InputResponses: mcp.InputResponseMap{"confirm": accept(map[string]any{"ok": true})}})
	if err != nil {
		t.Fatal(err)
	}
	want := "ada (7): " + flow.Redacted + "; called with " + flow.Redacted
	if text := resultText(res); res.IsError || text != want {
		t.Errorf("result %q (isError %v), want %q", text, res.IsError, want)
	}
}
