package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/flowserve/flowserve/actions"
	"github.com/flowserve/flowserve/flow"
	"github.com/flowserve/flowserve/internal/jsonx"
)

// The lean 2026-07-28 path. A 2026-07-28 tools/call is one POST and one
// response, and it is flowserve's hot path: the handler here decodes the
// body once, makes the checks go-sdk's stateless handler makes of the
// headers, the body and _meta, in its order and with its codes and HTTP
// statuses, all but one (see validateLean; TestDifferentialLeanPath sends
// every case through both), runs the round through modernRound, and
// writes the reply. prompts/get,
// which runs a prompt flow the same way, takes the same path. Every other
// request — discover, lists, subscriptions, malformed bodies, and bodies
// the SDK would read otherwise than the lean decoder (decodeLeanRequest) —
// goes on to the SDK's stateless handler unchanged.

// leanRequest is the part of a JSON-RPC request the lean path reads.
type leanRequest struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  *leanParams     `json:"params"`

	// client is the client _meta describes, once validateLean has read it.
	client flow.Client
	// dup, when decoding stopped at a member that repeats, is the error
	// refusing the request (see readTargets).
	dup *jsonrpc.Error
}

// leanParams are tools/call (or prompts/get) params, with the answers
// kept raw (but those asSDK re-encodes): the engine decodes each one
// itself and answers a malformed one with -32602.
type leanParams struct {
	Meta           map[string]json.RawMessage `json:"_meta"`
	Name           string                     `json:"name"`
	Arguments      json.RawMessage            `json:"arguments"`
	InputResponses map[string]json.RawMessage `json:"inputResponses"`
	RequestState   string                     `json:"requestState"`
}

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
	var req leanRequest
	if !decodeLeanRequest(body, &req) {
		if writeParseError(w, body) {
			return
		}
		if req.dup != nil {
			writeRPCError(w, http.StatusBadRequest, requestID(body), req.dup)
			return
		}
		if writeDuplicateError(w, body) {
			// A batch, or a message the lean path leaves to others.
			return
		}
		if isTasksMethod(req.Method) {
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
	rpcErr := s.validateLean(r.Header, &req, p)
	if rpcErr != nil {
		writeRPCError(w, statusOf(rpcErr.Code), req.ID, rpcErr)
		return
	}
	s.callLean(w, r, &req, p)
}

// decodeLeanRequest decodes body into req and reports whether the lean
// path serves it: a well-formed tools/call or prompts/get with params and
// an id, whose envelope go-sdk reads as decodeLean does. It is not when
// the SDK would read it otherwise (nested deeper than the SDK allows, an
// id it would not echo as sent: leanID), nor when a member repeats
// (req.dup then says which: see readTargets). The answers and a prompt's arguments are brought into the SDK's
// form later (leanParams.asSDK).
func decodeLeanRequest(body []byte, req *leanRequest) bool {
	return withinSDKDepth(body) && decodeLean(body, req) == nil && req.JSONRPC == "2.0" &&
		leanMethod(req.Method) && leanID(req.ID) && req.Params != nil
}

// leanMethod reports whether the lean path serves method: the requests
// that run a flow.
func leanMethod(method string) bool {
	return method == "tools/call" || method == "prompts/get"
}

// validateLean makes the SDK's checks of a request's headers and _meta
// for a call of p (see leanProgram; nil checks the headers of a call of
// no flow), in its order, and returns the error
// the SDK answers, or nil:
//
//  1. the MCP-Protocol-Version header is there, _meta names a version,
//     and they agree;
//  2. Mcp-Method is there and is the method, Mcp-Name is there and is the
//     name; for a tools/call, each Mcp-Param-* header
//     matches its argument (all -32020);
//  3. clientInfo, when present, and clientCapabilities decode into the
//     SDK's types (-32602);
//  4. the version is one this server speaks (-32022).
//
// It leaves req's arguments and answers as the engine gets them on the
// SDK's path (see asSDK).
//
// One check of the SDK's is not made: it decodes the params into its
// types to read the name, and answers params they cannot hold (an answer
// that is no elicitation, sampling or roots result, a prompt argument
// that is not a string) with -32020, a header mismatch, where its own
// stdio path answers -32602. The lean path hands such params to the
// engine, which answers -32602 naming the member when the flow needs it
// and ignores an extra answer (TestDifferentialLeanPath lists these
// cases as known divergences).
func (s *Server) validateLean(h http.Header, req *leanRequest, p *flow.Program) *jsonrpc.Error {
	headerVersion := h.Get("Mcp-Protocol-Version")
	var metaVersion string
	if raw, ok := req.Params.Meta[metaProtocolVersion]; ok {
		metaVersion = metaString(raw)
	}
	switch {
	case headerVersion == "":
		return &jsonrpc.Error{Code: codeHeaderMismatch,
			Message: fmt.Sprintf("Mcp-Protocol-Version header is required for requests carrying %q", metaProtocolVersion)}
	case metaVersion == "":
		return &jsonrpc.Error{Code: codeInvalidParams,
			Message: fmt.Sprintf("missing or invalid _meta field %q", metaProtocolVersion)}
	case headerVersion != metaVersion:
		return &jsonrpc.Error{Code: codeHeaderMismatch,
			Message: fmt.Sprintf("Mcp-Protocol-Version header %q does not match request %s %q", headerVersion, metaProtocolVersion, metaVersion)}
	}
	switch m := h.Get("Mcp-Method"); {
	case m == "":
		return &jsonrpc.Error{Code: codeHeaderMismatch, Message: "missing required Mcp-Method header"}
	case m != req.Method:
		return &jsonrpc.Error{Code: codeHeaderMismatch,
			Message: fmt.Sprintf("header mismatch: Mcp-Method header value '%s' does not match body value '%s'", m, req.Method)}
	}
	n := h.Get("Mcp-Name")
	if n == "" {
		return &jsonrpc.Error{Code: codeHeaderMismatch, Message: fmt.Sprintf("missing required Mcp-Name header for method %q", req.Method)}
	}
	if n != req.Params.Name {
		return &jsonrpc.Error{Code: codeHeaderMismatch,
			Message: fmt.Sprintf("header mismatch: Mcp-Name header value '%s' does not match body value '%s'", n, req.Params.Name)}
	}
	req.Params.asSDK(req.Method)
	if p != nil && req.Method == "tools/call" {
		if rpcErr := paramHeaderError(h, p.InputSchema(), req.Params.Arguments); rpcErr != nil {
			return rpcErr
		}
	}
	client, rpcErr := readClient(req.Params.Meta)
	if rpcErr != nil {
		return rpcErr
	}
	req.client = client
	if metaVersion != firstModernVersion {
		data, _ := json.Marshal(map[string]any{"supported": s.supportedVersions(), "requested": metaVersion})
		return &jsonrpc.Error{Code: codeUnsupportedVersion,
			Message: fmt.Sprintf("protocol version %q is not supported by this server", metaVersion), Data: data}
	}
	return nil
}

// leanProgram returns the flow a decoded request calls: the tool or
// prompt it names, or for a run in flight (a request state) of a flow a
// reload removed, the version it began on. Nil means the name is not a
// flow's, and the lean path passes the request on to the SDK.
func (s *Server) leanProgram(req *leanRequest) *flow.Program {
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

// asSDK turns the arguments of a prompt and the answers into what the
// engine gets from them on the SDK's path, where they are decoded into
// the SDK's types and encoded again (so the engine gets the same on every
// transport). What those types cannot hold is left as it is, for the
// engine to judge.
func (p *leanParams) asSDK(method string) {
	if method == "prompts/get" {
		if args, err := leanPromptArguments(p.Arguments); err == nil {
			p.Arguments = args
		}
	}
	if p.InputResponses != nil {
		if responses, err := leanResponses(p.InputResponses); err == nil {
			p.InputResponses = responses
		}
	}
}

// supportedVersions lists the protocol versions this server speaks.
func (s *Server) supportedVersions() []string {
	return mcp.SupportedProtocolVersions()
}

// callLean runs the round of p (nil: the request names no program) and
// writes the reply: JSON, or an SSE stream when the request carries a
// progress token (the progress notifications, then the reply).
func (s *Server) callLean(w http.ResponseWriter, r *http.Request, req *leanRequest, p *flow.Program) {
	if rpcErr := scopeRefusal(authenticated(r.Context()), p); rpcErr != nil {
		writeRPCError(w, http.StatusForbidden, req.ID, rpcErr)
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
		Client:    req.client,
		Principal: requestPrincipal(r),
		Identity:  identityOf(authenticated(r.Context())),
	}
	o := origin{caller: s.callerName(r.Header, authenticated(r.Context())), base: s.opts.PublicURL, r: r, trace: leanTraceParent(req.Params.Meta)}
	var sse *sseWriter
	token := leanProgressToken(req.Params.Meta)
	if token != nil && strings.Contains(r.Header.Get("Accept"), "text/event-stream") {
		sse = &sseWriter{w: w}
		fr.OnStep = s.progressHook(token, sse.notify)
	}
	start, detach := p.StartTask(req.client.Tasks, s.opts.MaxRounds, s.opts.TaskTTL)
	switch start {
	case flow.StartRefused:
		writeRPCError(w, http.StatusBadRequest, req.ID, missingTasks(fmt.Sprintf(
			"the %s tool runs only as a task: the request must declare the %s extension", p.Name(), tasksExtension)))
		return
	case flow.StartTask:
		s.writeNewTask(w, sse, req.ID, ctx, p, fr, nil, nil, o)
		return
	}
	fr.Detach = detach
	var tell tellFunc
	if sse != nil {
		tell = s.tellHook(token, sse.notify)
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
		rpcErr = &jsonrpc.Error{Code: codeInternalError, Message: err.Error()}
		fallthrough
	case rpcErr != nil:
		if sse != nil && sse.started {
			sse.event(rpcErrorMessage(req.ID, rpcErr))
			return
		}
		writeRPCError(w, statusOf(rpcErr.Code), req.ID, rpcErr)
		return
	}
	msg := s.resultMessage(req.ID, res)
	if sse != nil && sse.started {
		sse.event(msg)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	w.Write(msg)
}

// writeNewTask creates the task a call of p becomes (see newTask) and
// answers the call with its CreateTaskResult, on the SSE stream when one
// has started.
func (s *Server) writeNewTask(w http.ResponseWriter, sse *sseWriter, id json.RawMessage, ctx context.Context, p *flow.Program, fr *flow.Request, d *flow.Detached, ap *flow.Approval, o origin) {
	t, err := s.newTask(ctx, p, fr, d, ap, o, false)
	var msg []byte
	if err != nil {
		rpcErr, status := s.taskStartError(p, err)
		if sse == nil || !sse.started {
			writeRPCError(w, status, id, rpcErr)
			return
		}
		msg = rpcErrorMessage(id, rpcErr)
	} else {
		msg, _ = json.Marshal(struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Result  taskJSON        `json:"result"`
		}{"2.0", id, s.createTaskResult(t)})
	}
	if sse != nil && sse.started {
		sse.event(msg)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	w.Write(msg)
}

// decodeLean decodes a request body in one pass (jsonx.Members), keeping
// the members it does not read as raw slices of the body: answers go to
// the engine as they came, and requestState is never copied twice.
// Repeated members count as their last value, as in the SDK's decoding,
// except _meta, whose repeats are merged as the SDK merges them, and
// arguments, which the lean path does not take twice. Anything it does
// not accept, it leaves to the SDK.
func decodeLean(body []byte, req *leanRequest) error {
	str := func(raw []byte, dst *string) error {
		s, ok := leanString(raw)
		if !ok {
			return errNotLean
		}
		*dst = s
		return nil
	}
	var envelope memberSet
	return jsonx.Fields(body, func(k, raw []byte) error {
		if envelope.add(envelopeNames[:], k) {
			req.dup = duplicateError(k, false)
			return errDuplicate
		}
		switch string(k) {
		case "jsonrpc":
			return str(raw, &req.JSONRPC)
		case "id":
			req.ID = raw
		case "method":
			return str(raw, &req.Method)
		case "params":
			if string(raw) == "null" {
				return errNotLean
			}
			p := &leanParams{}
			req.Params = p
			var members memberSet
			return jsonx.Fields(raw, func(k, raw []byte) error {
				if members.add(paramsNames[:], k) {
					req.dup = duplicateError(k, true)
					return errDuplicate
				}
				switch string(k) {
				case "_meta":
					if p.Meta == nil {
						p.Meta = map[string]json.RawMessage{}
					}
					return jsonx.Fields(raw, func(k, raw []byte) error {
						p.Meta[metaKey(k)] = raw
						return nil
					})
				case "name":
					return str(raw, &p.Name)
				case "arguments":
					p.Arguments = raw
				case "inputResponses":
					if string(raw) == "null" {
						p.InputResponses = nil
						return nil
					}
					p.InputResponses = map[string]json.RawMessage{}
					return jsonx.Members(raw, func(k string, raw []byte) error {
						p.InputResponses[k] = raw
						return nil
					})
				case "requestState":
					if string(raw) == "null" {
						return nil
					}
					return str(raw, &p.RequestState)
				}
				return nil
			})
		}
		return nil
	})
}

// errNotLean marks a body the lean path leaves to the SDK.
var errNotLean = errors.New("not a request the lean path serves")

// statusOf is the HTTP status of a 2026-07-28 JSON-RPC error, as the SDK
// sets it (SEP-2575).
func statusOf(code int64) int {
	switch code {
	case codeMethodNotFound:
		return http.StatusNotFound
	case codeInvalidParams, codeUnsupportedVersion, codeMissingCapability, codeHeaderMismatch:
		return http.StatusBadRequest
	}
	return http.StatusOK
}

func rpcErrorMessage(id json.RawMessage, e *jsonrpc.Error) []byte {
	b, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   *jsonrpc.Error  `json:"error"`
	}{"2.0", id, e})
	return b
}

func writeRPCError(w http.ResponseWriter, status int, id json.RawMessage, e *jsonrpc.Error) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(rpcErrorMessage(id, e))
}

