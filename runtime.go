package flowserve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/flowserve/flowserve/actions"
	"github.com/flowserve/flowserve/actions/std"
	"github.com/flowserve/flowserve/dsl"
	"github.com/flowserve/flowserve/flow"
	"github.com/flowserve/flowserve/project"
	"github.com/flowserve/flowserve/resources"
	"github.com/flowserve/flowserve/serve"
)

// A Runtime is flowserve wired: the provisioned actions, the loaded
// flows, one engine, the version set that pins runs to the version of
// their flow they began on, the run and reply stores, tracing. It serves
// the flows over Streamable HTTP (Handler), stdio (ServeStdio) or on a
// go-sdk server of the caller's (Attach). It is safe for concurrent use.
type Runtime struct {
	cfg    Config
	log    *slog.Logger
	host   *actions.Host
	engine *flow.Engine
	popts  project.Options
	vs     *serve.Versions
	closer closers

	mu       sync.Mutex
	set      *project.Set      // the flows and resources loaded last
	srv      *serve.Server     // made on first use (serverFor)
	reloader *project.Reloader // made with srv
	diags    dsl.Diagnostics   // the warnings of the last load
	closed   bool
}

// Open wires a Runtime from cfg: it provisions the actions with the
// runtime's host, opens the stores, makes the engine and the version set,
// and loads the flows (project.Load). Flows with errors make it fail with
// a *LoadError listing the diagnostics; their warnings are in
// Diagnostics. Close releases what Open opened.
func Open(ctx context.Context, cfg Config) (*Runtime, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	if len(cfg.Paths) == 0 {
		cfg.Paths = slices.Clone(DefaultPaths)
	}
	if cfg.ShutdownTimeout == 0 {
		cfg.ShutdownTimeout = serve.DefaultShutdownTimeout
	}
	if cfg.Values == nil {
		cfg.Values = &project.Values{}
	}
	logger := cfg.Logger
	if logger == nil {
		logger = slog.Default()
	}
	// No log line, the actions' included, shows a secret.
	logger = slog.New(serve.RedactingHandler(logger.Handler(), cfg.Values.Redactor()))
	rt := &Runtime{cfg: cfg, log: logger}
	if err := rt.wire(ctx); err != nil {
		rt.closer.close(logger)
		return nil, err
	}
	if err := rt.load(); err != nil {
		rt.closer.close(logger)
		return nil, err
	}
	if cfg.MCP != nil {
		if err := rt.Attach(cfg.MCP); err != nil {
			rt.closer.close(logger)
			return nil, err
		}
	}
	return rt, nil
}

// wire provisions the actions and makes the stores, the version set and
// the engine.
func (rt *Runtime) wire(ctx context.Context) error {
	cfg := &rt.cfg
	rt.host = &actions.Host{FSRoot: cfg.FSRoot, Logger: rt.log}
	if cfg.HTTPDenyPrivate {
		rt.host.HTTPClient = std.DenyPrivateClient()
	}
	rt.host.Reload = rt.reloadStep
	reg := cfg.Actions
	if reg == nil {
		reg = actions.Default()
	}
	served, err := reg.Provision(ctx, rt.host)
	if err != nil {
		return err
	}
	rt.closer.add(func() error { return served.Cleanup() })
	// A flow that declares a var or secret without a value is an error
	// here and on every reload.
	rt.popts = project.Options{CostLimit: cfg.MaxExprCost, Actions: served, Values: cfg.Values, FS: cfg.FS}
	st, err := openStores(ctx, cfg, rt.log, &rt.closer)
	if err != nil {
		return err
	}
	rt.vs = serve.NewVersions(serve.VersionsOptions{Store: st.versions, Compile: rt.compile,
		Keep: max(stateTTL(cfg), taskTTL(cfg)), Logger: rt.log})
	rt.engine, err = newEngine(cfg, st.replies, rt.vs, rt.log)
	if err != nil {
		return err
	}
	rt.cfg.Tasks = st.tasks
	return nil
}

// compile compiles a version of a flow the version set did not load (a
// run pinned to it by another instance, or before a restart).
func (rt *Runtime) compile(path string, src []byte) (*flow.Program, error) {
	p, diags := project.LoadSource(path, src, rt.popts)
	if p == nil {
		return nil, diags.Err()
	}
	return p, nil
}

// load loads the flows and resource declarations of the configured
// paths.
func (rt *Runtime) load() error {
	set, diags := project.Load(rt.cfg.Paths, rt.popts)
	if diags.HasErrors() {
		return &LoadError{Diagnostics: diags}
	}
	if len(set.Files.Flows) == 0 {
		return fmt.Errorf("no flow files (*.yaml, *.yml) in %s", strings.Join(rt.cfg.Paths, ", "))
	}
	rt.set, rt.diags = set, diags
	return nil
}

// Diagnostics returns the warnings of the flows' last load.
func (rt *Runtime) Diagnostics() dsl.Diagnostics {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	return slices.Clone(rt.diags)
}

// Programs returns the flows served now: those of the last load or
// reload that had no errors.
func (rt *Runtime) Programs() []*flow.Program {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	return slices.Clone(rt.set.Programs)
}

// Engine returns the engine every flow runs on.
func (rt *Runtime) Engine() *flow.Engine { return rt.engine }

// Logger returns the runtime's logger, which redacts the secrets.
func (rt *Runtime) Logger() *slog.Logger { return rt.log }

// Server returns the server the flows are served by, making it (on a
// go-sdk server of its own) if Attach has not.
func (rt *Runtime) Server() (*serve.Server, error) { return rt.serverFor(nil) }

