package serve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/flowserve/flowserve/dsl"
	"github.com/flowserve/flowserve/flow"
	"github.com/flowserve/flowserve/serve/internal/wire"
	"github.com/flowserve/flowserve/tasks"
)

// The tasks extension (SEP-2663) on the 2026-07-28 wire (its messages:
// wire/tasks.go). A call becomes a
// task when its flow says it may (task: auto or required) and the client
// declared the extension on that request: a `task: required` flow at
// once, a `task: auto` flow when its run reaches a long step or would ask
// more rounds than Options.MaxRounds. The call is answered with a
// CreateTaskResult; from then on the run lives in the run store
// (Options.Tasks) and a worker (taskrun.go) advances it, and the client
// follows it with tasks/get, answers its questions with tasks/update and
// may end it with tasks/cancel.

// The defaults of the task options.
const (
	// DefaultTaskTTL is Options.TaskTTL when it is zero.
	DefaultTaskTTL = 24 * time.Hour
	// DefaultPollInterval is Options.PollInterval when it is zero.
	DefaultPollInterval = 500 * time.Millisecond
	// DefaultMaxRounds is Options.MaxRounds when it is zero.
	DefaultMaxRounds = flow.DefaultRoundBudget
	// DefaultTaskWorkers is Options.TaskWorkers when it is zero.
	DefaultTaskWorkers = 64
)

// taskMode is how p may run as a task.
func taskMode(p *flow.Program) dsl.TaskMode {
	if p.IsPrompt() {
		return dsl.TaskNever
	}
	return p.File().TaskMode()
}

// serveTasks answers a tasks/* request of the 2026-07-28 wire, making
// its checks in the order the extension's probes need: the headers
// against the body (-32020), _meta (-32602), the removed methods
// (-32601), the extension (-32021), then the task (-32602), and with
// OAuth the scopes of its flow (403, taskscope.go).
func (s *Server) serveTasks(w http.ResponseWriter, r *http.Request, body []byte) {
	req, rpcErr := wire.DecodeTasksRequest(body)
	if rpcErr != nil {
		wire.WriteError(w, http.StatusBadRequest, req.ID, rpcErr)
		return
	}
	if rpcErr := wire.CheckTasksHeaders(r.Header, req); rpcErr != nil {
		wire.WriteError(w, wire.StatusOf(rpcErr.Code), req.ID, rpcErr)
		return
	}
	client, rpcErr := wire.ReadClient(req.Params.Meta)
	if rpcErr != nil {
		wire.WriteError(w, wire.StatusOf(rpcErr.Code), req.ID, rpcErr)
		return
	}
	var (
		result any
		err    error
	)
	switch {
	case req.Method == wire.MethodTasksResult || req.Method == wire.MethodTasksList:
		err = &jsonrpc.Error{Code: wire.CodeMethodNotFound, Message: fmt.Sprintf("method %q does not exist in the tasks extension", req.Method)}
	case !client.Tasks:
		err = wire.MissingTasks(fmt.Sprintf("%s needs the %s extension, which this request does not declare", req.Method, wire.TasksExtension))
	case req.TaskID() == "":
		err = wire.InvalidParams("params.taskId is required")
	default:
		result, err = s.taskMethod(r.Context(), requestPrincipal(r), req)
	}
	if err != nil {
		s.writeTaskError(w, r, req.ID, err)
		return
	}
	b, merr := wire.Response(req.ID, result)
	if merr != nil {
		wire.WriteError(w, http.StatusInternalServerError, req.ID, &jsonrpc.Error{Code: wire.CodeInternalError, Message: merr.Error()})
		return
	}
	wire.WriteJSON(w, b)
}

// errUnknownTask answers a task id that does not exist, has expired, or
// belongs to another caller: the three are not told apart.
func errUnknownTask(id string) *jsonrpc.Error {
	return wire.InvalidParams(fmt.Sprintf("unknown task %q", id))
}

// taskMethod runs tasks/get, tasks/update or tasks/cancel for the caller
// principal. The task must be the caller's, and with OAuth, the token of
// the request must grant the scopes of the task's flow (taskScopes),
// checked before the task is read out or changed. Its errors are
// *jsonrpc.Error or *taskScopeError (writeTaskError).
func (s *Server) taskMethod(ctx context.Context, principal string, req *wire.TasksRequest) (any, error) {
	id := req.TaskID()
	if req.Method == wire.MethodTasksGet || authenticated(ctx) != nil {
		t, err := s.tasks.Get(ctx, id)
		if rpcErr := s.taskLookupError(id, principal, t, err); rpcErr != nil {
			return nil, rpcErr
		}
		if err := s.taskScopes(ctx, t); err != nil {
			return nil, err
		}
		if req.Method == wire.MethodTasksGet {
			return s.detailedTask(t), nil
		}
	}
	var (
		result any
		rpcErr *jsonrpc.Error
	)
	if req.Method == wire.MethodTasksUpdate {
		result, rpcErr = s.updateTask(ctx, id, principal, req.Params.InputResponses)
	} else {
		result, rpcErr = s.cancelTask(ctx, id, principal)
	}
	if rpcErr != nil {
		return nil, rpcErr
	}
	return result, nil
}

// taskLookupError is the error answering a lookup of task id by
// principal that gave t and err, or nil when t is the caller's.
func (s *Server) taskLookupError(id, principal string, t *tasks.Task, err error) *jsonrpc.Error {
	switch {
	case errors.Is(err, tasks.ErrNotFound), errors.Is(err, errNotCaller):
		return errUnknownTask(id)
	case err != nil:
		s.log.Error("task store", "task", id, "err", err)
		return &jsonrpc.Error{Code: wire.CodeInternalError, Message: "the task store cannot be read; try again"}
	case t.Principal != principal:
		return errUnknownTask(id)
	}
	return nil
}

