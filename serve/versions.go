package serve

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/flowserve/flowserve/dsl"
	"github.com/flowserve/flowserve/flow"
	"github.com/flowserve/flowserve/versions"
)

// Versions pins runs to the version of their flow they began on (DESIGN
// §13): it is the engine's flow.Resolver, knows every version the server
// has served (compiled, in this process) and keeps each one's source in a
// versions.Store shared by the instances, so that an instance that meets
// a state of a version it never loaded compiles it from there. Make one
// with NewVersions, give it to the Engine (EngineOptions.Versions) and to
// the Server (Options.Versions); the Server puts each program it serves.
type Versions struct {
	opts  VersionsOptions
	mu    sync.Mutex
	progs map[dsl.Version]*versionEntry
}

// versionEntry is a version this process has compiled.
type versionEntry struct {
	p       *flow.Program
	current bool      // the Server serves it now
	used    time.Time // when a round or a task last ran on it
}

// VersionsOptions configure Versions.
type VersionsOptions struct {
	// Store keeps the versions' sources; nil means one in memory (this
	// process only).
	Store versions.Store
	// Compile compiles a version's source through the server's load
	// pipeline (project.LoadSource), for versions this process did not
	// load; nil means such versions are unknown.
	Compile func(path string, src []byte) (*flow.Program, error)
	// Keep is how long a version is kept after it was last current or
	// last ran a round: at least the state TTL and the task TTL. Default
	// DefaultTaskTTL.
	Keep time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Logger receives a line per version retired; nil means
	// slog.Default().
	Logger *slog.Logger
}

