package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"strings"
	"time"

	"github.com/flowserve/flowserve/actions"
	"github.com/flowserve/flowserve/flow"
	"github.com/flowserve/flowserve/flow/state"
	"github.com/flowserve/flowserve/lang"
	"github.com/flowserve/flowserve/project"
	"github.com/flowserve/flowserve/replies"
	"github.com/flowserve/flowserve/replies/redis"
	"github.com/flowserve/flowserve/serve"
)

// Version is flowserve's version, reported to clients: the module's
// release, or 0.1.0-devel+<commit> for a build from a clone (see
// flowserve version).
var Version = servedVersion()

// DefaultKeysEnv is the environment variable read for the state key ring
// when --keys is not given.
const DefaultKeysEnv = "FLOWSERVE_KEYS"

type serveFlags struct {
	http     string
	stdio    bool
	keys     string
	keysEnv  string
	ttl      time.Duration
	fsRoot   string
	logLevel string
	watch    bool

	logFormat       string
	tokens          string
	allowedHosts    string
	allowedOrigins  string
	metrics         bool
	maxBody         int64
	maxState        int
	maxJournal      int
	maxVisits       int
	maxExprCost     uint64
	maxSessions     int
	maxLegacyCalls  int
	maxTasks        int // --max-tasks-per-caller; 0 or less: no limit
	sessionTimeout  time.Duration
	readHeader      time.Duration
	readTimeout     time.Duration
	writeTimeout    time.Duration
	idleTimeout     time.Duration
	shutdownTimeout time.Duration
	replies         string
	roundTimeout    time.Duration
	flowResources   bool
	httpDenyPrivate bool
	values          valueFlags
	tasks           taskFlags
	oauth           oauthFlags
	tracing         tracingFlags
}

// valueFlags are the flags, of serve and run, that name the files of the
// flows' vars and secrets.
type valueFlags struct{ vars, secrets string }

// register defines the flags in fs.
func (v *valueFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&v.vars, "vars", "", "YAML file of the values of the flows' vars (name: value); they win over $"+project.VarEnvPrefix+"<NAME>")
	fs.StringVar(&v.secrets, "secrets", "", "YAML file of the values of the flows' secrets (name: value); they win over $"+project.SecretEnvPrefix+"<NAME>")
}

// read reads the values of vars and secrets from the files and the
// environment.
func (v valueFlags) read() (*project.Values, error) {
	return project.ReadValues(v.vars, v.secrets, os.Environ())
}

