package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/flowserve/flowserve/actions"
	"github.com/flowserve/flowserve/flow"
	"github.com/flowserve/flowserve/serve/internal/wire"
	"github.com/flowserve/flowserve/serve/observe"
)

// The lean 2026-07-28 path. A 2026-07-28 tools/call is one POST and one
// response, and it is flowserve's hot path: the handler here decodes the
// body once (wire.Decode), makes the checks go-sdk's stateless handler
// makes of the headers, the body and _meta, in its order and with its
// codes and HTTP statuses, all but one (wire.Validate;
// TestDifferentialLeanPath sends every case through both), runs the
// round through modernRound, and writes the reply (wire.ServerInfo).
// prompts/get, which runs a prompt flow the same way, takes the same
// path. Every other request — discover, lists, subscriptions, malformed
// bodies, bodies the SDK would read otherwise than the lean decoder, and
// calls of names that are no flow's — goes on to the SDK's stateless
// handler unchanged.

// defaultMaxBody bounds request bodies when HTTPOptions does not.
const defaultMaxBody = 4 << 20

var bufPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// serveLean handles a POST that declares 2026-07-28 in its
// MCP-Protocol-Version header. fallback serves whatever it does not
// handle itself.
func (s *Server) serveLean(w http.ResponseWriter, r *http.Request, maxBody int64, fallback http.Handler) {
	if maxBody <= 0 {
		maxBody = defaultMaxBody
	}
	buf := bufPool.Get().(*bytes.Buffer)
	buf.Reset()
	defer bufPool.Put(buf)
	n, err := buf.ReadFrom(io.LimitReader(r.Body, maxBody+1))
	if err != nil {
		http.Error(w, "cannot read the request body", http.StatusBadRequest)
		return
	}
	if n > maxBody {
		http.Error(w, fmt.Sprintf("request body exceeds %d bytes", maxBody), http.StatusRequestEntityTooLarge)
		return
	}
	body := buf.Bytes()
	var req wire.Request
	if !wire.Decode(body, &req) {
		if wire.WriteParseError(w, body) {
			return
		}
		if req.Dup != nil {
			wire.WriteError(w, http.StatusBadRequest, wire.RequestID(body), req.Dup)
			return
		}
		if wire.WriteDuplicateError(w, body) {
			// A batch, or a message the lean path leaves to others.
			return
		}
		if wire.IsTasksMethod(req.Method) {
			s.serveTasks(w, r, body)
			return
		}
		// Not a tools/call or prompts/get the lean path reads as the SDK
		// does: the SDK answers it.
		passOn(w, r, body, fallback)
		return
	}
	p := s.leanProgram(&req)
	if p == nil {
		// Not a flow: a Go tool or prompt added to the go-sdk server, or
		// an unknown name; the SDK answers it as it would without the
		// lean path.
		passOn(w, r, body, fallback)
		return
	}
	if rpcErr := wire.Validate(r.Header, &req, p.InputSchema()); rpcErr != nil {
		wire.WriteError(w, wire.StatusOf(rpcErr.Code), req.ID, rpcErr)
		return
	}
	s.callLean(w, r, &req, p)
}

// leanProgram returns the flow a decoded request calls: the tool or
// prompt it names, or for a run in flight (a request state) of a flow a
// reload removed, the version it began on. Nil means the name is not a
// flow's, and the lean path passes the request on to the SDK.
func (s *Server) leanProgram(req *wire.Request) *flow.Program {
	prompt := req.Method == "prompts/get"
	lookup := s.program
	if prompt {
		lookup = s.prompt
	}
	if p, ok := lookup(req.Params.Name); ok {
		return p
	}
	if req.Params.RequestState != "" {
		return s.removedProgram(req.Params.Name, prompt)
	}
	return nil
}

// passOn hands a request whose body the lean path has read to next, with
// the body restored and the request's base URL in its context.
func passOn(w http.ResponseWriter, r *http.Request, body []byte, next http.Handler) {
	r.Body = io.NopCloser(bytes.NewReader(bytes.Clone(body)))
	r.ContentLength = int64(len(body))
	next.ServeHTTP(w, r.WithContext(withBase(r.Context(), requestBase(r))))
}

