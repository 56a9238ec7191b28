package diff

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/flowserve/flowserve/actions"
	// The shipped flows call the standard actions and the tickets example's.
	_ "github.com/flowserve/flowserve/actions/std"
	"github.com/flowserve/flowserve/dsl"
	_ "github.com/flowserve/flowserve/examples/custom-actions/tickets"
	"github.com/flowserve/flowserve/flow"
	"github.com/flowserve/flowserve/flow/state"
)

// testRegistry returns a registry with the one action the compat flows
// call: test.echo, which returns its input.
func testRegistry(t testing.TB) *actions.Registry {
	t.Helper()
	reg := actions.NewRegistry()
	object := map[string]any{"type": "object"}
	err := reg.Register(actions.Spec{
		Name: "test.echo", Summary: "returns its input", Input: object, Output: object,
		Func: func(ctx context.Context, in map[string]any) (any, error) { return in, nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

// clock is a settable time source.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// testCodec returns a codec over a fixed key and the clock, so that two
// engines open each other's states.
func testCodec(t testing.TB, clk *clock) *state.Codec {
	t.Helper()
	var k state.Key
	k.ID = "test"
	for i := range k.Secret {
		k.Secret[i] = byte(i)
	}
	ring, err := state.NewKeyRing(k)
	if err != nil {
		t.Fatal(err)
	}
	return state.NewCodec(ring, state.Options{Now: clk.now})
}

// testOptions are what a test compiles a flow with (Actions) and runs it
// on (the rest, for its Engine).
type testOptions struct {
	Actions *actions.Registry
	Codec   *state.Codec
	Now     func() time.Time
}

// testProgram is a Program with the Engine a test runs it on.
type testProgram struct {
	*flow.Program
	e *flow.Engine
}

// Run runs one round of p on its engine.
func (p *testProgram) Run(ctx context.Context, req *flow.Request) (*flow.Result, error) {
	return p.e.Run(ctx, p.Program, req)
}

// compile parses and compiles src, failing the test on diagnostics, and
// makes the Engine it runs on from opts.
func compile(t testing.TB, name, src string, opts testOptions) *testProgram {
	t.Helper()
	f, diags := dsl.Parse(name, []byte(src))
	if err := diags.Err(); err != nil {
		t.Fatalf("parse %s:\n%v", name, err)
	}
	p, diags := flow.Compile(f, flow.Env{Actions: opts.Actions})
	if err := diags.Err(); err != nil || p == nil {
		t.Fatalf("compile %s:\n%v", name, err)
	}
	e, err := flow.NewEngine(flow.EngineOptions{Codec: opts.Codec, Now: opts.Now})
	if err != nil {
		t.Fatal(err)
	}
	return &testProgram{Program: p, e: e}
}
