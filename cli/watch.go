package cli

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sort"
	"strings"
	"sync"

	"github.com/flowserve/flowserve/dsl"
	"github.com/flowserve/flowserve/flow"
	"github.com/flowserve/flowserve/resources"
	"github.com/flowserve/flowserve/serve"
	"github.com/flowserve/flowserve/watch"
)

// reloader reloads the served flows when their files change
// (serve --watch).
type reloader struct {
	paths  []string
	opts   flow.Options
	srv    *serve.Server
	log    *slog.Logger
	diagsW io.Writer // where diagnostics are printed, one a line

	// mu serializes reloads: the watcher's and server.reload steps'.
	mu sync.Mutex
	// current holds the served programs by tool name, to keep the ones
	// whose file did not change (their tools are not replaced).
	current map[string]*flow.Program
}

// newReloader returns a reloader for a server that serves progs.
func newReloader(paths []string, opts flow.Options, srv *serve.Server, progs []*flow.Program, log *slog.Logger, diagsW io.Writer) *reloader {
	r := &reloader{paths: paths, opts: opts, srv: srv, log: log, diagsW: diagsW, current: map[string]*flow.Program{}}
	for _, p := range progs {
		r.current[p.Name()] = p
	}
	return r
}

// watchFlows watches the served paths until ctx ends, reloading on every
// change. It returns once the watch is in place.
func (r *reloader) watchFlows(ctx context.Context) (stop func(), err error) {
	w, err := watch.New(r.paths, watch.Options{Logger: r.log, Match: func(path string) bool {
		return isFlowFile(path) || resources.IsDeclarationFile(path)
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
// otherwise it replaces the changed tools and resources (with the flows'
// own source and diagram resources), which tells sessions that the lists
// changed. It reports whether a tool changed.
func (r *reloader) apply() (bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	// Explicitly named files that were deleted are no longer served;
	// directories that are gone hold no flows.
	var paths []string
	for _, p := range r.paths {
		if _, err := os.Stat(p); err == nil {
			paths = append(paths, p)
		}
	}
	var progs []*flow.Program
	if files, err := flowFiles(paths); err != nil {
		r.log.Error("reload failed; still serving the previous flows", "err", err)
		return false, fmt.Errorf("reload: %w", err)
	} else if len(files) > 0 {
		ps, diags, err := loadFlows(paths, r.opts)
		if err != nil {
			r.log.Error("reload failed; still serving the previous flows", "err", err)
			return false, fmt.Errorf("reload: %w", err)
		}
		if diags.HasErrors() {
			r.log.Error("reload failed: the flows have errors; still serving the previous flows")
			r.printDiagnostics(diags)
			return false, fmt.Errorf("reload: the flows have errors; still serving the previous flows: %w", diags.Err())
		}
		r.printDiagnostics(diags) // warnings
		progs = ps
	}
	res, resDiags, err := loadResources(paths)
	if err != nil {
		r.log.Error("reload failed; still serving the previous flows and resources", "err", err)
		return false, fmt.Errorf("reload: %w", err)
	}
	if resDiags.HasErrors() {
		r.log.Error("reload failed: the resource declarations have errors; still serving the previous flows and resources")
		r.printDiagnostics(resDiags)
		return false, fmt.Errorf("reload: the resource declarations have errors; still serving the previous flows and resources: %w", resDiags.Err())
	}
	r.printDiagnostics(resDiags) // warnings
	if err := r.srv.ReplaceResources(res); err != nil {
		r.log.Error("reload failed; still serving the previous resources", "err", err)
		return false, fmt.Errorf("reload: %w", err)
	}

	// Keep the programs whose source did not change, so their tools are
	// not replaced.
	next := map[string]*flow.Program{}
	var added, updated []string
	for i, p := range progs {
		old, ok := r.current[p.Name()]
		switch {
		case !ok:
			added = append(added, p.Name())
		case old.File().Path == p.File().Path && old.File().Hash == p.File().Hash:
			progs[i] = old
		default:
			updated = append(updated, p.Name())
		}
		next[p.Name()] = progs[i]
	}
	var removed []string
	for name := range r.current {
		if _, ok := next[name]; !ok {
			removed = append(removed, name)
		}
	}
	if len(added)+len(updated)+len(removed) == 0 {
		r.log.Info("no tool changed")
		return false, nil
	}
	if err := r.srv.Replace(progs); err != nil {
		r.log.Error("reload failed; still serving the previous flows", "err", err)
		return false, fmt.Errorf("reload: %w", err)
	}
	r.current = next
	sort.Strings(removed)
	r.log.Info("reloaded flows", "tools", strings.Join(r.srv.Tools(), ","), "prompts", strings.Join(r.srv.Prompts(), ","),
		"added", strings.Join(added, ","), "updated", strings.Join(updated, ","), "removed", strings.Join(removed, ","))
	if len(progs) == 0 {
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
