package flow

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/flowserve/flowserve/actions"
	"github.com/flowserve/flowserve/dsl"
	"github.com/flowserve/flowserve/flow/state"
)

// counters records how often test actions ran, by key.
type counters struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *counters) inc(key string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == nil {
		c.n = map[string]int{}
	}
	c.n[key]++
	return c.n[key]
}

func (c *counters) get(key string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[key]
}

var anyObject = map[string]any{"type": "object"}

// testRegistry returns a registry of test actions that count their calls
// in c.
func testRegistry(t testing.TB, c *counters) *actions.Registry {
	t.Helper()
	reg := actions.NewRegistry()
	keyed := map[string]any{
		"type":       "object",
		"properties": map[string]any{"key": map[string]any{"type": "string"}},
	}
	must := func(s actions.Spec) {
		if err := reg.Register(s); err != nil {
			t.Fatal(err)
		}
	}
	must(actions.Spec{
		Name: "test.echo", Summary: "returns its input", Input: anyObject, Output: anyObject,
		Func: func(ctx context.Context, in map[string]any) (any, error) {
			c.inc("echo")
			return in, nil
		},
	})
	must(actions.Spec{
		Name: "test.count", Summary: "counts calls by key", Input: keyed,
		Output: map[string]any{"type": "object", "properties": map[string]any{"n": map[string]any{"type": "integer"}}},
		Func: func(ctx context.Context, in map[string]any) (any, error) {
			key, _ := in["key"].(string)
			return map[string]any{"n": c.inc("count:" + key)}, nil
		},
	})
	must(actions.Spec{
		Name: "test.fail", Summary: "fails", Input: anyObject, Output: anyObject,
		Func: func(ctx context.Context, in map[string]any) (any, error) {
			c.inc("fail")
			msg, _ := in["message"].(string)
			return nil, errors.New(msg)
		},
	})
	must(actions.Spec{
		Name: "test.flaky", Summary: "fails until its n-th call",
		Input: map[string]any{"type": "object", "properties": map[string]any{
			"key": map[string]any{"type": "string"}, "succeed_on": map[string]any{"type": "integer"}}},
		Output: anyObject,
		Func: func(ctx context.Context, in map[string]any) (any, error) {
			key, _ := in["key"].(string)
			n := c.inc("flaky:" + key)
			if int64(n) < in["succeed_on"].(int64) {
				return nil, fmt.Errorf("attempt %d failed", n)
			}
			return map[string]any{"attempts": n}, nil
		},
	})
	must(actions.Spec{
		Name: "test.slow", Summary: "waits for its deadline", Input: anyObject, Output: anyObject,
		Func: func(ctx context.Context, in map[string]any) (any, error) {
			c.inc("slow")
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(10 * time.Second):
				return map[string]any{}, nil
			}
		},
	})
	must(actions.Spec{
		Name: "test.panic", Summary: "panics", Input: anyObject, Output: anyObject,
		Func: func(ctx context.Context, in map[string]any) (any, error) {
			panic("boom")
		},
	})
	must(actions.Spec{
		Name: "test.bad_output", Summary: "returns output that breaks its schema", Input: anyObject,
		Output: map[string]any{"type": "object", "required": []any{"id"}, "properties": map[string]any{"id": map[string]any{"type": "string"}}},
		Func: func(ctx context.Context, in map[string]any) (any, error) {
			return map[string]any{"id": 7}, nil
		},
	})
	return reg
}

// clock is a settable test clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// testCodec returns a codec over a fixed key and the clock.
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

// testOptions are what a test compiles a flow with (Actions, CostLimit)
// and runs it on (the rest, for its Engine).
type testOptions struct {
	Actions   *actions.Registry
	CostLimit uint64
	Codec     *state.Codec
	Now       func() time.Time
	Replies   ReplyStore
	Limits    Limits
	Values    Values
}

// testProgram is a Program with the Engine a test runs it on.
type testProgram struct {
	*Program
	e *Engine
}

// Run runs one round of p on its engine.
func (p *testProgram) Run(ctx context.Context, req *Request) (*Result, error) {
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
	p, diags := Compile(f, Env{Actions: opts.Actions, CostLimit: opts.CostLimit})
	if err := diags.Err(); err != nil || p == nil {
		t.Fatalf("compile %s:\n%v", name, err)
	}
	e, err := NewEngine(EngineOptions{Codec: opts.Codec, Now: opts.Now, Replies: opts.Replies, Limits: opts.Limits, Values: opts.Values})
	if err != nil {
		t.Fatal(err)
	}
	return &testProgram{Program: p, e: e}
}
