package serve

import (
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/flowserve/flowserve/actions"
	"github.com/flowserve/flowserve/approve"
	"github.com/flowserve/flowserve/flow"
	"github.com/flowserve/flowserve/flow/state"
	"github.com/flowserve/flowserve/resources"
	"github.com/flowserve/flowserve/tasks"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/trace"
)

// Options configure a Server. The zero value is usable.
type Options struct {
	// Name and Version identify the server to clients; default
	// "flowserve" and "dev".
	Name, Version string
	// Logger receives the server's logs; nil means slog.Default().
	Logger *slog.Logger
	// Host is given to actions (fs root, HTTP client); nil means none.
	Host *actions.Host
	// Engine runs the programs: it holds the key ring that seals request
	// states, the reply store, the clock and the limits. Keep one Engine
	// for the life of the process (across Replace) so that runs in flight
	// survive reloads. Nil means flow.NewEngine with its defaults (an
	// ephemeral key).
	Engine *flow.Engine
	// MaxWait bounds a round that runs long steps inside the call because
	// its client cannot have a task (session clients, and 2026-07-28
	// clients that did not declare the extension); default
	// DefaultRoundTimeout. A long step still running then fails, and the
	// call ends with an error result.
	MaxWait time.Duration
	// LegacyRounds bounds the rounds of one tools/call from a session
	// client (2025-06-18, 2025-11-25); default 100.
	LegacyRounds int
	// RoundTimeout bounds one round of the engine. A round runs to its end
	// even when the client goes away mid-round (so a final step that has
	// run has its result kept in the reply store, and a retry does not
	// run it again); this is its only deadline besides the steps' own.
	// Default DefaultRoundTimeout.
	RoundTimeout time.Duration
	// MaxLegacyCalls bounds the tools/calls of session clients in
	// progress at once, over every transport: each may be parked inside
	// the server waiting for its user's answer. A call over the cap is
	// refused with JSON-RPC error -32000 and the server goes on serving
	// the others. Default DefaultMaxLegacyCalls; negative means no cap.
	MaxLegacyCalls int
	// Resources are the declared resources to serve (see
	// ReplaceResources).
	Resources []*resources.Resource
	// FlowResources serves each flow's source and diagram as the
	// resources flow://<tool>/source and flow://<tool>/diagram. Off by
	// default: a flow's source may hold internal URLs and other things its
	// clients need not read.
	FlowResources bool
	// Tasks is the run store of the calls that become MCP tasks (see
	// tasks.go); nil means an in-memory store, whose tasks end with the
	// process. The server runs tasks from it with TaskWorkers workers
	// until Close; closing the store is the caller's.
	Tasks tasks.Store
	// TaskTTL is how long a task is kept after its last change (its
	// ttlMs); default DefaultTaskTTL.
	TaskTTL time.Duration
	// PollInterval is the pollIntervalMs tasks suggest to clients;
	// default DefaultPollInterval.
	PollInterval time.Duration
	// MaxRounds is the round budget: the most rounds of a 2026-07-28 call
	// that may end asking questions before a `task: auto` flow goes on
	// as a task, for a client that declared tasks; default
	// DefaultMaxRounds.
	MaxRounds int
	// TaskWorkers is how many task rounds run at once in this process;
	// default DefaultTaskWorkers. Callers share them fairly: they take
	// turns, and a reserve of one in eight workers (at least one, when
	// there are two or more) is kept for callers that run no round, so
	// that one caller's backlog never delays another caller's first task
	// (package serve/internal/dispatch).
	TaskWorkers int
	// MaxTasksPerCaller is the most open tasks (not ended: working,
	// waiting for answers or for an approval) one caller (principal)
	// may have in the run store, counted across restarts and over every
	// instance sharing the store; a call that would make one more is
	// refused with JSON-RPC error -32000 naming the limit. The hidden
	// tasks of calls that wait for an approval inside themselves (clients
	// without tasks) count. Default DefaultMaxTasksPerCaller; negative
	// means no limit.
	MaxTasksPerCaller int
	// PublicURL is the server's URL as the people who answer approvals
	// reach it (e.g. "https://mcp.example.com"), for the links of
	// approval pages; "" means the scheme and host each call came in on.
	PublicURL string
	// ApprovalSignIn, when set, makes the people who answer approvals sign
	// in at an OpenID Connect issuer first; their answers are recorded
	// with their subject there (answered_by).
	ApprovalSignIn *approve.SignIn
	// WebhookAttempts is how many times an approval's notification is
	// posted to its webhook before giving up, WebhookBackoff the pause
	// after the first failure (doubled each time, at most a minute), and
	// WebhookClient the HTTP client; defaults DefaultWebhookAttempts,
	// DefaultWebhookBackoff and http.DefaultClient.
	WebhookAttempts int
	WebhookBackoff  time.Duration
	WebhookClient   *http.Client
	// Versions pins runs to the version of their flow they began on: the
	// Server puts each program it serves there, and the Engine must use
	// it as its Resolver (EngineOptions.Versions). Nil with Engine nil
	// means a set in memory that the Server's own engine uses; nil with
	// an Engine means runs are not pinned.
	Versions *Versions
	// Tracer, when set, traces each round as a span (package observe): the
	// child of the W3C trace context the client sent in _meta, with child
	// spans per step and question. Nil means no tracing.
	Tracer trace.TracerProvider
	// MCP is the go-sdk server to serve the flows on, next to the tools,
	// prompts and resources its owner adds to it; nil means one of the
	// Server's own. The Server adds its middleware to it (session
	// versions, elicitation answers, the tasks extension, scopes) and
	// keeps its flows' tools, prompts and resources there, leaving the
	// others alone. A server the caller made keeps its own capabilities
	// and completion handler: prompt argument completion is the own
	// server's.
	MCP *mcp.Server
}

