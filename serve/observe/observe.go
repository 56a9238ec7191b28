// Package observe is what a server records of the rounds it serves:
// their log lines, their metrics and their spans. A Rounds is made from
// a logger, a metrics registry and an optional tracer provider, never
// from a server: package serve starts a Round for each round it runs
// (Rounds.Start) and ends it with what the round came to (Round.End).
//
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
//	trace_id, span_id  the round's span, when the rounds are traced (trace.go)
//
// Levels: a finished call is Info, a round that needs input Debug, a run
// that failed Warn (Error when the failure is the server's), a rejected
// round Info. Form answers are logged at Debug only; answers to URL asks
// never.
//
// It also has the handlers a server's logger is wrapped in: the one that
// hides secrets (RedactingHandler), the one that adds a span's ids
// (trace_log.go), and the one that demotes go-sdk's Info lines (SDKLogger).
package observe

import (
	"context"
	"encoding/json"
	"log/slog"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/otel/trace"

	"github.com/flowserve/flowserve/dsl"
	"github.com/flowserve/flowserve/flow"
	"github.com/flowserve/flowserve/metrics"
)

// Options configure Rounds.
type Options struct {
	// Logger receives the rounds' log lines; nil means slog.Default().
	Logger *slog.Logger
	// Metrics counts the rounds; nil means a registry of its own.
	Metrics *metrics.Metrics
	// Tracer, when set, traces each round as a span (trace.go); nil means
	// no tracing, and rounds cost what they would without this package's
	// spans.
	Tracer trace.TracerProvider
	// Version is the instrumentation version of the spans.
	Version string
}

// Rounds records the rounds of one server.
type Rounds struct {
	// Log is the logger the rounds are logged to: Options.Logger, with
	// each record logged in a round's span given its ids when the rounds
	// are traced. The server logs the rest of its lines to it too.
	Log     *slog.Logger
	metrics *metrics.Metrics
	tracer  trace.Tracer // nil when the rounds are not traced

	// versionCounters caches the rounds counter of each version.
	versionMu       sync.RWMutex
	versionCounters map[versionKey]prometheus.Counter
}

// tracerName is the instrumentation scope of the rounds' spans.
const tracerName = "github.com/flowserve/flowserve/serve"

// New returns the recorder of a server's rounds.
func New(opts Options) *Rounds {
	o := &Rounds{Log: opts.Logger, metrics: opts.Metrics}
	if o.Log == nil {
		o.Log = slog.Default()
	}
	if o.metrics == nil {
		o.metrics = metrics.New()
	}
	if tp := opts.Tracer; tp != nil {
		o.tracer = tp.Tracer(tracerName, trace.WithInstrumentationVersion(opts.Version))
		o.Log = slog.New(newTraceHandler(o.Log.Handler()))
	}
	return o
}

// Traced reports whether the rounds are traced.
func (o *Rounds) Traced() bool { return o.tracer != nil }

// Round is one round being served.
type Round struct {
	o      *Rounds
	prompt bool   // a prompt flow's round, not a tool's (see kind)
	tool   string // the flow's name
	era    string
	caller string
	start  time.Time
	stats  flow.RoundStats
	tr     *roundTrace // nil when the rounds are not traced
}

// Start starts observing a round of p on the era labelled era, for
// caller (the name of the caller's token, or ""): the engine fills in
// fr.Stats. parent is the trace context the client sent (zero for none).
// The round runs in the context Start returns: when the rounds are
// traced, it holds the round's span, the child of parent, and fr.OnStep
// also reports the steps to it until End.
func (o *Rounds) Start(ctx context.Context, p *flow.Program, era, caller string, parent TraceParent, fr *flow.Request) (*Round, context.Context) {
	rd := &Round{o: o, prompt: p.IsPrompt(), tool: p.Name(), era: era, caller: caller, start: time.Now()}
	fr.Stats = &rd.stats
	o.metrics.RoundsInFlight.Inc()
	if o.tracer != nil {
		ctx = rd.trace(ctx, o.tracer, parent, fr)
	}
	return rd, ctx
}

// Stats are the figures the engine filled in about the round.
func (rd *Round) Stats() *flow.RoundStats { return &rd.stats }

// kind is "tool" or "prompt", the log key of the round's flow's name.
func (rd *Round) kind() string {
	if rd.prompt {
		return "prompt"
	}
	return "tool"
}

// logContext is the context the round's records are logged in: its
// span's, so that they carry its trace and span ids.
func (rd *Round) logContext() context.Context {
	if rd.tr != nil {
		return rd.tr.ctx
	}
	return context.Background()
}

// LogAnswers logs the answers a 2026-07-28 round of p was sent, at Debug
// level: the form answers only, never those to URL asks.
func (rd *Round) LogAnswers(p *flow.Program, responses map[string]json.RawMessage) {
	ctx := rd.logContext()
	if len(responses) == 0 || !rd.o.Log.Enabled(ctx, slog.LevelDebug) {
		return
	}
	for id, raw := range responses {
		if isFormAsk(p, id) {
			rd.LogAnswer(ctx, id, raw)
		}
	}
}

// LogAnswer logs, at Debug level in ctx, the answer to the form ask id
// after the round: a session client's, asked inside the call, or one a
// 2026-07-28 round was sent. Answers to URL asks are never logged.
func (rd *Round) LogAnswer(ctx context.Context, id string, answer []byte) {
	if !rd.o.Log.Enabled(ctx, slog.LevelDebug) {
		return
	}
	rd.o.Log.LogAttrs(ctx, slog.LevelDebug, "form answer",
		slog.String(rd.kind(), rd.tool), slog.String("run", rd.stats.RunID), slog.Int("round", rd.stats.Round),
		slog.String("ask", id), slog.String("answer", string(answer)))
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

// versionKey names the rounds counter of one version of a tool.
type versionKey struct {
	tool string
	v    dsl.Version
}

// versionRounds returns the counter of the rounds served on version v of
// tool (flowserve_version_rounds_total), made once per version.
func (o *Rounds) versionRounds(tool string, v dsl.Version) prometheus.Counter {
	k := versionKey{tool, v}
	o.versionMu.RLock()
	c, ok := o.versionCounters[k]
	o.versionMu.RUnlock()
	if ok {
		return c
	}
	c = o.metrics.VersionRounds.WithLabelValues(tool, v.Short())
	o.versionMu.Lock()
	if o.versionCounters == nil {
		o.versionCounters = map[versionKey]prometheus.Counter{}
	}
	o.versionCounters[k] = c
	o.versionMu.Unlock()
	return c
}
