package drive_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/flowserve/flowserve/actions"
	"github.com/flowserve/flowserve/dsl"
	"github.com/flowserve/flowserve/flow"
	"github.com/flowserve/flowserve/flow/drive"
)

// The flows the tests drive.
const (
	// askFlow asks the caller a name.
	askFlow = `
name: greet
description: asks a name
nodes:
  - id: who
    ask: Your name?
    form:
      name: {type: string}
    required: [name]
  - return: "hello {{ who.content.name }}"
`
	// loopFlow asks until the answer says stop.
	loopFlow = `
name: loop
description: asks until told to stop
nodes:
  - id: again
    ask: Again?
    form:
      more: {type: boolean}
    required: [more]
  - branch:
      - if: "again.content.more"
        then: again
      - else: done
  - id: done
    return: done
`
	// approvalFlow asks a manager to approve; a note longer than five
	// characters is not accepted.
	approvalFlow = `
name: refund
description: refunds after a manager approves
nodes:
  - id: approval
    ask: Refund?
    to: manager
    form:
      approve: {type: boolean}
      note: {type: string, maxLength: 5}
    required: [approve]
  - branch:
      - if: "approval.action == 'accept' && approval.content.approve"
        then: done
      - else: refused
  - id: done
    return: "approved by {{ approval.answered_by }}"
  - id: refused
    return: refused
`
	// longFlow asks a name, then runs a long step.
	longFlow = `
name: slow
description: asks, then runs a long step
task: auto
nodes:
  - id: who
    ask: Your name?
    form:
      name: {type: string}
    required: [name]
  - id: work
    step: test.count
    long: true
  - return: "{{ who.content.name }} {{ work.n }}"
`
	// waitFlow runs a step that waits for its context to end.
	waitFlow = `
name: wait
description: waits
nodes:
  - id: hold
    step: test.wait
  - return: never
`
)

// registry holds the actions of the test flows: test.count counts its
// calls, test.wait returns when its context ends.
func registry(t *testing.T) *actions.Registry {
	t.Helper()
	reg := actions.NewRegistry()
	n := 0
	obj := map[string]any{"type": "object"}
	for _, s := range []actions.Spec{
		{Name: "test.count", Summary: "counts its calls", Input: obj,
			Output: map[string]any{"type": "object", "properties": map[string]any{"n": map[string]any{"type": "integer"}}},
			Func:   func(context.Context, map[string]any) (any, error) { n++; return map[string]any{"n": n}, nil }},
		{Name: "test.wait", Summary: "waits for its context", Input: obj, Output: obj,
			Func: func(ctx context.Context, _ map[string]any) (any, error) { <-ctx.Done(); return nil, ctx.Err() }},
	} {
		if err := reg.Register(s); err != nil {
			t.Fatal(err)
		}
	}
	return reg
}

// compile compiles src, failing the test on its diagnostics.
func compile(t *testing.T, src string) *flow.Program {
	t.Helper()
	f, diags := dsl.Parse("flow.yaml", []byte(src))
	if err := diags.Err(); err != nil {
		t.Fatalf("parse: %v", err)
	}
	p, diags := flow.Compile(f, flow.Env{Actions: registry(t)})
	if err := diags.Err(); err != nil || p == nil {
		t.Fatalf("compile: %v", err)
	}
	return p
}

// answers answers every question with the next of its answers (the last
// one again when none is left), or fails with err.
type answers struct {
	by    map[string][]string
	asked []string
	err   error
}

func (a *answers) Answer(ctx context.Context, in *flow.InputRequired) (map[string]json.RawMessage, error) {
	if a.err != nil {
		return nil, a.err
	}
	out := map[string]json.RawMessage{}
	for id, q := range in.Requests {
		a.asked = append(a.asked, id+": "+q.Message)
		list := a.by[id]
		if len(list) == 0 {
			return nil, fmt.Errorf("no answer to %q", id)
		}
		out[id] = json.RawMessage(list[0])
		if len(list) > 1 {
			a.by[id] = list[1:]
		}
	}
	return out, nil
}