// errNotCaller aborts an update of a task that is not the caller's.
var errNotCaller = errors.New("the task belongs to another caller")

// ack is the empty result of tasks/update and tasks/cancel.
type ack struct {
	ResultType string `json:"resultType"`
}

// updateTask takes answers to the task's outstanding input requests:
// each known key's answer is kept for the next round and its request
// removed, at once, so that tasks/get right after shows what is still
// outstanding; unknown and already-answered keys are ignored. When the
// last outstanding request is answered, the task goes back to working
// and to a worker.
func (s *Server) updateTask(ctx context.Context, id, principal string, responses map[string]json.RawMessage) (any, *jsonrpc.Error) {
	if normal, err := wire.Responses(responses); err == nil {
		responses = normal // as the call's answers reach the engine
	}
	resume := false
	t, err := s.tasks.Update(ctx, id, func(t *tasks.Task) error {
		resume = false
		if t.Principal != principal {
			return errNotCaller
		}
		if t.Status != tasks.InputRequired {
			return nil
		}
		for key, answer := range responses {
			if _, ok := t.Questions[key]; !ok {
				continue
			}
			var req struct {
				Method string `json:"method"`
			}
			json.Unmarshal(t.Requests[key], &req)
			if err := flow.CheckResponse(key, req.Method, answer); err != nil {
				return err // nothing of the update is kept
			}
		}
		for key, answer := range responses {
			q, ok := t.Questions[key]
			if !ok {
				continue
			}
			if t.Answers == nil {
				t.Answers = map[string]json.RawMessage{}
			}
			t.Answers[q] = answer
			delete(t.Requests, key)
			delete(t.Questions, key)
		}
		if len(t.Requests) == 0 {
			t.Status, t.Requests, t.Questions, t.Message = tasks.Working, nil, nil, ""
			t.Updated = s.engine.Now()
			resume = true
		}
		return nil
	})
	var re *flow.ResponseError
	if errors.As(err, &re) {
		return nil, wire.InvalidParams(re.Error())
	}
	if rpcErr := s.taskLookupError(id, principal, t, err); rpcErr != nil {
		return nil, rpcErr
	}
	if resume {
		s.taskEntered(t)
		if err := s.tasks.Dispatch(ctx, id); err != nil {
			s.log.Error("task not dispatched", "task", id, "err", err)
			return nil, &jsonrpc.Error{Code: wire.CodeInternalError, Message: "the answers are kept, but the task could not be resumed; send tasks/update again"}
		}
	}
	return ack{"complete"}, nil
}

// cancelTask ends a task that has not ended as cancelled, and stops the
// step it is running when it runs in this process (a worker elsewhere
// sees the status and stops its own). A task that has ended is left as
// it is: the same ack.
func (s *Server) cancelTask(ctx context.Context, id, principal string) (any, *jsonrpc.Error) {
	cancelled := false
	t, err := s.tasks.Update(ctx, id, func(t *tasks.Task) error {
		cancelled = false
		if t.Principal != principal {
			return errNotCaller
		}
		if t.Status.Terminal() {
			return nil
		}
		t.Status, t.Requests, t.Questions, t.Answers = tasks.Cancelled, nil, nil, nil
		t.Message = "cancelled by the client"
		t.Updated = s.engine.Now()
		cancelled = true
		return nil
	})
	if rpcErr := s.taskLookupError(id, principal, t, err); rpcErr != nil {
		return nil, rpcErr
	}
	if cancelled {
		s.taskEntered(t)
		s.work.Stop(id)
	}
	return ack{"complete"}, nil
}

// createTaskResult is the answer to the call that created t.
func (s *Server) createTaskResult(t *tasks.Task) wire.Task {
	return wire.CreateTaskResult(t, s.statusMessage(t), s.opts.PollInterval)
}

// detailedTask is the answer to tasks/get.
func (s *Server) detailedTask(t *tasks.Task) wire.Task {
	return wire.DetailedTask(t, s.statusMessage(t), s.opts.PollInterval)
}

// advertiseTasks adds the tasks extension to the capabilities server/discover
// reports over HTTP, the transport that serves tasks; a session's
// initialize does not report it (the extension is of the 2026-07-28 wire).
func advertiseTasks(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if dr, ok := res.(*mcp.DiscoverResult); ok && err == nil && dr.Capabilities != nil && headerOf(req) != nil {
			caps := *dr.Capabilities
			caps.Extensions = maps.Clone(caps.Extensions)
			caps.AddExtension(wire.TasksExtension, nil)
			dr.Capabilities = &caps
		}
		return res, err
	}
}

// refuseTaskOnly answers a call of a `task: required` flow that cannot
// become a task: the SDK's paths (stdio, and sessions) serve no tasks. A
// 2026-07-28 request gets -32021 naming the extension; a session client,
// whose protocol has no tasks, an error result saying so.
func (s *Server) refuseTaskOnly(p *flow.Program, modern bool) (*mcp.CallToolResult, error) {
	if modern {
		return nil, wire.MissingTasks(fmt.Sprintf("the %s tool runs only as a task (%s), which this server serves over HTTP", p.Name(), wire.TasksExtension))
	}
	return errorResult(fmt.Sprintf("The %s tool runs only as an MCP task, and this client's protocol version has no tasks: call it from a client that speaks 2026-07-28 with the %s extension.", p.Name(), wire.TasksExtension)), nil
}
