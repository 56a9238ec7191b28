package drive

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/flowserve/flowserve/flow"
)

// Answerer answers the questions of a round that ended asking the caller
// (flow.Result.Input): the MCP client of a session, a person at a
// terminal, a test case.
type Answerer interface {
	// Answer returns the answers to in's questions, keyed by question id,
	// each an elicitation, sampling or roots result as JSON. An error ends
	// Drive with it.
	Answer(ctx context.Context, in *flow.InputRequired) (map[string]json.RawMessage, error)
}

// JournalFunc runs the round that journals ans, an answer to the approval
// the run waits for (or its timeout). It returns the state the run goes on
// from, or, when the answer was not accepted (the form or its validate
// rules refuse it), the approval asked again, whose Question.Rejected says
// why.
type JournalFunc func(ctx context.Context, ans *flow.ApprovalAnswer) (state string, again *flow.Approval, err error)

// Approver gets the answers to the approvals a run reaches
// (flow.Result.Approval): from a page, a person at a terminal, a test case.
type Approver interface {
	// Approve gets the answer to ap and has journal run the round that
	// journals it, again after an answer that was not accepted, until one
	// is; it returns the state that round gave. An Approver whose answer
	// is journaled elsewhere (a page served by another request, which runs
	// Driver.Journal) returns the state that journaling gave instead. An
	// error ends Drive with it.
	Approve(ctx context.Context, ap *flow.Approval, journal JournalFunc) (state string, err error)
}

// Observer watches the rounds a Driver runs, those that journal approvals
// included: serve traces, logs and counts them, flowserve test records
// their paths.
type Observer interface {
	// StartRound is called before each round with its request, which it
	// may add to (Stats, say); the round runs in the context it returns.
	StartRound(ctx context.Context, req *flow.Request) context.Context
	// EndRound is called after each round with its request and its result
	// or error.
	EndRound(req *flow.Request, res *flow.Result, err error)
}

// ErrRoundLimit is wrapped by the error of a Drive that ran
// Driver.MaxRounds rounds and the run still went on.
var ErrRoundLimit = errors.New("the run did not end within its round limit")

// Driver runs a flow's rounds until the run ends or needs someone the
// Driver has not been given. The zero values of its optional fields
// leave their part to the caller of Drive. A Driver is cheap: make one
// per call.
type Driver struct {
	// Engine runs the rounds.
	Engine *flow.Engine
	// Answerer answers the questions rounds end with; nil returns them.
	Answerer Answerer
	// Approver answers the approvals rounds end with; nil returns them.
	Approver Approver
	// Observer, when set, sees every round.
	Observer Observer
	// MaxRounds bounds the rounds of one Drive, those that journal
	// approvals included; 0 means no bound.
	MaxRounds int
	// RunTasks makes Drive go on with a run that detached into a task
	// (flow.Result.Detached), as the task's rounds would: without
	// Request.Detach, its questions, if any, to the Answerer. Without it,
	// Drive returns the detached round (a server stores the task).
	RunTasks bool
}

// Outcome is how a Drive ended.
type Outcome struct {
	// Result is the last round's result: Complete or Prompt when the run
	// is over; Input, Approval or Detached when it waits for someone the
	// Driver was not given. Nil when the round failed.
	Result *flow.Result
	// Err is the error the last round ended with, as the engine gave it
	// (a failed run, an invalid request, a cancelled context).
	Err error
	// Rounds counts the rounds that ran, those that journal approvals
	// included.
	Rounds int
}

// Drive runs p's rounds from req until the run ends (Outcome.Result or
// Outcome.Err) or needs an Answerer or Approver the Driver has not been
// given (Outcome.Result holds what it waits for). req is the first
// round's request; Drive sets its State, Responses and Detach for the
// rounds after it. The error is the Answerer's or the Approver's, or
// wraps ErrRoundLimit; the Outcome is valid with it (Rounds).
func (d *Driver) Drive(ctx context.Context, p *flow.Program, req *flow.Request) (Outcome, error) {
	var out Outcome
	for {
		if err := d.count(&out.Rounds); err != nil {
			return out, err
		}
		res, err := d.round(ctx, p, req)
		out.Result, out.Err = res, err
		if err != nil {
			return out, nil
		}
		more, err := d.next(ctx, p, req, res, &out.Rounds)
		if err != nil || !more {
			return out, err
		}
	}
}

