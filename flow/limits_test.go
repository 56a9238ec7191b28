package flow

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/flowserve/flowserve/flow/state"
)

// TestLimits checks that each limit of a run is a clear error.
func TestLimits(t *testing.T) {
	loop := `
name: loop
description: Loops through a step.
nodes:
  - id: tick
    step: test.echo
  - id: q
    ask: "Again?"
    form: {ok: {type: boolean}}
  - branch:
      - if: q.content.ok
        then: tick
  - return: done
`
	tests := []struct {
		name   string
		src    string
		limits Limits
		cost   uint64
		rounds []string // answers to q for each round after the first
		want   string
	}{
		{"journal", loop, Limits{Journal: 4}, 0, []string{`{"action":"accept","content":{"ok":true}}`, `{"action":"accept","content":{"ok":true}}`},
			"node tick: the run has reached the limit of 4 journal entries"},
		{"visits", `
name: spin
description: Spins.
nodes:
  - id: a
    set: {x: 1}
  - branch:
      - if: "true"
        then: a
`, Limits{Visits: 50}, 0, nil, "node a: more than 50 node visits in one round"},
		{"cost", `
name: costly
description: An expensive expression.
nodes:
  - return: "{{ [1,2,3,4,5,6,7,8,9,10].map(a, [1,2,3,4,5,6,7,8,9,10].map(b, [1,2,3,4,5,6,7,8,9,10].map(c, a*b*c))) }}"
`, Limits{}, 100, nil, "actual cost limit exceeded"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			clk := &clock{t: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)}
			p := compile(t, "f.yaml", tc.src, testOptions{Actions: testRegistry(t, &counters{}), Codec: testCodec(t, clk), Now: clk.now, Limits: tc.limits, CostLimit: tc.cost})
			req := &Request{Client: Client{Form: true}}
			var err error
			for i := 0; ; i++ {
				var res *Result
				res, err = p.Run(context.Background(), req)
				if err != nil || res.Input == nil || i >= len(tc.rounds) {
					break
				}
				req.State = res.Input.State
				req.Responses = map[string]json.RawMessage{"q": json.RawMessage(tc.rounds[i])}
			}
			var re *RunError
			if !errors.As(err, &re) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got error %v, want a *RunError containing %q", err, tc.want)
			}
		})
	}
}

// TestStateSizeLimit checks that a state over the codec's size limit is
// refused before it is opened.
func TestStateSizeLimit(t *testing.T) {
	p := compile(t, "f.yaml", `
name: q
description: Asks.
nodes:
  - id: q
    ask: "?"
    form: {v: {type: string}}
  - return: "{{ q.content.v }}"
`, testOptions{})
	_, err := p.Run(context.Background(), &Request{State: strings.Repeat("a", state.DefaultMaxSize+1), Client: Client{Form: true}})
	if !errors.Is(err, state.ErrTooLarge) || !IsInvalidParams(err) {
		t.Fatalf("got %v, want state.ErrTooLarge", err)
	}
}

// TestContextCancelled checks that a cancelled call stops with the
// context's error.
func TestContextCancelled(t *testing.T) {
	p := compile(t, "f.yaml", "name: s\ndescription: d\nnodes:\n  - return: hi\n", testOptions{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := p.Run(ctx, &Request{})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
}

// TestStepResultTooLarge checks that a step result too big for the state
// is a run error, not an invalid-params error.
func TestStepResultTooLarge(t *testing.T) {
	p := compile(t, "f.yaml", `
name: big
description: A big step result.
nodes:
  - id: big
    step: test.echo
    with: {blob: "{{ input.blob }}"}
  - id: q
    ask: "?"
    form: {v: {type: string}}
  - return: done
`, testOptions{Actions: testRegistry(t, &counters{})})
	args, _ := json.Marshal(map[string]string{"blob": strings.Repeat("x", state.DefaultMaxSize)})
	_, err := p.Run(context.Background(), &Request{Arguments: args, Client: Client{Form: true}})
	var re *RunError
	if !errors.As(err, &re) || IsInvalidParams(err) || !strings.Contains(err.Error(), "too large") {
		t.Fatalf("got %v, want a run error about the state's size", err)
	}
}
