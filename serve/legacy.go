package serve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/flowserve/flowserve/flow"
)

// firstURLVersion is the first protocol version with URL-mode elicitation.
const firstURLVersion = "2025-11-25"

// legacyClient reads a session client's name and capabilities from its
// initialize request.
func legacyClient(ip *mcp.InitializeParams) flow.Client {
	var c flow.Client
	if ip == nil {
		return c
	}
	c.Protocol = ip.ProtocolVersion
	if ip.ClientInfo != nil {
		c.Name, c.Version = ip.ClientInfo.Name, ip.ClientInfo.Version
	}
	if ip.Capabilities != nil && ip.Capabilities.Elicitation != nil {
		el := ip.Capabilities.Elicitation
		c.Form = el.Form != nil || el.URL == nil
		c.URL = el.URL != nil && ip.ProtocolVersion >= firstURLVersion
	}
	return c
}

// callLegacy serves a tools/call from a session client (2025-06-18,
// 2025-11-25): it runs round after round inside the one call, asking each
// question with elicitation/create.
func (s *Server) callLegacy(ctx context.Context, p *flow.Program, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	if req.Session == nil {
		return nil, fmt.Errorf("session call without a session")
	}
	client := legacyClient(req.Session.InitializeParams())
	fr := &flow.Request{
		Arguments: req.Params.Arguments,
		Client:    client,
		Principal: principal(req),
		OnStep:    s.progress(ctx, req),
	}
	for round := 1; ; round++ {
		if round > s.opts.LegacyRounds {
			return errorResult(fmt.Sprintf("the %s tool asked more than %d questions in one call", p.Name(), s.opts.LegacyRounds)), nil
		}
		res, err := p.Run(ctx, fr)
		if err != nil {
			return s.legacyError(ctx, p, err)
		}
		if res.Complete != nil {
			return toolResult(res.Complete)
		}
		fr.State = res.Input.State
		fr.Responses = make(map[string]json.RawMessage, len(res.Input.Requests))
		for id, q := range res.Input.Requests {
			answer, err := s.elicit(ctx, req.Session, elicitParams(q, client.Protocol >= firstURLVersion))
			if err != nil {
				if ctx.Err() != nil {
					return nil, ctx.Err()
				}
				return errorResult(fmt.Sprintf("asking %q failed: %v", id, err)), nil
			}
			fr.Responses[id] = answer
		}
	}
}

// elicit asks the client one question and returns its answer as JSON. The
// SDK validates accepted content itself and, when it does not match,
// returns only an error; the answer captured on the way in is used
// instead, so the engine can ask again with its own reason, as on every
// era.
func (s *Server) elicit(ctx context.Context, ss *mcp.ServerSession, params *mcp.ElicitParams) (json.RawMessage, error) {
	c := &elicitCapture{}
	res, err := ss.Elicit(context.WithValue(ctx, captureKey{}, c), params)
	if err != nil {
		if c.result == nil {
			return nil, err
		}
		res = c.result
	}
	return json.Marshal(res)
}

// legacyError maps an engine error onto a session reply: problems are
// error results that say what went wrong.
func (s *Server) legacyError(ctx context.Context, p *flow.Program, err error) (*mcp.CallToolResult, error) {
	var mc *flow.MissingCapabilityError
	switch {
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case errors.As(err, &mc):
		return errorResult(fmt.Sprintf("The %s tool needs to ask you something (%q), but this client does not support elicitation in %s mode.", p.Name(), mc.Node, mc.Mode)), nil
	case flow.IsInvalidParams(err):
		return errorResult(err.Error()), nil
	}
	return s.runFailure(p, err), nil
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
		if ok && ip.ProtocolVersion >= firstModernVersion {
			ip.ProtocolVersion = "2025-11-25"
		}
		res, err := next(ctx, method, req)
		if ir, isInit := res.(*mcp.InitializeResult); ok && isInit && err == nil && ir.ProtocolVersion != "" {
			ip.ProtocolVersion = ir.ProtocolVersion
		}
		return res, err
	}
}
