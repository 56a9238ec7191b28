package serve_test

import (
	"cmp"
	"context"
	"log/slog"
	"maps"
	"slices"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/flowserve/flowserve/flow"
	"github.com/flowserve/flowserve/serve"
)

// The trace context every traced test call sends in _meta.
const (
	clientTraceID = "4bf92f3577b34da6a3ce929d0e0e4736"
	clientSpanID  = "00f067aa0ba902b7"
	traceparent   = "00-" + clientTraceID + "-" + clientSpanID + "-01"
	tracestate    = "vendor=opaque"
)

// tracedSrc is a flow of three rounds: a question, then a step and a
// second question, then the end.
const tracedSrc = `
name: traced
description: Two questions with a step between them.
nodes:
  - id: who
    ask: Who are you?
    form:
      name: {type: string}
    required: [name]
  - id: echo
    step: test.echo
    with: {name: "{{ who.content.name }}"}
  - id: where
    ask: Where are you?
    form:
      city: {type: string}
    required: [city]
  - return: "{{ who.content.name }} in {{ where.content.city }}"
`

// tracedAnswers answer the traced flow's questions.
var tracedAnswers = map[string]*mcp.ElicitResult{
	"who":   accept(map[string]any{"name": "Ada"}),
	"where": accept(map[string]any{"city": "London"}),
}

// tracedServer serves the traced flow and the given others with a tracer
// that records every span, logging at Debug level to logs.
func tracedServer(t *testing.T, logs *logBuffer, srcs ...string) (*serve.Server, *tracetest.InMemoryExporter) {
	t.Helper()
	reg := opsRegistry(t, nil)
	var progs []*flow.Program
	for _, src := range append([]string{tracedSrc}, srcs...) {
		progs = append(progs, compileSource(t, "flow.yaml", []byte(src), flow.Env{Actions: reg}))
	}
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	t.Cleanup(func() { tp.Shutdown(context.Background()) })
	return serverWith(t, progs, serve.Options{Tracer: tp, Logger: logs.logger(slog.LevelDebug)}), exp
}

// spanAttrs maps a span's attributes by key.
func spanAttrs(s tracetest.SpanStub) map[attribute.Key]attribute.Value {
	m := make(map[attribute.Key]attribute.Value, len(s.Attributes))
	for _, kv := range s.Attributes {
		m[kv.Key] = kv.Value
	}
	return m
}

// attr returns one attribute of a span as a string ("" when absent).
func attr(s tracetest.SpanStub, key string) string {
	v, ok := spanAttrs(s)[attribute.Key(key)]
	if !ok {
		return ""
	}
	return v.Emit()
}

// traced is the spans of one traced call.
type traced struct {
	rounds                   []tracetest.SpanStub // by round number
	steps, questions, answer []tracetest.SpanStub
}

// collect sorts spans by name, the rounds by their number.
func collect(t *testing.T, exp *tracetest.InMemoryExporter) traced {
	t.Helper()
	var tr traced
	for _, s := range exp.GetSpans() {
		switch s.Name {
		case "flowserve.round":
			tr.rounds = append(tr.rounds, s)
		case "flowserve.step":
			tr.steps = append(tr.steps, s)
		case "flowserve.question":
			tr.questions = append(tr.questions, s)
		case "flowserve.answer":
			tr.answer = append(tr.answer, s)
		default:
			t.Errorf("span %q", s.Name)
		}
	}
	slices.SortStableFunc(tr.rounds, func(a, b tracetest.SpanStub) int {
		return cmp.Compare(spanAttrs(a)["flowserve.round"].AsInt64(), spanAttrs(b)["flowserve.round"].AsInt64())
	})
	return tr
}

// childrenOf returns the spans among spans whose parent is round.
func childrenOf(spans []tracetest.SpanStub, round tracetest.SpanStub) []tracetest.SpanStub {
	var out []tracetest.SpanStub
	for _, s := range spans {
		if s.Parent.SpanID() == round.SpanContext.SpanID() {
			out = append(out, s)
		}
	}
	return out
}