// Attach serves the flows as tools and prompts on m, a go-sdk server the
// caller owns, next to its own tools, prompts and resources; reloads
// update them there. Any transport of m's serves them, at every protocol
// era: Handler serves m with flowserve's 2026-07-28 path, tasks and
// approval pages; m's own mcp.NewStreamableHTTPHandler or m.Run serve the
// flows through the SDK. A Runtime serves one go-sdk server: Attach
// fails once it serves another (after Handler, ServeStdio or Server).
func (rt *Runtime) Attach(m *mcp.Server) error {
	if m == nil {
		return errors.New("attach: no server")
	}
	_, err := rt.serverFor(m)
	return err
}

// serverFor returns the runtime's server, making it on m (nil: a go-sdk
// server of its own) on first use.
func (rt *Runtime) serverFor(m *mcp.Server) (*serve.Server, error) {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	switch {
	case rt.closed:
		return nil, errors.New("the runtime is closed")
	case rt.srv != nil && m != nil && rt.srv.MCP() != m:
		return nil, errors.New("attach: the runtime serves its flows on another go-sdk server already")
	case rt.srv != nil:
		return rt.srv, nil
	}
	opts := rt.cfg.Server
	opts.Name, opts.Version, opts.Logger = rt.cfg.Name, rt.cfg.Version, rt.log
	opts.Host, opts.Engine, opts.Versions = rt.host, rt.engine, rt.vs
	opts.Tasks, opts.Resources, opts.Tracer, opts.MCP = rt.cfg.Tasks, rt.set.Resources, rt.cfg.Tracer, m
	srv, err := serve.New(rt.set.Programs, opts)
	if err != nil {
		return nil, err
	}
	rt.srv = srv
	rt.reloader = project.NewReloader(rt.cfg.Paths, rt.popts, served{rt, srv}, rt.set)
	return srv, nil
}

// Handler returns the Streamable HTTP handler of the flows (endpoint
// serve.EndpointPath, approval pages, OAuth metadata and metrics as
// Config.HTTP says), serving the runtime's go-sdk server: the one given
// to Attach, with the caller's own tools, or its own.
func (rt *Runtime) Handler() (http.Handler, error) {
	srv, err := rt.Server()
	if err != nil {
		return nil, err
	}
	rt.warnUncheckedScopes()
	return srv.HTTPHandler(rt.cfg.HTTP), nil
}

// HTTPServer returns an http.Server for addr serving Handler, with
// Config.HTTP's timeouts; stop it with Shutdown.
func (rt *Runtime) HTTPServer(addr string) (*http.Server, error) {
	srv, err := rt.Server()
	if err != nil {
		return nil, err
	}
	rt.warnUncheckedScopes()
	return srv.HTTPServer(addr, rt.cfg.HTTP), nil
}

// Shutdown stops hs gracefully: parked session-era calls end, and rounds
// in flight get until ctx is done.
func (rt *Runtime) Shutdown(ctx context.Context, hs *http.Server) error {
	srv, err := rt.Server()
	if err != nil {
		return err
	}
	return srv.Shutdown(ctx, hs)
}

// warnUncheckedScopes warns of the flows that require scopes when HTTP
// serves them without checking OAuth tokens: nothing checks their scopes.
func (rt *Runtime) warnUncheckedScopes() {
	if rt.cfg.HTTP.OAuth != nil {
		return
	}
	for _, p := range rt.Programs() {
		if scopes := p.Scopes(); len(scopes) > 0 {
			rt.log.Warn("the flow requires OAuth scopes, but without --oauth-issuer nothing checks them: every caller may call it",
				"flow", p.Name(), "scopes", strings.Join(scopes, " "))
		}
	}
}

// ServeStdio serves one client over in and out (newline-delimited
// JSON-RPC, serve.StdioTransport) until in ends or ctx is done.
func (rt *Runtime) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	srv, err := rt.Server()
	if err != nil {
		return err
	}
	rt.log.Info("serving on stdio", "tools", strings.Join(srv.Tools(), ","), "prompts", strings.Join(srv.Prompts(), ","))
	err = srv.MCP().Run(ctx, serve.StdioTransport(in, out, rt.cfg.ShutdownTimeout))
	if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, io.EOF) {
		return err
	}
	return nil
}

// Close stops the task workers, letting their rounds run until ctx is
// done, then cleans up the actions and closes the stores Open opened.
func (rt *Runtime) Close(ctx context.Context) error {
	rt.mu.Lock()
	if rt.closed {
		rt.mu.Unlock()
		return nil
	}
	rt.closed = true
	srv := rt.srv
	rt.mu.Unlock()
	var errs []error
	if srv != nil {
		if err := srv.Close(ctx); err != nil {
			errs = append(errs, fmt.Errorf("stopping the task workers: %w", err))
		}
	}
	if err := rt.closer.close(rt.log); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// Config returns the configuration the runtime was opened with, its
// defaults filled in.
func (rt *Runtime) Config() Config { return rt.cfg }

// served is the reloads' target: the server, and the runtime's record of
// what it serves (Programs).
type served struct {
	rt  *Runtime
	srv *serve.Server
}

// ReplaceAll serves progs and rs, and records them once the server took
// them.
func (t served) ReplaceAll(progs []*flow.Program, rs []*resources.Resource) error {
	if err := t.srv.ReplaceAll(progs, rs); err != nil {
		return err
	}
	t.rt.mu.Lock()
	t.rt.set = &project.Set{Files: t.rt.set.Files, Programs: slices.Clone(progs), Resources: slices.Clone(rs)}
	t.rt.mu.Unlock()
	return nil
}
