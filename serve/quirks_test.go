package serve_test

// Guards for the go-sdk quirks of docs/go-sdk-notes.md: if an SDK
// upgrade changes one of them, a test here fails.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/flowserve/flowserve/actions"
	"github.com/flowserve/flowserve/flow"
)

// answerForms answers each elicitation/create of a raw session from
// answers, in order, and fails the test on anything else.
func answerForms(t testing.TB, answers ...map[string]any) func(string, json.RawMessage) (any, *rpcError) {
	n := 0
	return func(method string, params json.RawMessage) (any, *rpcError) {
		if method != "elicitation/create" {
			t.Errorf("unexpected request %s", method)
			return nil, &rpcError{Code: -32601, Message: "not supported"}
		}
		if n >= len(answers) {
			t.Errorf("unexpected question %d: %s", n+1, params)
			return map[string]any{"action": "cancel"}, nil
		}
		n++
		return answers[n-1], nil
	}
}

func formAnswer(content map[string]any) map[string]any {
	return map[string]any{"action": "accept", "content": content}
}

// checkSessionResult checks a session tools/call result as sent: complete,
// with no trace of MRTR.
func checkSessionResult(t testing.TB, resp *rpcMessage, isError bool, has string) {
	t.Helper()
	if resp.Error != nil {
		t.Fatalf("JSON-RPC error %d: %s", resp.Error.Code, resp.Error.Message)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(resp.Result, &raw); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"inputRequests", "requestState"} {
		if _, ok := raw[key]; ok {
			t.Errorf("session result has %s: %s", key, resp.Result)
		}
	}
	if rt, ok := raw["resultType"]; ok && string(rt) != `"complete"` {
		t.Errorf("session result has resultType %s", rt)
	}
	var res rawCallResult
	if err := json.Unmarshal(resp.Result, &res); err != nil {
		t.Fatal(err)
	}
	if res.IsError != isError || !strings.Contains(res.text(), has) {
		t.Errorf("result isError %v, text %q; want %v, %q", res.IsError, res.text(), isError, has)
	}
}

// TestLegacyInitializeAt2026 (probe B): a client that sends initialize
// asking for 2026-07-28 gets a session at 2025-11-25 and is served as a
// session client: elicitation/create, and no input_required result.
func TestLegacyInitializeAt2026(t *testing.T) {
	ctx := testCtx(t)
	srv := newServer(t, []*flow.Program{testFlow(t, "two_questions", flow.Env{})}, "")
	s := newRawSession(t, ctx, srv)
	init := s.initialize(v20260728, map[string]any{"elicitation": map[string]any{}})
	if init["protocolVersion"] != v20251125 {
		t.Errorf("initialize negotiated %v, want %s", init["protocolVersion"], v20251125)
	}
	s.onRequest = answerForms(t, formAnswer(map[string]any{"a": "x"}), formAnswer(map[string]any{"b": 3}))
	resp := s.call("tools/call", map[string]any{"name": "two_questions", "arguments": map[string]any{}})
	checkSessionResult(t, resp, false, "a=x b=3")
	if n := len(s.requests("elicitation/create")); n != 2 {
		t.Errorf("%d elicitation/create requests, want 2", n)
	}
}

// TestSessionRunsEveryRoundInOneCall (probe A): a session client's
// tools/call runs every round inside the one call, with one
// elicitation/create per question; flowserve does not rely on the SDK's
// shim, which re-invokes a handler once only.
func TestSessionRunsEveryRoundInOneCall(t *testing.T) {
	progs := append(slices.Clone(exampleFlows(t)), testFlow(t, "two_questions", flow.Env{}))
	tests := []struct {
		tool    string
		args    map[string]any
		answers []map[string]any
		want    string
	}{
		{tool: "two_questions", args: map[string]any{},
			answers: []map[string]any{formAnswer(map[string]any{"a": "x"}), formAnswer(map[string]any{"b": 3})},
			want:    "a=x b=3"},
		{tool: "expense_approval", args: taxi,
			answers: []map[string]any{
				formAnswer(map[string]any{"decision": "revise"}), formAnswer(map[string]any{"amount": 700}),
				formAnswer(map[string]any{"decision": "revise"}), formAnswer(map[string]any{"amount": 600}),
				formAnswer(map[string]any{"decision": "approve"}),
			},
			want: "Filed 600 EUR for Taxi"},
	}
	for _, tc := range tests {
		for _, version := range []string{v20250618, v20251125} {
			t.Run(tc.tool+"/"+version, func(t *testing.T) {
				ctx := testCtx(t)
				s := newRawSession(t, ctx, newServer(t, progs, ""))
				s.initialize(version, map[string]any{"elicitation": map[string]any{}})
				s.onRequest = answerForms(t, tc.answers...)
				resp := s.call("tools/call", map[string]any{"name": tc.tool, "arguments": tc.args})
				checkSessionResult(t, resp, false, tc.want)
				if n := len(s.requests("elicitation/create")); n != len(tc.answers) {
					t.Errorf("%d elicitation/create requests, want %d", n, len(tc.answers))
				}
			})
		}
	}
}

