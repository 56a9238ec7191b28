package observe

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/flowserve/flowserve/dsl"
	"github.com/flowserve/flowserve/flow"
	"github.com/flowserve/flowserve/flow/state"
	"github.com/flowserve/flowserve/metrics"
	"github.com/flowserve/flowserve/serve/internal/wire"
)

// TraceParent is the W3C trace context a client sent in a request's
// _meta (SEP-414): the traceparent and tracestate values, as sent ("" when
// absent). A round's span is its child.
type TraceParent struct {
	Traceparent, Tracestate string
}

// FromMeta reads the trace context of a request that came through the
// SDK.
func FromMeta(meta mcp.Meta) TraceParent {
	tp, _ := meta[wire.MetaTraceparent].(string)
	ts, _ := meta[wire.MetaTracestate].(string)
	return TraceParent{Traceparent: tp, Tracestate: ts}
}

// TaskTrace is how a task record keeps a trace context (tasks.Task.Trace).
func (tp TraceParent) TaskTrace() string {
	if tp.Traceparent == "" {
		return ""
	}
	if tp.Tracestate == "" {
		return tp.Traceparent
	}
	return tp.Traceparent + "\n" + tp.Tracestate
}

// ParseTaskTrace is the inverse of TaskTrace.
func ParseTaskTrace(s string) TraceParent {
	tp, ts, _ := strings.Cut(s, "\n")
	return TraceParent{Traceparent: tp, Tracestate: ts}
}

// Traces. With Options.Tracer set, every round is a span, and the steps
// it runs, the questions it ends asking and the answers it was sent are
// its children (docs/operations.md):
//
//	flowserve.round     the round, kind server: the child of the trace
//	                    context the client sent in _meta, for a task's
//	                    rounds that of the call that started the task;
//	                    without one, a root (or the child of a span the
//	                    round's context already holds)
//	flowserve.step      a step the round runs, from its start to its end
//	                    (replayed steps are not run, so have none)
//	flowserve.question  a question the round ends asking, zero-length
//	flowserve.answer    an answer the round was sent, zero-length
//
// Questions and answers are zero-length spans rather than span events:
// they are then found by name and attributes in every tracing backend,
// where events are not searchable in all of them; and in a 2026-07-28
// run the time between a question and its answer is not in any round.
//
// The attributes are the constants below. Logs written in a round's
// context carry its trace_id and span_id (see traceHandler).

// Span names.
const (
	spanRound    = "flowserve.round"
	spanStep     = "flowserve.step"
	spanQuestion = "flowserve.question"
	spanAnswer   = "flowserve.answer"
)

// Attributes of the spans. The round's name is under flowserve.tool, or
// flowserve.prompt for a prompt flow's rounds.
const (
	keyTool   = attribute.Key("flowserve.tool")   // round: the tool (flow) name
	keyPrompt = attribute.Key("flowserve.prompt") // round: the prompt flow's name, instead of flowserve.tool
	keyEra    = attribute.Key("flowserve.era")    // round: 2026-07-28, 2025-11-25 or 2025-06-18
	keyMethod = attribute.Key("mcp.method.name")  // round: tools/call or prompts/get; none for a task's rounds
	keyCaller = attribute.Key("flowserve.caller") // round: the token's name, when the tokens file names it
	keyTask   = attribute.Key("flowserve.task")   // round: the task the round runs for
	keyRun    = attribute.Key("flowserve.run")    // round: the run id, the same on every round of a call
	keyRound  = attribute.Key("flowserve.round")  // round: the round number, from 1
	// keyNode is the last node a round reached, or a step's node.
	keyNode        = attribute.Key("flowserve.node")
	keyOutcome     = attribute.Key("flowserve.outcome")      // round: as the metrics' outcome label
	keyCode        = attribute.Key("flowserve.code")         // round: the JSON-RPC error code of a protocol_error
	keyVersion     = attribute.Key("flowserve.version")      // round: the flow's version the round ran on, short
	keyFlowChanged = attribute.Key("flowserve.flow_changed") // round: true when the run's own version was not found
	keyReplayed    = attribute.Key("flowserve.replayed")     // round: true when the result came from the reply store
	keyState       = attribute.Key("flowserve.state")        // round: which check refused the request state
	keyStepErrors  = attribute.Key("flowserve.step_errors")  // round: the steps that failed
	// keyAnswers prefixes the count of answers taken, by action:
	// flowserve.answers.accept, .decline, .cancel, .unavailable, .invalid.
	keyAnswers  = "flowserve.answers."
	keyAction   = attribute.Key("flowserve.action")         // step: the action
	keyPosition = attribute.Key("flowserve.position")       // step: the journal position
	keyAsk      = attribute.Key("flowserve.ask")            // question, answer: the ask's id (a call's inputRequests key)
	keyQID      = attribute.Key("flowserve.question.id")    // question: its id in the run (a URL ask's elicitationId)
	keyQMode    = attribute.Key("flowserve.question.mode")  // question: form, url, sampling or roots
	keyAgain    = attribute.Key("flowserve.question.again") // question: true when asked again after an invalid answer
	keyApproval = attribute.Key("flowserve.approval")       // question, answer: true for an approval (an ask with to:)
	keyAAction  = attribute.Key("flowserve.answer.action")  // answer: accept, decline or cancel, as sent; timeout
)