// NewVersions returns an empty set of versions.
func NewVersions(opts VersionsOptions) *Versions {
	if opts.Store == nil {
		opts.Store = versions.NewMemory(opts.Now)
	}
	if opts.Keep <= 0 {
		opts.Keep = DefaultTaskTTL
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	return &Versions{opts: opts, progs: map[dsl.Version]*versionEntry{}}
}

// serve records that progs are the programs served now: each is kept,
// here and in the store, and the versions served before are kept for
// Keep from now (their runs in flight finish on them).
func (vs *Versions) serve(ctx context.Context, progs []*flow.Program) error {
	now := vs.opts.Now()
	vs.mu.Lock()
	for _, e := range vs.progs {
		if e.current {
			e.current, e.used = false, now
		}
	}
	for _, p := range progs {
		e := vs.progs[p.Version()]
		if e == nil {
			e = &versionEntry{p: p}
			vs.progs[p.Version()] = e
		}
		// The program served now, though its version was served before:
		// a flow's version does not cover the flows it calls, so an
		// unchanged caller loaded again is linked to its callees' new
		// versions, and a task's rounds (which find their program here)
		// must start new calls on those, as calls that are not tasks do
		// (TestCallsReloadInsideCalleeTask). Frames already open keep
		// their own callee versions.
		e.p, e.current, e.used = p, true, now
	}
	vs.mu.Unlock()
	return vs.put(ctx, progs, now)
}

// put puts progs in the store, kept for Keep from now.
func (vs *Versions) put(ctx context.Context, progs []*flow.Program, now time.Time) error {
	var errs []error
	for _, p := range progs {
		f := p.File()
		v := &versions.Version{ID: p.Version().String(), Tool: p.Name(), Path: f.Path, Source: f.Source,
			Served: now, Until: now.Add(vs.opts.Keep)}
		if err := vs.opts.Store.Put(ctx, v); err != nil {
			errs = append(errs, fmt.Errorf("keep version %s of %s: %w", p.Version().Short(), p.Name(), err))
		}
	}
	return errors.Join(errs...)
}

// Program returns the program of the flow named name at version v (the
// flow.Resolver of the engine): one this process compiled, or one it
// compiles from the store's source.
func (vs *Versions) Program(ctx context.Context, name string, v dsl.Version) (*flow.Program, error) {
	now := vs.opts.Now()
	vs.mu.Lock()
	var known *flow.Program
	if e := vs.progs[v]; e != nil {
		e.used, known = now, e.p // e.p changes when serve serves v again
	}
	vs.mu.Unlock()
	if known != nil {
		return known, nil
	}
	stored, err := vs.opts.Store.Get(ctx, v.String())
	switch {
	case errors.Is(err, versions.ErrNotFound):
		return nil, flow.ErrUnknownVersion
	case err != nil:
		return nil, err
	case vs.opts.Compile == nil || stored.Tool != name:
		return nil, flow.ErrUnknownVersion
	}
	p, err := vs.opts.Compile(stored.Path, stored.Source)
	if err != nil {
		return nil, fmt.Errorf("compile version %s of %s: %w", v.Short(), name, err)
	}
	if p.Version() != v {
		return nil, fmt.Errorf("version %s of %s compiles to version %s", v.Short(), name, p.Version().Short())
	}
	// Its calls start the flows served now (a frame already open goes on
	// on the version it began on).
	flow.Link([]*flow.Program{p}, vs.current)
	vs.mu.Lock()
	if e := vs.progs[v]; e != nil {
		p = e.p
	} else {
		vs.progs[v] = &versionEntry{p: p, used: now}
	}
	vs.mu.Unlock()
	return p, nil
}

// current returns the program of the flow named name that the server
// serves now, or nil.
func (vs *Versions) current(name string) *flow.Program {
	vs.mu.Lock()
	defer vs.mu.Unlock()
	for _, e := range vs.progs {
		if e.current && e.p.Name() == name {
			return e.p
		}
	}
	return nil
}

// byName returns the newest version this process has of the flow named
// name that it no longer serves, or nil: a tool removed by a reload stays
// callable for its runs in flight.
func (vs *Versions) byName(name string) *flow.Program {
	vs.mu.Lock()
	defer vs.mu.Unlock()
	var best *versionEntry
	for _, e := range vs.progs {
		if e.p.Name() == name && !e.current && (best == nil || e.used.After(best.used)) {
			best = e
		}
	}
	if best == nil {
		return nil
	}
	return best.p
}

// tend keeps the store's versions this process runs on alive (current
// ones, and those a round used within Keep), and retires the versions
// whose time is over, logging each once, here and across the instances
// of a shared store.
func (vs *Versions) tend(ctx context.Context) {
	now := vs.opts.Now()
	vs.mu.Lock()
	keep := map[string]time.Time{}
	var current []*flow.Program
	for v, e := range vs.progs {
		switch {
		case e.current:
			current = append(current, e.p)
		case now.Sub(e.used) > vs.opts.Keep:
			delete(vs.progs, v)
		default:
			keep[v.String()] = e.used.Add(vs.opts.Keep)
		}
	}
	vs.mu.Unlock()
	// The versions served now are put again: stored anew should the store
	// have lost them.
	if err := vs.put(ctx, current, now); err != nil {
		vs.opts.Logger.Warn("cannot keep the flows' versions in the version store", "err", err)
	}
	for id, until := range keep {
		if err := vs.opts.Store.Keep(ctx, id, until); err != nil && !errors.Is(err, versions.ErrNotFound) {
			vs.opts.Logger.Warn("cannot keep a flow version in the version store", "version", id[:12], "err", err)
		}
	}
	retired, err := vs.opts.Store.Retire(ctx, now)
	if err != nil {
		vs.opts.Logger.Warn("cannot retire flow versions", "err", err)
		return
	}
	for _, v := range retired {
		vs.opts.Logger.Info("flow version retired: no run can still need it", "tool", v.Tool, "version", v.ID[:min(12, len(v.ID))], "until", v.Until)
	}
}

// tendEvery is how often a server keeps its versions alive and retires
// the old ones.
const tendEvery = time.Minute

// startTending keeps the server's versions (see Versions.tend) until
// Close.
func (s *Server) startTending() {
	if s.versions == nil {
		return
	}
	go func() {
		tick := time.NewTicker(tendEvery)
		defer tick.Stop()
		for {
			select {
			case <-s.work.Claiming().Done():
				return
			case <-tick.C:
				s.versions.tend(s.work.Claiming())
			}
		}
	}()
}
