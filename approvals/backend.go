package approvals

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/flowserve/flowserve/flow"
)

// Errors a Backend returns for a question that is no longer open.
var (
	// ErrAnswered means the question was answered already.
	ErrAnswered = errors.New("approvals: the question was answered already")
	// ErrGone means the request no longer exists or has ended.
	ErrGone = errors.New("approvals: the request is no longer open")
)

// Backend is where the approval page (package approve) gets its
// questions from and hands their answers to: a server's run store, or
// the one run of `flowserve run`. It makes a link single-use by returning
// ErrAnswered once its asking is answered.
type Backend interface {
	// Page returns the page of t's question; ErrAnswered or ErrGone when
	// it is no longer open.
	Page(ctx context.Context, t Ticket) (*Page, error)
	// Submit hands over an answer: reason != "" means it was not accepted
	// (shown with the form again, the person's values kept); ErrAnswered
	// or ErrGone as for Page (someone answered meanwhile).
	Submit(ctx context.Context, t Ticket, a Answer) (reason string, err error)
}

// Page is what the approval page shows.
type Page struct {
	Tool    string         // the tool's name
	Title   string         // the tool's title, "" when none
	Message string         // the question as the flow rendered it
	Schema  map[string]any // the form: a JSON Schema object {type: object, properties, required} of MCP elicitation primitives
	To      string         // who is asked
	For     string         // on whose behalf the tool was called (the caller, e.g. a client name or user), "" when unknown
	Expires time.Time      // until when the link works; zero shows the link's own expiry
	// Caller is the subject, at the issuer, of the OAuth caller whose run
	// asks, or "" when unknown: with sign-in, they may not answer it.
	Caller string
}

// Answer is what the person submitted on the page.
type Answer struct {
	Action  string         // "accept" or "decline"
	Content map[string]any // the form's values typed by the schema (accept only)
	By      string         // the name the person typed on the page, or the subject of the one who signed in
	At      time.Time      // when
}

// Engine returns a as the engine takes it (flow.Request.Approval), for
// the ask node: an elicitation result {"action", "content"} (content
// only with accept), with who answered and when.
func (a Answer) Engine(node string) (*flow.ApprovalAnswer, error) {
	resp := map[string]any{"action": a.Action}
	if a.Action == string(flow.Accept) {
		resp["content"] = a.Content
	}
	raw, err := json.Marshal(resp)
	if err != nil {
		return nil, fmt.Errorf("approvals: encode the answer to %q: %w", node, err)
	}
	return &flow.ApprovalAnswer{Node: node, Response: raw, By: a.By, At: a.At}, nil
}

// Timeout returns the engine's answer of an approval of the ask node that
// nobody answered before its timeout, at.
func Timeout(node string, at time.Time) *flow.ApprovalAnswer {
	return &flow.ApprovalAnswer{Node: node, TimedOut: true, At: at}
}
