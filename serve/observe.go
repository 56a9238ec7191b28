package serve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/flowserve/flowserve/dsl"
	"github.com/flowserve/flowserve/flow"
	"github.com/flowserve/flowserve/flow/state"
	"github.com/flowserve/flowserve/metrics"
	"github.com/flowserve/flowserve/serve/internal/wire"
)

// Logs. Every round is logged with these attributes, as far as they are
// known (docs/operations.md):
//
//	tool     the tool (flow) name; prompt instead for a prompt flow's rounds
//	era      the protocol era: 2026-07-28, 2025-11-25 or 2025-06-18
//	run      the run id, the same on every round of one call
//	round    the round number, from 1
//	node     the last node the round reached
//	outcome  input_required, complete, error_result, protocol_error or cancelled
//	         (a prompt flow that fails is a protocol_error with code -32603)
//	code     the JSON-RPC error code of a protocol_error
//	ms       the round's duration in milliseconds
//	caller   the name of the caller's token, when the tokens file names it
//	trace_id, span_id  the round's span, when the Server traces (trace.go)
//
// Levels: a finished call is Info, a round that needs input Debug, a run
// that failed Warn (Error when the failure is the server's), a rejected
// round Info. Form answers are logged at Debug only; answers to URL asks
// never.

// round is one round being served.
type round struct {
	s      *Server
	prompt bool   // a prompt flow's round, not a tool's (see kind)
	tool   string // the flow's name
	era    string
	caller string
	start  time.Time
	stats  flow.RoundStats
	tr     *roundTrace // nil when the Server does not trace
}

// startRound starts observing a round: the engine fills in fr.Stats.
// parent is the trace context the client sent ("" values for none). The
// round runs in the context it returns: when the Server traces, it holds
// the round's span, the child of parent, and fr.OnStep also reports the
// steps to it until end.
func (s *Server) startRound(ctx context.Context, p *flow.Program, era, caller string, parent traceParent, fr *flow.Request) (*round, context.Context) {
	rd := &round{s: s, prompt: p.IsPrompt(), tool: p.Name(), era: era, caller: caller, start: time.Now()}
	fr.Stats = &rd.stats
	s.metrics.RoundsInFlight.Inc()
	if t := s.tracer(); t != nil {
		ctx = rd.trace(ctx, t, parent, fr)
	}
	return rd, ctx
}

// kind is "tool" or "prompt", the log key of the round's flow's name.
func (rd *round) kind() string {
	if rd.prompt {
		return "prompt"
	}
	return "tool"
}

// logContext is the context the round's records are logged in: its
// span's, so that they carry its trace and span ids.
func (rd *round) logContext() context.Context {
	if rd.tr != nil {
		return rd.tr.ctx
	}
	return context.Background()
}