// runServe serves flows over Streamable HTTP or stdio.
func runServe(ctx context.Context, env *Env) int {
	var f serveFlags
	fs := f.flagSet(env)
	if err := fs.Parse(env.Args); err != nil || !f.valid(env, fs) {
		return exitUsage
	}
	if f.watch {
		// The watcher logs and prints diagnostics from its own goroutine.
		env = &Env{Args: env.Args, Stdin: env.Stdin, Stdout: env.Stdout, Stderr: &lockedWriter{w: env.Stderr}}
	}
	handler, ok := f.logHandler(env)
	if !ok {
		return exitUsage
	}
	values, err := f.values.read()
	if err != nil {
		fmt.Fprintf(env.Stderr, "flowserve serve: %v\n", err)
		return exitFail
	}
	// No log line, the actions' included, shows a secret.
	logger := slog.New(serve.RedactingHandler(handler, values.Redactor()))
	paths := fs.Args()
	if len(paths) == 0 {
		paths = []string{"flows"}
	}

	rt, err := f.runtime(ctx, values, logger)
	if err != nil {
		fmt.Fprintf(env.Stderr, "flowserve serve: %v\n", err)
		return exitFail
	}
	defer rt.close()
	engine, host := rt.engine, rt.host
	taskStore, closeTasks, err := f.tasks.store(f.replies, logger)
	if err != nil {
		fmt.Fprintf(env.Stderr, "flowserve serve: %v\n", err)
		return exitFail
	}
	defer closeTasks()
	popts := rt.popts
	var tokens *serve.Tokens
	if f.tokens != "" {
		if tokens, err = serve.LoadTokens(f.tokens); err != nil {
			fmt.Fprintf(env.Stderr, "flowserve serve: %v\n", err)
			return exitFail
		}
		logger.Info("bearer tokens required", "tokens", tokens.Len())
	}
	oauthOpts, err := f.oauth.options(ctx, f.tasks.publicURL, logger)
	if err != nil {
		fmt.Fprintf(env.Stderr, "flowserve serve: %v\n", err)
		return exitFail
	}
	signIn, err := f.oauth.signIn(ctx)
	if err != nil {
		fmt.Fprintf(env.Stderr, "flowserve serve: %v\n", err)
		return exitFail
	}
	tracer, stopTracing, err := f.tracing.provider(ctx, Version)
	if err != nil {
		fmt.Fprintf(env.Stderr, "flowserve serve: %v\n", err)
		return exitFail
	}
	defer flushTraces(stopTracing, logger)
	set, code := loadServed(env, fs, paths, popts)
	if set == nil {
		return code
	}
	if oauthOpts == nil && !f.stdio {
		warnUncheckedScopes(set.Programs, logger)
	}
	srv, err := serve.New(set.Programs, serve.Options{
		Version:        Version,
		Logger:         logger,
		Host:           host,
		Engine:         engine,
		MaxLegacyCalls: f.maxLegacyCalls,
		RoundTimeout:   f.roundTimeout,
		Resources:      set.Resources,
		FlowResources:  f.flowResources,
		Tasks:          taskStore,
		TaskTTL:        f.tasks.taskTTL,
		PollInterval:   f.tasks.pollInterval,
		MaxRounds:      f.tasks.maxRounds,
		TaskWorkers:    f.tasks.workers,
		MaxWait:        f.tasks.maxWait,
		PublicURL:      f.tasks.publicURL,
		ApprovalSignIn: signIn,
		Tracer:         tracer,
		Versions:       rt.versions,

		MaxTasksPerCaller: tasksPerCaller(f.maxTasks),
	})
	if err != nil {
		fmt.Fprintf(env.Stderr, "flowserve serve: %v\n", err)
		return exitFail
	}
	defer stopTasks(srv, f.shutdownTimeout, logger)
	// Reloaded flows run on the same engine: its key ring opens the states
	// of runs that started before a change, and it checks their journals
	// against the new flow.
	reloader := newReloader(project.NewReloader(paths, popts, srv, set), srv, logger, env.Stderr)
	host.Reload = reloader.reloadNow
	if f.watch {
		stop, err := reloader.watchFlows(ctx)
		if err != nil {
			fmt.Fprintf(env.Stderr, "flowserve serve: --watch: %v\n", err)
			return exitFail
		}
		defer stop()
	}
	if f.stdio {
		return serveStdio(ctx, env, srv, f.shutdownTimeout, logger)
	}
	return serveHTTP(ctx, env, f.http, srv, f.httpOptions(tokens, oauthOpts), f.shutdownTimeout, logger)
}

// flushTraces exports the spans not sent yet and stops the exporter,
// waiting up to 10 s.
func flushTraces(stop func(context.Context) error, logger *slog.Logger) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := stop(ctx); err != nil {
		logger.Warn("exporting the last spans", "err", err)
	}
}

// stopTasks stops the server's task workers, letting their rounds run for
// up to timeout (see serve.Server.Close).
func stopTasks(srv *serve.Server, timeout time.Duration, logger *slog.Logger) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	if err := srv.Close(ctx); err != nil {
		logger.Warn("stopping the task workers", "err", err)
	}
}