// approvals answers approvals from a list, journaling each, and records
// why the ones not accepted were not.
type approvals struct {
	list     []string
	rejected []string
	err      error
}

func (a *approvals) Approve(ctx context.Context, ap *flow.Approval, journal drive.JournalFunc) (string, error) {
	if a.err != nil {
		return "", a.err
	}
	for _, resp := range a.list {
		state, again, err := journal(ctx, &flow.ApprovalAnswer{Node: ap.Node, Response: json.RawMessage(resp), By: "Grace",
			At: time.Date(2026, 7, 28, 10, 0, 0, 0, time.UTC)})
		switch {
		case err != nil:
			return "", err
		case again == nil:
			return state, nil
		}
		a.rejected = append(a.rejected, again.Question.Rejected)
	}
	return "", errors.New("no answer left")
}

// watch records the rounds it sees: "journal" for an approval's, "round"
// otherwise, and what each ended with.
type watch struct{ seen []string }

func (w *watch) StartRound(ctx context.Context, req *flow.Request) context.Context {
	kind := "round"
	if req.Approval != nil {
		kind = "journal"
	}
	w.seen = append(w.seen, kind)
	return ctx
}

func (w *watch) EndRound(req *flow.Request, res *flow.Result, err error) {
	i := len(w.seen) - 1
	w.seen[i] += ":" + ended(res, err)
}

// ended names what a round ended with.
func ended(res *flow.Result, err error) string {
	switch {
	case err != nil:
		return "error"
	case res == nil:
		return "nil"
	case res.Complete != nil:
		return "complete"
	case res.Input != nil:
		return "input"
	case res.Approval != nil:
		return "approval"
	case res.Detached != nil:
		return "detached"
	}
	return "prompt"
}