// sseWriter streams a reply as server-sent events, starting the stream
// with the first notification.
type sseWriter struct {
	mu      sync.Mutex
	w       http.ResponseWriter
	started bool
}

func (s *sseWriter) notify(p *mcp.ProgressNotificationParams) error {
	b, err := json.Marshal(struct {
		JSONRPC string                          `json:"jsonrpc"`
		Method  string                          `json:"method"`
		Params  *mcp.ProgressNotificationParams `json:"params"`
	}{"2.0", "notifications/progress", p})
	if err != nil {
		return err
	}
	return s.event(b)
}

func (s *sseWriter) event(data []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.started {
		h := s.w.Header()
		h.Set("Content-Type", "text/event-stream")
		h.Set("Cache-Control", "no-cache, no-transform")
		s.w.WriteHeader(http.StatusOK)
		s.started = true
	}
	if _, err := fmt.Fprintf(s.w, "event: message\ndata: %s\n\n", data); err != nil {
		return err
	}
	if f, ok := s.w.(http.Flusher); ok {
		f.Flush()
	}
	return nil
}

// leanEligible reports whether the lean path may take a request: a POST
// that passes the checks the SDK's handler makes of its headers
// (Content-Type, Accept, no Last-Event-ID; the Host and Origin checks
// against DNS rebinding come first, for every request, in HTTPHandler).
// Anything else goes to the SDK, which rejects it the way it always does.
func leanEligible(r *http.Request) bool {
	// The canonical form of Last-Event-ID, which Values would allocate
	// to find.
	if _, ok := r.Header["Last-Event-Id"]; ok || r.Method != http.MethodPost {
		return false
	}
	if mediaType(r.Header.Get("Content-Type")) != "application/json" {
		return false
	}
	return acceptsBoth(r.Header.Values("Accept"))
}

// isLoopback reports whether a host or host:port names the loopback
// interface.
func isLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = strings.Trim(addr, "[]")
	}
	if host == "localhost" {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}
