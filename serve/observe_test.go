package serve_test

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/flowserve/flowserve/flow"
	"github.com/flowserve/flowserve/serve"
)

// TestMetrics drives calls of every outcome over HTTP, scrapes /metrics
// and checks that each counter moved by what was done.
func TestMetrics(t *testing.T) {
	ctx := testCtx(t)
	reg := opsRegistry(t, nil)
	failing := compileSource(t, "failing.yaml", []byte(`
name: failing
description: A step that fails.
nodes:
  - id: down
    step: test.fail
  - return: unreachable
`), flow.Env{Actions: reg})
	progs := append(compileExamples(t, flow.Env{}), failing)
	srv := serverWith(t, progs, serve.Options{})
	url := startHTTPWith(t, srv, serve.HTTPOptions{Metrics: true})
	metricsURL := strings.TrimSuffix(url, serve.EndpointPath) + serve.MetricsPath
	before := scrape(t, ctx, metricsURL, nil)
	if v := value(before, "flowserve_rounds_total", nil); v != 0 {
		t.Fatalf("rounds before any call: %v", v)
	}

	// signup: input_required, then an invalid answer (asked again), then
	// complete.
	first := rawRound(t, ctx, url, nil, callParams("signup", map[string]any{}, formCaps))
	wantInputRequired(t, first, "details")
	again := rawRound(t, ctx, url, nil, retry("signup", map[string]any{}, first.RequestState, map[string]any{"details": map[string]any{"action": "accept", "content": with(ada, "plan", "team", "seats", 2)}}))
	wantInputRequired(t, again, "details")
	wantComplete(t, rawRound(t, ctx, url, nil, retry("signup", map[string]any{}, again.RequestState, map[string]any{"details": adaAnswer})), false, "Signed up")
	// A tampered state: a protocol error.
	postRaw(t, ctx, url, nil, "tools/call", retry("signup", map[string]any{}, first.RequestState+"A", map[string]any{"details": adaAnswer})).rpcErr(t)
	// expense_approval: a final round sent twice, the second from the
	// reply store.
	first = rawRound(t, ctx, url, nil, callParams("expense_approval", taxi, formCaps))
	final := retry("expense_approval", taxi, first.RequestState, map[string]any{"decision": map[string]any{"action": "decline"}})
	rawRound(t, ctx, url, nil, final)
	rawRound(t, ctx, url, nil, final)
	// delete_file of a missing file: a step error taken by on_error, an
	// error result.
	wantComplete(t, rawRound(t, ctx, url, nil, callParams("delete_file", map[string]any{"path": "nope.txt"}, formCaps)), true, "Cannot delete")
	// github_signin without URL mode: unavailable.
	wantComplete(t, rawRound(t, ctx, url, nil, callParams("github_signin", issueBody, formCaps)), true, "needs a GitHub sign-in")
	// failing: a step error that fails the run.
	wantComplete(t, rawRound(t, ctx, url, nil, callParams("failing", map[string]any{}, formCaps)), true, "backend down")
	// A session call, cancelled by its user.
	cs, err := connectURL(t, ctx, url, v20251125, sessionClient(func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		return canceled, nil
	}), nil)
	must(t, err)
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "signup", Arguments: map[string]any{}})
	must(t, err)
	checkText(t, res, false)
	// A request with a rebound Host.
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader("{}"))
	req.Host = "evil.example"
	resp, err := http.DefaultClient.Do(req)
	must(t, err)
	resp.Body.Close()

	m := scrape(t, ctx, metricsURL, nil)
	modern := "2026-07-28"
	tests := []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{"flowserve_rounds_total", labels("era", modern, "tool", "signup", "outcome", "input_required", "code", ""), 2},
		{"flowserve_rounds_total", labels("era", modern, "tool", "signup", "outcome", "complete"), 1},
		{"flowserve_rounds_total", labels("era", modern, "tool", "signup", "outcome", "protocol_error", "code", "-32602"), 1},
		{"flowserve_rounds_total", labels("era", modern, "tool", "expense_approval", "outcome", "complete"), 2},
		{"flowserve_rounds_total", labels("era", modern, "tool", "delete_file", "outcome", "error_result"), 1},
		{"flowserve_rounds_total", labels("era", modern, "tool", "failing", "outcome", "error_result"), 1},
		{"flowserve_rounds_total", labels("era", "2025-11-25", "tool", "signup", "outcome", "input_required"), 1},
		{"flowserve_rounds_total", labels("era", "2025-11-25", "tool", "signup", "outcome", "complete"), 1},
		{"flowserve_round_duration_seconds_count", labels("era", modern), 10},
		{"flowserve_round_duration_seconds_count", labels("era", "2025-11-25"), 2},
		{"flowserve_state_bytes_count", nil, 3},
		{"flowserve_asks_total", labels("tool", "signup", "action", "accept"), 1},
		{"flowserve_asks_total", labels("tool", "signup", "action", "invalid"), 1},
		{"flowserve_asks_total", labels("tool", "signup", "action", "cancel"), 1},
		{"flowserve_asks_total", labels("tool", "expense_approval", "action", "decline"), 1},
		{"flowserve_asks_total", labels("tool", "github_signin", "action", "unavailable"), 1},
		{"flowserve_step_errors_total", labels("tool", "delete_file"), 1},
		{"flowserve_step_errors_total", labels("tool", "failing"), 1},
		{"flowserve_reply_store_hits_total", labels("tool", "expense_approval"), 1},
		{"flowserve_http_rejected_total", labels("reason", "host"), 1},
		{"flowserve_sessions", nil, 1},
		{"flowserve_legacy_calls", nil, 0},
		{"flowserve_parked_calls", nil, 0},
		{"flowserve_rounds_in_flight", nil, 0},
	}
	for _, tc := range tests {
		if got := value(m, tc.name, tc.labels); got != tc.want {
			t.Errorf("%s%v = %v, want %v", tc.name, tc.labels, got, tc.want)
		}
	}
	if value(m, "go_goroutines", nil) == 0 {
		t.Error("no Go runtime metrics")
	}

	// Without HTTPOptions.Metrics there is no /metrics, and two servers
	// do not share counters.
	other := serverWith(t, progs, serve.Options{})
	otherURL := startHTTPWith(t, other, serve.HTTPOptions{})
	resp, err = http.Get(strings.TrimSuffix(otherURL, serve.EndpointPath) + serve.MetricsPath)
	must(t, err)
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("/metrics without HTTPOptions.Metrics: %d", resp.StatusCode)
	}
	if other.Metrics().Registry == srv.Metrics().Registry {
		t.Error("two servers share a registry")
	}
}

