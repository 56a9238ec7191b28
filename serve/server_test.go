package serve_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/flowserve/flowserve/flow"
	"github.com/flowserve/flowserve/serve"
)

// TestSessionElicitationFails: when a session client answers
// elicitation/create with an error, the call ends with an error result
// naming the question.
func TestSessionElicitationFails(t *testing.T) {
	for _, version := range []string{v20251125, v20250618} {
		t.Run(version, func(t *testing.T) {
			ctx := testCtx(t)
			s := newRawSession(t, ctx, newServer(t, exampleFlows(t), ""))
			s.initialize(version, map[string]any{"elicitation": map[string]any{}})
			s.onRequest = func(string, json.RawMessage) (any, *rpcError) {
				return nil, &rpcError{Code: -32603, Message: "the user's screen is off"}
			}
			resp := s.call("tools/call", map[string]any{"name": "signup", "arguments": map[string]any{}})
			checkSessionResult(t, resp, true, `asking "details" failed`)
		})
	}
}

// TestLegacyRoundsLimit: Options.LegacyRounds bounds the rounds of one
// session call.
func TestLegacyRoundsLimit(t *testing.T) {
	ctx := testCtx(t)
	srv, err := serve.New(exampleFlows(t), serve.Options{Logger: quietLogger(), LegacyRounds: 2})
	if err != nil {
		t.Fatal(err)
	}
	s := newRawSession(t, ctx, srv)
	s.initialize(v20251125, map[string]any{"elicitation": map[string]any{}})
	s.onRequest = answerForms(t,
		formAnswer(map[string]any{"decision": "revise"}), formAnswer(map[string]any{"amount": 700}))
	resp := s.call("tools/call", map[string]any{"name": "expense_approval", "arguments": taxi})
	checkSessionResult(t, resp, true, "the expense_approval tool asked more than 2 questions in one call")
}

const changingV1 = `name: changing
description: A flow that changes between rounds.
nodes:
  - id: q
    ask: "Proceed?"
    form:
      ok: {type: boolean, title: OK}
    required: [ok]
  - return: "v1: {{ q.content.ok }}"
`

// TestRunsInFlightFinishOnTheirVersion: a flow replaced or removed while
// a 2026-07-28 run is in progress does not change the run: its next round
// runs on the version it began on, while new calls get the new version
// (and a removed tool is unknown to them, and gone from tools/list).
func TestRunsInFlightFinishOnTheirVersion(t *testing.T) {
	opts := flow.Env{}
	v1 := compileSource(t, "changing.yaml", []byte(changingV1), opts)
	tests := []struct {
		name    string
		next    []*flow.Program
		newCall string // what a new call's first question asks, or "" for an unknown tool
	}{
		{name: "same flow recompiled", next: []*flow.Program{compileSource(t, "changing.yaml", []byte(changingV1), opts)}, newCall: "Proceed?"},
		{name: "different question", next: []*flow.Program{compileSource(t, "changing.yaml",
			[]byte(strings.Replace(changingV1, "Proceed?", "Proceed now?", 1)), opts)}, newCall: "Proceed now?"},
		{name: "other return", next: []*flow.Program{compileSource(t, "changing.yaml",
			[]byte(strings.Replace(changingV1, "v1:", "v2:", 1)), opts)}, newCall: "Proceed?"},
		{name: "removed", next: []*flow.Program{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := testCtx(t)
			srv := newServer(t, []*flow.Program{v1}, "")
			url := startHTTP(t, srv)
			first := rawRound(t, ctx, url, nil, callParams("changing", map[string]any{}, formCaps))
			wantInputRequired(t, first, "q")
			if err := srv.Replace(tc.next); err != nil {
				t.Fatal(err)
			}
			reply := postRaw(t, ctx, url, nil, "tools/call",
				retry("changing", map[string]any{}, first.RequestState, map[string]any{"q": formAnswer(map[string]any{"ok": true})}))
			var res rawCallResult
			reply.result(t, &res)
			wantComplete(t, &res, false, "v1: true")
			fresh := postRaw(t, ctx, url, nil, "tools/call", callParams("changing", map[string]any{}, formCaps))
			if tc.newCall == "" {
				if e := fresh.rpcErr(t); e.Code != codeInvalidParams || !strings.Contains(e.Message, "unknown tool") {
					t.Errorf("new call of a removed tool: %d %q", e.Code, e.Message)
				}
				if tools := srv.Tools(); len(tools) != 0 {
					t.Errorf("a removed tool is listed: %v", tools)
				}
				return
			}
			var again rawCallResult
			fresh.result(t, &again)
			if q := again.inputRequest(t, "q"); q.Params.Message != tc.newCall {
				t.Errorf("new call asks %q, want %q", q.Params.Message, tc.newCall)
			}
		})
	}
}

// TestFlowChangedWithoutVersions: a server whose engine pins no versions
// (an Engine given without Versions) answers a journal the new flow does
// not replay with -32602.
func TestFlowChangedWithoutVersions(t *testing.T) {
	ctx := testCtx(t)
	v1 := compileSource(t, "changing.yaml", []byte(changingV1), flow.Env{})
	v2 := compileSource(t, "changing.yaml", []byte(strings.Replace(changingV1, "Proceed?", "Proceed now?", 1)), flow.Env{})
	srv := serverWith(t, []*flow.Program{v1}, serve.Options{Engine: newEngine(t, flow.EngineOptions{})})
	url := startHTTP(t, srv)
	first := rawRound(t, ctx, url, nil, callParams("changing", map[string]any{}, formCaps))
	if err := srv.Replace([]*flow.Program{v2}); err != nil {
		t.Fatal(err)
	}
	e := postRaw(t, ctx, url, nil, "tools/call",
		retry("changing", map[string]any{}, first.RequestState, map[string]any{"q": formAnswer(map[string]any{"ok": true})})).rpcErr(t)
	if e.Code != codeInvalidParams || !strings.Contains(e.Message, "no longer matches its journal") {
		t.Errorf("error %d %q", e.Code, e.Message)
	}
}