// TestToolListSorted: tools/list is in name order, whatever the order the
// flows were given in, on every era and transport.
func TestToolListSorted(t *testing.T) {
	progs := exampleFlows(t)
	reversed := slices.Clone(progs)
	slices.Reverse(reversed)
	want := []string{"book_meeting", "delete_file", "expense_approval", "github_signin", "project_brief", "refund_approval", "rotate_key", "signup", "write_file"}
	for _, version := range []string{v20260728, v20251125, v20250618} {
		for _, kind := range transports {
			t.Run(version+"/"+string(kind), func(t *testing.T) {
				ctx := testCtx(t)
				srv := newServer(t, reversed, "")
				if got := srv.Tools(); !slices.Equal(got, want) {
					t.Errorf("Tools() = %v, want %v", got, want)
				}
				e := era{version: version}
				cs := connect(t, ctx, srv, kind, version, clientFor(e, nil, false, &mcp.ClientCapabilities{}, nil), nil)
				for i := range 2 {
					res, err := cs.ListTools(ctx, nil)
					if err != nil {
						t.Fatal(err)
					}
					var names []string
					for _, tool := range res.Tools {
						names = append(names, tool.Name)
						p := progs[slices.IndexFunc(progs, func(p *flow.Program) bool { return p.Name() == tool.Name })]
						if !jsonEqual(tool.InputSchema, p.InputSchema()) {
							t.Errorf("%s: inputSchema %v, want %v", tool.Name, tool.InputSchema, p.InputSchema())
						}
						if tool.Description != p.Description() || tool.Title != p.Title() {
							t.Errorf("%s: title %q, description %q", tool.Name, tool.Title, tool.Description)
						}
					}
					if !slices.Equal(names, want) {
						t.Errorf("list %d: %v, want %v", i+1, names, want)
					}
				}
			})
		}
	}
}

// failingRegistry registers the test.* actions of testdata/failing.yaml.
func failingRegistry(t testing.TB) *actions.Registry {
	t.Helper()
	reg := actions.NewRegistry()
	obj := map[string]any{"type": "object"}
	for name, err := range map[string]error{
		"test.fail":     errors.New("backend down"),
		"test.deadline": fmt.Errorf("backend: %w", context.DeadlineExceeded),
		"test.canceled": fmt.Errorf("backend: %w", context.Canceled),
	} {
		if rerr := reg.Register(actions.Spec{Name: name, Summary: "fails", Input: obj, Output: obj,
			Func: func(context.Context, map[string]any) (any, error) { return nil, err }}); rerr != nil {
			t.Fatal(rerr)
		}
	}
	return reg
}

// TestToolErrorsAreResults: failures of a run (invalid arguments, a fail
// node, an answer that stayed invalid, a step that failed, whatever its
// error wraps) are results with isError, never a JSON-RPC error, and in
// particular never code 0 (what the SDK sends for a plain Go error).
func TestToolErrorsAreResults(t *testing.T) {
	// A server that answers only when the client gives up, for
	// http.request's own timeout.
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }))
	t.Cleanup(hang.Close)
	progs := append(slices.Clone(exampleFlows(t)),
		testFlow(t, "failing", flow.Env{Actions: failingRegistry(t)}),
		testFlow(t, "slow_http", flow.Env{}))
	invalid := formAnswer(with(ada, "plan", "team", "seats", 2))
	tests := []struct {
		name    string
		tool    string
		args    map[string]any
		answers []map[string]any
		want    string
	}{
		{name: "invalid arguments", tool: "delete_file", args: map[string]any{"path": 7}, want: "invalid arguments"},
		{name: "missing arguments", tool: "delete_file", args: map[string]any{}, want: "invalid arguments"},
		{name: "fail node", tool: "delete_file", args: map[string]any{"path": "nope.txt"}, want: "Cannot delete nope.txt"},
		{name: "retries exhausted", tool: "signup", args: map[string]any{}, answers: []map[string]any{invalid, invalid, invalid},
			want: "was not accepted after 3 tries"},
		{name: "step failed", tool: "failing", args: map[string]any{"which": "plain"}, want: "backend down"},
		{name: "step failed with a deadline error", tool: "failing", args: map[string]any{"which": "deadline"}, want: "backend: context deadline exceeded"},
		// http.request wraps context.DeadlineExceeded when its own
		// timeout fires.
		{name: "http.request timed out", tool: "slow_http", args: map[string]any{"url": hang.URL}, want: "no complete response within 50ms"},
		{name: "step failed with a canceled error", tool: "failing", args: map[string]any{"which": "canceled"}, want: "backend: context canceled"},
	}
	for _, tc := range tests {
		for _, version := range []string{v20260728, v20251125, v20250618} {
			t.Run(tc.name+"/"+version, func(t *testing.T) {
				ctx := testCtx(t)
				s := newRawSession(t, ctx, newServer(t, progs, ""))
				if version < v20260728 {
					s.initialize(version, map[string]any{"elicitation": map[string]any{}})
					s.onRequest = answerForms(t, tc.answers...)
					checkSessionResult(t, s.call("tools/call", map[string]any{"name": tc.tool, "arguments": tc.args}), true, tc.want)
					return
				}
				params := callParams(tc.tool, tc.args, formCaps)
				for i := 0; ; i++ {
					resp := s.call("tools/call", params)
					if resp.Error != nil {
						t.Fatalf("JSON-RPC error %d: %q, want an error result", resp.Error.Code, resp.Error.Message)
					}
					var res rawCallResult
					if err := json.Unmarshal(resp.Result, &res); err != nil {
						t.Fatal(err)
					}
					if res.ResultType == "complete" {
						wantComplete(t, &res, true, tc.want)
						return
					}
					if i >= len(tc.answers) {
						t.Fatalf("round %d asks again: %s", i+1, resp.Result)
					}
					params = retry(tc.tool, tc.args, res.RequestState, map[string]any{"details": tc.answers[i]})
				}
			})
		}
	}
}