// TestRoundLogs: every round is logged with the tool, era, run id, round
// and node; the run id is the same across rounds; the caller is named
// by its token.
func TestRoundLogs(t *testing.T) {
	ctx := testCtx(t)
	var logs logBuffer
	srv := serverWith(t, compileExamples(t, flow.Env{}), serve.Options{Logger: logs.logger(slog.LevelDebug)})
	url := startHTTPWith(t, srv, serve.HTTPOptions{Tokens: testTokens(t)})
	first := rawRound(t, ctx, url, bearer(aliceToken), callParams("signup", map[string]any{}, formCaps))
	rawRound(t, ctx, url, bearer(aliceToken), retry("signup", map[string]any{}, first.RequestState, map[string]any{"details": adaAnswer}))
	rawRound(t, ctx, url, bearer(bobToken), callParams("delete_file", map[string]any{"path": "nope.txt"}, formCaps))

	var rounds []map[string]any
	for _, r := range logs.records(t) {
		if _, ok := r["outcome"]; ok {
			rounds = append(rounds, r)
		}
	}
	want := []map[string]any{
		{"level": "DEBUG", "msg": "round needs input", "tool": "signup", "era": v20260728, "round": 1.0, "node": "details", "outcome": "input_required", "caller": "alice"},
		{"level": "INFO", "msg": "call finished", "tool": "signup", "era": v20260728, "round": 2.0, "node": "#3", "outcome": "complete", "caller": "alice"},
		{"level": "INFO", "msg": "call finished", "tool": "delete_file", "era": v20260728, "round": 1.0, "node": "not_found", "outcome": "error_result"},
	}
	if len(rounds) != len(want) {
		t.Fatalf("%d round records, want %d: %v", len(rounds), len(want), rounds)
	}
	for i, w := range want {
		for k, v := range w {
			if rounds[i][k] != v {
				t.Errorf("record %d: %s = %v, want %v (%v)", i, k, rounds[i][k], v, rounds[i])
			}
		}
		if run, _ := rounds[i]["run"].(string); len(run) != 32 {
			t.Errorf("record %d: run %q", i, run)
		}
		if _, ok := rounds[i]["ms"].(float64); !ok {
			t.Errorf("record %d has no duration", i)
		}
	}
	if rounds[0]["run"] != rounds[1]["run"] || rounds[1]["run"] == rounds[2]["run"] {
		t.Errorf("run ids %v %v %v: want the first two equal", rounds[0]["run"], rounds[1]["run"], rounds[2]["run"])
	}
	if _, ok := rounds[2]["caller"]; ok {
		t.Errorf("an unnamed token's caller was logged: %v", rounds[2])
	}
}