// checkTracedRun checks the spans of one call of the traced flow, at
// era: three rounds, the children of the client's span (parent) in its
// trace, of one run; the step in the second round; a question in each
// of the first two, an answer in each of the last two.
func checkTracedRun(t *testing.T, tr traced, era string, outcomes []string) {
	t.Helper()
	if len(tr.rounds) != len(outcomes) {
		t.Fatalf("%d round spans, want %d", len(tr.rounds), len(outcomes))
	}
	run := attr(tr.rounds[0], "flowserve.run")
	if len(run) != 32 {
		t.Errorf("run %q", run)
	}
	for i, r := range tr.rounds {
		if got := r.SpanContext.TraceID().String(); got != clientTraceID {
			t.Errorf("round %d: trace %s, want the client's %s", i+1, got, clientTraceID)
		}
		if got := r.Parent.SpanID().String(); got != clientSpanID || !r.Parent.IsRemote() {
			t.Errorf("round %d: parent %s (remote %v), want the client's span %s", i+1, got, r.Parent.IsRemote(), clientSpanID)
		}
		if got := r.SpanContext.TraceState().String(); got != tracestate {
			t.Errorf("round %d: tracestate %q, want %q", i+1, got, tracestate)
		}
		if r.SpanKind != trace.SpanKindServer || r.Status.Code != codes.Unset {
			t.Errorf("round %d: kind %v, status %v", i+1, r.SpanKind, r.Status)
		}
		want := map[string]string{
			"flowserve.tool": "traced", "flowserve.era": era, "flowserve.run": run,
			"flowserve.round": string(rune('1' + i)), "flowserve.outcome": outcomes[i],
		}
		for k, v := range want {
			if got := attr(r, k); got != v {
				t.Errorf("round %d: %s = %q, want %q", i+1, k, got, v)
			}
		}
		if len(attr(r, "flowserve.version")) != 12 {
			t.Errorf("round %d: flowserve.version %q", i+1, attr(r, "flowserve.version"))
		}
	}
	if len(tr.steps) != 1 {
		t.Fatalf("%d step spans, want 1", len(tr.steps))
	}
	step := tr.steps[0]
	if len(childrenOf(tr.steps, tr.rounds[1])) != 1 || step.Status.Code != codes.Unset {
		t.Errorf("the step's parent is %s (status %v), want round 2's span %s", step.Parent.SpanID(), step.Status, tr.rounds[1].SpanContext.SpanID())
	}
	if got := [3]string{attr(step, "flowserve.node"), attr(step, "flowserve.action"), attr(step, "flowserve.position")}; got != [3]string{"echo", "test.echo", "1"} {
		t.Errorf("step attributes %v", got)
	}
	if !step.StartTime.Before(step.EndTime) && !step.StartTime.Equal(step.EndTime) {
		t.Errorf("step ends before it starts: %v %v", step.StartTime, step.EndTime)
	}
	wantAsks := [][]string{{"who"}, {"where"}, nil}
	wantAnswers := [][]string{nil, {"who"}, {"where"}}
	for i, r := range tr.rounds {
		var asks, answers []string
		for _, q := range childrenOf(tr.questions, r) {
			asks = append(asks, attr(q, "flowserve.ask"))
			if attr(q, "flowserve.question.mode") != flow.ModeForm || len(attr(q, "flowserve.question.id")) != 32 {
				t.Errorf("round %d: question attributes %v", i+1, q.Attributes)
			}
			if !q.StartTime.Equal(q.EndTime) {
				t.Errorf("round %d: question span of %v", i+1, q.EndTime.Sub(q.StartTime))
			}
		}
		for _, a := range childrenOf(tr.answer, r) {
			answers = append(answers, attr(a, "flowserve.ask"))
			if attr(a, "flowserve.answer.action") != "accept" {
				t.Errorf("round %d: answer attributes %v", i+1, a.Attributes)
			}
		}
		if !slices.Equal(asks, wantAsks[i]) || !slices.Equal(answers, wantAnswers[i]) {
			t.Errorf("round %d: questions %v and answers %v, want %v and %v", i+1, asks, answers, wantAsks[i], wantAnswers[i])
		}
		if wantAnswers[i] != nil && attr(r, "flowserve.answers.accept") != "1" {
			t.Errorf("round %d: flowserve.answers.accept = %q", i+1, attr(r, "flowserve.answers.accept"))
		}
	}
	if n := len(tr.questions) + len(tr.answer); n != 4 {
		t.Errorf("%d question and answer spans, want 4", n)
	}
}