// end records the round's outcome in the metrics, the log and its span:
// res is the round's result (nil when it has none), rpcErr the JSON-RPC
// error it was answered with, and err the engine's error (a run failure
// behind an error result, or the protocol error's cause, or the
// context's error of a cancelled round).
func (rd *round) end(res *flow.Result, rpcErr *jsonrpc.Error, err error) {
	s, m := rd.s, rd.s.metrics
	d := time.Since(rd.start)
	m.RoundsInFlight.Dec()
	outcome, code := metrics.OutcomeCancelled, ""
	switch {
	case rpcErr != nil:
		outcome, code = metrics.OutcomeProtocolError, strconv.FormatInt(rpcErr.Code, 10)
	case res == nil:
	case res.Input != nil:
		outcome = metrics.OutcomeInputRequired
		if rd.era == wire.FirstModernVersion {
			// Sent to the client; a session's states stay in the server.
			m.StateBytes.Observe(float64(len(res.Input.State)))
		}
	case res.Complete != nil && res.Complete.IsError:
		outcome = metrics.OutcomeErrorResult
	case res.Complete != nil, res.Prompt != nil:
		outcome = metrics.OutcomeComplete
	case res.Detached != nil:
		outcome = metrics.OutcomeTask
	case res.Approval != nil:
		outcome = metrics.OutcomeApproval
	}
	m.Rounds.WithLabelValues(rd.era, rd.tool, outcome, code).Inc()
	if rd.stats.Version != (dsl.Version{}) {
		s.versionRounds(rd.tool, rd.stats.Version).Inc()
	}
	m.RoundSeconds.WithLabelValues(rd.era).Observe(d.Seconds())
	for action, n := range rd.stats.Answers {
		m.Asks.WithLabelValues(rd.tool, action).Add(float64(n))
	}
	if rd.stats.StepErrors > 0 {
		m.StepErrors.WithLabelValues(rd.tool).Add(float64(rd.stats.StepErrors))
	}
	if res != nil && res.Replayed {
		m.ReplyStoreHits.WithLabelValues(rd.tool).Inc()
	}
	if res != nil && res.StoreErr != nil {
		m.ReplyStoreErrors.WithLabelValues(rd.tool).Inc()
	}

	level, msg := slog.LevelInfo, "call finished"
	switch outcome {
	case metrics.OutcomeInputRequired:
		level, msg = slog.LevelDebug, "round needs input"
	case metrics.OutcomeProtocolError:
		msg = "round rejected"
		if errors.Is(err, state.ErrInvalid) {
			// Tampered with, sealed under a key this server lacks, or
			// bound to another call: worth an operator's look.
			level = slog.LevelWarn
		}
		if rd.prompt && rpcErr.Code == wire.CodeInternalError {
			// A prompt's failure: the run ended, by a fail node or an
			// error.
			msg = "prompt failed"
			if err != nil {
				level = slog.LevelWarn
			}
		}
	case metrics.OutcomeCancelled:
		msg = "round cancelled"
	case metrics.OutcomeTask:
		level, msg = slog.LevelDebug, "round goes on as a task"
	case metrics.OutcomeApproval:
		level, msg = slog.LevelDebug, "round waits for an approval"
	case metrics.OutcomeErrorResult:
		if err != nil {
			level, msg = slog.LevelWarn, "run failed"
			var re *flow.RunError
			if !errors.As(err, &re) {
				level = slog.LevelError
			}
		}
	}
	if rd.tr != nil {
		rd.tr.end(res, rpcErr, err, outcome)
	}
	ctx := rd.logContext()
	if !s.log.Enabled(ctx, level) && storeErr(res) == nil {
		return
	}
	attrs := make([]slog.Attr, 0, 12)
	attrs = append(attrs, slog.String(rd.kind(), rd.tool), slog.String("era", rd.era))
	if rd.stats.RunID != "" {
		attrs = append(attrs, slog.String("run", rd.stats.RunID), slog.Int("round", rd.stats.Round))
	}
	if rd.stats.Node != "" {
		attrs = append(attrs, slog.String("node", rd.stats.Node))
	}
	attrs = append(attrs, slog.String("outcome", outcome))
	if code != "" {
		attrs = append(attrs, slog.String("code", code), slog.String("message", rpcErr.Message))
	}
	if errors.Is(err, state.ErrInvalid) || errors.Is(err, state.ErrExpired) || errors.Is(err, state.ErrTooLarge) {
		// Which check refused the state: for the log only, never the reply.
		attrs = append(attrs, slog.String("state", state.Reason(err)))
	}
	if rd.stats.Version != (dsl.Version{}) {
		attrs = append(attrs, slog.String("version", rd.stats.Version.Short()))
	}
	if rd.stats.FlowChanged {
		attrs = append(attrs, slog.Bool("flow_changed", true))
	}
	if res != nil && res.Replayed {
		attrs = append(attrs, slog.Bool("replayed", true))
	}
	attrs = append(attrs, slog.Float64("ms", float64(d.Microseconds())/1000))
	if rd.caller != "" {
		attrs = append(attrs, slog.String("caller", rd.caller))
	}
	if err != nil && (outcome == metrics.OutcomeErrorResult || msg == "prompt failed") {
		attrs = append(attrs, slog.String("err", err.Error()))
	}
	s.log.LogAttrs(ctx, level, msg, attrs...)
	if se := storeErr(res); se != nil {
		s.log.LogAttrs(ctx, slog.LevelWarn, "final result not kept in the reply store; a retried final round will run its last steps again",
			slog.String(rd.kind(), rd.tool), slog.String("run", rd.stats.RunID), slog.String("err", se.Error()))
	}
}

// storeErr returns the reply store's error of a result, if any.
func storeErr(res *flow.Result) error {
	if res == nil {
		return nil
	}
	return res.StoreErr
}

// callerOf names the caller of a request with the given headers, when
// the tokens file names its token.
func (s *Server) callerOf(h http.Header) string {
	t := s.tokens.Load()
	if t == nil || h == nil {
		return ""
	}
	return t.nameOf(principalFromHeader(h))
}

