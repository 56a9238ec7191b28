package flowserve

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/flowserve/flowserve/dsl"
	"github.com/flowserve/flowserve/project"
	"github.com/flowserve/flowserve/resources"
	"github.com/flowserve/flowserve/watch"
)

// Reload loads every flow and resource declaration again, the way Open
// loaded them. If any has errors, the previous version of every flow and
// resource keeps serving, and the error says so; otherwise the new flows
// and resources are swapped in together (tools whose file did not change
// are kept), which tells clients that the lists changed. Runs in flight
// finish on the version they began on. The diagnostics are the load's,
// warnings included.
func (rt *Runtime) Reload(ctx context.Context) (project.Change, dsl.Diagnostics, error) {
	srv, err := rt.Server()
	if err != nil {
		return project.Change{}, nil, err
	}
	rt.mu.Lock()
	r := rt.reloader
	rt.mu.Unlock()
	ch, diags, err := r.Reload()
	if diags.HasErrors() {
		parts := project.FailedParts(diags)
		rt.log.Error("reload failed: " + parts + " have errors; still serving the previous flows and resources")
		return ch, diags, fmt.Errorf("reload: %s have errors; still serving the previous flows and resources: %w", parts, diags.Err())
	}
	if err != nil {
		rt.log.Error("reload failed; still serving the previous flows and resources", "err", err)
		return ch, diags, fmt.Errorf("reload: %w", err)
	}
	rt.mu.Lock()
	rt.diags = diags
	rt.mu.Unlock()
	if !ch.Changed() {
		rt.log.Info("no tool changed")
		return ch, diags, nil
	}
	rt.log.Info("reloaded flows", "tools", strings.Join(srv.Tools(), ","), "prompts", strings.Join(srv.Prompts(), ","),
		"added", strings.Join(ch.Added, ","), "updated", strings.Join(ch.Updated, ","), "removed", strings.Join(ch.Removed, ","))
	if len(srv.Tools())+len(srv.Prompts()) == 0 {
		rt.log.Warn("no flows left; serving no tools")
	}
	return ch, diags, nil
}

// reloadStep is the host's Reload, for server.reload steps: it reloads
// the flows and tells clients that the lists changed, even when no file
// did, and returns the tools served.
func (rt *Runtime) reloadStep(ctx context.Context) ([]string, error) {
	rt.log.Info("reloading flows for a server.reload step")
	ch, diags, err := rt.Reload(ctx)
	rt.report(diags)
	if err != nil {
		return nil, err
	}
	srv, err := rt.Server()
	if err != nil {
		return nil, err
	}
	if !ch.Changed() {
		srv.Announce()
	}
	return srv.Tools(), nil
}

// report hands the diagnostics of a reload the runtime started itself (a
// watch, a server.reload step) to Config.OnDiagnostics.
func (rt *Runtime) report(diags dsl.Diagnostics) {
	if len(diags) > 0 && rt.cfg.OnDiagnostics != nil {
		rt.cfg.OnDiagnostics(diags)
	}
}

// Watch reloads the flows whenever their files change (see Reload), until
// ctx is done or stop is called; the diagnostics of each reload go to
// Config.OnDiagnostics. A flow file loaded on its own is watched with the
// flows beside it that it calls. It returns once the watch is in place.
func (rt *Runtime) Watch(ctx context.Context) (stop func(), err error) {
	if rt.cfg.FS != nil {
		return nil, errors.New("watch: the flows are read from Config.FS, not files that change")
	}
	w, err := watch.New(rt.cfg.Paths, watch.Options{Logger: rt.log, Siblings: true, Match: func(path string) bool {
		return project.IsFlowFile(path) || resources.IsDeclarationFile(path)
	}})
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() {
		w.Run(ctx, func(changed []string) {
			rt.log.Info("flows changed; reloading", "files", strings.Join(changed, ","))
			_, diags, _ := rt.Reload(ctx)
			rt.report(diags)
		})
	})
	rt.log.Info("watching flows for changes", "paths", strings.Join(rt.cfg.Paths, ","))
	return func() {
		cancel()
		wg.Wait()
		w.Close()
	}, nil
}
