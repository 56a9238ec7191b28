package serve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/flowserve/flowserve/approvals"
	"github.com/flowserve/flowserve/flow"
	"github.com/flowserve/flowserve/serve/internal/wire"
	"github.com/flowserve/flowserve/tasks"
)

// A caller without tasks (a session client, or a 2026-07-28 client that
// did not declare the extension) waits for an approval inside its call:
// the run is kept as a task no client sees, whose page takes the answer
// as any other's, and the call polls the store for it, telling the caller
// how it waits in progress notifications, up to Options.MaxWait. It then
// ends with an error result; when the ask has no webhook, the progress
// and the result carry the link, so the caller can pass it on (with a
// webhook, the link goes only there). The task goes on on a worker once
// the page is answered.

// tellFunc sends the caller a progress notification while its call
// waits. Nil sends none.
type tellFunc func(msg string, progress float64)

// waitLease is how long a waiting call's hold on its approval lasts
// between two looks at the store: a call that stops looking (its process
// died) leaves the answer and the timeout to the workers after it.
func (s *Server) waitLease() time.Duration { return max(3*s.opts.PollInterval, 2*time.Second) }

// waitInline waits inside the call for the answer to ap, the approval the
// call's round fr reached. It returns the state the run goes on from, or,
// when nobody answered within Options.MaxWait, the error result that ends
// the call.
func (s *Server) waitInline(ctx context.Context, p *flow.Program, fr *flow.Request, ap *flow.Approval, o origin, tell tellFunc) (string, *flow.ToolResult, error) {
	if !s.pagesServed.Load() {
		return "", flowErrorResult(fmt.Sprintf("The %s tool asks %s to answer on a page this server serves over HTTP; serve it over HTTP (flowserve serve --http) to use it.", p.Name(), ap.To)), nil
	}
	t, err := s.newTask(ctx, p, fr, &flow.Detached{State: ap.State}, ap, o, true)
	if err != nil {
		return "", nil, err
	}
	a := t.Approval
	start := s.engine.Now()
	lastTold := time.Time{}
	tick := time.NewTicker(s.opts.PollInterval)
	defer tick.Stop()
	for {
		now := s.engine.Now()
		if tell != nil && now.Sub(lastTold) >= 5*time.Second {
			lastTold = now
			// Between the progress of the steps before the approval
			// and of those after it (see progressHook).
			waited := min(float64(now.Sub(start))/float64(s.opts.MaxWait), 0.99)
			tell(fmt.Sprintf("waiting for %s to answer %q%s (until %s)", a.To, a.Node, s.linkFor(t), wire.Time(a.Expires)),
				float64(2*ap.Position+1)+waited)
		}
		select {
		case <-ctx.Done():
			s.release(t.ID, a.Key)
			return "", nil, ctx.Err()
		case <-tick.C:
		}
		state, done, err := s.lookInline(ctx, p, t, a, now.Sub(start) >= s.opts.MaxWait)
		switch {
		case err != nil:
			s.release(t.ID, a.Key)
			return "", nil, err
		case state != "":
			return state, nil, nil
		case done:
			return "", flowErrorResult(s.waitOverMessage(p, t)), nil
		}
	}
}

// waitOverMessage is the error result of a call that waited for approval
// a as long as it may. The link is in it only when the ask has no other
// channel, for the caller to pass on (see linkFor).
func (s *Server) waitOverMessage(p *flow.Program, t *tasks.Task) string {
	a := t.Approval
	until := a.Expires.UTC().Format(time.RFC1123)
	if !approvals.ToCaller(a.Webhook) {
		return fmt.Sprintf("The %s tool is waiting for %s to answer %q; the link was sent to them and works until %s. This call cannot wait longer. The run goes on when it is answered.",
			p.Name(), a.To, a.Node, until)
	}
	return fmt.Sprintf("The %s tool is waiting for %s to answer %q at %s (the link works until %s). This call cannot wait longer; pass the link on if they have not received it. The run goes on when it is answered.",
		p.Name(), a.To, a.Node, s.approvalLink(t), until)
}

