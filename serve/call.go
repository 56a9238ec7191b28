package serve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/flowserve/flowserve/flow"
	"github.com/flowserve/flowserve/oauth"
	"github.com/flowserve/flowserve/serve/internal/guard"
	"github.com/flowserve/flowserve/serve/internal/wire"
	"github.com/flowserve/flowserve/serve/observe"
)

// principal identifies the caller of an SDK request: the subject of its
// OAuth token, or else a digest of its bearer token (see
// guard.Principal).
func principal(req mcp.Request) string {
	if p := sdkPrincipal(req); p != nil {
		return p.Subject
	}
	if h := headerOf(req); h != nil {
		return guard.Principal(h)
	}
	return ""
}

// requestPrincipal identifies the caller of an HTTP request the lean path
// serves, as principal does.
func requestPrincipal(r *http.Request) string {
	if p := authenticated(r.Context()); p != nil {
		return p.Subject
	}
	return guard.Principal(r.Header)
}

// callerName names the caller in the logs and on approval pages: the
// token file's name of its token, or the subject of its OAuth token.
func (s *Server) callerName(h http.Header, p *oauth.Principal) string {
	if p != nil {
		return p.Subject
	}
	return s.callerOf(h)
}

// headerOf returns the HTTP headers of an SDK request, or nil (stdio).
func headerOf(req mcp.Request) http.Header {
	if extra := req.GetExtra(); extra != nil {
		return extra.Header
	}
	return nil
}

// callModern serves one round of a 2026-07-28 call that came through the
// SDK (stdio, in-memory transports, and HTTP requests the lean handler
// passes on).
func (s *Server) callModern(ctx context.Context, p *flow.Program, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	res, err := s.sdkRound(ctx, p, req, req.Params.Arguments, req.Params.RequestState, req.Params.InputResponses)
	switch {
	case err != nil:
		return nil, err
	case res.Input != nil:
		irs, err := inputRequests(res.Input)
		if err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{InputRequests: irs, RequestState: res.Input.State}, nil
	}
	return toolResult(res.Complete), nil
}

// sdkRound runs one round of a 2026-07-28 request that came through the
// SDK, a tools/call or a prompts/get, from its arguments, requestState
// and inputResponses. The result has Input, Complete or Prompt set; a
// protocol error comes back as a *jsonrpc.Error.
func (s *Server) sdkRound(ctx context.Context, p *flow.Program, req mcp.Request, args json.RawMessage, state string, responses mcp.InputResponseMap) (*flow.Result, error) {
	meta := req.GetParams().GetMeta()
	fr := &flow.Request{
		Arguments: args,
		State:     state,
		Client:    wire.ModernClient(meta, wire.ModernVersion(meta)),
		Principal: principal(req),
		Identity:  identityOf(sdkPrincipal(req)),
		OnStep:    s.progress(ctx, req),
	}
	if len(responses) > 0 {
		fr.Responses = make(map[string]json.RawMessage, len(responses))
		for id, r := range responses {
			b, err := json.Marshal(r)
			if err != nil {
				return nil, wire.InvalidParams(fmt.Sprintf("inputResponses[%q] is not valid: %v", id, err))
			}
			fr.Responses[id] = b
		}
	}
	o := origin{caller: s.callerName(headerOf(req), sdkPrincipal(req)), base: s.baseOf(ctx), trace: observe.FromMeta(meta)}
	res, rpcErr, err := s.modernRound(ctx, p, fr, o, s.tell(ctx, req))
	switch {
	case err != nil:
		return nil, err
	case rpcErr != nil:
		return nil, rpcErr
	}
	return res, nil
}

// inputRequests turns the questions of an input_required round into the
// SDK's inputRequests.
func inputRequests(in *flow.InputRequired) (mcp.InputRequestMap, error) {
	out := make(mcp.InputRequestMap, len(in.Requests))
	for id, q := range in.Requests {
		ir, err := inputRequest(q)
		if err != nil {
			return nil, err
		}
		out[id] = ir
	}
	return out, nil
}

// modernRound runs one 2026-07-28 round of a tools/call or a
// prompts/get; both HTTP paths (the SDK's and the lean one) and stdio go
// through it. Problems with the request come back as a JSON-RPC error
// (-32602 for the request state and answers, and a prompt's arguments;
// -32021 for a question the client cannot answer); failures of the run
// as an error result the model can read, or for a prompt, which has no
// error results, as JSON-RPC error -32603; a cancelled call as err.
// o is where the call came from (its caller names it in the logs).
//
// A round that reaches an approval ends with it when fr may become a task
// (fr.Detach); otherwise the call waits for the approval's answer inside
// itself (waitInline, telling the caller with tell) and runs on from it.
func (s *Server) modernRound(ctx context.Context, p *flow.Program, fr *flow.Request, o origin, tell tellFunc) (*flow.Result, *jsonrpc.Error, error) {
	c := &callRounds{s: s, p: p, ctx: ctx, era: wire.Era20260728, label: wire.FirstModernVersion, o: o, fr: fr, tell: tell, timed: true, answers: true}
	d := c.driver()
	if fr.Detach == nil {
		d.Approver = c
	}
	_, err := d.Drive(ctx, p, fr)
	var ended *callEnded
	switch {
	case errors.As(err, &ended):
		res, err := s.endedResult(p, ended)
		return res, nil, err
	case err != nil:
		return nil, nil, err
	}
	return c.last.res, c.last.rpcErr, c.last.cancelled
}

