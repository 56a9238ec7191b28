package project

import (
	"fmt"
	"io/fs"
	"slices"
	"sync"

	"github.com/flowserve/flowserve/check/codes"
	"github.com/flowserve/flowserve/dsl"
	"github.com/flowserve/flowserve/flow"
	"github.com/flowserve/flowserve/resources"
)

// Target is what a Reloader swaps flows and resources into: a server
// (serve.Server implements it). ReplaceAll must replace both at once, or
// neither when it returns an error.
type Target interface {
	ReplaceAll(progs []*flow.Program, rs []*resources.Resource) error
}

// Change is what one reload changed, by tool or prompt name, each list
// sorted.
type Change struct {
	Added, Updated, Removed []string
}

// Changed reports whether any tool or prompt was added, updated or
// removed.
func (c Change) Changed() bool { return len(c.Added)+len(c.Updated)+len(c.Removed) > 0 }

// Reloader loads a fixed list of paths again, on demand, and swaps the
// result into its Target atomically: flows and resources together, and
// only when nothing has errors (otherwise the previous version of every
// flow and resource stays served). Programs whose file did not change are
// kept, so their tools are not replaced. It is safe for concurrent use;
// reloads are serialized.
type Reloader struct {
	paths  []string
	opts   Options
	target Target

	mu      sync.Mutex
	current map[string]*flow.Program // served, by name
}

// NewReloader returns a Reloader of paths into target, which serves set.
func NewReloader(paths []string, opts Options, target Target, set *Set) *Reloader {
	r := &Reloader{paths: slices.Clone(paths), opts: opts, target: target, current: map[string]*flow.Program{}}
	if set != nil {
		for _, p := range set.Programs {
			r.current[p.Name()] = p
		}
	}
	return r
}

// Paths returns the paths the Reloader loads.
func (r *Reloader) Paths() []string { return slices.Clone(r.paths) }

// callsSame reports whether every flow p calls, directly or not, is one
// whose file did not change (same), so that p's links still hold.
func callsSame(p *flow.Program, same map[string]bool, seen map[*flow.Program]bool) bool {
	if seen[p] {
		return true
	}
	seen[p] = true
	for _, c := range p.Callees() {
		if !same[c.Name()] || !callsSame(c, same, seen) {
			return false
		}
	}
	return true
}

// Reload loads the paths again. Explicitly named files that were deleted,
// and directories that are gone, hold nothing: a reload after every flow
// was removed serves none. The diagnostics are those of the load
// (warnings too, when it succeeded); err says why nothing was swapped in,
// and wraps the diagnostics' error when the files have errors.
func (r *Reloader) Reload() (Change, dsl.Diagnostics, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var paths []string
	for _, p := range r.paths {
		if _, err := fs.Stat(r.opts.fsys(), p); err == nil {
			paths = append(paths, p)
		}
	}
	set, diags := &Set{}, dsl.Diagnostics(nil)
	if len(paths) > 0 {
		set, diags = Load(paths, r.opts)
		if len(diags) == 1 && diags[0].Code == codes.NoFlows {
			set, diags = &Set{}, nil // every file was removed
		}
	}
	if diags.HasErrors() {
		return Change{}, diags, fmt.Errorf("the flows or resource declarations have errors; still serving the previous version: %w", diags.Err())
	}
	progs := slices.Clone(set.Programs)
	next := make(map[string]*flow.Program, len(progs))
	same := map[string]bool{} // the flows whose files did not change
	for _, p := range progs {
		if old, ok := r.current[p.Name()]; ok && old.File().Path == p.File().Path && old.File().Hash == p.File().Hash {
			same[p.Name()] = true
		}
	}
	var ch Change
	for i, p := range progs {
		old, ok := r.current[p.Name()]
		switch {
		case !ok:
			ch.Added = append(ch.Added, p.Name())
		case same[p.Name()]:
			// The old program is kept unless a flow it calls changed:
			// it is linked to the callees it was loaded with.
			if callsSame(old, same, map[*flow.Program]bool{}) {
				progs[i] = old
			}
		default:
			ch.Updated = append(ch.Updated, p.Name())
		}
		next[p.Name()] = progs[i]
	}
	for name := range r.current {
		if _, ok := next[name]; !ok {
			ch.Removed = append(ch.Removed, name)
		}
	}
	slices.Sort(ch.Added)
	slices.Sort(ch.Updated)
	slices.Sort(ch.Removed)
	if err := r.target.ReplaceAll(progs, set.Resources); err != nil {
		return Change{}, diags, err
	}
	r.current = next
	return ch, diags, nil
}