// TestReplaceKeepsToolsSorted: tools added later are listed in order, and
// session clients are told the list changed.
func TestReplaceKeepsToolsSorted(t *testing.T) {
	ctx := testCtx(t)
	progs := exampleFlows(t)
	srv := newServer(t, progs, "")
	changed := make(chan struct{}, 10)
	client := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
	})
	cs := connect(t, ctx, srv, inMemory, v20251125, client, nil)
	more := slices.DeleteFunc(slices.Clone(progs), func(p *flow.Program) bool {
		return p.Name() != "expense_approval" && p.Name() != "github_signin" && p.Name() != "signup"
	})
	more = append(more, testFlow(t, "two_questions", flow.Env{}), testFlow(t, "url_only", flow.Env{}), testFlow(t, "steps", flow.Env{}))
	if err := srv.Replace(more); err != nil {
		t.Fatal(err)
	}
	select {
	case <-changed:
	case <-ctx.Done():
		t.Fatal("no notifications/tools/list_changed")
	}
	want := []string{"expense_approval", "github_signin", "signup", "steps", "two_questions", "url_only"}
	if got := srv.Tools(); !slices.Equal(got, want) {
		t.Errorf("Tools() = %v, want %v", got, want)
	}
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	if !slices.Equal(names, want) {
		t.Errorf("tools/list = %v, want %v", names, want)
	}
	if err := srv.Replace(append(more, testFlow(t, "steps", flow.Env{}))); err == nil || !strings.Contains(err.Error(), `tool "steps" is defined twice`) {
		t.Errorf("Replace with a duplicate: %v", err)
	}
}

// TestConcurrentClients: one server, many clients of every era at once.
func TestConcurrentClients(t *testing.T) {
	ctx := testCtx(t)
	srv := newServer(t, exampleFlows(t), "")
	const perEra = 4
	var wg sync.WaitGroup
	for _, e := range eras {
		for _, kind := range transports {
			for i := range perEra {
				name := fmt.Sprintf("%s/%s/%d", e.name, kind, i)
				steps := []question{
					detailsQ(accept(with(ada, "plan", "team", "seats", 2))),
					detailsQ(accept(with(ada, "name", name, "plan", "team", "seats", 5+i)), "you asked for 2"),
				}
				sc := newScript(t, e.version, steps)
				cs := connect(t, ctx, srv, kind, e.version, clientFor(e, sc, false, nil, nil), nil)
				wg.Add(1)
				go func() {
					defer wg.Done()
					res, _, err := callTool(t, ctx, cs, e, sc, &mcp.CallToolParams{Name: "signup", Arguments: map[string]any{}})
					if err != nil {
						t.Errorf("%s: %v", name, err)
						return
					}
					if want := fmt.Sprintf("Signed up %s <ada@example.com> on the team plan with %d seat(s)", name, 5+i); res.IsError || !strings.Contains(resultText(res), want) {
						t.Errorf("%s: %q, want %q", name, resultText(res), want)
					}
				}()
			}
		}
	}
	wg.Wait()
}

// TestClientScope: what a flow sees as `client` on each era: the name and
// version the client gave, the protocol version in use, and whether it
// can be asked in form and URL mode.
func TestClientScope(t *testing.T) {
	whoami := testFlow(t, "whoami", flow.Env{})
	for _, e := range eras {
		for _, kind := range transports {
			for _, elicit := range []bool{true, false} {
				t.Run(fmt.Sprintf("%s/%s/elicitation=%v", e.name, kind, elicit), func(t *testing.T) {
					ctx := testCtx(t)
					var caps *mcp.ClientCapabilities // nil: form and URL where the era has them
					if !elicit {
						caps = &mcp.ClientCapabilities{}
					}
					sc := newScript(t, e.version, nil)
					cs := connect(t, ctx, newServer(t, []*flow.Program{whoami}, ""), kind, e.version, clientFor(e, sc, false, caps, nil), nil)
					res, _, err := callTool(t, ctx, cs, e, sc, &mcp.CallToolParams{Name: "whoami"})
					if err != nil {
						t.Fatal(err)
					}
					want := fmt.Sprintf("serve-test|1|%s|%v|%v", e.version, elicit, elicit && e.version >= v20251125)
					checkText(t, res, false, want)
				})
			}
		}
	}
	// Session clients asking initialize for a version the server does not
	// have: the flow sees the version negotiated, and what it allows.
	for _, tc := range []struct{ requested, want string }{
		{v20260728, "raw-session|1|2025-11-25|true|true"},
		{"2027-01-01", "raw-session|1|2025-11-25|true|true"},
		{"2025-07-01", "raw-session|1|2025-11-25|true|true"},
	} {
		t.Run("initialize "+tc.requested, func(t *testing.T) {
			ctx := testCtx(t)
			s := newRawSession(t, ctx, newServer(t, []*flow.Program{whoami}, ""))
			init := s.initialize(tc.requested, map[string]any{"elicitation": map[string]any{"form": map[string]any{}, "url": map[string]any{}}})
			if init["protocolVersion"] != v20251125 {
				t.Errorf("negotiated %v, want %s", init["protocolVersion"], v20251125)
			}
			checkSessionResult(t, s.call("tools/call", map[string]any{"name": "whoami", "arguments": map[string]any{}}), false, tc.want)
		})
	}
}
