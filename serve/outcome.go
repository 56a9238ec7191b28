package serve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/flowserve/flowserve/flow"
	"github.com/flowserve/flowserve/serve/internal/wire"
)

// reply is what one round of a call comes to for the client: a result, a
// JSON-RPC error, or neither when the call was cancelled (cancelled holds
// the context's error).
type reply struct {
	res       *flow.Result
	rpcErr    *jsonrpc.Error
	cancelled error
}

// outcome is the one mapping from the engine's outcome of a round of p on
// era e (its result, or its error) to what the client is answered. Every
// path that runs rounds (the SDK's, the lean one, sessions) goes through
// it:
//
//   - a cancelled call: no reply;
//   - a problem with the request (flow.IsInvalidParams: the request state,
//     an answer, a prompt's arguments): JSON-RPC -32602; a session client
//     never sends a state or answers of its own, so there a tool answers
//     it with an error result;
//   - a run that began on a version of the flow this server cannot get,
//     which the version it has does not replay (flow.VersionError): on
//     the stateless era -32003, retryable, with the tool and version in
//     data; on session eras an error result;
//   - a question the client cannot be asked: on the stateless era -32021
//     with the requiredCapabilities; on session eras, which negotiate
//     capabilities once, an error result saying what is missing;
//   - any other error (a *flow.RunError): an error result naming the
//     flow and the node, never the server's path of the flow file
//     (flow.Program.FailureResult; the log keeps the file position);
//   - a prompt, which has no error results, answers any error result with
//     -32603 and its failure's message.
func outcome(ctx context.Context, e wire.Era, p *flow.Program, res *flow.Result, err error) reply {
	if err != nil {
		var r reply
		if r, res = failedOutcome(ctx, e, p, err); r.rpcErr != nil || r.cancelled != nil {
			return r
		}
	}
	if rpcErr := promptFailure(p, res); rpcErr != nil {
		return reply{rpcErr: rpcErr}
	}
	return reply{res: res}
}

// failedOutcome is outcome for a round that ended with err: the reply,
// or the result that answers it. It is a function of its own so that the
// errors.As targets are made only for rounds that failed, not for every
// round.
func failedOutcome(ctx context.Context, e wire.Era, p *flow.Program, err error) (reply, *flow.Result) {
	var mc *flow.MissingCapabilityError
	var ve *flow.VersionError
	switch {
	case ctx.Err() != nil:
		// The call itself was cancelled; a step's own deadline is a run
		// failure below.
		return reply{cancelled: ctx.Err()}, nil
	case errors.As(err, &ve) && e.Stateless():
		data, _ := json.Marshal(map[string]any{"retryable": true, "tool": ve.Tool, "version": ve.Version.String()})
		return reply{rpcErr: &jsonrpc.Error{Code: wire.CodeVersionUnavailable, Message: err.Error(), Data: data}}, nil
	case flow.IsInvalidParams(err) && (e.Stateless() || p.IsPrompt()):
		return reply{rpcErr: &jsonrpc.Error{Code: wire.CodeInvalidParams, Message: err.Error()}}, nil
	case flow.IsInvalidParams(err):
		return reply{}, errorFlowResult(err.Error())
	case errors.As(err, &mc) && e.Stateless():
		data, _ := json.Marshal(map[string]any{"requiredCapabilities": mc.Required})
		return reply{rpcErr: &jsonrpc.Error{Code: wire.CodeMissingCapability, Message: err.Error(), Data: data}}, nil
	case errors.As(err, &mc):
		return reply{}, errorFlowResult(fmt.Sprintf("The %s %s needs %s (at %q), but this client does not support %s.",
			p.Name(), flowKind(p), mc.Needs(), mc.Node, mc.Lacks()))
	}
	return reply{}, &flow.Result{Complete: p.FailureResult(err)}
}

// cause is what the log records as the reason for r, the engine's err, or
// the context's when the call was cancelled.
func (r reply) cause(err error) error {
	if r.cancelled != nil {
		return r.cancelled
	}
	return err
}