// TestAnswersInLogs: form answers are logged at Debug level only, and
// answers to URL asks never, on both eras; a run failure is a warning
// naming the node.
func TestAnswersInLogs(t *testing.T) {
	const secret = "ada@example.com"
	run := func(t *testing.T, level slog.Level) []map[string]any {
		ctx := testCtx(t)
		var logs logBuffer
		srv := serverWith(t, compileExamples(t, flow.Env{}), serve.Options{Logger: logs.logger(level)})
		url := startHTTPWith(t, srv, serve.HTTPOptions{})
		urlCaps := map[string]any{"elicitation": map[string]any{"form": map[string]any{}, "url": map[string]any{}}}
		// 2026-07-28: a form answer, and a URL answer.
		first := rawRound(t, ctx, url, nil, callParams("signup", map[string]any{}, formCaps))
		rawRound(t, ctx, url, nil, retry("signup", map[string]any{}, first.RequestState, map[string]any{"details": adaAnswer}))
		p := callParams("github_signin", issueBody, urlCaps)
		first = rawRound(t, ctx, url, nil, p)
		p["requestState"], p["inputResponses"] = first.RequestState, map[string]any{"signin": map[string]any{"action": "accept", "content": map[string]any{"code": "url-secret"}}}
		rawRound(t, ctx, url, nil, p)
		// A session: the same.
		cs, err := connectURL(t, ctx, url, v20251125, mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, &mcp.ClientOptions{
			Capabilities: &mcp.ClientCapabilities{Elicitation: elicitationCaps(v20251125)},
			ElicitationHandler: func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				if r.Params.Mode == "url" {
					return &mcp.ElicitResult{Action: "accept"}, nil
				}
				if strings.Contains(r.Params.Message, "issue") {
					return accept(map[string]any{"repository": "a/b", "title": "Hello world"}), nil
				}
				return accept(ada), nil
			},
		}), nil)
		must(t, err)
		for _, name := range []string{"signup", "github_signin"} {
			args := map[string]any{}
			if name == "github_signin" {
				args = issueBody
			}
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
			must(t, err)
			checkText(t, res, false)
		}
		return logs.records(t)
	}
	t.Run("debug", func(t *testing.T) {
		recs := run(t, slog.LevelDebug)
		var forms int
		for _, r := range recs {
			text := strings.Join(strings.Fields(toJSON(r)), " ")
			if strings.Contains(text, "url-secret") || (r["msg"] == "form answer" && r["ask"] == "signin") {
				t.Errorf("an answer to a URL ask was logged: %s", text)
			}
			if strings.Contains(text, secret) {
				if r["level"] != "DEBUG" || r["msg"] != "form answer" {
					t.Errorf("a form answer in a %v %q record: %s", r["level"], r["msg"], text)
				}
				forms++
			}
		}
		if forms != 2 {
			t.Errorf("%d form answers with %q logged at Debug, want 2 (one per era)", forms, secret)
		}
	})
	t.Run("info", func(t *testing.T) {
		for _, r := range run(t, slog.LevelInfo) {
			if text := toJSON(r); strings.Contains(text, secret) || strings.Contains(text, "url-secret") {
				t.Errorf("an answer logged at Info level: %s", text)
			}
		}
	})
}

