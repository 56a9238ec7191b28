package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/flowserve/flowserve/actions"
	"github.com/flowserve/flowserve/flow"
	"github.com/flowserve/flowserve/serve/internal/wire"
)

// Prompt flows are served as MCP prompts: prompts/list lists them with
// their arguments, and prompts/get runs them through the same round code
// as tools/call (MRTR on 2026-07-28, elicitation inside the call on
// sessions). Prompts have no error results, so a prompt flow's failures
// are JSON-RPC errors: -32602 for invalid arguments, -32603 for the rest.

// maxCompletions is the most values completion/complete returns (MCP's
// limit).
const maxCompletions = 100

// promptOf describes a prompt flow as an MCP prompt.
func promptOf(p *flow.Program) *mcp.Prompt {
	pr := &mcp.Prompt{Name: p.Name(), Title: p.Title(), Description: p.Description()}
	for _, a := range p.Arguments() {
		pr.Arguments = append(pr.Arguments, &mcp.PromptArgument{
			Name: a.Name, Title: a.Title, Description: a.Description, Required: a.Required,
		})
	}
	return pr
}

// promptHandler returns the prompts/get handler of a prompt. It looks the
// program up on each call, so a replaced flow serves the next call.
func (s *Server) promptHandler(name string) mcp.PromptHandler {
	return func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		p, ok := s.prompt(name)
		if !ok {
			return nil, wire.InvalidParams(fmt.Sprintf("unknown prompt %q", name))
		}
		if rpcErr := scopeRefusal(sdkPrincipal(req), p); rpcErr != nil {
			return nil, rpcErr
		}
		if s.opts.Host != nil {
			ctx = actions.WithHost(ctx, s.opts.Host)
		}
		var args json.RawMessage
		if req.Params.Arguments != nil {
			b, err := json.Marshal(req.Params.Arguments)
			if err != nil {
				return nil, wire.InvalidParams(fmt.Sprintf("arguments are not valid: %v", err))
			}
			args = b
		}
		var (
			res *flow.Result
			err error
		)
		if wire.ModernVersion(req.Params.Meta) != "" {
			res, err = s.sdkRound(ctx, p, req, args, req.Params.RequestState, req.Params.InputResponses)
		} else {
			res, err = s.legacyRounds(ctx, p, req, args)
		}
		switch {
		case err != nil:
			return nil, err
		case res.Input != nil:
			irs, err := inputRequests(res.Input)
			if err != nil {
				return nil, err
			}
			return &mcp.GetPromptResult{InputRequests: irs, RequestState: res.Input.State}, nil
		}
		return promptResult(res.Prompt)
	}
}

// promptResult converts a finished prompt.
func promptResult(pr *flow.PromptResult) (*mcp.GetPromptResult, error) {
	if pr == nil {
		return nil, &jsonrpc.Error{Code: wire.CodeInternalError, Message: "the prompt flow ended without messages"}
	}
	out := &mcp.GetPromptResult{Description: pr.Description, Messages: make([]*mcp.PromptMessage, 0, len(pr.Messages))}
	for _, m := range pr.Messages {
		out.Messages = append(out.Messages, &mcp.PromptMessage{Role: mcp.Role(m.Role), Content: m.Content})
	}
	return out, nil
}

// promptFailure returns the JSON-RPC error (-32603, with the failure's
// message) that answers a prompt flow's round ending with an error result,
// or nil: for tool flows, and for rounds that did not fail.
func promptFailure(p *flow.Program, res *flow.Result) *jsonrpc.Error {
	if !p.IsPrompt() || res == nil || res.Complete == nil {
		return nil
	}
	msg := fmt.Sprintf("the %s prompt failed", p.Name())
	if f := res.Complete.Failure; f != nil && f.Message != "" {
		msg = f.Message
	}
	return &jsonrpc.Error{Code: wire.CodeInternalError, Message: msg}
}

// complete answers completion/complete. A prompt's argument completes
// from the enum and examples of its property in the flow's input schema:
// the values that start with what the user typed, ignoring case, at most
// maxCompletions of them. Arguments with neither, and resource
// references, complete to nothing.
func (s *Server) complete(ctx context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	res := &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{}}}
	ref := req.Params.Ref
	if ref == nil || ref.Type != "ref/prompt" {
		return res, nil
	}
	p, ok := s.prompt(ref.Name)
	if !ok {
		return nil, wire.InvalidParams(fmt.Sprintf("unknown prompt %q", ref.Name))
	}
	typed := strings.ToLower(req.Params.Argument.Value)
	for _, a := range p.Arguments() {
		if a.Name != req.Params.Argument.Name {
			continue
		}
		for _, v := range a.Values {
			if strings.HasPrefix(strings.ToLower(v), typed) {
				res.Completion.Total++
				if len(res.Completion.Values) < maxCompletions {
					res.Completion.Values = append(res.Completion.Values, v)
				}
			}
		}
	}
	res.Completion.HasMore = res.Completion.Total > len(res.Completion.Values)
	return res, nil
}
