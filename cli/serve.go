package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"os"
	"strings"
	"time"

	"github.com/flowserve/flowserve"
	"github.com/flowserve/flowserve/dsl"
	"github.com/flowserve/flowserve/flow"
	"github.com/flowserve/flowserve/flow/state"
	"github.com/flowserve/flowserve/lang"
	"github.com/flowserve/flowserve/project"
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

// runServe serves flows over Streamable HTTP or stdio: the flags make a
// flowserve.Config, and flowserve.Open wires it.
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
	cfg, stopTracing, err := f.config(ctx, env, fs.Args(), slog.New(handler))
	if err != nil {
		fmt.Fprintf(env.Stderr, "flowserve serve: %v\n", err)
		return exitFail
	}
	defer flushTraces(stopTracing, slog.New(handler))
	rt, err := flowserve.Open(ctx, cfg)
	if err != nil {
		return openFailed(env, fs, err)
	}
	logger := rt.Logger()
	defer closeRuntime(rt, f.shutdownTimeout, logger)
	printDiagnostics(env.Stderr, rt.Diagnostics())
	if f.watch {
		stop, err := rt.Watch(ctx)
		if err != nil {
			fmt.Fprintf(env.Stderr, "flowserve serve: --watch: %v\n", err)
			return exitFail
		}
		defer stop()
	}
	if f.stdio {
		if err := rt.ServeStdio(ctx, env.Stdin, env.Stdout); err != nil {
			fmt.Fprintf(env.Stderr, "flowserve serve: %v\n", err)
			return exitFail
		}
		return exitOK
	}
	return serveHTTP(ctx, env, f.http, rt, f.shutdownTimeout, logger)
}

// config makes the runtime's Config from the flags: the values of vars and
// secrets, the key ring, OAuth, the approval pages' sign-in and tracing
// (whose exporter stopTracing flushes and stops).
func (f *serveFlags) config(ctx context.Context, env *Env, paths []string, logger *slog.Logger) (cfg flowserve.Config, stopTracing func(context.Context) error, err error) {
	values, err := f.values.read()
	if err != nil {
		return cfg, nil, err
	}
	ring, err := keyRing(*f)
	if err != nil {
		return cfg, nil, err
	}
	if f.fsRoot != "" {
		if info, err := os.Stat(f.fsRoot); err != nil || !info.IsDir() {
			return cfg, nil, fmt.Errorf("--fs-root %s is not a directory", f.fsRoot)
		}
	}
	var tokens *serve.Tokens
	if f.tokens != "" {
		if tokens, err = serve.LoadTokens(f.tokens); err != nil {
			return cfg, nil, err
		}
		logger.Info("bearer tokens required", "tokens", tokens.Len())
	}
	oauthOpts, err := f.oauth.options(ctx, f.tasks.publicURL, logger)
	if err != nil {
		return cfg, nil, err
	}
	signIn, err := f.oauth.signIn(ctx)
	if err != nil {
		return cfg, nil, err
	}
	tracer, stopTracing, err := f.tracing.provider(ctx, Version)
	if err != nil {
		return cfg, nil, err
	}
	cfg = flowserve.Config{
		Paths: paths, Version: Version, Logger: logger, Keys: ring,
		StateTTL: f.ttl, MaxStateBytes: f.maxState, MaxExprCost: f.maxExprCost,
		Limits: flow.Limits{Journal: f.maxJournal, Visits: f.maxVisits},
		FSRoot: f.fsRoot, HTTPDenyPrivate: f.httpDenyPrivate, Values: values,
		Data: f.tasks.data, Redis: f.replies, Tracer: tracer,
		OnDiagnostics:   func(diags dsl.Diagnostics) { printDiagnosticsAtOnce(env.Stderr, diags) },
		ShutdownTimeout: f.shutdownTimeout,
		Server: serve.Options{
			MaxLegacyCalls: f.maxLegacyCalls,
			RoundTimeout:   f.roundTimeout,
			FlowResources:  f.flowResources,
			TaskTTL:        f.tasks.taskTTL,
			PollInterval:   f.tasks.pollInterval,
			MaxRounds:      f.tasks.maxRounds,
			TaskWorkers:    f.tasks.workers,
			MaxWait:        f.tasks.maxWait,
			PublicURL:      f.tasks.publicURL,
			ApprovalSignIn: signIn,

			MaxTasksPerCaller: tasksPerCaller(f.maxTasks),
		},
	}
	if !f.stdio {
		cfg.HTTP = f.httpOptions(tokens, oauthOpts)
	}
	return cfg, stopTracing, nil
}

// openFailed prints why flowserve.Open failed, in the flags' terms, and
// returns the exit status: 2 for paths that name nothing to serve, 1
// otherwise.
func openFailed(env *Env, fs *flag.FlagSet, err error) int {
	var le *flowserve.LoadError
	var se *flowserve.StoreError
	switch {
	case errors.As(err, &le):
		if msg, ok := usageError(le.Diagnostics); ok {
			fmt.Fprintf(env.Stderr, "flowserve serve: %s\n", msg)
			fs.Usage()
			return exitUsage
		}
		printDiagnostics(env.Stderr, le.Diagnostics)
		fmt.Fprintf(env.Stderr, "flowserve serve: not starting: %s have errors\n", failedParts(le.Diagnostics))
	case errors.As(err, &se):
		flagName := map[string]string{"Data": "--data", "Redis": "--replies"}[se.Field]
		fmt.Fprintf(env.Stderr, "flowserve serve: %s: %v\n", flagName, se.Err)
	default:
		fmt.Fprintf(env.Stderr, "flowserve serve: %v\n", err)
	}
	return exitFail
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

// closeRuntime stops the task workers, letting their rounds run for up
// to timeout, and closes the stores (see flowserve.Runtime.Close).
func closeRuntime(rt *flowserve.Runtime, timeout time.Duration, logger *slog.Logger) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	if err := rt.Close(ctx); err != nil {
		logger.Warn("closing", "err", err)
	}
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
func serveHTTP(ctx context.Context, env *Env, addr string, rt *flowserve.Runtime, shutdownTimeout time.Duration, logger *slog.Logger) int {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintf(env.Stderr, "flowserve serve: %v\n", err)
		return exitFail
	}
	hs, err := rt.HTTPServer(addr)
	if err != nil {
		fmt.Fprintf(env.Stderr, "flowserve serve: %v\n", err)
		return exitFail
	}
	if rt.Config().HTTP.Tokens == nil {
		if host, _, _ := net.SplitHostPort(ln.Addr().String()); !net.ParseIP(host).IsLoopback() {
			logger.Warn("serving on a non-loopback address without --tokens: anyone who can reach it can call the tools", "addr", ln.Addr().String())
		}
	}
	srv, _ := rt.Server()
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
	if err := rt.Shutdown(sctx, hs); err != nil {
		fmt.Fprintf(env.Stderr, "flowserve serve: %v\n", err)
		return exitFail
	}
	return exitOK
}

// keyRing loads the state key ring from --keys or the environment; nil
// when neither gives one.
func keyRing(f serveFlags) (*state.KeyRing, error) {
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
	return nil, nil // flowserve.Open warns and makes an ephemeral key
}