// roundTrace is the tracing of one round.
type roundTrace struct {
	tracer trace.Tracer
	ctx    context.Context // holds span
	span   trace.Span
	stats  *flow.RoundStats
	// prev is the OnStep hook the request had before the round's
	// (progress notifications, or an earlier round's), which it calls.
	prev func(node, action string, position int, done bool)
	// ended is set when the round has ended: its hook then only calls
	// prev. (Rounds of one call may share a flow.Request, and a round's
	// hook stays in it; the round does not keep the request, which would
	// cost the lean path an allocation per round even without tracing.)
	ended bool
	// steps are the step spans open, by journal position.
	steps map[int]trace.Span
	// last is the span of the step that finished last, ended (at lastEnd)
	// once it is known whether the step failed: the engine counts a
	// failed step (stats.StepErrors, lastErrs at its end) after OnStep.
	last     trace.Span
	lastEnd  time.Time
	lastErrs int
}

// trace starts the span of rd, the child of parent, and of the answers fr
// brings, and has fr report its steps to it. It returns the context the
// round runs in, which holds the span.
func (rd *Round) trace(ctx context.Context, t trace.Tracer, parent TraceParent, fr *flow.Request) context.Context {
	if parent.Traceparent != "" {
		carrier := propagation.MapCarrier{wire.MetaTraceparent: parent.Traceparent}
		if parent.Tracestate != "" {
			carrier[wire.MetaTracestate] = parent.Tracestate
		}
		ctx = propagation.TraceContext{}.Extract(ctx, carrier)
	}
	attrs := make([]attribute.KeyValue, 0, 4)
	if rd.prompt {
		attrs = append(attrs, keyPrompt.String(rd.tool))
	} else {
		attrs = append(attrs, keyTool.String(rd.tool))
	}
	attrs = append(attrs, keyEra.String(rd.era))
	switch {
	case fr.Task != "":
		attrs = append(attrs, keyTask.String(fr.Task))
	case rd.prompt:
		attrs = append(attrs, keyMethod.String("prompts/get"))
	default:
		attrs = append(attrs, keyMethod.String("tools/call"))
	}
	if rd.caller != "" && fr.Task == "" {
		attrs = append(attrs, keyCaller.String(rd.caller))
	}
	ctx, span := t.Start(ctx, spanRound, trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(attrs...))
	rt := &roundTrace{tracer: t, ctx: ctx, span: span, stats: &rd.stats, prev: fr.OnStep}
	rt.answers(fr)
	fr.OnStep = rt.onStep
	rd.tr = rt
	return ctx
}

// onStep is the round's flow.Request.OnStep: it starts a step's span
// before the step runs and ends it after; once the round has ended, it
// only calls the hook it wraps.
func (rt *roundTrace) onStep(node, action string, pos int, done bool) {
	if rt.ended {
		if rt.prev != nil {
			rt.prev(node, action, pos, done)
		}
		return
	}
	if !done {
		rt.settle()
		_, sp := rt.tracer.Start(rt.ctx, spanStep, trace.WithAttributes(
			keyNode.String(node), keyAction.String(action), keyPosition.Int(pos)))
		if rt.steps == nil {
			rt.steps = make(map[int]trace.Span, 1)
		}
		rt.steps[pos] = sp
	}
	if rt.prev != nil {
		rt.prev(node, action, pos, done)
	}
	if !done {
		return
	}
	sp, ok := rt.steps[pos]
	if !ok {
		return
	}
	delete(rt.steps, pos)
	rt.settle()
	rt.last, rt.lastEnd, rt.lastErrs = sp, time.Now(), rt.stats.StepErrors
}

// settle ends the span of the step that finished last, if any: with
// status Error when the round counted a failed step since it finished.
func (rt *roundTrace) settle() {
	if rt.last == nil {
		return
	}
	if rt.stats.StepErrors > rt.lastErrs {
		rt.last.SetStatus(codes.Error, "the step failed")
	}
	rt.last.End(trace.WithTimestamp(rt.lastEnd))
	rt.last = nil
}

