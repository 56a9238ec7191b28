package actions

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// A Module is what a group of actions shares: their configuration and the
// resources they hold (a client, a connection pool, a store), in one value
// of T that a [Registry] makes and provisions once per server. Its actions
// are [Method]s.
//
// The value's lifecycle is Caddy's. [Registry.Provision] calls the
// module's new function, then, if the value implements them, [Provisioner]
// (with the server's [Host]) and [Validator]; [Registry.Cleanup] calls
// [CleanerUpper] when the server stops. new must have no side effects: it
// only sets the configuration the module was built with, and anything to
// open or acquire belongs in Provision.
//
// On a registry that was never provisioned (the [Default] registry of a
// program that does not call Provision), a module's actions run on one
// value that new made and nothing provisioned; it should then fall back to
// what each call's context carries ([HostFrom]) or fail clearly. That
// fallback exists for the servers that do not provision yet and is
// deprecated.
type Module[T any] struct {
	name string
	new  func() T

	once     sync.Once
	fallback T // for unprovisioned registries, made on first use
}

// NewModule returns a module named name (it names the module in
// provisioning errors) whose values new makes.
func NewModule[T any](name string, new func() T) *Module[T] {
	return &Module[T]{name: name, new: new}
}

// Name returns the module's name.
func (m *Module[T]) Name() string { return m.name }

// Provisioner is implemented by module values that need the server's
// resources or must acquire their own before the actions run. Provision
// runs once, when [Registry.Provision] does, before any action of the
// module; ctx is for the provisioning only. The Host is the server's, and
// the server may fill in more of it after provisioning (Host.Reload is set
// once the server exists), so keep the pointer and read its fields when an
// action runs.
type Provisioner interface {
	Provision(ctx context.Context, h *Host) error
}

// Validator is implemented by module values that can check their
// configuration once provisioned. An error stops [Registry.Provision].
type Validator interface {
	Validate() error
}

// CleanerUpper is implemented by module values that hold something to
// release. [Registry.Cleanup] calls it once, after the server stopped; it
// is also called when Provision or Validate failed, so it must cope with a
// value that is only partly provisioned.
type CleanerUpper interface {
	Cleanup() error
}

// moduleRef is a *Module[T] with T erased, as a Spec carries it.
type moduleRef interface {
	moduleName() string
	instantiate() any
}

func (m *Module[T]) moduleName() string { return m.name }
func (m *Module[T]) instantiate() any   { return m.new() }

func (m *Module[T]) shared() T {
	m.once.Do(func() { m.fallback = m.new() })
	return m.fallback
}

// Method returns the Spec of a typed action that runs on its module's
// value: fn gets the value the registry provisioned, then the context and
// the decoded input, as a method expression does, so
//
//	tickets := actions.NewModule("tickets", func() *Tickets { return &Tickets{conf: conf} })
//	reg.Register(actions.Method(tickets, "tickets.create", "Files a ticket.", (*Tickets).Create))
//
// registers (*Tickets).Create. Schemas, decoding and options are as for
// [Typed].
func Method[T, In, Out any](m *Module[T], name, summary string, fn func(T, context.Context, In) (Out, error), opts ...Option) Spec {
	s := typedSpec[In, Out](name, summary, opts)
	if m == nil {
		s.err = errors.New("module is nil")
		return s
	}
	if fn == nil {
		return s // NewAction reports the missing func
	}
	decode := inputDecoder[In](name)
	bind := func(v T) Func {
		return func(ctx context.Context, in map[string]any) (any, error) {
			x, err := decode(in)
			if err != nil {
				return nil, err
			}
			return fn(v, ctx, x)
		}
	}
	s.module = m
	s.bind = func(v any) Func { return bind(v.(T)) }
	s.Func = func(ctx context.Context, in map[string]any) (any, error) {
		return bind(m.shared())(ctx, in)
	}
	return s
}

// provisioned is what Provision made for a registry: one value per module,
// in the order they were provisioned.
type provisioned struct {
	values map[moduleRef]any
	order  []provisionedValue

	mu      sync.Mutex
	cleaned bool
}

type provisionedValue struct {
	name  string
	value any
}

// Provision returns a registry with r's actions whose module actions
// ([Method]) run on values provisioned for it: for each module, in the
// order of the modules' names, it makes the module's value, calls its
// Provision with h (nil: a zero Host) and its Validate. A server calls it
// once when it starts, uses the registry it returns, and calls
// [Registry.Cleanup] on that registry when it stops. r itself is not
// changed, so one registry (the [Default] one) can be provisioned for
// several servers, each with its own values.
//
// If a module fails to provision or validate, every value made so far,
// the failing one included, is cleaned up in reverse order and Provision
// returns an error naming the module. A registry Provision returned
// cannot be provisioned again.
func (r *Registry) Provision(ctx context.Context, h *Host) (*Registry, error) {
	if r.prov != nil {
		return nil, errors.New("provision: the registry is already provisioned")
	}
	if h == nil {
		h = &Host{}
	}
	old := r.load()
	var mods []moduleRef
	for _, a := range old.sorted { // by action name: a module's first action breaks name ties
		if a.module != nil && !slices.Contains(mods, a.module) {
			mods = append(mods, a.module)
		}
	}
	slices.SortStableFunc(mods, func(a, b moduleRef) int { return strings.Compare(a.moduleName(), b.moduleName()) })

	p := &provisioned{values: make(map[moduleRef]any, len(mods))}
	for _, m := range mods {
		v := m.instantiate()
		p.order = append(p.order, provisionedValue{m.moduleName(), v})
		var err error
		if pr, ok := v.(Provisioner); ok {
			if perr := pr.Provision(ctx, h); perr != nil {
				err = fmt.Errorf("provision module %q: %w", m.moduleName(), perr)
			}
		}
		if va, ok := v.(Validator); ok && err == nil {
			if verr := va.Validate(); verr != nil {
				err = fmt.Errorf("module %q is not valid: %w", m.moduleName(), verr)
			}
		}
		if err != nil {
			return nil, errors.Join(err, p.cleanup())
		}
		p.values[m] = v
	}

	next := &snapshot{byName: make(map[string]*Action, len(old.byName)), sorted: make([]*Action, len(old.sorted))}
	for i, a := range old.sorted {
		if a.module != nil {
			b := *a
			b.Func = a.bind(p.values[a.module])
			a = &b
		}
		next.sorted[i] = a
		next.byName[a.Name] = a
	}
	nr := &Registry{prov: p}
	nr.snap.Store(next)
	return nr, nil
}

// Provisioned reports whether r was made by Provision, so its modules
// have their host and configuration.
func (r *Registry) Provisioned() bool { return r.prov != nil }

// Cleanup calls Cleanup on every module value [Registry.Provision] made
// for r, in the reverse of the order they were provisioned, and returns
// their errors joined. Call it when nothing runs the actions any more. It
// does nothing on a registry Provision did not return, or a second time.
func (r *Registry) Cleanup() error {
	if r.prov == nil {
		return nil
	}
	return r.prov.cleanup()
}

func (p *provisioned) cleanup() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cleaned {
		return nil
	}
	p.cleaned = true
	var errs []error
	for _, pv := range slices.Backward(p.order) {
		if c, ok := pv.value.(CleanerUpper); ok {
			if err := c.Cleanup(); err != nil {
				errs = append(errs, fmt.Errorf("clean up module %q: %w", pv.name, err))
			}
		}
	}
	return errors.Join(errs...)
}