// next readies req for the round after res and reports whether there is
// one the Driver can run.
func (d *Driver) next(ctx context.Context, p *flow.Program, req *flow.Request, res *flow.Result, rounds *int) (bool, error) {
	switch {
	case res.Approval != nil:
		if d.Approver == nil {
			return false, nil
		}
		// Made here, so that only runs with approvals allocate it; it
		// holds a copy of req, which an Approver may journal with after
		// Approve returned (a late answer from a page).
		j := &journaler{d: *d, p: p, base: *req, state: res.Approval.State, rounds: *rounds}
		state, err := d.Approver.Approve(ctx, res.Approval, j.journal)
		*rounds = j.rounds
		if err != nil {
			return false, err
		}
		// The call waited for the approval, or became a task that did:
		// it no longer detaches.
		req.State, req.Responses, req.Detach = state, nil, nil
		return true, nil
	case res.Detached != nil:
		if !d.RunTasks {
			return false, nil
		}
		req.Detach = nil
		if res.Detached.Input == nil {
			req.State, req.Responses = res.Detached.State, nil
			return true, nil
		}
		return d.answer(ctx, req, res.Detached.Input)
	case res.Input != nil:
		return d.answer(ctx, req, res.Input)
	}
	return false, nil
}

// answer has the Answerer answer in and readies req for the round that
// takes the answers.
func (d *Driver) answer(ctx context.Context, req *flow.Request, in *flow.InputRequired) (bool, error) {
	if d.Answerer == nil {
		return false, nil
	}
	answers, err := d.Answerer.Answer(ctx, in)
	if err != nil {
		return false, err
	}
	req.State, req.Responses = in.State, answers
	return true, nil
}

// count counts a round about to run against MaxRounds.
func (d *Driver) count(rounds *int) error {
	if d.MaxRounds > 0 && *rounds >= d.MaxRounds {
		return fmt.Errorf("%w: %d rounds ran", ErrRoundLimit, *rounds)
	}
	*rounds++
	return nil
}

// round runs one round of req, seen by the Observer.
func (d *Driver) round(ctx context.Context, p *flow.Program, req *flow.Request) (*flow.Result, error) {
	if d.Observer != nil {
		ctx = d.Observer.StartRound(ctx, req)
	}
	res, err := d.Engine.Run(ctx, p, req)
	if d.Observer != nil {
		d.Observer.EndRound(req, res, err)
	}
	return res, err
}

// journaler journals the answers to an approval a Drive reached, whose
// waiting state is state: its rounds count against MaxRounds. Every
// answer journals from that state, as a server's page does: an answer
// not accepted leaves the run where it waited.
type journaler struct {
	d      Driver
	p      *flow.Program
	base   flow.Request
	state  string
	rounds int
}

// journal is the approval's JournalFunc.
func (j *journaler) journal(ctx context.Context, ans *flow.ApprovalAnswer) (string, *flow.Approval, error) {
	if err := j.d.count(&j.rounds); err != nil {
		return "", nil, err
	}
	return j.d.journal(ctx, j.p, &j.base, j.state, ans)
}

// Journal runs the round of p that journals ans, the answer to the
// approval the run of req.State waits for (or its timeout): the round runs
// with req's arguments, client and caller, without its Responses and
// Detach; req itself is not changed. It returns the state the run goes on
// from, or, when the answer was not accepted, the approval asked again
// (Question.Rejected says why). The round is the Observer's like any
// other; it does not count against MaxRounds.
func (d *Driver) Journal(ctx context.Context, p *flow.Program, req *flow.Request, ans *flow.ApprovalAnswer) (state string, again *flow.Approval, err error) {
	return d.journal(ctx, p, req, req.State, ans)
}

// journal is Journal from state.
func (d *Driver) journal(ctx context.Context, p *flow.Program, base *flow.Request, state string, ans *flow.ApprovalAnswer) (string, *flow.Approval, error) {
	req := *base
	req.State, req.Responses, req.Detach, req.Approval = state, nil, nil, ans
	res, err := d.round(ctx, p, &req)
	switch {
	case err != nil:
		return "", nil, err
	case res.Approval != nil:
		return "", res.Approval, nil
	case res.Detached == nil:
		return "", nil, fmt.Errorf("the round of the approval %q ended without its state", ans.Node)
	}
	return res.Detached.State, nil, nil
}
