package serve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/flowserve/flowserve/actions"
	"github.com/flowserve/flowserve/flow"
	"github.com/flowserve/flowserve/serve/internal/wire"
	"github.com/flowserve/flowserve/serve/observe"
	"github.com/flowserve/flowserve/tasks"
)

// errTaskEnded stops a round whose task ended meanwhile (tasks/cancel).
var errTaskEnded = errors.New("the task has ended")

// advance runs one round of the task c claims, and stores what it gave:
// the workers' dispatch.Options.Run. ctx ends when Close stops the
// rounds.
func (s *Server) advance(ctx context.Context, c *tasks.Claim) {
	t, takenOver, err := s.own(ctx, c)
	switch {
	case errors.Is(err, tasks.ErrNotFound), errors.Is(err, errNotClaimable):
		c.Release()
		return
	case errors.Is(err, tasks.ErrCorrupt):
		// A record that does not decode does not heal: dispatching it
		// again would retry it forever.
		s.log.Error("task cannot be run: its record in the run store is damaged; it is not retried", "task", c.ID, "err", err)
		c.Release()
		return
	case err != nil:
		s.log.Error("cannot take a task from the run store; trying again later", "task", c.ID, "err", err)
		c.Release()
		s.work.Redispatch(c.ID, "")
		return
	}
	if takenOver {
		s.metrics.TaskTakeovers.WithLabelValues(t.Tool).Inc()
		s.log.Warn("task taken over from a worker that stopped mid-round; its unfinished step runs again",
			"task", t.ID, "tool", t.Tool, "takeovers", t.Takeovers)
	}
	p, ok := s.runProgram(ctx, t.Tool, t.Version)
	if !ok {
		s.settle(ctx, c, t, reply{rpcErr: &jsonrpc.Error{Code: wire.CodeInternalError,
			Message: fmt.Sprintf("the %s tool is no longer served, so its task cannot go on", t.Tool)}})
		return
	}
	if t.Approval != nil {
		// own let it through: its approval timed out.
		if t, err = s.timeoutApproval(ctx, c, t, p); err != nil {
			if !errors.Is(err, errNotWaiting) && !errors.Is(err, tasks.ErrNotOwner) && ctx.Err() == nil {
				s.log.Error("cannot take an approval's timeout; trying again later", "task", c.ID, "err", err)
				s.work.Redispatch(c.ID, c.Token)
			}
			c.Release()
			return
		}
	}
	r, err := s.runTaskRound(ctx, c, t, p)
	switch {
	case ctx.Err() != nil:
		return // Close: the claim stays for a takeover
	case errors.Is(err, errTaskEnded), errors.Is(err, tasks.ErrNotOwner):
		c.Release()
		return
	case r.cancelled != nil:
		// tasks/cancel stopped the round; the task is settled already.
		c.Release()
		return
	case errors.As(err, new(*checkpointError)):
		// The store failed mid-round: the round's outcome is not the
		// task's. It runs again, from its last stored state, once the
		// store answers.
		s.log.Error("cannot checkpoint a task; running its round again later", "task", t.ID, "tool", t.Tool, "err", err)
		c.Release()
		s.work.Redispatch(t.ID, c.Token)
		return
	}
	s.settle(ctx, c, t, r)
}

// errNotClaimable refuses a claim of a task that has nothing for a worker
// to do: it is not working, or it waits for an approval that has not
// timed out (or for which a call waits), as after a timeout scheduled
// for an approval answered since.
var errNotClaimable = errors.New("the task has nothing for a worker to do")

// own makes c the owner of its task if a worker has something to do
// with it (tasks.Own), in the same update that checks it, and reports
// whether c took the task over mid-round: a takeover of a task that had
// an owner. (A takeover of a claim that was waiting for a round when its
// process stopped (package dispatch) takes over no round.)
func (s *Server) own(ctx context.Context, c *tasks.Claim) (*tasks.Task, bool, error) {
	takenOver := false
	t, err := s.tasks.Update(ctx, c.ID, func(t *tasks.Task) error {
		takenOver = false
		switch a := t.Approval; {
		case t.Status != tasks.Working:
			return errNotClaimable
		case !c.Takeover && t.Owner != "":
			// A second dispatch of a task a worker runs now, such as
			// a timeout scheduled for an approval answered since.
			return errNotClaimable
		case a != nil && a.Answered && !a.Waiter.After(s.engine.Now()):
			// Answered for a call that stopped waiting: the state holds
			// the answer.
			t.Approval = nil
		case a != nil && !s.approvalDue(t):
			return errNotClaimable
		}
		takenOver = c.Takeover && t.Owner != ""
		t.Owner = c.Token
		t.Runs++
		if takenOver {
			t.Takeovers++
		}
		return nil
	})
	return t, takenOver, err
}