// checkTracedLogs checks that each round's log record carries the trace
// id and its round's span id.
func checkTracedLogs(t *testing.T, logs *logBuffer, tr traced) {
	t.Helper()
	var n int
	for _, r := range logs.records(t) {
		if _, ok := r["outcome"]; !ok {
			continue
		}
		round, _ := r["round"].(float64)
		if round < 1 || int(round) > len(tr.rounds) {
			t.Errorf("log record of round %v", r["round"])
			continue
		}
		n++
		want := tr.rounds[int(round)-1].SpanContext
		if r["trace_id"] != want.TraceID().String() || r["span_id"] != want.SpanID().String() {
			t.Errorf("round %v logged with trace_id %v span_id %v, want %s %s", round, r["trace_id"], r["span_id"], want.TraceID(), want.SpanID())
		}
	}
	if n != len(tr.rounds) {
		t.Errorf("%d round records, want %d", n, len(tr.rounds))
	}
}

// TestTraceModernRounds: a 2026-07-28 client calls the traced flow in
// three rounds, each request's _meta carrying the same traceparent, over
// the SDK's path (in memory) and the lean one (HTTP): every round is a
// span, the child of the client's, with the same run id; the step and the
// questions and answers are their children; the rounds' logs carry the
// trace and span ids.
func TestTraceModernRounds(t *testing.T) {
	for _, kind := range transports {
		t.Run(string(kind), func(t *testing.T) {
			ctx := testCtx(t)
			var logs logBuffer
			srv, exp := tracedServer(t, &logs)
			cs := connect(t, ctx, srv, kind, v20260728, manualClient(), nil)
			meta := mcp.Meta{"traceparent": traceparent, "tracestate": tracestate}
			params := &mcp.CallToolParams{Name: "traced", Arguments: map[string]any{}, Meta: meta}
			for round := 1; ; round++ {
				res, err := cs.CallTool(ctx, params)
				must(t, err)
				if !res.NeedsInput() {
					checkText(t, res, false, "Ada in London")
					if round != 3 {
						t.Fatalf("done in %d rounds", round)
					}
					break
				}
				responses := mcp.InputResponseMap{}
				for key := range res.InputRequests {
					responses[key] = tracedAnswers[key]
				}
				params = &mcp.CallToolParams{Name: "traced", Arguments: map[string]any{}, Meta: maps.Clone(meta),
					RequestState: res.RequestState, InputResponses: responses}
			}
			tr := collect(t, exp)
			checkTracedRun(t, tr, v20260728, []string{"input_required", "input_required", "complete"})
			for _, r := range tr.rounds {
				if attr(r, "mcp.method.name") != "tools/call" {
					t.Errorf("mcp.method.name = %q", attr(r, "mcp.method.name"))
				}
			}
			checkTracedLogs(t, &logs, tr)
		})
	}
}

// TestTraceProgress: with tracing, a round with a progress token still
// sends its progress notifications (the step hook calls the one it
// wraps), on the lean path.
func TestTraceProgress(t *testing.T) {
	ctx := testCtx(t)
	var logs logBuffer
	srv, exp := tracedServer(t, &logs)
	url := startHTTPWith(t, srv, serve.HTTPOptions{})
	first := rawRound(t, ctx, url, nil, callParams("traced", map[string]any{}, formCaps))
	p := retry("traced", map[string]any{}, first.RequestState, map[string]any{"who": map[string]any{"action": "accept", "content": map[string]any{"name": "Ada"}}})
	meta := p["_meta"].(map[string]any)
	meta["progressToken"], meta["traceparent"] = "tok", traceparent
	reply := postRaw(t, ctx, url, nil, "tools/call", p)
	if len(reply.notifications) != 2 {
		t.Errorf("%d progress notifications, want 2: %s", len(reply.notifications), reply.body)
	}
	tr := collect(t, exp)
	if len(tr.rounds) != 2 || len(tr.steps) != 1 || len(childrenOf(tr.steps, tr.rounds[1])) != 1 {
		t.Fatalf("%d rounds and %d steps, want the step in round 2", len(tr.rounds), len(tr.steps))
	}
	// The first round sent no trace context: a root span, in a trace
	// of its own.
	if tr.rounds[0].Parent.IsValid() || tr.rounds[0].SpanContext.TraceID().String() == clientTraceID {
		t.Errorf("round 1 without a traceparent: parent %v, trace %s", tr.rounds[0].Parent, tr.rounds[0].SpanContext.TraceID())
	}
	if tr.rounds[1].Parent.SpanID().String() != clientSpanID {
		t.Errorf("round 2: parent %s", tr.rounds[1].Parent.SpanID())
	}
}