// serveRuntime is what the server runs flows with.
type serveRuntime struct {
	engine   *flow.Engine
	host     *actions.Host
	reg      *actions.Registry // provisioned with host
	popts    project.Options   // how flows load: with reg and the values
	versions *serve.Versions   // the engine's and the server's
	close    func()            // cleans up the actions and closes the reply and version stores
}

// runtime makes the engine (key ring, reply store, limits, values) and
// provisions the actions with the server's host: the actions get their
// configuration and resources from the server once, and are cleaned up
// when it stops.
func (f *serveFlags) runtime(ctx context.Context, values *project.Values, logger *slog.Logger) (*serveRuntime, error) {
	ring, err := keyRing(*f, logger)
	if err != nil {
		return nil, err
	}
	if f.fsRoot != "" {
		if info, err := os.Stat(f.fsRoot); err != nil || !info.IsDir() {
			return nil, fmt.Errorf("--fs-root %s is not a directory", f.fsRoot)
		}
	}
	host := &actions.Host{FSRoot: f.fsRoot, Logger: logger, HTTPClient: stepHTTPClient(f.httpDenyPrivate)}
	reg, err := actions.Default().Provision(ctx, host)
	if err != nil {
		return nil, err
	}
	cleanup := func() {
		if err := reg.Cleanup(); err != nil {
			logger.Error("cleaning up the actions", "err", err)
		}
	}
	// A flow that declares a var or secret without a value is an error
	// here and on every reload.
	popts := project.Options{CostLimit: f.maxExprCost, Actions: reg, Values: values}
	vs, closeVersions, err := f.versions(popts, logger)
	if err != nil {
		cleanup()
		return nil, err
	}
	engine, closeStore, err := f.engine(ctx, ring, values, vs)
	if err != nil {
		closeVersions()
		cleanup()
		return nil, err
	}
	return &serveRuntime{engine: engine, host: host, reg: reg, popts: popts, versions: vs, close: func() {
		cleanup()
		closeStore()
		closeVersions()
	}}, nil
}

// valid checks the flags that go together or must be positive, saying
// what is wrong.
func (f *serveFlags) valid(env *Env, fs *flag.FlagSet) bool {
	set := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	httpSet := set["http"]
	switch {
	case f.stdio && httpSet:
		fmt.Fprintln(env.Stderr, "flowserve serve: --http and --stdio cannot be used together")
	case f.ttl <= 0:
		fmt.Fprintln(env.Stderr, "flowserve serve: --state-ttl must be positive")
	case f.shutdownTimeout <= 0:
		fmt.Fprintln(env.Stderr, "flowserve serve: --shutdown-timeout must be positive")
	case f.tasks.valid() != "":
		fmt.Fprintf(env.Stderr, "flowserve serve: %s\n", f.tasks.valid())
	case f.oauth.valid(f.tokens, f.stdio, set) != "":
		fmt.Fprintf(env.Stderr, "flowserve serve: %s\n", f.oauth.valid(f.tokens, f.stdio, set))
	default:
		return true
	}
	return false
}

// loadServed loads the flows and resources to serve, printing the
// diagnostics; a nil set comes with the exit status.
func loadServed(env *Env, fs *flag.FlagSet, paths []string, popts project.Options) (*project.Set, int) {
	set, diags := project.Load(paths, popts)
	if msg, ok := usageError(diags); ok {
		fmt.Fprintf(env.Stderr, "flowserve serve: %s\n", msg)
		fs.Usage()
		return nil, exitUsage
	}
	printDiagnostics(env.Stderr, diags)
	if diags.HasErrors() {
		fmt.Fprintf(env.Stderr, "flowserve serve: not starting: %s have errors\n", failedParts(diags))
		return nil, exitFail
	}
	if len(set.Files.Flows) == 0 {
		fmt.Fprintf(env.Stderr, "flowserve serve: no flow files (*.yaml, *.yml) in %s\n", strings.Join(paths, ", "))
		return nil, exitFail
	}
	return set, exitOK
}