// checkpointError is a checkpoint the run store could not keep.
type checkpointError struct{ err error }

func (e *checkpointError) Error() string { return "store the task's checkpoint: " + e.err.Error() }
func (e *checkpointError) Unwrap() error { return e.err }

// runTaskRound runs the round of task t on p, with its answers; each step
// it runs is checkpointed in the store as it finishes.
func (s *Server) runTaskRound(ctx context.Context, c *tasks.Claim, t *tasks.Task, p *flow.Program) (reply, error) {
	rctx, done := s.work.Running(ctx, t.ID)
	defer done()
	s.metrics.TasksRunning.Inc()
	defer s.metrics.TasksRunning.Dec()

	if s.opts.Host != nil {
		rctx = actions.WithHost(rctx, s.opts.Host)
	}
	fr := &flow.Request{
		Arguments: t.Arguments,
		State:     t.State,
		Responses: t.Answers,
		Client:    flowClient(t.Client),
		Principal: t.Principal,
		Identity:  flowIdentity(t.Identity),
		StateTTL:  t.TTL,
		Task:      t.ID,
		Checkpoint: func(state string) error {
			_, err := tasks.UpdateOwned(ctx, s.tasks, c, func(t *tasks.Task) error {
				if t.Status != tasks.Working {
					return errTaskEnded
				}
				t.State, t.Updated = state, s.engine.Now()
				return nil
			})
			if err != nil && !errors.Is(err, errTaskEnded) && !errors.Is(err, tasks.ErrNotOwner) {
				return &checkpointError{err}
			}
			return err
		},
	}
	rounds := &callRounds{s: s, p: p, ctx: rctx, era: wire.Era20260728, label: wire.FirstModernVersion, rule: replyTask,
		o: origin{caller: "task " + t.ID, trace: observe.ParseTaskTrace(t.Trace)}}
	d := rounds.driver()
	out, err := d.Drive(rctx, p, fr) // one round: the driver has no one to go on with
	if err == nil {
		err = out.Err
	}
	if errors.Is(err, errTaskEnded) || errors.Is(err, tasks.ErrNotOwner) || errors.As(err, new(*checkpointError)) {
		return rounds.last, err
	}
	return rounds.last, nil
}

// settle stores what task t's round gave (in ctx, the workers' rounds),
// unless the task ended or was taken over meanwhile, and releases the
// claim: a tool result completes
// the task, a JSON-RPC error fails it, questions make it wait for
// tasks/update.
func (s *Server) settle(ctx context.Context, c *tasks.Claim, t *tasks.Task, r reply) {
	var apply func(*tasks.Task) error
	switch {
	case r.rpcErr != nil:
		b, err := json.Marshal(r.rpcErr)
		if err != nil {
			b = []byte(`{"code":-32603,"message":"the task failed"}`)
		}
		apply = func(t *tasks.Task) error {
			t.Status, t.Error = tasks.Failed, b
			return nil
		}
	case r.res.Input != nil:
		in := r.res.Input
		apply = func(t *tasks.Task) error { return s.askTask(t, in) }
	case r.res.Approval != nil:
		ap := r.res.Approval
		apply = func(t *tasks.Task) error { return s.awaitApproval(t, ap) }
	default:
		b, err := json.Marshal(wire.ToolResultBody(r.res.Complete))
		if err != nil {
			b, _ = json.Marshal(wire.ToolResultBody(flowErrorResult(fmt.Sprintf("encode the result: %v", err))))
		}
		apply = func(t *tasks.Task) error {
			t.Status, t.Result = tasks.Completed, b
			return nil
		}
	}
	stored, err := tasks.UpdateOwned(ctx, s.tasks, c, func(t *tasks.Task) error {
		if t.Status != tasks.Working {
			return errTaskEnded
		}
		t.Answers, t.Owner, t.Message = nil, "", ""
		t.Updated = s.engine.Now()
		return apply(t)
	})
	switch {
	case errors.Is(err, errTaskEnded), errors.Is(err, tasks.ErrNotOwner):
	case err != nil:
		// Not released: the store hands the claim over again and the
		// round runs again from its last checkpoint.
		s.log.Error("cannot store a task's round", "task", t.ID, "tool", t.Tool, "err", err)
		return
	default:
		s.taskEntered(stored)
		if stored.Approval != nil {
			s.approvalWaiting(ctx, stored)
		}
	}
	c.Release()
}