// TestTraceSessionCall: a session-era call runs its three rounds inside
// one tools/call; each round is a span, the child of the trace context in
// the call's _meta, and the step is traced once, in the round that ran it.
func TestTraceSessionCall(t *testing.T) {
	ctx := testCtx(t)
	var logs logBuffer
	srv, exp := tracedServer(t, &logs)
	url := startHTTPWith(t, srv, serve.HTTPOptions{})
	cs, err := connectURL(t, ctx, url, v20251125, sessionClient(func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		if r.Params.Message == "Who are you?" {
			return tracedAnswers["who"], nil
		}
		return tracedAnswers["where"], nil
	}), nil)
	must(t, err)
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "traced", Arguments: map[string]any{},
		Meta: mcp.Meta{"traceparent": traceparent, "tracestate": tracestate}})
	must(t, err)
	checkText(t, res, false, "Ada in London")
	tr := collect(t, exp)
	checkTracedRun(t, tr, v20251125, []string{"input_required", "input_required", "complete"})
	checkTracedLogs(t, &logs, tr)
}

// taskSrc is a flow that goes on as a task at its long step, for a client
// with tasks, then asks a question and runs another step.
const taskSrc = `
name: traced_task
description: A long step, a question, a step.
nodes:
  - id: first
    step: test.echo
    long: true
  - id: ok
    ask: Go on?
    form:
      go: {type: boolean}
    required: [go]
  - id: second
    step: test.echo
  - return: done
`

// TestTraceTaskRounds: a call that goes on as a task: the call's round
// and the task's worker rounds are all children of the trace context the
// starting call sent, in one run.
func TestTraceTaskRounds(t *testing.T) {
	ctx := testCtx(t)
	var logs logBuffer
	srv, exp := tracedServer(t, &logs, taskSrc)
	url := startHTTPWith(t, srv, serve.HTTPOptions{})
	t.Cleanup(func() {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		srv.Close(ctx)
	})
	p := callParams("traced_task", map[string]any{}, tasksCaps)
	p["_meta"].(map[string]any)["traceparent"] = traceparent
	var task wireTask
	postRaw(t, ctx, url, nil, "tools/call", p).result(t, &task)
	if task.ResultType != "task" {
		t.Fatalf("want a task, got %+v", task)
	}
	asked := waitTask(t, ctx, url, task.TaskID, func(w wireTask) bool { return w.Status != "working" })
	if asked.Status != "input_required" || len(asked.InputRequests) != 1 {
		t.Fatalf("want the question ok: %+v", asked)
	}
	responses := map[string]any{}
	for key := range asked.InputRequests {
		responses[key] = map[string]any{"action": "accept", "content": map[string]any{"go": true}}
	}
	taskRequest(t, ctx, url, "tasks/update", task.TaskID, tasksCaps, map[string]any{"inputResponses": responses}).result(t, &map[string]any{})
	if done := waitTask(t, ctx, url, task.TaskID, terminal); done.Status != "completed" {
		t.Fatalf("final: %+v", done)
	}

	tr := collect(t, exp)
	if len(tr.rounds) != 3 {
		t.Fatalf("%d round spans, want 3", len(tr.rounds))
	}
	run := attr(tr.rounds[0], "flowserve.run")
	for i, want := range []struct{ outcome, task, step string }{
		{"task", "", ""},
		{"input_required", task.TaskID, "first"},
		{"complete", task.TaskID, "second"},
	} {
		r := tr.rounds[i]
		if r.SpanContext.TraceID().String() != clientTraceID || r.Parent.SpanID().String() != clientSpanID {
			t.Errorf("round %d: trace %s parent %s, want the starting call's", i+1, r.SpanContext.TraceID(), r.Parent.SpanID())
		}
		if attr(r, "flowserve.run") != run || attr(r, "flowserve.outcome") != want.outcome || attr(r, "flowserve.task") != want.task {
			t.Errorf("round %d: %v", i+1, r.Attributes)
		}
		var steps []string
		for _, s := range childrenOf(tr.steps, r) {
			steps = append(steps, attr(s, "flowserve.node"))
		}
		if want.step != "" && !slices.Equal(steps, []string{want.step}) || want.step == "" && steps != nil {
			t.Errorf("round %d ran steps %v, want %q", i+1, steps, want.step)
		}
	}
	if q := childrenOf(tr.questions, tr.rounds[1]); len(q) != 1 || attr(q[0], "flowserve.ask") != "ok" {
		t.Errorf("round 2's questions: %v", q)
	}
	if a := childrenOf(tr.answer, tr.rounds[2]); len(a) != 1 || attr(a[0], "flowserve.ask") != "ok" {
		t.Errorf("round 3's answers: %v", a)
	}
}