// mark records a zero-length child span of the round.
func (rt *roundTrace) mark(name string, attrs ...attribute.KeyValue) {
	now := time.Now()
	_, sp := rt.tracer.Start(rt.ctx, name, trace.WithTimestamp(now), trace.WithAttributes(attrs...))
	sp.End(trace.WithTimestamp(now))
}

// answers marks the answers fr brings: the client's inputResponses, in
// key order, or an approval's answer.
func (rt *roundTrace) answers(fr *flow.Request) {
	for _, key := range slices.Sorted(maps.Keys(fr.Responses)) {
		if action := answerAction(fr.Responses[key]); action != "" {
			rt.mark(spanAnswer, keyAsk.String(key), keyAAction.String(action))
		} else {
			rt.mark(spanAnswer, keyAsk.String(key))
		}
	}
	if a := fr.Approval; a != nil {
		action := string(flow.Timeout)
		if !a.TimedOut {
			action = answerAction(a.Response)
		}
		rt.mark(spanAnswer, keyAsk.String(a.Node), keyApproval.Bool(true), keyAAction.String(action))
	}
}

// answerAction is the action of an elicitation result: accept, decline or
// cancel; "" for anything else (sampling and roots results have none).
func answerAction(raw json.RawMessage) string {
	var r struct {
		Action string `json:"action"`
	}
	if json.Unmarshal(raw, &r) != nil {
		return ""
	}
	switch r.Action {
	case "accept", "decline", "cancel":
		return r.Action
	}
	return ""
}

// questions marks the questions res ends asking: the client's, in key
// order (those a round that detached for the round budget leaves to its
// task included), or an approval's.
func (rt *roundTrace) questions(res *flow.Result) {
	if res == nil {
		return
	}
	var in *flow.InputRequired
	switch {
	case res.Input != nil:
		in = res.Input
	case res.Detached != nil && res.Detached.Input != nil:
		in = res.Detached.Input
	case res.Approval != nil && res.Approval.Question != nil:
		rt.question(res.Approval.Node, res.Approval.Question, keyApproval.Bool(true))
		return
	default:
		return
	}
	for _, key := range slices.Sorted(maps.Keys(in.Requests)) {
		rt.question(key, in.Requests[key])
	}
}

// question marks one question, asked under key.
func (rt *roundTrace) question(key string, q *flow.InputRequest, extra ...attribute.KeyValue) {
	attrs := append([]attribute.KeyValue{keyAsk.String(key), keyQID.String(q.ID), keyQMode.String(q.Mode)}, extra...)
	if q.Rejected != "" {
		attrs = append(attrs, keyAgain.Bool(true))
	}
	rt.mark(spanQuestion, attrs...)
}

// end ends the round's span, with what the round came to: its outcome
// (and code, for a protocol error) as the metrics have it. The span's
// status is Error for a protocol error and for a run that failed (an
// error result with an error behind it).
func (rt *roundTrace) end(res *flow.Result, rpcErr *jsonrpc.Error, err error, outcome string) {
	rt.ended = true
	rt.settle()
	for _, sp := range rt.steps {
		// Not reported done: the round did not see the step end.
		sp.End()
	}
	rt.steps = nil
	rt.questions(res)
	st := rt.stats
	attrs := make([]attribute.KeyValue, 0, 8+len(st.Answers))
	if st.RunID != "" {
		attrs = append(attrs, keyRun.String(st.RunID), keyRound.Int(st.Round))
	}
	if st.Node != "" {
		attrs = append(attrs, keyNode.String(st.Node))
	}
	attrs = append(attrs, keyOutcome.String(outcome))
	if rpcErr != nil {
		attrs = append(attrs, keyCode.Int64(rpcErr.Code))
	}
	if st.Version != (dsl.Version{}) {
		attrs = append(attrs, keyVersion.String(st.Version.Short()))
	}
	if st.FlowChanged {
		attrs = append(attrs, keyFlowChanged.Bool(true))
	}
	if res != nil && res.Replayed {
		attrs = append(attrs, keyReplayed.Bool(true))
	}
	if errors.Is(err, state.ErrInvalid) || errors.Is(err, state.ErrExpired) || errors.Is(err, state.ErrTooLarge) {
		attrs = append(attrs, keyState.String(state.Reason(err)))
	}
	if st.StepErrors > 0 {
		attrs = append(attrs, keyStepErrors.Int(st.StepErrors))
	}
	for action, n := range st.Answers {
		attrs = append(attrs, attribute.Int(keyAnswers+action, n))
	}
	rt.span.SetAttributes(attrs...)
	switch {
	case rpcErr != nil:
		rt.span.SetStatus(codes.Error, rpcErr.Message)
	case outcome == metrics.OutcomeErrorResult && err != nil:
		rt.span.SetStatus(codes.Error, err.Error())
	}
	rt.span.End()
}