// TestRunFailureLogged: a run that fails is a warning with the tool, the
// node and the error.
func TestRunFailureLogged(t *testing.T) {
	ctx := testCtx(t)
	var logs logBuffer
	reg := opsRegistry(t, nil)
	p := compileSource(t, "failing.yaml", []byte("name: failing\ndescription: d\nnodes:\n  - id: down\n    step: test.fail\n  - return: x\n"), flow.Env{Actions: reg})
	srv := serverWith(t, []*flow.Program{p}, serve.Options{Logger: logs.logger(slog.LevelInfo)})
	url := startHTTPWith(t, srv, serve.HTTPOptions{})
	rawRound(t, ctx, url, nil, callParams("failing", map[string]any{}, formCaps))
	deadline := time.Now().Add(time.Second)
	for {
		for _, r := range logs.records(t) {
			if r["msg"] == "run failed" && r["level"] == "WARN" && r["node"] == "down" && r["tool"] == "failing" &&
				strings.Contains(r["err"].(string), "test.fail failed: backend down") {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no warning for the failed run in %s", logs.text())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestSDKLogsDemoted: the go-sdk's Info records (one per session and per
// stateless request) are Debug records marked component=go-sdk.
func TestSDKLogsDemoted(t *testing.T) {
	for _, level := range []slog.Level{slog.LevelInfo, slog.LevelDebug} {
		ctx := testCtx(t)
		var logs logBuffer
		srv := serverWith(t, []*flow.Program{testFlow(t, "whoami", flow.Env{})}, serve.Options{Logger: logs.logger(level)})
		url := startHTTPWith(t, srv, serve.HTTPOptions{})
		cs, err := connectURL(t, ctx, url, v20251125, sessionClient(nil), nil)
		must(t, err)
		_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "whoami"})
		must(t, err)
		postRaw(t, ctx, url, nil, "tools/list", map[string]any{"_meta": modernMeta(formCaps)})
		var sdk int
		for _, r := range logs.records(t) {
			if r["component"] == "go-sdk" {
				sdk++
				if r["level"] == "INFO" {
					t.Errorf("a go-sdk Info record: %v", r)
				}
			}
		}
		if (sdk > 0) != (level == slog.LevelDebug) {
			t.Errorf("at %v: %d go-sdk records", level, sdk)
		}
	}
}

// TestStateReasonLogged: a refused request state is logged with the check
// that refused it (state.Reason), which the reply never says: a tampered
// state and one sealed under an unknown key give the same -32602 to the
// client and different log lines to the operator.
func TestStateReasonLogged(t *testing.T) {
	ctx := testCtx(t)
	var logs logBuffer
	srv := serverWith(t, compileExamples(t, flow.Env{}), serve.Options{Logger: logs.logger(slog.LevelInfo)})
	url := startHTTPWith(t, srv, serve.HTTPOptions{})
	first := rawRound(t, ctx, url, nil, callParams("signup", map[string]any{}, formCaps))
	other := rawServerURL(t)
	foreign := rawRound(t, ctx, other, nil, callParams("signup", map[string]any{}, formCaps))
	var messages []string
	for _, st := range []string{first.RequestState + "A", foreign.RequestState} {
		e := postRaw(t, ctx, url, nil, "tools/call", retry("signup", map[string]any{}, st, map[string]any{"details": adaAnswer})).rpcErr(t)
		messages = append(messages, e.Message)
	}
	if messages[0] != messages[1] {
		t.Errorf("the replies differ, telling a client which check failed: %q, %q", messages[0], messages[1])
	}
	var reasons []string
	for _, r := range logs.records(t) {
		if r["msg"] == "round rejected" {
			if r["level"] != "WARN" {
				t.Errorf("a refused state logged at %v: %v", r["level"], r)
			}
			reason, _ := r["state"].(string)
			reasons = append(reasons, reason)
		}
	}
	if len(reasons) != 2 || reasons[0] == "" || reasons[1] == "" || reasons[0] == reasons[1] {
		t.Errorf("state reasons %q: want two different ones", reasons)
	}
	for _, reason := range reasons {
		if strings.Contains(messages[0], reason) {
			t.Errorf("the reply %q carries the reason %q", messages[0], reason)
		}
	}
}

// rawServerURL serves the example flows on a server with its own engine
// (and so its own key), returning the endpoint URL.
func rawServerURL(t testing.TB) string {
	t.Helper()
	return startHTTPWith(t, serverWith(t, compileExamples(t, flow.Env{}), serve.Options{}), serve.HTTPOptions{})
}

// TestAllAnswersInLogs: a form answer to a question of an all node is
// logged at Debug on 2026-07-28 as on sessions (it was looked for among
// the top-level nodes only).
func TestAllAnswersInLogs(t *testing.T) {
	ctx := testCtx(t)
	var logs logBuffer
	p := compileFile(t, "../testdata/conformance/test_input_required_result_multiple_inputs.yaml", flow.Env{})
	srv := serverWith(t, []*flow.Program{p}, serve.Options{Logger: logs.logger(slog.LevelDebug)})
	url := startHTTPWith(t, srv, serve.HTTPOptions{})
	caps := map[string]any{"elicitation": map[string]any{}, "sampling": map[string]any{}, "roots": map[string]any{}}
	first := rawRound(t, ctx, url, nil, callParams(p.Name(), map[string]any{}, caps))
	answers := map[string]any{
		"user_name": map[string]any{"action": "accept", "content": map[string]any{"name": "Grace Hopper"}},
		"capital":   map[string]any{"role": "assistant", "content": map[string]any{"type": "text", "text": "Paris"}, "model": "m"},
		"roots":     map[string]any{"roots": []any{}},
	}
	again := callParams(p.Name(), map[string]any{}, caps)
	again["requestState"], again["inputResponses"] = first.RequestState, answers
	wantComplete(t, rawRound(t, ctx, url, nil, again), false, "Grace Hopper asked")
	var asks []any
	for _, r := range logs.records(t) {
		if r["msg"] == "form answer" {
			asks = append(asks, r["ask"])
		}
	}
	if len(asks) != 1 || asks[0] != "user_name" {
		t.Errorf("form answers logged for %v, want [user_name]", asks)
	}
}