// callLean runs the round of p (nil: the request names no program) and
// writes the reply: JSON, or an SSE stream when the request carries a
// progress token (the progress notifications, then the reply).
func (s *Server) callLean(w http.ResponseWriter, r *http.Request, req *wire.Request, p *flow.Program) {
	if rpcErr := scopeRefusal(authenticated(r.Context()), p); rpcErr != nil {
		wire.WriteError(w, http.StatusForbidden, req.ID, rpcErr)
		return
	}
	ctx := r.Context()
	if s.opts.Host != nil {
		ctx = actions.WithHost(ctx, s.opts.Host)
	}
	fr := &flow.Request{
		Arguments: req.Params.Arguments,
		State:     req.Params.RequestState,
		Responses: req.Params.InputResponses,
		Client:    req.Client,
		Principal: requestPrincipal(r),
		Identity:  identityOf(authenticated(r.Context())),
	}
	o := origin{caller: s.callerName(r.Header, authenticated(r.Context())), base: s.opts.PublicURL, r: r, trace: leanTrace(req.Params.Meta)}
	var sse *wire.SSE
	token := wire.ProgressToken(req.Params.Meta)
	if token != nil && strings.Contains(r.Header.Get("Accept"), "text/event-stream") {
		sse = wire.NewSSE(w)
		fr.OnStep = s.progressHook(token, sse.Notify)
	}
	start, detach := p.StartTask(req.Client.Tasks, s.opts.MaxRounds, s.opts.TaskTTL)
	switch start {
	case flow.StartRefused:
		wire.WriteError(w, http.StatusBadRequest, req.ID, wire.MissingTasks(fmt.Sprintf(
			"the %s tool runs only as a task: the request must declare the %s extension", p.Name(), wire.TasksExtension)))
		return
	case flow.StartTask:
		s.writeNewTask(w, sse, req.ID, ctx, p, fr, nil, nil, o)
		return
	}
	fr.Detach = detach
	var tell tellFunc
	if sse != nil {
		tell = s.tellHook(token, sse.Notify)
	}
	res, rpcErr, err := s.modernRound(ctx, p, fr, o, tell)
	if err == nil && rpcErr == nil && (res.Detached != nil || res.Approval != nil) {
		s.writeNewTask(w, sse, req.ID, ctx, p, fr, res.Detached, res.Approval, o)
		return
	}
	switch {
	case err != nil:
		if errors.Is(err, context.Canceled) {
			return // the client went away
		}
		rpcErr = &jsonrpc.Error{Code: wire.CodeInternalError, Message: err.Error()}
		fallthrough
	case rpcErr != nil:
		wire.ReplyError(w, sse, wire.StatusOf(rpcErr.Code), req.ID, rpcErr)
		return
	}
	wire.Reply(w, sse, s.info.ResultMessage(req.ID, res))
}

// writeNewTask creates the task a call of p becomes (see newTask) and
// answers the call with its CreateTaskResult, on the SSE stream when one
// has started.
func (s *Server) writeNewTask(w http.ResponseWriter, sse *wire.SSE, id json.RawMessage, ctx context.Context, p *flow.Program, fr *flow.Request, d *flow.Detached, ap *flow.Approval, o origin) {
	t, err := s.newTask(ctx, p, fr, d, ap, o, false)
	if err != nil {
		rpcErr, status := s.taskStartError(p, err)
		wire.ReplyError(w, sse, status, id, rpcErr)
		return
	}
	msg, _ := wire.Response(id, s.createTaskResult(t))
	wire.Reply(w, sse, msg)
}

// leanTrace is the trace context a lean request's _meta carries.
func leanTrace(meta map[string]json.RawMessage) observe.TraceParent {
	tp, ts := wire.TraceContext(meta)
	return observe.TraceParent{Traceparent: tp, Tracestate: ts}
}
