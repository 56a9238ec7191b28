package actions

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// A Registry maps action names to actions. It is safe for concurrent use:
// lookups read an immutable snapshot without locking, registration copies
// it. The zero value is an empty registry, like [NewRegistry]'s.
type Registry struct {
	mu   sync.Mutex // serializes writers
	snap atomic.Pointer[snapshot]
	prov *provisioned // set by Provision on the registry it returns; nil otherwise
}

type snapshot struct {
	byName map[string]*Action
	sorted []*Action
}

var emptySnapshot = &snapshot{byName: map[string]*Action{}}

// NewRegistry returns an empty registry, for tests and for programs that
// choose their actions one by one.
func NewRegistry() *Registry { return &Registry{} }

func (r *Registry) load() *snapshot {
	if s := r.snap.Load(); s != nil {
		return s
	}
	return emptySnapshot
}

var defaultRegistry = NewRegistry()

// Default returns the process-wide registry that [Register] fills from
// init functions (the built-ins of package actions/std and any package a
// custom build blank-imports). It is the package's only global.
func Default() *Registry { return defaultRegistry }

// Clone returns a new registry holding the same actions. Registering into
// either afterwards does not affect the other. A clone of a provisioned
// registry shares its module values: Cleanup on either cleans them up.
func (r *Registry) Clone() *Registry {
	c := &Registry{prov: r.prov}
	c.snap.Store(r.load())
	return c
}

// Register checks s, compiles its schemas and adds the action. An invalid
// spec (see [NewAction]) or a name already registered is an error naming the
// action. On a registry [Registry.Provision] returned, a [Method] runs on
// the value provisioned for its module; a module the registry did not
// provision is an error.
func (r *Registry) Register(s Spec) error {
	a, err := NewAction(s)
	if err != nil {
		return fmt.Errorf("register %w", err)
	}
	if a.module != nil && r.prov != nil {
		v, ok := r.prov.values[a.module]
		if !ok {
			return fmt.Errorf("register action %q: the registry is provisioned, and module %q is not in it; register its actions before Provision", a.Name, a.module.moduleName())
		}
		a.Func = a.bind(v)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	old := r.load()
	if _, dup := old.byName[a.Name]; dup {
		return fmt.Errorf("register action %q: already registered", a.Name)
	}
	next := &snapshot{byName: make(map[string]*Action, len(old.byName)+1)}
	for k, v := range old.byName {
		next.byName[k] = v
	}
	next.byName[a.Name] = a
	next.sorted = make([]*Action, 0, len(old.sorted)+1)
	next.sorted = append(next.sorted, old.sorted...)
	i, _ := slices.BinarySearchFunc(next.sorted, a.Name, func(x *Action, name string) int {
		return strings.Compare(x.Name, name)
	})
	next.sorted = slices.Insert(next.sorted, i, a)
	r.snap.Store(next)
	return nil
}

// Lookup returns the action registered under name.
func (r *Registry) Lookup(name string) (*Action, bool) {
	a, ok := r.load().byName[name]
	return a, ok
}

// Actions returns every registered action, sorted by name. The slice is the
// caller's to keep or modify.
func (r *Registry) Actions() []*Action {
	return slices.Clone(r.load().sorted)
}

// Register adds s to the [Default] registry. It is meant for init functions
// and panics with the [Registry.Register] error, so a bad or duplicate
// action stops the program at startup.
func Register(s Spec) {
	if err := defaultRegistry.Register(s); err != nil {
		panic(err)
	}
}
