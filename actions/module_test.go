package actions

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
)

// events records the lifecycle calls of test modules, in order.
type events struct {
	mu  sync.Mutex
	log []string
}

func (e *events) add(format string, args ...any) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.log = append(e.log, fmt.Sprintf(format, args...))
}

func (e *events) take() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	s := strings.Join(e.log, ", ")
	e.log = nil
	return s
}

// counter is a module value: its configuration is the name and the
// failures to simulate; Provision takes the host's fs root as its
// "resource".
type counter struct {
	name                        string
	ev                          *events
	failProvision, failValidate bool
	failCleanup                 bool

	root string // from the Host
	n    int
}

func (c *counter) Provision(_ context.Context, h *Host) error {
	c.ev.add("provision %s", c.name)
	if c.failProvision {
		return errors.New("boom")
	}
	c.root = h.FSRoot
	return nil
}

func (c *counter) Validate() error {
	c.ev.add("validate %s", c.name)
	if c.failValidate {
		return errors.New("bad config")
	}
	return nil
}

func (c *counter) Cleanup() error {
	c.ev.add("cleanup %s", c.name)
	if c.failCleanup {
		return errors.New("stuck")
	}
	return nil
}

type countOut struct {
	Root string `json:"root" jsonschema:"The provisioned root."`
	N    int    `json:"n" jsonschema:"Calls so far on this value."`
}

func (c *counter) Count(_ context.Context, _ struct{}) (countOut, error) {
	c.n++
	return countOut{Root: c.root, N: c.n}, nil
}

func counterModule(ev *events, name string, edit func(*counter)) *Module[*counter] {
	return NewModule(name, func() *counter {
		ev.add("new %s", name)
		c := &counter{name: name, ev: ev}
		if edit != nil {
			edit(c)
		}
		return c
	})
}

// registerCounters registers one count action per module, named
// <module>.count.
func registerCounters(t *testing.T, reg *Registry, mods ...*Module[*counter]) {
	t.Helper()
	for _, m := range mods {
		if err := reg.Register(Method(m, m.Name()+".count", "Counts.", (*counter).Count)); err != nil {
			t.Fatal(err)
		}
	}
}