// DefaultRoundTimeout is Options.RoundTimeout when it is zero.
const DefaultRoundTimeout = 10 * time.Minute

// DefaultMaxTasksPerCaller is Options.MaxTasksPerCaller when it is zero.
const DefaultMaxTasksPerCaller = 100

// DefaultMaxLegacyCalls is Options.MaxLegacyCalls when it is zero.
const DefaultMaxLegacyCalls = 4096

// withDefaults fills in the zero fields of o with their defaults, and
// makes the Engine when there is none: with a version set of its own
// (Versions) unless o has one.
func (o Options) withDefaults() (Options, error) {
	if o.Name == "" {
		o.Name = "flowserve"
	}
	if o.Version == "" {
		o.Version = "dev"
	}
	if o.RoundTimeout <= 0 {
		o.RoundTimeout = DefaultRoundTimeout
	}
	if o.LegacyRounds <= 0 {
		o.LegacyRounds = 100
	}
	if o.MaxLegacyCalls == 0 {
		o.MaxLegacyCalls = DefaultMaxLegacyCalls
	}
	if o.MaxWait <= 0 {
		o.MaxWait = DefaultRoundTimeout
	}
	if o.TaskTTL <= 0 {
		o.TaskTTL = DefaultTaskTTL
	}
	if o.PollInterval <= 0 {
		o.PollInterval = DefaultPollInterval
	}
	if o.MaxRounds <= 0 {
		o.MaxRounds = DefaultMaxRounds
	}
	if o.TaskWorkers <= 0 {
		o.TaskWorkers = DefaultTaskWorkers
	}
	if o.WebhookAttempts <= 0 {
		o.WebhookAttempts = DefaultWebhookAttempts
	}
	if o.WebhookBackoff <= 0 {
		o.WebhookBackoff = DefaultWebhookBackoff
	}
	o.PublicURL = strings.TrimSuffix(o.PublicURL, "/")
	if o.Engine == nil {
		if o.Versions == nil {
			o.Versions = NewVersions(VersionsOptions{Logger: o.Logger, Keep: max(o.TaskTTL, state.DefaultTTL)})
		}
		e, err := flow.NewEngine(flow.EngineOptions{Versions: o.Versions})
		if err != nil {
			return o, err
		}
		o.Engine = e
	}
	return o, nil
}