// lookInline looks at the task a call waits for once: it returns the
// state to go on from when the approval was answered (or timed out, whose
// round it then runs), done when the call gives up (giveUp: its wait is
// over; the workers take the task from there), and otherwise renews the
// call's hold.
func (s *Server) lookInline(ctx context.Context, p *flow.Program, t *tasks.Task, a *tasks.Approval, giveUp bool) (state string, done bool, err error) {
	timedOut := false
	stored, err := s.tasks.Update(ctx, t.ID, func(t *tasks.Task) error {
		now := s.engine.Now()
		switch {
		case t.Status.Terminal():
			return errTaskEnded
		case t.Approval == nil || t.Approval.Key != a.Key:
			// Answered when this call's hold had lapsed: a worker has
			// the run.
			return errHandedOver
		case t.Approval.Answered:
			// Answered on the page: the state holds the answer.
			t.Approval = nil
			t.Status, t.Result, t.Message = tasks.Completed, json.RawMessage(inlineDone), ""
		case !t.Approval.Deadline.IsZero() && !now.Before(t.Approval.Deadline):
			timedOut = true
		case giveUp:
			t.Approval.Waiter = time.Time{}
		default:
			t.Approval.Waiter = now.Add(s.waitLease())
			return nil
		}
		t.Updated = now
		return nil
	})
	switch {
	case errors.Is(err, errTaskEnded):
		return "", false, fmt.Errorf("the task of the approval ended while the call waited for it")
	case errors.Is(err, errHandedOver):
		return "", false, err
	case err != nil:
		return "", false, err
	case timedOut:
		return s.timeoutInline(ctx, p, stored)
	case stored.Status == tasks.Completed:
		s.taskEntered(stored)
		return stored.State, false, nil
	}
	if giveUp && !stored.Approval.Deadline.IsZero() {
		// The timeout, if nobody answers, is now a worker's.
		return "", true, nil
	}
	return "", giveUp, nil
}

// errHandedOver ends a wait whose approval was answered after the call's
// hold lapsed: the run goes on on a worker, not in the call.
var errHandedOver = errors.New("the approval was answered after the call stopped holding it; the run goes on in the background")

// inlineDone is the result of a task whose run went on in the call that
// waited for its approval.
const inlineDone = `{"content":[{"type":"text","text":"The approval was answered; the run went on in the call that waited for it."}],"isError":false}`

// timeoutInline journals, for a waiting call, that nobody answered the
// approval t waits for in time, and returns the state to go on from.
func (s *Server) timeoutInline(ctx context.Context, p *flow.Program, t *tasks.Task) (string, bool, error) {
	a := t.Approval
	ans := approvals.Timeout(a.Node, s.engine.Now())
	next, _, err := s.approvalRound(ctx, p, t, ans)
	if err != nil {
		return "", false, err
	}
	stored, err := s.tasks.Update(ctx, t.ID, func(t *tasks.Task) error {
		if !waitsFor(t, a.Key) {
			return errNotWaiting
		}
		t.State, t.Approval = next, nil
		t.Status, t.Result, t.Message = tasks.Completed, json.RawMessage(inlineDone), ""
		t.Updated = s.engine.Now()
		return nil
	})
	if errors.Is(err, errNotWaiting) {
		// Answered on the page meanwhile: that answer stands.
		cur, err := s.tasks.Get(ctx, t.ID)
		if err != nil {
			return "", false, err
		}
		return s.lookInline(ctx, p, cur, a, false)
	}
	if err != nil {
		return "", false, err
	}
	s.metrics.Approvals.WithLabelValues(t.Tool, "timeout").Inc()
	s.log.Info("approval timed out", "task", t.ID, "tool", t.Tool, "ask", a.Node)
	s.taskEntered(stored)
	return stored.State, false, nil
}

// release gives up a call's hold on the approval of key that task id
// waits for: the call went away, and the task is left to the page and
// the workers.
func (s *Server) release(id, key string) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	answered := false
	_, err := s.tasks.Update(ctx, id, func(t *tasks.Task) error {
		answered = false
		if t.Status != tasks.Working || t.Approval == nil || t.Approval.Key != key {
			return nil
		}
		if t.Approval.Answered {
			// Answered for this call, which is gone: a worker goes on.
			t.Approval, answered = nil, true
			return nil
		}
		t.Approval.Waiter = time.Time{}
		return nil
	})
	if err != nil {
		s.log.Error("cannot hand an approval's task over to the workers", "task", id, "err", err)
		return
	}
	if answered {
		if err := s.tasks.Dispatch(ctx, id); err != nil {
			s.work.Redispatch(id, "")
		}
	}
}