// logAnswers logs the answers of a 2026-07-28 round at Debug level: the
// form answers only, never those to URL asks.
func (s *Server) logAnswers(p *flow.Program, rd *round, responses map[string]json.RawMessage) {
	if len(responses) == 0 || !s.log.Enabled(rd.logContext(), slog.LevelDebug) {
		return
	}
	for id, raw := range responses {
		if !isFormAsk(p, id) {
			continue
		}
		s.log.LogAttrs(rd.logContext(), slog.LevelDebug, "form answer",
			slog.String(rd.kind(), rd.tool), slog.String("run", rd.stats.RunID), slog.Int("round", rd.stats.Round),
			slog.String("ask", id), slog.String("answer", string(raw)))
	}
}

// isFormAsk reports whether id names a form-mode ask of p, a question of
// an all node included.
func isFormAsk(p *flow.Program, id string) bool {
	for n := range p.File().Walk() {
		if n.ID == id {
			return n.Kind == dsl.KindAsk && n.Ask.URL == nil
		}
	}
	return false
}

// sdkLogger returns the logger given to the go-sdk: l with the SDK's Info
// records (a line for every session and every stateless request it
// serves) demoted to Debug, and marked component=go-sdk. Nil stays nil:
// the SDK then discards its logs.
func sdkLogger(l *slog.Logger) *slog.Logger {
	if l == nil {
		return nil
	}
	return slog.New(sdkHandler{l.Handler().WithAttrs([]slog.Attr{slog.String("component", "go-sdk")})})
}

// sdkHandler demotes Info records to Debug.
type sdkHandler struct{ h slog.Handler }

func demote(l slog.Level) slog.Level {
	if l == slog.LevelInfo {
		return slog.LevelDebug
	}
	return l
}

func (s sdkHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return s.h.Enabled(ctx, demote(l))
}

func (s sdkHandler) Handle(ctx context.Context, r slog.Record) error {
	r.Level = demote(r.Level)
	return s.h.Handle(ctx, r)
}

func (s sdkHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return sdkHandler{s.h.WithAttrs(attrs)}
}

func (s sdkHandler) WithGroup(name string) slog.Handler {
	return sdkHandler{s.h.WithGroup(name)}
}

// RedactingHandler returns a handler that passes each record to h with
// every secret value r knows replaced by flow.Redacted: in the message and
// in every attribute, those added with WithAttrs and those inside groups
// included. A string attribute stays a string; any other value that holds
// a secret once formatted (an error, a map of log.* fields) is logged as
// its redacted text. A nil r returns h, so a server with no secrets pays
// nothing. Servers wrap their logger in it, so that neither their own log
// lines nor the actions' (log.info of a with value) show a secret.
func RedactingHandler(h slog.Handler, r *flow.Redactor) slog.Handler {
	if r == nil {
		return h
	}
	return redactingHandler{h: h, r: r}
}

// redactingHandler is the handler RedactingHandler returns.
type redactingHandler struct {
	h slog.Handler
	r *flow.Redactor
}

func (x redactingHandler) Enabled(ctx context.Context, l slog.Level) bool { return x.h.Enabled(ctx, l) }

func (x redactingHandler) Handle(ctx context.Context, rec slog.Record) error {
	out := slog.NewRecord(rec.Time, rec.Level, x.r.Redact(rec.Message), rec.PC)
	rec.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(x.attr(a))
		return true
	})
	return x.h.Handle(ctx, out)
}

func (x redactingHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return redactingHandler{h: x.h.WithAttrs(x.attrs(attrs)), r: x.r}
}

func (x redactingHandler) WithGroup(name string) slog.Handler {
	return redactingHandler{h: x.h.WithGroup(name), r: x.r}
}

func (x redactingHandler) attrs(as []slog.Attr) []slog.Attr {
	out := make([]slog.Attr, len(as))
	for i, a := range as {
		out[i] = x.attr(a)
	}
	return out
}

// attr returns a with the secrets in its value replaced.
func (x redactingHandler) attr(a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	var s string
	switch v.Kind() {
	case slog.KindString:
		s = v.String()
	case slog.KindGroup:
		return slog.Attr{Key: a.Key, Value: slog.GroupValue(x.attrs(v.Group())...)}
	case slog.KindAny:
		s = fmt.Sprint(v.Any())
	default:
		return a // numbers, booleans, times and durations hold no secret
	}
	if red := x.r.Redact(s); red != s {
		return slog.String(a.Key, red)
	}
	return slog.Attr{Key: a.Key, Value: v}
}
