package flow

import (
	"context"
	"fmt"
	"time"

	"github.com/flowserve/flowserve/actions"
	"github.com/flowserve/flowserve/dsl"

	"github.com/flowserve/flowserve/flow/state"
	"github.com/flowserve/flowserve/replies"
)

// Limits bound what one run may do. Zero fields take the defaults. The
// cost limit of an expression is a compile-time bound: see [Env].
type Limits struct {
	Journal int // journal entries per run; default 256
	Visits  int // node visits per round; default 10 000
	// CallDepth is how deep call and link nodes may nest: a flow that
	// calls a flow that calls a flow is depth 2; default DefaultCallDepth.
	CallDepth int
}

// The default limits.
const (
	DefaultJournalLimit = 256
	DefaultVisitLimit   = 10_000
)

func (l Limits) withDefaults() Limits {
	if l.Journal <= 0 {
		l.Journal = DefaultJournalLimit
	}
	if l.Visits <= 0 {
		l.Visits = DefaultVisitLimit
	}
	if l.CallDepth <= 0 {
		l.CallDepth = DefaultCallDepth
	}
	return l
}

// EngineOptions configure an Engine. The zero value is usable.
type EngineOptions struct {
	// Codec seals and opens request states; nil means a codec with an
	// ephemeral key made once for this Engine: its states survive
	// reloads (every Program run by the Engine shares it) but not the
	// process.
	Codec *state.Codec
	// Replies keeps final results for retried final rounds; nil means a
	// store in memory (replies.NewMemory). Use a Redis one to share it
	// between instances.
	Replies ReplyStore
	// Now is the clock of the engine: run start times, reply lifetimes,
	// and time.now in steps whose Host has no clock of its own. Nil means
	// time.Now. An ephemeral codec uses it too.
	Now func() time.Time
	// Limits bound each run.
	Limits Limits
	// Values are the values of the vars and secrets the flows declare
	// (see [Values]). A run of a program whose flow declares a name
	// without a value fails before it starts; servers check every flow
	// they load instead (project.Options.Values). The engine keeps a copy.
	Values Values
	// Versions finds the program of the version a run began on, when a
	// round's state was sealed by another version of the flow than the
	// program Run was given (a reload or a deploy since): the round then
	// runs on that version. Nil, or ErrUnknownVersion from it, runs the
	// round on the program given, as long as its journal replays there;
	// when it does not, the round fails with a *VersionError, which
	// servers answer as a retryable error.
	Versions Resolver
}

// Resolver finds the programs of earlier versions of flows (see
// EngineOptions.Versions).
type Resolver interface {
	// Program returns the program of the flow named name at version v,
	// or an error matching ErrUnknownVersion when there is none.
	Program(ctx context.Context, name string, v dsl.Version) (*Program, error)
}

// Engine runs Programs: it owns what runs need at run time (the key ring
// that seals states, the reply store, the clock, the limits, the values
// of vars and secrets) so that Programs stay pure data. One Engine serves every Program of a server,
// across reloads: a state sealed before a reload opens after it. An Engine
// is safe for concurrent use.
type Engine struct {
	codec    *state.Codec
	replies  ReplyStore
	now      func() time.Time
	pinned   bool // now was given, so steps see it as time.now
	limits   Limits
	values   Values
	redact   *Redactor // of values.Secrets; nil when there are none
	versions Resolver
}

// NewEngine returns an Engine with opts. It fails only when it must make
// an ephemeral key and the system has no randomness.
func NewEngine(opts EngineOptions) (*Engine, error) {
	e := &Engine{codec: opts.Codec, replies: opts.Replies, now: opts.Now, limits: opts.Limits.withDefaults(), values: opts.Values.clone(),
		versions: opts.Versions}
	e.redact = e.values.Redactor()
	e.pinned = e.now != nil
	if e.now == nil {
		e.now = time.Now
	}
	if e.codec == nil {
		ring, err := state.EphemeralKeyRing()
		if err != nil {
			return nil, fmt.Errorf("engine: %w", err)
		}
		e.codec = state.NewCodec(ring, state.Options{Now: opts.Now})
	}
	if e.replies == nil {
		e.replies = replies.NewMemory(0, opts.Now)
	}
	return e, nil
}

// Codec returns the codec that seals the engine's states.
func (e *Engine) Codec() *state.Codec { return e.codec }

// Now returns the engine's current time.
func (e *Engine) Now() time.Time { return e.now() }

// Limits returns the limits of each run, defaults filled in.
func (e *Engine) Limits() Limits { return e.limits }

// hostContext returns ctx with a Host whose clock is the engine's, when
// the engine was given a clock and the Host has none: one clock for the
// whole run, so a step's time.now agrees with run.started (flowserve test
// pins both).
func (e *Engine) hostContext(ctx context.Context) context.Context {
	if !e.pinned {
		return ctx
	}
	h := actions.HostFrom(ctx)
	if h.Now != nil {
		return ctx
	}
	pinned := *h
	pinned.Now = e.now
	return actions.WithHost(ctx, &pinned)
}