func TestDrive(t *testing.T) {
	name := `{"action":"accept","content":{"name":"Ada"}}`
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name     string
		src      string
		answerer *answers
		approver *approvals
		max      int
		runTasks bool
		detach   bool
		ctx      context.Context
		// want is what the last round ended with, and text its
		// result's text; err is a part of Drive's error.
		want, text, err string
		rounds          int
		seen            string
		rejected        []string
		// roundErr is what the last round's error must match.
		roundErr error
	}{
		{name: "input without answerer returns the questions", src: askFlow,
			want: "input", rounds: 1, seen: "round:input"},
		{name: "input with answerer completes", src: askFlow, answerer: &answers{by: map[string][]string{"who": {name}}},
			want: "complete", text: "hello Ada", rounds: 2, seen: "round:input round:complete"},
		{name: "answerer error ends the drive", src: askFlow, answerer: &answers{err: errors.New("the client went away")},
			want: "input", err: "the client went away", rounds: 1, seen: "round:input"},
		{name: "approval without approver returns it", src: approvalFlow,
			want: "approval", rounds: 1, seen: "round:approval"},
		{name: "approval with approver completes", src: approvalFlow, approver: &approvals{list: []string{`{"action":"accept","content":{"approve":true}}`}},
			want: "complete", text: "approved by Grace", rounds: 3, seen: "round:approval journal:detached round:complete"},
		{name: "rejected approval answer is asked again", src: approvalFlow,
			approver: &approvals{list: []string{`{"action":"accept","content":{"approve":false,"note":"too long"}}`, `{"action":"decline"}`}},
			want:     "complete", text: "refused", rounds: 4, seen: "round:approval journal:approval journal:detached round:complete",
			rejected: []string{"note"}},
		{name: "approver error ends the drive", src: approvalFlow, approver: &approvals{err: errors.New("no page")},
			want: "approval", err: "no page", rounds: 1, seen: "round:approval"},
		{name: "detach returns the detached round", src: longFlow, detach: true, answerer: &answers{by: map[string][]string{"who": {name}}},
			want: "detached", rounds: 2, seen: "round:input round:detached"},
		{name: "detach with RunTasks goes on as the task", src: longFlow, detach: true, runTasks: true,
			answerer: &answers{by: map[string][]string{"who": {name}}},
			want:     "complete", text: "Ada 1", rounds: 3, seen: "round:input round:detached round:complete"},
		{name: "round cap", src: loopFlow, max: 2, answerer: &answers{by: map[string][]string{"again": {`{"action":"accept","content":{"more":true}}`}}},
			want: "input", err: "round limit: 2 rounds ran", rounds: 2, seen: "round:input round:input"},
		{name: "round cap not reached", src: loopFlow, max: 3,
			answerer: &answers{by: map[string][]string{"again": {`{"action":"accept","content":{"more":true}}`, `{"action":"accept","content":{"more":false}}`}}},
			want:     "complete", text: "done", rounds: 3, seen: "round:input round:input round:complete"},
		{name: "round cap counts journal rounds", src: approvalFlow, max: 2,
			approver: &approvals{list: []string{`{"action":"accept","content":{"approve":false,"note":"too long"}}`, `{"action":"decline"}`}},
			want:     "approval", err: "round limit: 2 rounds ran", rounds: 2, seen: "round:approval journal:approval", rejected: []string{"note"}},
		{name: "cancelled context ends the round", src: waitFlow, ctx: cancelled,
			want: "error", rounds: 1, seen: "round:error", roundErr: context.Canceled},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := compile(t, tc.src)
			e, err := flow.NewEngine(flow.EngineOptions{})
			if err != nil {
				t.Fatal(err)
			}
			w := &watch{}
			d := drive.Driver{Engine: e, Observer: w, MaxRounds: tc.max, RunTasks: tc.runTasks}
			if tc.answerer != nil {
				d.Answerer = tc.answerer
			}
			if tc.approver != nil {
				d.Approver = tc.approver
			}
			req := &flow.Request{Client: flow.Client{Form: true}}
			if tc.detach {
				req.Detach = &flow.Detach{Rounds: flow.DefaultRoundBudget, TTL: time.Hour}
			}
			ctx := tc.ctx
			if ctx == nil {
				ctx = t.Context()
			}
			out, err := d.Drive(ctx, p, req)
			switch {
			case tc.err == "" && err != nil:
				t.Fatalf("Drive: %v", err)
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Fatalf("Drive: error %v, want one saying %q", err, tc.err)
			}
			if got := ended(out.Result, out.Err); got != tc.want {
				t.Errorf("ended with %s (%v), want %s", got, out.Err, tc.want)
			}
			if tc.roundErr != nil && !errors.Is(out.Err, tc.roundErr) {
				t.Errorf("the round ended with %v, want %v", out.Err, tc.roundErr)
			}
			if tc.text != "" {
				if out.Result == nil || out.Result.Complete == nil || out.Result.Complete.Content[0].(*mcp.TextContent).Text != tc.text {
					t.Errorf("result %+v, want %q", out.Result, tc.text)
				}
			}
			if out.Rounds != tc.rounds {
				t.Errorf("rounds %d, want %d", out.Rounds, tc.rounds)
			}
			if got := strings.Join(w.seen, " "); got != tc.seen {
				t.Errorf("observed %q, want %q", got, tc.seen)
			}
			if tc.approver != nil && len(tc.approver.rejected) != len(tc.rejected) {
				t.Fatalf("rejected %q, want reasons naming %q", tc.approver.rejected, tc.rejected)
			}
			for i, r := range tc.rejected {
				if !strings.Contains(tc.approver.rejected[i], r) {
					t.Errorf("rejection %d: %q, want one naming %q", i, tc.approver.rejected[i], r)
				}
			}
		})
	}
}

// TestDriveCancelledAnswerer: an Answerer interrupted by its context ends
// the drive with the context's error.
func TestDriveCancelledAnswerer(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	d := drive.Driver{Engine: newEngine(t), Answerer: answerFunc(func(ctx context.Context, _ *flow.InputRequired) (map[string]json.RawMessage, error) {
		cancel()
		return nil, ctx.Err()
	})}
	out, err := d.Drive(ctx, compile(t, askFlow), &flow.Request{Client: flow.Client{Form: true}})
	if !errors.Is(err, context.Canceled) || out.Rounds != 1 || out.Result == nil || out.Result.Input == nil {
		t.Fatalf("Drive: %+v, %v; want the first round's questions and context.Canceled", out, err)
	}
}

