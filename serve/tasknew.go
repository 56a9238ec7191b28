package serve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/flowserve/flowserve/flow"
	"github.com/flowserve/flowserve/serve/internal/wire"
	"github.com/flowserve/flowserve/tasks"
)

// A call becomes a task (newTask) when its flow may run as one and its
// client declared the extension, or when it waits inside itself for an
// approval; this file makes and counts tasks, and converts what they keep
// of the call. taskrun.go runs their rounds.

// askTask makes t wait for the answers to the questions of in: each gets
// a key unique over the task's life (its question id and the task's count
// of asking rounds).
func (s *Server) askTask(t *tasks.Task, in *flow.InputRequired) error {
	t.Asked++
	t.Status, t.State = tasks.InputRequired, in.State
	t.Requests = make(map[string]json.RawMessage, len(in.Requests))
	t.Questions = make(map[string]string, len(in.Requests))
	ids := make([]string, 0, len(in.Requests))
	for id := range in.Requests {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		b, err := wire.AppendInputRequest(nil, in.Requests[id])
		if err != nil {
			return err
		}
		key := fmt.Sprintf("%s-%d", id, t.Asked)
		t.Requests[key], t.Questions[key] = b, id
	}
	return nil
}

// newTask creates the task a call of p from o becomes: from the state the
// detached round d left, or the approval ap it reached, or, for a task:
// required flow, before any round (d and ap nil). A working task goes to
// a worker at once; one waiting for an approval waits for its page, or
// for the call itself when inline (approvalwait.go).
func (s *Server) newTask(ctx context.Context, p *flow.Program, fr *flow.Request, d *flow.Detached, ap *flow.Approval, o origin, inline bool) (*tasks.Task, error) {
	id, err := tasks.NewID()
	if err != nil {
		return nil, fmt.Errorf("mint task id: %w", err)
	}
	now := s.engine.Now()
	t := &tasks.Task{ID: id, Tool: p.Name(), Version: p.Version().String(), Principal: fr.Principal, Identity: taskIdentity(fr.Identity),
		Arguments: append(json.RawMessage(nil), fr.Arguments...), Client: taskClient(fr.Client),
		Status: tasks.Working, Created: now, Updated: now, TTL: s.opts.TaskTTL, Caller: o.caller, Base: o.baseURL(), Trace: o.trace.TaskTrace()}
	if ap != nil {
		if err := s.awaitApproval(t, ap); err != nil {
			return nil, err
		}
		if inline {
			t.Approval.Waiter = now.Add(s.waitLease())
		}
	} else if d != nil {
		t.State = d.State
		if d.Input != nil {
			if err := s.askTask(t, d.Input); err != nil {
				return nil, err
			}
		}
	}
	if err := s.tasks.CreateLimited(ctx, t, s.maxTasksPerCaller()); err != nil {
		if errors.Is(err, tasks.ErrTooMany) {
			return nil, &tooManyTasks{s.maxTasksPerCaller()}
		}
		return nil, fmt.Errorf("store the task: %w", err)
	}
	s.taskEntered(t)
	if t.Approval != nil {
		s.approvalWaiting(ctx, t)
	} else if t.Status == tasks.Working {
		if err := s.tasks.Dispatch(ctx, id); err != nil {
			return nil, fmt.Errorf("dispatch the task: %w", err)
		}
	}
	return t, nil
}

// maxTasksPerCaller is the most open tasks one caller may have, as
// CreateLimited takes it: Options.MaxTasksPerCaller, or
// DefaultMaxTasksPerCaller when that is zero; 0 (no limit) when it is
// negative.
func (s *Server) maxTasksPerCaller() int {
	switch n := s.opts.MaxTasksPerCaller; {
	case n == 0:
		return DefaultMaxTasksPerCaller
	case n < 0:
		return 0
	default:
		return n
	}
}

// tooManyTasks refuses a task to a caller who has as many open tasks as
// Options.MaxTasksPerCaller allows: working, waiting for answers, or
// waiting for an approval (a call of a client without tasks that waits
// for one inside itself counts too).
type tooManyTasks struct{ limit int }

func (e *tooManyTasks) Error() string {
	return fmt.Sprintf("this caller has %d open tasks, the most --max-tasks-per-caller allows; wait for one to end or cancel one", e.limit)
}

func (e *tooManyTasks) Unwrap() error { return tasks.ErrTooMany }

// taskStartError is the JSON-RPC error, and the HTTP status, answering a
// call of p whose task newTask could not create with err. A caller over
// its limit gets -32000, the code of the server's other refusals that a
// caller may retry later (wire.CodeServerBusy): its request is valid, so not
// -32602, and nothing failed on the server, so not -32603.
func (s *Server) taskStartError(p *flow.Program, err error) (*jsonrpc.Error, int) {
	var many *tooManyTasks
	if errors.As(err, &many) {
		s.log.Info("task refused: the caller has too many open tasks", "tool", p.Name(), "max", many.limit)
		data, _ := json.Marshal(map[string]int{"maxTasksPerCaller": many.limit})
		return &jsonrpc.Error{Code: wire.CodeServerBusy, Message: many.Error(), Data: data}, http.StatusOK
	}
	s.log.Error("cannot create a task", "tool", p.Name(), "err", err)
	return &jsonrpc.Error{Code: wire.CodeInternalError, Message: fmt.Sprintf("the %s tool could not start its task: %v", p.Name(), err)},
		http.StatusInternalServerError
}

// taskEntered records that t entered its status: a metric and a log line
// per transition.
func (s *Server) taskEntered(t *tasks.Task) {
	s.metrics.Tasks.WithLabelValues(t.Tool, string(t.Status)).Inc()
	if t.Status.Terminal() {
		s.metrics.TaskAge.WithLabelValues(string(t.Status)).Observe(t.Updated.Sub(t.Created).Seconds())
	}
	s.log.Info("task", "task", t.ID, "tool", t.Tool, "status", string(t.Status), "runs", t.Runs)
}

// taskClient and flowClient convert what a caller declared to and from
// its stored form.
func taskClient(c flow.Client) tasks.Client {
	return tasks.Client{Name: c.Name, Version: c.Version, Protocol: c.Protocol, Form: c.Form, URL: c.URL, Sampling: c.Sampling, Roots: c.Roots}
}

// taskIdentity is how a task keeps the identity of its caller.
func taskIdentity(id *flow.Identity) *tasks.Identity {
	if id == nil {
		return nil
	}
	return &tasks.Identity{Subject: id.Subject, Scopes: id.Scopes, Claims: id.Claims}
}

// flowIdentity is the identity a task's rounds run with.
func flowIdentity(id *tasks.Identity) *flow.Identity {
	if id == nil {
		return nil
	}
	return &flow.Identity{Subject: id.Subject, Scopes: id.Scopes, Claims: id.Claims}
}

func flowClient(c tasks.Client) flow.Client {
	return flow.Client{Name: c.Name, Version: c.Version, Protocol: c.Protocol, Form: c.Form, URL: c.URL, Sampling: c.Sampling, Roots: c.Roots, Tasks: true}
}