func count(t *testing.T, reg *Registry, name string) string {
	t.Helper()
	a, ok := reg.Lookup(name)
	if !ok {
		t.Fatalf("%s is not registered", name)
	}
	out, err := a.Run(context.Background(), map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	m := out.(map[string]any)
	return fmt.Sprintf("%s:%d", m["root"], m["n"])
}

func TestProvisionAndCleanupOrder(t *testing.T) {
	tests := []struct {
		name          string
		edit          map[string]func(*counter)
		wantProvision string
		wantErr       string
		wantCleanup   string // after a successful Provision
		wantCleanErr  string
	}{
		{
			name:          "by module name, cleaned up in reverse",
			wantProvision: "new alpha, provision alpha, validate alpha, new beta, provision beta, validate beta, new gamma, provision gamma, validate gamma",
			wantCleanup:   "cleanup gamma, cleanup beta, cleanup alpha",
		},
		{
			name:          "provision fails: the failing value and those before it are cleaned up",
			edit:          map[string]func(*counter){"beta": func(c *counter) { c.failProvision = true }},
			wantProvision: "new alpha, provision alpha, validate alpha, new beta, provision beta, cleanup beta, cleanup alpha",
			wantErr:       `provision module "beta": boom`,
		},
		{
			name:          "validate fails",
			edit:          map[string]func(*counter){"alpha": func(c *counter) { c.failValidate = true }},
			wantProvision: "new alpha, provision alpha, validate alpha, cleanup alpha",
			wantErr:       `module "alpha" is not valid: bad config`,
		},
		{
			name:          "provision fails and a cleanup too: both errors",
			edit:          map[string]func(*counter){"alpha": func(c *counter) { c.failCleanup = true }, "beta": func(c *counter) { c.failProvision = true }},
			wantProvision: "new alpha, provision alpha, validate alpha, new beta, provision beta, cleanup beta, cleanup alpha",
			wantErr:       "provision module \"beta\": boom\nclean up module \"alpha\": stuck",
		},
		{
			name:          "cleanup errors are joined, every value is still cleaned up",
			edit:          map[string]func(*counter){"alpha": func(c *counter) { c.failCleanup = true }, "gamma": func(c *counter) { c.failCleanup = true }},
			wantProvision: "new alpha, provision alpha, validate alpha, new beta, provision beta, validate beta, new gamma, provision gamma, validate gamma",
			wantCleanup:   "cleanup gamma, cleanup beta, cleanup alpha",
			wantCleanErr:  "clean up module \"gamma\": stuck\nclean up module \"alpha\": stuck",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev := &events{}
			reg := NewRegistry()
			// Registered out of order: provisioning goes by module name.
			registerCounters(t, reg,
				counterModule(ev, "gamma", tt.edit["gamma"]),
				counterModule(ev, "alpha", tt.edit["alpha"]),
				counterModule(ev, "beta", tt.edit["beta"]))
			if got := ev.take(); got != "" {
				t.Fatalf("registering made values: %s", got)
			}
			p, err := reg.Provision(context.Background(), &Host{FSRoot: "/srv"})
			if got := ev.take(); got != tt.wantProvision {
				t.Errorf("provisioning:\n  %s\nwant\n  %s", got, tt.wantProvision)
			}
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr || p != nil {
					t.Fatalf("Provision = %v, %v; want error %q", p, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			err = p.Cleanup()
			if got := ev.take(); got != tt.wantCleanup {
				t.Errorf("cleanup:\n  %s\nwant\n  %s", got, tt.wantCleanup)
			}
			if (err == nil) != (tt.wantCleanErr == "") || (err != nil && err.Error() != tt.wantCleanErr) {
				t.Errorf("Cleanup error = %v, want %q", err, tt.wantCleanErr)
			}
			if err := p.Cleanup(); err != nil || ev.take() != "" {
				t.Errorf("a second Cleanup did something: %v", err)
			}
		})
	}
}

func TestProvisionedValues(t *testing.T) {
	ev := &events{}
	mod := counterModule(ev, "ctr", nil)
	reg := NewRegistry()
	registerCounters(t, reg, mod)
	if err := reg.Register(validSpec("plain.action")); err != nil {
		t.Fatal(err)
	}

	// Two servers provision the same registry: each gets its own value.
	one, err := reg.Provision(context.Background(), &Host{FSRoot: "/one"})
	if err != nil {
		t.Fatal(err)
	}
	two, err := reg.Provision(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	ev.take()
	for _, step := range []struct {
		reg  *Registry
		want string
	}{
		{one, "/one:1"}, {one, "/one:2"}, {two, ":1"}, {one, "/one:3"},
		{reg, ":1"}, {reg, ":2"}, // unprovisioned: one value new made, never provisioned
	} {
		if got := count(t, step.reg, "ctr.count"); got != step.want {
			t.Errorf("count = %s, want %s", got, step.want)
		}
	}
	if got := ev.take(); got != "new ctr" {
		t.Errorf("the unprovisioned registry's value: %q, want one new and no provisioning", got)
	}
	if got := names(one.Actions()); got != "ctr.count plain.action" {
		t.Errorf("provisioned registry holds %s", got)
	}
	if a, _ := reg.Lookup("ctr.count"); a.Func == nil {
		t.Fatal("the original lost its func")
	}

	if _, err := one.Provision(context.Background(), nil); err == nil || err.Error() != "provision: the registry is already provisioned" {
		t.Errorf("provisioning twice: %v", err)
	}

	// Registering into a provisioned registry: a module it provisioned
	// binds to its value; another module is an error.
	if err := one.Register(Method(mod, "ctr.again", "Counts again.", (*counter).Count)); err != nil {
		t.Fatal(err)
	}
	if got := count(t, one, "ctr.again"); got != "/one:4" {
		t.Errorf("ctr.again on the provisioned value: %s, want /one:4", got)
	}
	err = one.Register(Method(counterModule(ev, "other", nil), "other.count", "Counts.", (*counter).Count))
	if err == nil || !strings.Contains(err.Error(), `register action "other.count": the registry is provisioned, and module "other" is not in it`) {
		t.Errorf("registering a new module into a provisioned registry: %v", err)
	}

	// A clone shares the provisioned values and their cleanup.
	c := one.Clone()
	if got := count(t, c, "ctr.count"); got != "/one:5" {
		t.Errorf("clone count = %s, want /one:5", got)
	}
	if err := c.Cleanup(); err != nil {
		t.Fatal(err)
	}
	if err := one.Cleanup(); err != nil {
		t.Fatal(err)
	}
	if got := ev.take(); got != "cleanup ctr" {
		t.Errorf("cleanup of a clone and its original: %q, want one cleanup", got)
	}
	if err := reg.Cleanup(); err != nil || ev.take() != "" {
		t.Errorf("Cleanup of an unprovisioned registry did something: %v", err)
	}
}

type provisionKey struct{}

func TestProvisionPassesContext(t *testing.T) {
	var got any
	m := NewModule("ctx", func() *ctxModule { return &ctxModule{seen: &got} })
	reg := NewRegistry()
	if err := reg.Register(Method(m, "ctx.nop", "Nothing.", (*ctxModule).Nop)); err != nil {
		t.Fatal(err)
	}
	ctx := context.WithValue(context.Background(), provisionKey{}, "start")
	if _, err := reg.Provision(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if got != "start" {
		t.Errorf("Provision saw %v in its context", got)
	}
}

type ctxModule struct{ seen *any }

func (c *ctxModule) Provision(ctx context.Context, h *Host) error {
	*c.seen = ctx.Value(provisionKey{})
	if h == nil {
		return errors.New("nil host")
	}
	return nil
}

func (c *ctxModule) Nop(context.Context, struct{}) (struct{}, error) { return struct{}{}, nil }

func TestMethodErrors(t *testing.T) {
	err := NewRegistry().Register(Method[*counter, struct{}, countOut](nil, "x.count", "Counts.", (*counter).Count))
	if err == nil || err.Error() != `register action "x.count": module is nil` {
		t.Errorf("nil module: %v", err)
	}
	err = NewRegistry().Register(Method[*counter, struct{}, countOut](counterModule(&events{}, "x", nil), "x.count", "Counts.", nil))
	if err == nil || err.Error() != `register action "x.count": func is required` {
		t.Errorf("nil func: %v", err)
	}
}
