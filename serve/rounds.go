package serve

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/flowserve/flowserve/flow"
	"github.com/flowserve/flowserve/flow/drive"
	"github.com/flowserve/flowserve/serve/internal/wire"
	"github.com/flowserve/flowserve/serve/observe"
)

// Every round the server runs goes through a drive.Driver (package
// flow/drive) with a callRounds: a call's rounds (modernRound,
// legacyRounds), a task's (runTaskRound) and the round that journals an
// approval's answer (approvalRound).

// replyRule says what a round's result and error come to.
type replyRule int

const (
	// replyCall: the reply the client is answered with (outcome).
	replyCall replyRule = iota
	// replyTask: as replyCall, and a round that ends with neither a
	// result, nor questions, nor an approval is the server's error: a
	// task stores only those.
	replyTask
	// replyNone: the round answers no client (it journals an approval's
	// answer); it is recorded as the engine ended it.
	replyNone
)

// callRounds is what the rounds of one call share. It is their
// drive.Observer: it traces, logs and counts each round (observe.Rounds),
// runs it within the server's round deadline when timed (roundContext),
// and keeps the reply the last one came to (last), the
// one mapping of the engine's outcome onto the client's answer. For a call
// that waits for its approvals inside itself, it is the drive.Approver
// (waitInline); for a session call, the drive.Answerer asking the client
// (legacy.go).
type callRounds struct {
	s *Server
	p *flow.Program
	// ctx is the call's context: outcome tells a cancelled call by it.
	ctx context.Context
	// era is the era the reply is for, and label the era its logs and
	// metrics name.
	era   wire.Era
	label string
	rule  replyRule
	// o is where the call came from: its caller names the rounds in the
	// logs, its trace is their parent, and an approval waited for inline
	// becomes a task for it.
	o origin
	// fr is the call's request, what a task waiting for an approval is
	// made from; tell tells the caller how it waits.
	fr   *flow.Request
	tell tellFunc
	// timed runs each round within the round deadline, and answers logs
	// the client's answers of each round.
	timed, answers bool
	// ss is a session call's session, which Answer asks the questions,
	// with elicitation ids for URL mode when withID (legacy.go).
	ss     *mcp.ServerSession
	withID bool

	rd     *observe.Round     // the round running, or the last one
	cancel context.CancelFunc // of the round's deadline
	last   reply              // what the last round came to
}

// driver returns the Driver of c's rounds on the server's engine.
func (c *callRounds) driver() drive.Driver {
	return drive.Driver{Engine: c.s.engine, Observer: c}
}

// StartRound starts observing a round (observe.Rounds.Start) and gives it its
// deadline when c is timed.
func (c *callRounds) StartRound(ctx context.Context, req *flow.Request) context.Context {
	c.rd, ctx = c.s.obs.Start(ctx, c.p, c.label, c.o.caller, c.o.trace, req)
	if c.timed {
		ctx, c.cancel = c.s.roundContext(ctx, c.p, req)
	}
	return ctx
}

// EndRound records what the round came to (c.last) and ends observing it.
func (c *callRounds) EndRound(req *flow.Request, res *flow.Result, err error) {
	if c.cancel != nil {
		c.cancel()
		c.cancel = nil
	}
	if c.answers {
		c.rd.LogAnswers(c.p, req.Responses)
	}
	if c.rule == replyNone {
		c.last = reply{res: res}
		c.rd.End(res, nil, err)
		return
	}
	r := outcome(c.ctx, c.era, c.p, res, err)
	if c.rule == replyTask && r.res != nil && r.res.Input == nil && r.res.Complete == nil && r.res.Approval == nil {
		r = reply{rpcErr: &jsonrpc.Error{Code: wire.CodeInternalError, Message: "the round ended with no result"}}
	}
	c.last = r
	c.rd.End(r.res, r.rpcErr, r.cause(err))
}

// Approve waits inside the call for the answer to ap (waitInline) and
// returns the state the run goes on from; a wait that ends without one
// ends the call with a *callEnded.
func (c *callRounds) Approve(ctx context.Context, ap *flow.Approval, _ drive.JournalFunc) (string, error) {
	state, gaveUp, err := c.s.waitInline(ctx, c.p, c.fr, ap, c.o, c.tell)
	switch {
	case ctx.Err() != nil:
		return "", ctx.Err()
	case err != nil:
		return "", &callEnded{res: c.p.FailureResult(err)}
	case gaveUp != nil:
		return "", &callEnded{res: gaveUp}
	}
	return state, nil
}

// callEnded is the error of an Answerer or Approver of a call that ends
// the call with a result of its own: a session client that could not be
// asked (failure, the message of the error result; a prompt, which has
// no error results, answers it with JSON-RPC -32603: legacyFailure), or
// a call that cannot wait longer for an approval (res, the result as it
// is).
type callEnded struct {
	failure string
	res     *flow.ToolResult
}

func (e *callEnded) Error() string {
	if e.failure != "" {
		return e.failure
	}
	return "the call ended without its run"
}

// endedResult is what a call that ended with e answers, as legacyRounds
// and modernRound return it.
func (s *Server) endedResult(p *flow.Program, e *callEnded) (*flow.Result, error) {
	if e.failure != "" {
		return s.legacyFailure(p, e.failure)
	}
	return &flow.Result{Complete: e.res}, nil
}