// failingSrc is a flow whose step fails, taken by on_error, and then a
// step that fails the run.
const failingSrc = `
name: failing
description: A step that fails and is handled, then one that fails the run.
nodes:
  - id: soft
    step: test.fail
    on_error: hard
  - id: hard
    step: test.fail
  - return: unreachable
`

// TestTraceFailures: a failed run and a rejected round are spans with
// status Error, a failed step too; a round whose client sent a traceparent
// that is not valid is a root span.
func TestTraceFailures(t *testing.T) {
	ctx := testCtx(t)
	var logs logBuffer
	srv, exp := tracedServer(t, &logs, failingSrc)
	url := startHTTPWith(t, srv, serve.HTTPOptions{})
	wantComplete(t, rawRound(t, ctx, url, nil, callParams("failing", map[string]any{}, formCaps)), true, "backend down")
	first := rawRound(t, ctx, url, nil, callParams("traced", map[string]any{}, formCaps))
	bad := retry("traced", map[string]any{}, first.RequestState+"A", nil)
	bad["_meta"].(map[string]any)["traceparent"] = "00-not-a-trace-01"
	if e := postRaw(t, ctx, url, nil, "tools/call", bad).rpcErr(t); e.Code != -32602 {
		t.Fatalf("tampered state: %+v", e)
	}

	tr := collect(t, exp)
	if len(tr.rounds) != 3 {
		t.Fatalf("%d rounds, want 3", len(tr.rounds))
	}
	byOutcome := map[string]tracetest.SpanStub{}
	for _, r := range tr.rounds {
		byOutcome[attr(r, "flowserve.outcome")] = r
	}
	failed := byOutcome["error_result"]
	tests := []struct {
		name   string
		span   tracetest.SpanStub
		status codes.Code
		attrs  map[string]string
	}{
		{"failed run", failed, codes.Error, map[string]string{"flowserve.outcome": "error_result", "flowserve.step_errors": "2", "flowserve.node": "hard"}},
		{"asking round", byOutcome["input_required"], codes.Unset, map[string]string{"flowserve.tool": "traced"}},
		{"rejected round", byOutcome["protocol_error"], codes.Error, map[string]string{"flowserve.outcome": "protocol_error", "flowserve.code": "-32602", "flowserve.state": "authentication failed"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.span.Status.Code != tc.status {
				t.Errorf("status %v, want %v", tc.span.Status, tc.status)
			}
			for k, v := range tc.attrs {
				if got := attr(tc.span, k); got != v {
					t.Errorf("%s = %q, want %q", k, got, v)
				}
			}
			if tc.span.Parent.IsValid() {
				t.Errorf("parent %v, want a root span", tc.span.Parent)
			}
		})
	}
	steps := childrenOf(tr.steps, failed)
	if len(steps) != 2 {
		t.Fatalf("%d steps in the failed run, want 2", len(steps))
	}
	for _, s := range steps {
		if s.Status.Code != codes.Error {
			t.Errorf("step %s: status %v, want Error", attr(s, "flowserve.node"), s.Status)
		}
	}
}
