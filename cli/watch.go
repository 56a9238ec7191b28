package cli

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"

	"github.com/flowserve/flowserve/dsl"
	"github.com/flowserve/flowserve/project"
	"github.com/flowserve/flowserve/resources"
	"github.com/flowserve/flowserve/serve"
	"github.com/flowserve/flowserve/watch"
)

// reloader reloads the served flows and resources when their files
// change (serve --watch) and for server.reload steps, logging what it did.
type reloader struct {
	r      *project.Reloader
	paths  []string
	srv    *serve.Server
	log    *slog.Logger
	diagsW io.Writer // where diagnostics are printed, one a line
}

// newReloader returns a reloader that reloads with r into srv.
func newReloader(r *project.Reloader, srv *serve.Server, log *slog.Logger, diagsW io.Writer) *reloader {
	return &reloader{r: r, paths: r.Paths(), srv: srv, log: log, diagsW: diagsW}
}

// watchFlows watches the served paths until ctx ends, reloading on every
// change. It returns once the watch is in place.
func (r *reloader) watchFlows(ctx context.Context) (stop func(), err error) {
	// Siblings: a flow file served on its own is loaded with the flows
	// beside it that it calls (project.Load), so their changes count.
	w, err := watch.New(r.paths, watch.Options{Logger: r.log, Siblings: true, Match: func(path string) bool {
		return project.IsFlowFile(path) || resources.IsDeclarationFile(path)
	}})
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() {
		w.Run(ctx, r.reload)
	})
	r.log.Info("watching flows for changes", "paths", strings.Join(r.paths, ","))
	return func() {
		cancel()
		wg.Wait()
		w.Close()
	}, nil
}

// reload loads every flow again after the watcher saw files change.
func (r *reloader) reload(changed []string) {
	r.log.Info("flows changed; reloading", "files", strings.Join(changed, ","))
	_, _ = r.apply()
}

// reloadNow is Host.Reload: it reloads the flows for a server.reload
// step and tells clients that the lists changed, even when no file did.
func (r *reloader) reloadNow(ctx context.Context) ([]string, error) {
	r.log.Info("reloading flows for a server.reload step")
	changed, err := r.apply()
	if err != nil {
		return nil, err
	}
	if !changed {
		r.srv.Announce()
	}
	return r.srv.Tools(), nil
}

// apply loads every flow and resource declaration again, the way serve
// loads them at startup. If any has errors, it logs the diagnostics and
// keeps serving the previous version of every flow and resource;
// otherwise it swaps in the new flows and resources together (tools whose
// file did not change are kept), which tells sessions that the lists
// changed. It reports whether a tool changed.
func (r *reloader) apply() (bool, error) {
	ch, diags, err := r.r.Reload()
	if diags.HasErrors() {
		parts := failedParts(diags)
		r.log.Error("reload failed: " + parts + " have errors; still serving the previous flows and resources")
		r.printDiagnostics(diags)
		return false, fmt.Errorf("reload: %s have errors; still serving the previous flows and resources: %w", parts, diags.Err())
	}
	r.printDiagnostics(diags) // warnings
	if err != nil {
		r.log.Error("reload failed; still serving the previous flows and resources", "err", err)
		return false, fmt.Errorf("reload: %w", err)
	}
	if !ch.Changed() {
		r.log.Info("no tool changed")
		return false, nil
	}
	r.log.Info("reloaded flows", "tools", strings.Join(r.srv.Tools(), ","), "prompts", strings.Join(r.srv.Prompts(), ","),
		"added", strings.Join(ch.Added, ","), "updated", strings.Join(ch.Updated, ","), "removed", strings.Join(ch.Removed, ","))
	if len(r.srv.Tools())+len(r.srv.Prompts()) == 0 {
		r.log.Warn("no flows left; serving no tools")
	}
	return true, nil
}

// printDiagnostics prints diagnostics in one write, so they are not
// interleaved with log lines.
func (r *reloader) printDiagnostics(diags dsl.Diagnostics) {
	if len(diags) == 0 {
		return
	}
	var b strings.Builder
	printDiagnostics(&b, diags)
	io.WriteString(r.diagsW, b.String())
}

// lockedWriter serializes writes from the server's goroutines and the
// watcher's.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
