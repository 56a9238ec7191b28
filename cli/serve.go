package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/flowserve/flowserve/actions"
	"github.com/flowserve/flowserve/flow"
	"github.com/flowserve/flowserve/flow/state"
	"github.com/flowserve/flowserve/replies"
	"github.com/flowserve/flowserve/serve"
)

// Version is flowserve's version, reported to clients.
const Version = "0.1.0"

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
}

// runServe serves flows over Streamable HTTP or stdio.
func runServe(ctx context.Context, env *Env) int {
	var f serveFlags
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
	fs.Usage = func() {
		fmt.Fprintln(env.Stderr, "usage: flowserve serve [--http ADDR | --stdio] [--watch] [flags] [DIR|FILE]...")
		fmt.Fprintln(env.Stderr, "\nServes every flow (default: the flows/ directory) as an MCP tool.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(env.Args); err != nil {
		return exitUsage
	}
	httpSet := false
	fs.Visit(func(fl *flag.Flag) { httpSet = httpSet || fl.Name == "http" })
	if f.stdio && httpSet {
		fmt.Fprintln(env.Stderr, "flowserve serve: --http and --stdio cannot be used together")
		return exitUsage
	}
	if f.ttl <= 0 {
		fmt.Fprintln(env.Stderr, "flowserve serve: --state-ttl must be positive")
		return exitUsage
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(f.logLevel)); err != nil {
		fmt.Fprintf(env.Stderr, "flowserve serve: --log-level: %v\n", err)
		return exitUsage
	}
	if f.watch {
		// The watcher logs and prints diagnostics from its own goroutine.
		env = &Env{Args: env.Args, Stdin: env.Stdin, Stdout: env.Stdout, Stderr: &lockedWriter{w: env.Stderr}}
	}
	logger := slog.New(slog.NewTextHandler(env.Stderr, &slog.HandlerOptions{Level: level}))
	paths := fs.Args()
	if len(paths) == 0 {
		paths = []string{"flows"}
	}

	ring, err := keyRing(f, logger)
	if err != nil {
		fmt.Fprintf(env.Stderr, "flowserve serve: %v\n", err)
		return exitFail
	}
	if f.fsRoot != "" {
		if info, err := os.Stat(f.fsRoot); err != nil || !info.IsDir() {
			fmt.Fprintf(env.Stderr, "flowserve serve: --fs-root %s is not a directory\n", f.fsRoot)
			return exitFail
		}
	}
	codec := state.NewCodec(ring, state.Options{TTL: f.ttl})
	opts := flow.Options{Codec: codec, Replies: replies.NewMemory(0, nil)}
	progs, diags, err := loadFlows(paths, opts)
	if err != nil {
		fmt.Fprintf(env.Stderr, "flowserve serve: %v\n", err)
		return exitFail
	}
	printDiagnostics(env.Stderr, diags)
	if diags.HasErrors() {
		fmt.Fprintln(env.Stderr, "flowserve serve: not starting: the flows have errors")
		return exitFail
	}
	srv, err := serve.New(progs, serve.Options{
		Version: Version,
		Logger:  logger,
		Host:    &actions.Host{FSRoot: f.fsRoot, Logger: logger},
	})
	if err != nil {
		fmt.Fprintf(env.Stderr, "flowserve serve: %v\n", err)
		return exitFail
	}
	if f.watch {
		// Reloaded flows are compiled with the same options: the same key
		// ring opens the states of runs that started before a change, and
		// the engine checks their journals against the new flow.
		stop, err := newReloader(paths, opts, srv, progs, logger, env.Stderr).watchFlows(ctx)
		if err != nil {
			fmt.Fprintf(env.Stderr, "flowserve serve: --watch: %v\n", err)
			return exitFail
		}
		defer stop()
	}
	if f.stdio {
		logger.Info("serving on stdio", "tools", strings.Join(srv.Tools(), ","))
		t := &mcp.IOTransport{Reader: io.NopCloser(env.Stdin), Writer: nopCloser{env.Stdout}}
		if err := srv.MCP().Run(ctx, t); err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, io.EOF) {
			fmt.Fprintf(env.Stderr, "flowserve serve: %v\n", err)
			return exitFail
		}
		return exitOK
	}
	return serveHTTP(ctx, env, f.http, srv, logger)
}

// serveHTTP serves until ctx is done, then shuts down gracefully.
func serveHTTP(ctx context.Context, env *Env, addr string, srv *serve.Server, logger *slog.Logger) int {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintf(env.Stderr, "flowserve serve: %v\n", err)
		return exitFail
	}
	hs := &http.Server{
		Handler:           srv.HTTPHandler(serve.HTTPOptions{}),
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
	}
	fmt.Fprintf(env.Stdout, "flowserve: serving %d tools (%s) at http://%s%s\n",
		len(srv.Tools()), strings.Join(srv.Tools(), ", "), ln.Addr(), serve.EndpointPath)
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		fmt.Fprintf(env.Stderr, "flowserve serve: %v\n", err)
		return exitFail
	case <-ctx.Done():
	}
	logger.Info("shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		fmt.Fprintf(env.Stderr, "flowserve serve: shutdown: %v\n", err)
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

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }
