package serve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/flowserve/flowserve/flow"
	"github.com/flowserve/flowserve/flow/drive"
	"github.com/flowserve/flowserve/metrics"
	"github.com/flowserve/flowserve/serve/internal/wire"
	"github.com/flowserve/flowserve/serve/observe"
)

// callLegacy serves a tools/call from a session client (2025-06-18,
// 2025-11-25): it runs round after round inside the one call, asking each
// question with elicitation/create.
func (s *Server) callLegacy(ctx context.Context, p *flow.Program, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	res, err := s.legacyRounds(ctx, p, req, req.Params.Arguments)
	if err != nil {
		return nil, err
	}
	return toolResult(res.Complete), nil
}

// legacyRounds runs a session client's call, a tools/call or a
// prompts/get, round after round inside the one request, asking each
// question with elicitation/create. It returns the final result: a tool
// result (an error result when the run failed or could not go on), or a
// prompt's messages. A prompt's failures, which cannot be error results,
// come back as a *jsonrpc.Error (-32602 for invalid arguments, -32603
// otherwise), like the server's refusal when too many calls are parked.
func (s *Server) legacyRounds(ctx context.Context, p *flow.Program, req mcp.Request, args json.RawMessage) (*flow.Result, error) {
	ss, _ := req.GetSession().(*mcp.ServerSession)
	if ss == nil {
		return nil, fmt.Errorf("session call without a session")
	}
	if !s.legacy.acquire() {
		s.metrics.Rejected.WithLabelValues(metrics.RejectLegacyCalls).Inc()
		s.log.Warn("session-era call refused: too many in progress", flowKind(p), p.Name(), "max", s.opts.MaxLegacyCalls)
		return nil, &jsonrpc.Error{Code: wire.CodeServerBusy, Message: fmt.Sprintf(
			"the server is busy: it is running as many calls for session clients as it may (%d); try again later", s.opts.MaxLegacyCalls)}
	}
	defer s.legacy.release()
	client := wire.LegacyClient(ss.InitializeParams())
	e := wire.ParseEra(client.Protocol)
	fr := &flow.Request{
		Arguments: args,
		Client:    client,
		Principal: principal(req),
		Identity:  identityOf(sdkPrincipal(req)),
		OnStep:    s.progress(ctx, req),
	}
	o := origin{caller: s.callerName(headerOf(req), sdkPrincipal(req)), base: s.baseOf(ctx), trace: observe.FromMeta(req.GetParams().GetMeta())}
	c := &callRounds{s: s, p: p, ctx: ctx, era: e, label: wire.EraLabel(client.Protocol), o: o, fr: fr, tell: s.tell(ctx, req),
		timed: true, ss: ss, withID: e.URLElicitation()}
	d := c.driver()
	d.Answerer, d.Approver, d.MaxRounds = c, c, s.opts.LegacyRounds
	_, err := d.Drive(ctx, p, fr)
	var ended *callEnded
	switch {
	case errors.Is(err, drive.ErrRoundLimit):
		return s.legacyFailure(p, fmt.Sprintf("the %s %s asked more than %d questions in one call", p.Name(), flowKind(p), s.opts.LegacyRounds))
	case errors.As(err, &ended):
		return s.endedResult(p, ended)
	case err != nil:
		return nil, err
	case c.last.cancelled != nil:
		return nil, c.last.cancelled
	case c.last.rpcErr != nil:
		return nil, c.last.rpcErr
	}
	return c.last.res, nil
}

// Answer asks a session client the questions of in, one after the other
// in the order of their ids, each as a server-to-client request (ask),
// the call parked meanwhile. A question that cannot be asked ends the
// call with an error result saying why (a *callEnded).
func (c *callRounds) Answer(ctx context.Context, in *flow.InputRequired) (map[string]json.RawMessage, error) {
	s, p := c.s, c.p
	responses := make(map[string]json.RawMessage, len(in.Requests))
	for _, id := range slices.Sorted(maps.Keys(in.Requests)) {
		q := in.Requests[id]
		answer, err := s.ask(ctx, c.ss, q, c.withID)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			if s.drainCtx.Err() != nil {
				s.log.Info("parked call ended: the server is shutting down", flowKind(p), p.Name(), "run", c.rd.Stats().RunID, "ask", id)
				return nil, &callEnded{failure: fmt.Sprintf("The server is shutting down, so the %s %s stopped before %q was answered; call the %s again.", p.Name(), flowKind(p), id, flowKind(p))}
			}
			return nil, &callEnded{failure: fmt.Sprintf("asking %q failed: %v", id, err)}
		}
		if q.Mode == flow.ModeForm {
			// Answers to URL asks are never logged.
			c.rd.LogAnswer(ctx, id, answer)
		}
		responses[id] = answer
	}
	return responses, nil
}

// ask sends one question to a session client as a server-to-client
// request and returns its answer as JSON, the call parked meanwhile.
func (s *Server) ask(ctx context.Context, ss *mcp.ServerSession, q *flow.InputRequest, withID bool) (json.RawMessage, error) {
	switch q.Mode {
	case flow.ModeSampling:
		params, err := samplingParams(q)
		if err != nil {
			return nil, err
		}
		return s.parked(ctx, func(ctx context.Context) (any, error) { return ss.CreateMessage(ctx, params) })
	case flow.ModeRoots:
		return s.parked(ctx, func(ctx context.Context) (any, error) { return ss.ListRoots(ctx, &mcp.ListRootsParams{}) })
	}
	return s.elicit(ctx, ss, elicitParams(q, withID))
}

// parked runs a server-to-client request with the call parked, until the
// client answers or the server starts shutting down, and returns the
// result as JSON.
func (s *Server) parked(ctx context.Context, send func(context.Context) (any, error)) (json.RawMessage, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(s.drainCtx, cancel)
	defer stop()
	s.metrics.ParkedCalls.Inc()
	defer s.metrics.ParkedCalls.Dec()
	res, err := send(ctx)
	if err != nil {
		return nil, err
	}
	return json.Marshal(res)
}

// elicit asks the client one question and returns its answer as JSON,
// the call parked meanwhile. The SDK validates accepted content itself
// and, when it does not match, returns only an error; the answer captured
// on the way in is used instead, so the engine can ask again with its own
// reason, as on every era. The wait ends when the server starts shutting
// down.
func (s *Server) elicit(ctx context.Context, ss *mcp.ServerSession, params *mcp.ElicitParams) (json.RawMessage, error) {
	return s.parked(ctx, func(ctx context.Context) (any, error) {
		c := &elicitCapture{}
		res, err := ss.Elicit(context.WithValue(ctx, captureKey{}, c), params)
		if err != nil && c.result != nil && ctx.Err() == nil {
			return c.result, nil
		}
		return res, err
	})
}

// legacyFailure ends a session call that cannot go on, with an error
// result saying why, or for a prompt JSON-RPC error -32603.
func (s *Server) legacyFailure(p *flow.Program, msg string) (*flow.Result, error) {
	res := errorFlowResult(msg)
	if rpcErr := promptFailure(p, res); rpcErr != nil {
		return nil, rpcErr
	}
	return res, nil
}

// errorFlowResult is the error result of a call that failed with msg.
func errorFlowResult(msg string) *flow.Result {
	return &flow.Result{Complete: flowErrorResult(msg)}
}

// flowErrorResult is an error result saying msg.
func flowErrorResult(msg string) *flow.ToolResult {
	return &flow.ToolResult{Content: []mcp.Content{&mcp.TextContent{Text: msg}}, IsError: true,
		Failure: &flow.Failure{Message: msg}}
}

// elicitCapture receives the raw result of an elicitation/create.
type elicitCapture struct{ result *mcp.ElicitResult }

type captureKey struct{}

// captureElicitResults is a sending middleware that hands the client's
// elicitation result to the call waiting for it, before the SDK's own
// validation can drop it.
func captureElicitResults(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if method == "elicitation/create" && err == nil {
			if c, ok := ctx.Value(captureKey{}).(*elicitCapture); ok {
				if r, ok := res.(*mcp.ElicitResult); ok {
					c.result = r
				}
			}
		}
		return res, err
	}
}

// capInitializeVersion is a receiving middleware that records a client
// asking for 2026-07-28 or later at initialize as asking for 2025-11-25:
// initialize only negotiates session versions, and the SDK otherwise
// treats such a session as stateless (go-sdk-notes probe B).
//
// It also records the version the server negotiated in the stored
// initialize params, which the SDK otherwise leaves at the requested one,
// so flows see the protocol the session really speaks.
func capInitializeVersion(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method != "initialize" {
			return next(ctx, method, req)
		}
		ip, ok := req.GetParams().(*mcp.InitializeParams)
		if ok && wire.ParseEra(ip.ProtocolVersion).Stateless() {
			ip.ProtocolVersion = wire.Version20251125
		}
		res, err := next(ctx, method, req)
		if ir, isInit := res.(*mcp.InitializeResult); ok && isInit && err == nil && ir.ProtocolVersion != "" {
			ip.ProtocolVersion = ir.ProtocolVersion
		}
		return res, err
	}
}