// httpOptions are the HTTP handler's options the flags give.
func (f *serveFlags) httpOptions(tokens *serve.Tokens, o *serve.OAuth) serve.HTTPOptions {
	return serve.HTTPOptions{
		SessionTimeout:      f.sessionTimeout,
		MaxRequestBodyBytes: f.maxBody,
		MaxSessions:         f.maxSessions,
		AllowedHosts:        splitList(f.allowedHosts),
		AllowedOrigins:      splitList(f.allowedOrigins),
		Tokens:              tokens,
		OAuth:               o,
		Metrics:             f.metrics,
		ReadHeaderTimeout:   f.readHeader,
		ReadTimeout:         f.readTimeout,
		WriteTimeout:        f.writeTimeout,
		IdleTimeout:         f.idleTimeout,
	}
}

// serveStdio serves one client over standard input and output until the
// input ends or ctx is done.
func serveStdio(ctx context.Context, env *Env, srv *serve.Server, drain time.Duration, logger *slog.Logger) int {
	logger.Info("serving on stdio", "tools", strings.Join(srv.Tools(), ","), "prompts", strings.Join(srv.Prompts(), ","))
	t := serve.StdioTransport(env.Stdin, env.Stdout, drain)
	if err := srv.MCP().Run(ctx, t); err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, io.EOF) {
		fmt.Fprintf(env.Stderr, "flowserve serve: %v\n", err)
		return exitFail
	}
	return exitOK
}

// tasksPerCaller is --max-tasks-per-caller n as Options.MaxTasksPerCaller
// takes it: the flag's 0 or less (no limit) is a negative there, whose 0
// is the default.
func tasksPerCaller(n int) int {
	if n <= 0 {
		return -1
	}
	return n
}