// TestDriveRequest: Drive sets the request's state and answers between
// rounds, and drops Detach once the run waited for an approval.
func TestDriveRequest(t *testing.T) {
	p := compile(t, approvalFlow)
	ap := &approvals{list: []string{`{"action":"accept","content":{"approve":true}}`}}
	var last *flow.Request
	w := observeFunc(func(req *flow.Request) { last = req })
	d := drive.Driver{Engine: newEngine(t), Approver: ap, Observer: w}
	req := &flow.Request{Client: flow.Client{Form: true}, Detach: &flow.Detach{Rounds: 9, TTL: time.Hour}}
	out, err := d.Drive(t.Context(), p, req)
	if err != nil || out.Result == nil || out.Result.Complete == nil {
		t.Fatalf("Drive: %+v, %v", out, err)
	}
	if last != req || req.Detach != nil || req.State == "" || req.Approval != nil {
		t.Errorf("the last round ran %+v, want the caller's request from the approval's state, without Detach", last)
	}
}

// TestJournal: Driver.Journal runs the round that journals an answer from
// a page, outside any Drive: a state to go on from, or the approval asked
// again.
func TestJournal(t *testing.T) {
	p := compile(t, approvalFlow)
	e := newEngine(t)
	first, err := e.Run(t.Context(), p, &flow.Request{})
	if err != nil || first.Approval == nil {
		t.Fatalf("first round: %+v, %v", first, err)
	}
	w := &watch{}
	d := drive.Driver{Engine: e, Observer: w}
	answer := func(resp string) *flow.ApprovalAnswer {
		return &flow.ApprovalAnswer{Node: "approval", Response: json.RawMessage(resp), By: "Grace", At: time.Now()}
	}
	req := &flow.Request{State: first.Approval.State}
	state, again, err := d.Journal(t.Context(), p, req, answer(`{"action":"accept","content":{"approve":true,"note":"far too long"}}`))
	if err != nil || state != "" || again == nil || !strings.Contains(again.Question.Rejected, "note") {
		t.Fatalf("rejected answer: %q, %+v, %v", state, again, err)
	}
	if req.Approval != nil {
		t.Error("Journal changed the caller's request")
	}
	state, again, err = d.Journal(t.Context(), p, req, answer(`{"action":"accept","content":{"approve":true}}`))
	if err != nil || state == "" || again != nil {
		t.Fatalf("accepted answer: %q, %+v, %v", state, again, err)
	}
	res, err := e.Run(t.Context(), p, &flow.Request{State: state})
	if err != nil || res.Complete == nil || res.Complete.Content[0].(*mcp.TextContent).Text != "approved by Grace" {
		t.Fatalf("the round after: %+v, %v", res, err)
	}
	if got := strings.Join(w.seen, " "); got != "journal:approval journal:detached" {
		t.Errorf("observed %q", got)
	}
	// A state that waits for no approval has none to journal.
	if _, _, err := d.Journal(t.Context(), p, &flow.Request{State: state}, answer(`{"action":"decline"}`)); err == nil {
		t.Error("journaled an answer into a run that waits for none")
	}
}

func newEngine(t *testing.T) *flow.Engine {
	t.Helper()
	e, err := flow.NewEngine(flow.EngineOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

type answerFunc func(context.Context, *flow.InputRequired) (map[string]json.RawMessage, error)

func (f answerFunc) Answer(ctx context.Context, in *flow.InputRequired) (map[string]json.RawMessage, error) {
	return f(ctx, in)
}

// observeFunc sees the request of every round.
type observeFunc func(*flow.Request)

func (f observeFunc) StartRound(ctx context.Context, req *flow.Request) context.Context {
	f(req)
	return ctx
}

func (f observeFunc) EndRound(*flow.Request, *flow.Result, error) {}
