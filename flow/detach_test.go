package flow

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// detachFlow asks a name, counts in a long step, then counts again.
const detachFlow = `
name: detach
description: asks, then runs a long step
nodes:
  - id: who
    ask: Your name?
    form:
      name: {type: string}
    required: [name]
  - id: work
    step: test.count
    long: true
    with: {key: work}
  - id: after
    step: test.count
    with: {key: after}
  - return: "{{ who.content.name }} {{ work.n }} {{ after.n }}"
`

var acceptName = map[string]json.RawMessage{"who": json.RawMessage(`{"action":"accept","content":{"name":"Ada"}}`)}

func TestDetachBeforeLongStep(t *testing.T) {
	var c counters
	clk := &clock{t: time.Date(2026, 7, 28, 10, 0, 0, 0, time.UTC)}
	p := compile(t, "detach.yaml", detachFlow, testOptions{Actions: testRegistry(t, &c), Codec: testCodec(t, clk), Now: clk.now})
	ctx := t.Context()
	detach := &Detach{Rounds: 9, TTL: 24 * time.Hour}

	r1, err := p.Run(ctx, &Request{Detach: detach, Client: Client{Form: true}})
	if err != nil || r1.Input == nil {
		t.Fatalf("round 1: %+v, %v", r1, err)
	}
	r2, err := p.Run(ctx, &Request{Detach: detach, State: r1.Input.State, Responses: acceptName, Client: Client{Form: true}})
	if err != nil || r2.Detached == nil || r2.Detached.Node != "work" || r2.Detached.Input != nil {
		t.Fatalf("round 2: want detached before work: %+v, %v", r2, err)
	}
	if c.get("count:work") != 0 {
		t.Fatal("the long step ran in the detaching round")
	}
	// The task's lifetime, not the codec's hour, bounds the detached state.
	clk.add(3 * time.Hour)
	var checkpoints []string
	r3, err := p.Run(ctx, &Request{State: r2.Detached.State, StateTTL: 24 * time.Hour,
		Checkpoint: func(s string) error { checkpoints = append(checkpoints, s); return nil }})
	if err != nil || r3.Complete == nil || blockText(r3.Complete.Content[0]) != "Ada 1 1" {
		t.Fatalf("task round: %+v, %v", r3, err)
	}
	if len(checkpoints) != 2 {
		t.Fatalf("want a checkpoint per step, got %d", len(checkpoints))
	}
	// A round run again from the first checkpoint replays that step and
	// runs only the one after it.
	r4, err := p.Run(ctx, &Request{State: checkpoints[0], StateTTL: 24 * time.Hour})
	if err != nil || r4.Complete == nil || blockText(r4.Complete.Content[0]) != "Ada 1 2" {
		t.Fatalf("from the checkpoint: %+v, %v", r4, err)
	}
	if r4.Round != r3.Round {
		t.Errorf("the round run again from a checkpoint is round %d, the original %d", r4.Round, r3.Round)
	}
	if c.get("count:work") != 1 {
		t.Errorf("work ran %d times", c.get("count:work"))
	}
}

func TestDetachOverRoundBudget(t *testing.T) {
	var c counters
	src := strings.Replace(detachFlow, "    long: true\n", "", 1) + `
  - id: again
    ask: Again?
    form:
      ok: {type: boolean}
`
	src = strings.Replace(src, `  - return: "{{ who.content.name }} {{ work.n }} {{ after.n }}"`+"\n", "", 1)
	p := compile(t, "budget.yaml", src, testOptions{Actions: testRegistry(t, &c)})
	ctx := t.Context()
	detach := &Detach{Rounds: 1, TTL: time.Hour}
	r1, err := p.Run(ctx, &Request{Detach: detach, Client: Client{Form: true}})
	if err != nil || r1.Input == nil {
		t.Fatalf("round 1 is within the budget: %+v, %v", r1, err)
	}
	r2, err := p.Run(ctx, &Request{Detach: detach, State: r1.Input.State, Responses: acceptName, Client: Client{Form: true}})
	if err != nil || r2.Detached == nil || r2.Detached.Input == nil || r2.Detached.Input.Requests["again"] == nil {
		t.Fatalf("round 2 is over the budget: want its questions detached: %+v, %v", r2, err)
	}
	if r2.Detached.State != r2.Detached.Input.State {
		t.Error("the detached state is not the questions' state")
	}
}

func TestCheckpointErrorEndsRound(t *testing.T) {
	var c counters
	p := compile(t, "detach.yaml", detachFlow, testOptions{Actions: testRegistry(t, &c)})
	ctx := t.Context()
	r1, err := p.Run(ctx, &Request{Client: Client{Form: true}})
	if err != nil {
		t.Fatal(err)
	}
	stop := errTest("the task was cancelled")
	_, err = p.Run(ctx, &Request{State: r1.Input.State, Responses: acceptName, Client: Client{Form: true},
		Checkpoint: func(string) error { return stop }})
	if err == nil || !strings.Contains(err.Error(), "the task was cancelled") {
		t.Fatalf("want the checkpoint's error, got %v", err)
	}
	if c.get("count:after") != 0 {
		t.Error("the round went on after its checkpoint failed")
	}
}

type errTest string

func (e errTest) Error() string { return string(e) }

func TestStartTask(t *testing.T) {
	flowWith := func(task string) *testProgram {
		return compile(t, "t.yaml", "description: d\n"+task+"nodes:\n  - return: ok\n", testOptions{})
	}
	tests := []struct {
		task   string
		tasks  bool
		start  TaskStart
		detach bool
	}{
		{"", false, StartCall, false},
		{"", true, StartCall, true},
		{"task: never\n", true, StartCall, false},
		{"task: required\n", true, StartTask, false},
		{"task: required\n", false, StartRefused, false},
	}
	for _, tc := range tests {
		start, d := flowWith(tc.task).StartTask(tc.tasks, 9, time.Hour)
		if start != tc.start || (d != nil) != tc.detach || (d != nil && (d.Rounds != 9 || d.TTL != time.Hour)) {
			t.Errorf("%q with tasks %v: %v, %+v", tc.task, tc.tasks, start, d)
		}
	}
}