// flagSet returns serve's flags, parsed into f.
func (f *serveFlags) flagSet(env *Env) *flag.FlagSet {
	fs := flag.NewFlagSet("flowserve serve", flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	fs.StringVar(&f.http, "http", "127.0.0.1:8787", "serve Streamable HTTP on this address (endpoint /mcp)")
	fs.BoolVar(&f.stdio, "stdio", false, "serve one client over standard input and output instead of HTTP")
	fs.StringVar(&f.keys, "keys", "", "key ring file for sealing request state (lines of id:base64-key; the first seals)")
	fs.StringVar(&f.keysEnv, "keys-env", DefaultKeysEnv, "environment variable holding the key ring when --keys is not given")
	fs.DurationVar(&f.ttl, "state-ttl", state.DefaultTTL, "how long a run's request state stays valid")
	fs.StringVar(&f.fsRoot, "fs-root", "", "directory the fs.* actions are confined to (none: they refuse)")
	fs.StringVar(&f.logLevel, "log-level", "info", "log level: debug, info, warn or error")
	fs.BoolVar(&f.watch, "watch", false, "reload flows when their files change (a change with errors keeps the previous version serving)")
	fs.StringVar(&f.logFormat, "log-format", "text", "log format: text or json")
	fs.StringVar(&f.tokens, "tokens", "", "file of accepted bearer tokens, one [name:]token per line (none: no authentication, unless --oauth-issuer)")
	f.oauth.register(fs)
	f.tracing.register(fs)
	fs.StringVar(&f.allowedHosts, "allowed-hosts", "", "comma-separated host names the Host header may name (behind a proxy or on a public address)")
	fs.StringVar(&f.allowedOrigins, "allowed-origins", "", "comma-separated browser origins allowed to call the server")
	fs.BoolVar(&f.metrics, "metrics", false, "serve Prometheus metrics at /metrics")
	fs.StringVar(&f.replies, "replies", "", "keep final results in Redis at this URL (redis://host:port/db) so instances share them; default: in memory, per instance")
	fs.DurationVar(&f.roundTimeout, "round-timeout", serve.DefaultRoundTimeout, "longest time one round may run (it goes on when the client goes away)")
	f.values.register(fs)
	f.tasks.register(fs)
	fs.BoolVar(&f.flowResources, "flow-resources", false, "serve each flow's source and diagram as the resources flow://<tool>/source and flow://<tool>/diagram (off: a flow's source may hold what clients need not read)")
	fs.BoolVar(&f.httpDenyPrivate, "http-deny-private", false, "http.request steps refuse to connect to private addresses: loopback, link-local (cloud metadata), RFC 1918, fc00::/7, CGNAT, unspecified, multicast (checked at dial time; no HTTP proxy is used)")
	fs.Int64Var(&f.maxBody, "max-body", serve.DefaultMaxRequestBodyBytes, "longest request body in bytes")
	fs.IntVar(&f.maxState, "max-state", state.DefaultMaxSize, "longest requestState in bytes")
	fs.IntVar(&f.maxJournal, "max-journal", flow.DefaultJournalLimit, "journal entries per run")
	fs.IntVar(&f.maxVisits, "max-visits", flow.DefaultVisitLimit, "node visits per round")
	fs.Uint64Var(&f.maxExprCost, "max-expr-cost", lang.DefaultCostLimit, "cost limit of one expression evaluation")
	fs.IntVar(&f.maxSessions, "max-sessions", serve.DefaultMaxSessions, "open session-era (2025-*) sessions; -1: no cap")
	fs.IntVar(&f.maxLegacyCalls, "max-legacy-calls", serve.DefaultMaxLegacyCalls, "session-era tool calls in progress, parked ones included; -1: no cap")
	fs.IntVar(&f.maxTasks, "max-tasks-per-caller", serve.DefaultMaxTasksPerCaller, "open tasks (working, or waiting for answers or an approval) one caller may have in the run store; 0: no limit")
	fs.DurationVar(&f.sessionTimeout, "session-timeout", serve.DefaultSessionTimeout, "close session-era sessions idle this long")
	fs.DurationVar(&f.readHeader, "read-header-timeout", serve.DefaultReadHeaderTimeout, "time to read a request's headers")
	fs.DurationVar(&f.readTimeout, "read-timeout", serve.DefaultReadTimeout, "time to read a whole request, body included")
	fs.DurationVar(&f.writeTimeout, "write-timeout", serve.DefaultWriteTimeout, "time for each write to the client")
	fs.DurationVar(&f.idleTimeout, "idle-timeout", serve.DefaultIdleTimeout, "close keep-alive connections idle this long")
	fs.DurationVar(&f.shutdownTimeout, "shutdown-timeout", serve.DefaultShutdownTimeout, "how long rounds in flight may take to finish when stopping")
	fs.Usage = func() {
		fmt.Fprintln(env.Stderr, "usage: flowserve serve [--http ADDR | --stdio] [--watch] [flags] [DIR|FILE]...")
		fmt.Fprintln(env.Stderr, "\nServes every flow (default: the flows/ directory) as an MCP tool.")
		fs.PrintDefaults()
	}
	return fs
}

// logHandler returns the handler of the server's logs, as --log-level
// and --log-format say; false when they say nothing valid, the problem
// printed.
func (f *serveFlags) logHandler(env *Env) (slog.Handler, bool) {
	var level slog.Level
	if err := level.UnmarshalText([]byte(f.logLevel)); err != nil {
		fmt.Fprintf(env.Stderr, "flowserve serve: --log-level: %v\n", err)
		return nil, false
	}
	switch f.logFormat {
	case "text":
		return slog.NewTextHandler(env.Stderr, &slog.HandlerOptions{Level: level}), true
	case "json":
		return slog.NewJSONHandler(env.Stderr, &slog.HandlerOptions{Level: level}), true
	}
	fmt.Fprintf(env.Stderr, "flowserve serve: --log-format must be text or json, not %q\n", f.logFormat)
	return nil, false
}

// engine returns the engine the server runs every flow on: states sealed
// with ring, final results kept in memory or in the --replies store
// (closed by the returned func), the limits, the values of vars and
// secrets.
func (f *serveFlags) engine(ctx context.Context, ring *state.KeyRing, values *project.Values, vs *serve.Versions) (*flow.Engine, func(), error) {
	codec := state.NewCodec(ring, state.Options{TTL: f.ttl, MaxSize: f.maxState})
	var store flow.ReplyStore = replies.NewMemory(0, nil)
	closeStore := func() {}
	if f.replies != "" {
		rs, err := redis.Open(f.replies)
		if err != nil {
			return nil, nil, fmt.Errorf("--replies: %w", err)
		}
		pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		err = rs.Ping(pctx)
		cancel()
		if err != nil {
			rs.Close()
			return nil, nil, fmt.Errorf("--replies: %w", err)
		}
		store, closeStore = rs, func() { rs.Close() }
	}
	engine, err := flow.NewEngine(flow.EngineOptions{Codec: codec, Replies: store,
		Limits: flow.Limits{Journal: f.maxJournal, Visits: f.maxVisits}, Values: values.Values, Versions: vs})
	if err != nil {
		closeStore()
		return nil, nil, err
	}
	return engine, closeStore, nil
}

// splitList splits a comma-separated flag value, dropping empty items.
func splitList(s string) []string {
	var out []string
	for _, item := range strings.Split(s, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}

// serveHTTP serves until ctx is done, then shuts down gracefully: parked
// session-era calls end, rounds in flight get up to shutdownTimeout.
func serveHTTP(ctx context.Context, env *Env, addr string, srv *serve.Server, hopts serve.HTTPOptions, shutdownTimeout time.Duration, logger *slog.Logger) int {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintf(env.Stderr, "flowserve serve: %v\n", err)
		return exitFail
	}
	if hopts.Tokens == nil {
		if host, _, _ := net.SplitHostPort(ln.Addr().String()); !net.ParseIP(host).IsLoopback() {
			logger.Warn("serving on a non-loopback address without --tokens: anyone who can reach it can call the tools", "addr", ln.Addr().String())
		}
	}
	hs := srv.HTTPServer(addr, hopts)
	prompts := ""
	if names := srv.Prompts(); len(names) > 0 {
		prompts = fmt.Sprintf(" and %s (%s)", plural(len(names), "prompt"), strings.Join(names, ", "))
	}
	fmt.Fprintf(env.Stdout, "flowserve: serving %s (%s)%s at http://%s%s\n",
		plural(len(srv.Tools()), "tool"), strings.Join(srv.Tools(), ", "), prompts, ln.Addr(), serve.EndpointPath)
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		fmt.Fprintf(env.Stderr, "flowserve serve: %v\n", err)
		return exitFail
	case <-ctx.Done():
	}
	logger.Info("shutting down", "timeout", shutdownTimeout.String())
	sctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(sctx, hs); err != nil {
		fmt.Fprintf(env.Stderr, "flowserve serve: %v\n", err)
		return exitFail
	}
	return exitOK
}

// keyRing loads the state key ring from --keys or the environment, or
// makes an ephemeral one with a warning.
func keyRing(f serveFlags, logger *slog.Logger) (*state.KeyRing, error) {
	if f.keys != "" {
		return state.LoadKeyRing(f.keys)
	}
	if v := os.Getenv(f.keysEnv); f.keysEnv != "" && v != "" {
		ring, err := state.ParseKeyRing([]byte(v))
		if err != nil {
			return nil, fmt.Errorf("$%s: %w", f.keysEnv, err)
		}
		return ring, nil
	}
	logger.Warn("no state key ring (--keys or $" + f.keysEnv + "): using an ephemeral key; runs in progress will not survive a restart and other instances cannot continue them")
	return state.EphemeralKeyRing()
}
