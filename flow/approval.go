package flow

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/flowserve/flowserve/flow/state"
)

// Timeout is the action of an approval nobody answered before its
// timeout; the flow goes to the ask's on_timeout node.
const Timeout Action = "timeout"

// Approval is the end of a round that reached an ask with `to`: a question
// for someone other than the caller, which the server serves on a page of
// its own (never to the client). The run waits for Request.Approval.
type Approval struct {
	// Node is the ask's id, and Run the run's (RoundStats.RunID).
	Node, Run string
	// Position is the ask's journal position (see Request.OnStep).
	Position int
	// Question is the form as the flow renders it (Mode is ModeForm);
	// Rejected says why the last answer from the page was not accepted.
	Question *InputRequest
	// To is who is asked, as the flow renders it.
	To string
	// Webhook is the URL the server notifies with the page's link, as the
	// flow renders it; "" when the ask has no notify.
	Webhook string
	// Timeout is how long the question waits for its answer; 0 means as
	// long as the run lives.
	Timeout time.Duration
	// State is the sealed state that waits for the answer: the state a
	// round with Request.Approval goes on from.
	State string
}

// ApprovalAnswer is the answer to the approval a run waits for (see
// Request.Approval): an answer from the page, or its timeout.
type ApprovalAnswer struct {
	// Node is the ask's id (Approval.Node).
	Node string
	// Response is the answer as an elicitation result {"action",
	// "content"}: accept with content, or decline. Nil when TimedOut.
	Response json.RawMessage
	// By is who answered (the name typed on the page, or the signed-in
	// identity); At is when.
	By string
	At time.Time
	// TimedOut reports that nobody answered before the timeout.
	TimedOut bool
}

// approval handles an ask with `to` at the frontier. In a round with
// Request.Approval for it, the answer is checked and journaled, with who
// gave it and when, and the round ends with Detached: the state the run
// goes on from. Otherwise the round ends waiting for the answer
// (Result.Approval). The client's inputResponses never answer it.
func (r *runner) approval(cn *cnode, pos int, pending *state.Pending) (*Result, error) {
	a := r.req.Approval
	if a == nil {
		return r.awaitApproval(cn, pos, "")
	}
	if a.Node != r.key(cn) || pending == nil {
		return nil, fmt.Errorf("the run does not wait for an answer to %q: it is at %s %q", a.Node, cn.n.Kind, r.key(cn))
	}
	var rec answerRecord
	if a.TimedOut {
		rec = answerRecord{Action: Timeout}
	} else {
		var reason string
		var err error
		rec, reason, err = r.parse(cn, a.Response)
		if err != nil {
			return nil, err
		}
		if reason != "" {
			// Answers from the page are asked again for as long as the
			// question waits: they do not count against its retries.
			r.req.Stats.answer(AnswerInvalid)
			return r.awaitApproval(cn, pos, reason)
		}
		rec.By, rec.At = a.By, a.At.UTC().Format(time.RFC3339)
	}
	if err := r.recordAnswer(cn, rec); err != nil {
		return nil, err
	}
	token, err := r.seal(r.number, nil, r.req.StateTTL)
	if err != nil {
		return nil, err
	}
	return &Result{Detached: &Detached{State: token}}, nil
}

// awaitApproval ends the round waiting for an answer to cn from its page;
// reason, when set, says why the last one was not accepted.
func (r *runner) awaitApproval(cn *cnode, pos int, reason string) (*Result, error) {
	q, err := r.question(cn, pos, reason)
	if err != nil {
		return nil, err
	}
	to, err := cn.to.render(r.vars)
	if err != nil {
		return nil, fmt.Errorf("to: %w", err)
	}
	var hook string
	if cn.webhook != nil {
		if hook, err = cn.webhook.render(r.vars); err != nil {
			return nil, fmt.Errorf("notify webhook: %w", err)
		}
	}
	pending := []state.Pending{{Node: r.key(cn), Position: pos, Fingerprint: cn.fp}}
	token, err := r.seal(r.number, pending, r.req.StateTTL)
	if err != nil {
		return nil, err
	}
	return &Result{Approval: &Approval{Node: r.key(cn), Run: r.runID, Position: pos, Question: q, To: to, Webhook: hook,
		Timeout: cn.approvalTimeout, State: token}}, nil
}

// approvalValue is the value of an approval ask's id: an ask's, with who
// answered and when ("" for both when it timed out).
func approvalValue(rec answerRecord) map[string]any {
	v := askValue(rec.Action, rec.Content)
	v["answered_by"] = rec.By
	v["answered_at"] = rec.At
	return v
}
