package runui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/flowserve/flowserve/approvals"
	"github.com/flowserve/flowserve/dsl"
	"github.com/flowserve/flowserve/flow"
	"github.com/flowserve/flowserve/flow/drive"
)

// Approvals: an ask with `to:` is a question for someone other than the
// caller (docs/approvals.md). The round that reaches it ends with
// flow.Result.Approval instead of asking; an Approver gets the answer
// (or lets the approval time out), and a round of its own
// (flow.Request.Approval) journals it before the run goes on. A server
// serves the question on a page of its own; `flowserve run` does too
// (Page), or asks it in the terminal like any question (the Answerer,
// when Config.Approver is nil), with a prompt for who answers. Its key,
// link, expiry and notification are a server's (package approvals): a
// run here lives as a server's task does by default
// (approvals.DefaultLifetime), so an approval without a timeout waits
// that long.

// ActionTimeout is the action of an approval nobody answered before its
// timeout: the flow goes to the ask's on_timeout node. Only approvals
// take it.
const ActionTimeout = string(flow.Timeout)

// ApprovalInfo says that a question is an approval and who answers it.
type ApprovalInfo struct {
	// To is who is asked, as the flow renders it.
	To string
	// Timeout is how long the approval waits; 0 means as long as the run
	// lives (it cannot time out).
	Timeout time.Duration
	// By is the name the person answering is offered for answered_by
	// (Config.Name).
	By string
}

// Approval is an approval the run reached: the question of an ask with
// to:, which someone other than the caller answers.
type Approval struct {
	// Approval is the engine's: the ask, who is asked, the webhook, the
	// timeout and the state the run waits with.
	*flow.Approval
	// Tool and Title are the flow's name and title ("" for none).
	Tool, Title string
	// Question is the question as the terminal asks it (Question.Approval
	// set); its Message is the one the flow renders, without the reason a
	// previous answer was not accepted.
	Question *Question
	// Expires is until when the approval waits, and its page's link
	// works (approvals.Expires): now plus its timeout, or, without one,
	// the run's lifetime, after which the run cannot go on.
	Expires time.Time
}

// lifetime is how long a run lives after its last change, as a server's
// task does by default: an approval without a timeout waits that long.
// Tests shorten it.
var lifetime = approvals.DefaultLifetime

// Notification returns the notification a server would post to the
// approval's webhook, with link as the page's URL.
func (a *Approval) Notification(link string) approvals.Notification {
	return approvals.NewNotification(approvals.Notice{Tool: a.Tool, Title: a.Title, Run: a.Run, Question: a.Node,
		Message: a.Question.Message, To: a.To, Link: link, Expires: a.Expires})
}

// AnswerFunc journals the answer to the approval a run waits for (an
// answer with who gave it and when, or its timeout) and returns why it
// was not accepted, or "" when it was and the run goes on. It may be
// called from any goroutine, one call at a time.
type AnswerFunc func(ctx context.Context, a *flow.ApprovalAnswer) (reason string, err error)

// Approver answers the approvals a run reaches.
type Approver interface {
	// Approve gets the answer to ap and hands it to answer, again after
	// an answer that was not accepted, until one is; it returns when one
	// was, or with an error that ends the run (ctx.Err() when the user
	// interrupted it). It writes what happens to out, the transcript.
	Approve(ctx context.Context, ap *Approval, answer AnswerFunc, out io.Writer) error
}

// askApprover answers approvals with an Answerer, in the terminal or
// from a script, as questions with a prompt for who answers.
type askApprover struct{ a Answerer }

// Approve asks ap's question until its answer is accepted.
func (t askApprover) Approve(ctx context.Context, ap *Approval, answer AnswerFunc, out io.Writer) error {
	q := *ap.Question
	if ap.Webhook != "" {
		fmt.Fprintf(out, "  (flowserve run does not post the ask's webhook, %s; --approvals page shows what it would post)\n", hostOf(ap.Webhook))
	}
	for {
		given, err := t.a.Answer(ctx, &q)
		if err != nil {
			return err
		}
		a := *given
		ans, err := approvalAnswer(&q, &a)
		if err != nil {
			return err
		}
		printAnswer(out, &a)
		reason, err := answer(ctx, ans)
		if err != nil || reason == "" {
			return err
		}
		q.Rejected, q.Previous = reason, &a
		printQuestion(out, &q)
	}
}

