package flowserve

import (
	"fmt"
	"io/fs"
	"log/slog"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/trace"

	"github.com/flowserve/flowserve/actions"
	"github.com/flowserve/flowserve/dsl"
	"github.com/flowserve/flowserve/flow"
	"github.com/flowserve/flowserve/flow/state"
	"github.com/flowserve/flowserve/project"
	"github.com/flowserve/flowserve/serve"
	"github.com/flowserve/flowserve/tasks"
	"github.com/flowserve/flowserve/versions"
)

// DefaultPaths are the flow paths Open loads when Config.Paths is empty.
var DefaultPaths = []string{"flows"}

// Config is what Open wires a Runtime from. The zero value serves the
// flows in ./flows with the built-in actions, an ephemeral state key and
// in-memory stores.
type Config struct {
	// Paths are the flow files and directories to load (project.Load):
	// default DefaultPaths.
	Paths []string
	// FS is where Paths are read from; nil means the operating system's
	// files. An embed.FS builds the flows into the binary (paths are then
	// slash-separated names in it); Watch needs the operating system's.
	FS fs.FS
	// Name and Version identify the server to clients; default
	// "flowserve" and "dev".
	Name, Version string
	// Logger receives the logs of the runtime, its server and its actions;
	// nil means slog.Default(). No line shows a secret: Open wraps it so
	// that the values of Values.Secrets are redacted.
	Logger *slog.Logger

	// Keys seal the request states and approval links. Nil means an
	// ephemeral key, with a warning: runs in flight do not survive a
	// restart, and other instances cannot continue them.
	Keys *state.KeyRing
	// StateTTL is how long a request state stays valid; default
	// state.DefaultTTL. MaxStateBytes bounds one requestState; default
	// state.DefaultMaxSize.
	StateTTL      time.Duration
	MaxStateBytes int
	// Limits bound a run's journal and a round's node visits; zero fields
	// take the engine's defaults.
	Limits flow.Limits
	// MaxExprCost bounds one expression evaluation; 0 means
	// lang.DefaultCostLimit.
	MaxExprCost uint64

	// Actions are the actions steps may call; nil means the default
	// registry (the built-in actions and those registered with
	// actions.Register). Open provisions them with the runtime's host and
	// cleans them up on Close.
	Actions *actions.Registry
	// FSRoot is the directory the fs.* actions are confined to; "" means
	// they refuse.
	FSRoot string
	// HTTPDenyPrivate makes http.request steps refuse to connect to
	// private addresses (serve --http-deny-private).
	HTTPDenyPrivate bool
	// Values are the flows' vars and secrets, given once: the load checks
	// that each declared one has a value, the engine hands them to the
	// runs, and the logs redact the secrets. Nil means none.
	Values *project.Values

	// Data is a directory for the run store (tasks.db) and the version
	// store (versions.db), kept across restarts; "" means memory.
	Data string
	// Redis is a redis:// URL whose server keeps the final results, the
	// tasks and the flows' versions, shared by every instance (serve
	// --replies); it wins over Data.
	Redis string
	// Tasks, Versions and Replies, when set, are the stores to use instead
	// of those Data and Redis name; they stay open on Close (the
	// caller's).
	Tasks    tasks.Store
	Versions versions.Store
	Replies  flow.ReplyStore

	// Tracer traces each round as a span; nil means no tracing.
	Tracer trace.TracerProvider
	// MCP is a go-sdk server of the caller's to serve the flows on, next
	// to its own tools (see Runtime.Attach); nil means one the runtime
	// makes.
	MCP *mcp.Server
	// Server is the serving policy: timeouts, task workers, limits,
	// approvals (see serve.Options). Open sets its Name, Version, Logger,
	// Host, Engine, Versions, Tasks, Resources, Tracer and MCP from the
	// fields above; setting them here is an error.
	Server serve.Options
	// HTTP configures Runtime.Handler: allowed hosts and origins, bearer
	// tokens or OAuth, limits and timeouts (see serve.HTTPOptions).
	HTTP serve.HTTPOptions
	// OnDiagnostics, when set, gets the diagnostics (warnings and errors)
	// of each reload the runtime starts itself: a change Watch saw, a
	// server.reload step. Open's and Reload's are returned instead.
	OnDiagnostics func(dsl.Diagnostics)
	// ShutdownTimeout is how long rounds in flight may take to finish on
	// Close and at the end of ServeStdio's input; default
	// serve.DefaultShutdownTimeout.
	ShutdownTimeout time.Duration
}

// check says what is wrong with c, naming the field.
func (c *Config) check() error {
	o := c.Server
	for _, f := range []struct {
		name string
		set  bool
	}{
		{"Name", o.Name != ""}, {"Version", o.Version != ""}, {"Logger", o.Logger != nil},
		{"Host", o.Host != nil}, {"Engine", o.Engine != nil}, {"Versions", o.Versions != nil},
		{"Tasks", o.Tasks != nil}, {"Resources", o.Resources != nil}, {"Tracer", o.Tracer != nil},
		{"MCP", o.MCP != nil},
	} {
		if f.set {
			return fmt.Errorf("config: Server.%s is set by Open: use Config's own field (Config.%s) or leave it out", f.name, f.name)
		}
	}
	switch {
	case c.StateTTL < 0:
		return fmt.Errorf("config: StateTTL must not be negative, not %s", c.StateTTL)
	case c.MaxStateBytes < 0:
		return fmt.Errorf("config: MaxStateBytes must not be negative, not %d", c.MaxStateBytes)
	case c.ShutdownTimeout < 0:
		return fmt.Errorf("config: ShutdownTimeout must not be negative, not %s", c.ShutdownTimeout)
	}
	return nil
}

// LoadError is Open's error when the flows or resource declarations
// have errors: Diagnostics lists them (and the warnings), as
// `flowserve lint` prints them.
type LoadError struct {
	Diagnostics dsl.Diagnostics
}

// Error says what failed to load and the first error.
func (e *LoadError) Error() string {
	return fmt.Sprintf("%s have errors: %v", project.FailedParts(e.Diagnostics), e.Diagnostics.Err())
}

// Usage reports whether the errors are about the paths themselves (a
// path that does not exist, or paths with nothing to load), not their
// contents: a command reports those as usage errors.
func (e *LoadError) Usage() bool { return project.IsUsage(e.Diagnostics) }