// inputRequest turns a question into the SDK's input request.
func inputRequest(q *flow.InputRequest) (mcp.InputRequest, error) {
	switch q.Mode {
	case flow.ModeSampling:
		return samplingParams(q)
	case flow.ModeRoots:
		return &mcp.ListRootsParams{}, nil
	}
	return elicitParams(q, false), nil
}

// samplingParams turns a sampling question into sampling/createMessage
// params.
func samplingParams(q *flow.InputRequest) (*mcp.CreateMessageParams, error) {
	b, err := json.Marshal(q.Params)
	if err != nil {
		return nil, fmt.Errorf("encode sampling request: %w", err)
	}
	var p mcp.CreateMessageParams
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, fmt.Errorf("encode sampling request: %w", err)
	}
	return &p, nil
}

// elicitParams turns a question into elicitation/create params.
func elicitParams(q *flow.InputRequest, withID bool) *mcp.ElicitParams {
	ep := &mcp.ElicitParams{Mode: q.Mode, Message: q.Message}
	if q.Mode == "url" {
		ep.URL = q.URL
		if withID {
			ep.ElicitationID = q.ID
		}
	} else {
		ep.RequestedSchema = q.Schema
	}
	return ep
}

// progress returns the engine's step hook for an SDK request that
// carries a progress token (see progressHook).
func (s *Server) progress(ctx context.Context, req mcp.Request) func(node, action string, pos int, done bool) {
	params, _ := req.GetParams().(mcp.RequestParams)
	ss, _ := req.GetSession().(*mcp.ServerSession)
	if params == nil || ss == nil {
		return nil
	}
	token := params.GetProgressToken()
	if token == nil {
		return nil
	}
	return s.progressHook(token, func(p *mcp.ProgressNotificationParams) error {
		return ss.NotifyProgress(ctx, p)
	})
}

// tell returns the tellFunc of an SDK request that carries a progress
// token, or nil.
func (s *Server) tell(ctx context.Context, req mcp.Request) tellFunc {
	params, _ := req.GetParams().(mcp.RequestParams)
	ss, _ := req.GetSession().(*mcp.ServerSession)
	if params == nil || ss == nil || params.GetProgressToken() == nil {
		return nil
	}
	return s.tellHook(params.GetProgressToken(), func(p *mcp.ProgressNotificationParams) error {
		return ss.NotifyProgress(ctx, p)
	})
}

// tellHook returns the tellFunc sending progress notifications to send.
func (s *Server) tellHook(token any, send func(*mcp.ProgressNotificationParams) error) tellFunc {
	if token == nil {
		return nil
	}
	return func(msg string, progress float64) {
		if err := send(&mcp.ProgressNotificationParams{ProgressToken: token, Progress: progress, Message: msg}); err != nil {
			s.log.Debug("progress notification not sent", "err", err)
		}
	}
}

// progressHook returns the engine's step hook: a notifications/progress
// before and after each step, passed to send. Progress is counted from
// the step's journal position (2·pos+1 before, 2·pos+2 after), so it
// keeps increasing across the rounds of a 2026-07-28 run, whose client
// may send the same token each round.
func (s *Server) progressHook(token any, send func(*mcp.ProgressNotificationParams) error) func(node, action string, pos int, done bool) {
	return func(node, action string, pos int, done bool) {
		n := float64(2*pos + 1)
		msg := fmt.Sprintf("running %s (%s)", node, action)
		if done {
			n++
			msg = fmt.Sprintf("finished %s (%s)", node, action)
		}
		if err := send(&mcp.ProgressNotificationParams{ProgressToken: token, Progress: n, Message: msg}); err != nil {
			s.log.Debug("progress notification not sent", "err", err)
		}
	}
}

// toolResult is the SDK's result of a finished call: the engine built
// its content blocks as the SDK's types when the run ended.
func toolResult(tr *flow.ToolResult) *mcp.CallToolResult {
	out := &mcp.CallToolResult{IsError: tr.IsError, Content: tr.Content}
	if out.Content == nil {
		out.Content = []mcp.Content{}
	}
	if tr.Structured != nil {
		out.StructuredContent = tr.Structured
	}
	return out
}