// approvalAnswer turns the answer given at the terminal to the approval
// q into the engine's; an answer without a name is by q's default name,
// which it sets in a.
func approvalAnswer(q *Question, a *Answer) (*flow.ApprovalAnswer, error) {
	switch a.Action {
	case ActionTimeout:
		if q.Approval.Timeout <= 0 {
			return nil, fmt.Errorf("the approval %q has no timeout, so it cannot time out: answer accept or decline", q.ID)
		}
		return approvals.Timeout(q.ID, time.Now()), nil
	case ActionCancel:
		return nil, fmt.Errorf("the approval %q cannot be cancelled (its page has no cancel): answer accept or decline, or timeout", q.ID)
	}
	if a.By == "" {
		a.By = q.Approval.By
	}
	return approvals.Answer{Action: a.Action, Content: a.Content, By: a.By, At: time.Now()}.Engine(q.ID)
}

// Approve is the drive.Approver of a run at the terminal: it says that
// the call goes on as a task, shows the approval's question, and has the
// Approver get its answer (runApproval).
func (t *terminal) Approve(ctx context.Context, fa *flow.Approval, journal drive.JournalFunc) (string, error) {
	// A client with tasks gets a task that waits for the answer.
	ap := newApproval(t.p, fa, t.name, time.Now(), lifetime)
	if !t.inTask {
		t.tr.status("working", "the call goes on as a task (an approval)")
	}
	t.inTask = true
	printQuestion(t.cfg.Out, ap.Question)
	next, err := runApproval(ctx, journal, ap, t.approver, t.cfg.Out)
	if err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "", err
	}
	t.tr.status("working", "")
	return next, nil
}

// runApproval gets the answer to the approval ap with approver, having
// journal run the round that journals it, and returns the state the run
// goes on from.
func runApproval(ctx context.Context, journal drive.JournalFunc, ap *Approval, approver Approver, out io.Writer) (string, error) {
	var next string
	answer := func(ctx context.Context, a *flow.ApprovalAnswer) (string, error) {
		if next != "" {
			return "", errors.New("the approval is answered already")
		}
		state, again, err := journal(ctx, a)
		switch {
		case err != nil:
			return "", err
		case again != nil:
			return again.Question.Rejected, nil
		}
		next = state
		return "", nil
	}
	if err := approver.Approve(ctx, ap, answer, out); err != nil {
		return "", err
	}
	if next == "" {
		return "", fmt.Errorf("the approval %q was not answered", ap.Node)
	}
	return next, nil
}

// newApproval describes the approval the engine ended a round with, asked
// now in a run whose lifetime is life.
func newApproval(p *flow.Program, fa *flow.Approval, name string, now time.Time, life time.Duration) *Approval {
	q := question(p, fa.Node, fa.Question, nil)
	q.Message, q.Rejected = fa.Question.Asked(), ""
	q.Approval = &ApprovalInfo{To: fa.To, Timeout: fa.Timeout, By: name}
	return &Approval{Approval: fa, Tool: p.Name(), Title: p.Title(), Question: q,
		Expires: approvals.Expires(now, fa.Timeout, life)}
}

// approvalStateTTL is how long the states of a run of p must stay valid:
// as long as the run may wait for its approvals (approvals.Lifetime: the
// run's lifetime, or a timeout plus that lifetime), or 0, the codec's
// default, when it has none.
func approvalStateTTL(p *flow.Program) time.Duration {
	return approvalTTL(p, lifetime, map[*flow.Program]bool{})
}

// approvalTTL is approvalStateTTL over p and the flows it calls, in a run
// whose lifetime is life.
func approvalTTL(p *flow.Program, life time.Duration, seen map[*flow.Program]bool) time.Duration {
	if seen[p] {
		return 0
	}
	seen[p] = true
	var ttl time.Duration
	for _, n := range p.File().Nodes {
		if n.Kind == dsl.KindAsk && n.Ask.Approval() {
			ttl = max(ttl, approvals.Lifetime(life, n.Ask.Timeout, life))
		}
	}
	for _, c := range p.Callees() {
		ttl = max(ttl, approvalTTL(c, life, seen))
	}
	return ttl
}

// defaultName is who answers approvals at the terminal unless told: the
// user's login name, or "flowserve run".
func defaultName() string {
	for _, k := range []string{"USER", "USERNAME", "LOGNAME"} {
		if v := os.Getenv(k); v != "" {
			return v
		}
	}
	return "flowserve run"
}

// hostOf returns the host of a URL, for messages: webhook URLs often hold
// a secret in their path.
func hostOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "a URL"
	}
	return u.Host
}

// durationText formats a duration without its zero minutes and seconds:
// 24h, 1h30m, 90s.
func durationText(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = s[:len(s)-2]
	}
	if strings.HasSuffix(s, "h0m") {
		s = s[:len(s)-2]
	}
	return s
}

// untilText formats an instant for the transcript, as the page shows it.
func untilText(t time.Time) string {
	return t.UTC().Format("2 Jan 2006 15:04 MST")
}
