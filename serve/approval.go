package serve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"

	"github.com/flowserve/flowserve/approvals"
	"github.com/flowserve/flowserve/approve"
	"github.com/flowserve/flowserve/flow"
	"github.com/flowserve/flowserve/serve/internal/wire"
	"github.com/flowserve/flowserve/serve/observe"
	"github.com/flowserve/flowserve/tasks"
)

// Approvals: a flow's ask with `to` is a question for someone other than
// the caller. The round that reaches it ends with flow.Result.Approval;
// the call becomes a task that waits (status working) with the question
// in Task.Approval, served at a signed, single-use link (/approve/<token>,
// package approve, sealed by package approvals, which also has the
// asking's key, its expiry and its notification) and announced to the
// ask's webhook (webhook.go). An answer from the page is journaled by a
// round of its own (flow.Request.Approval) and the task goes on on a
// worker; nobody answering before the ask's timeout makes a worker
// journal the timeout (store.DispatchAt). A caller without tasks waits
// for the answer inside its call (approvalwait.go).

// origin is where a call came from: what the task it becomes keeps for
// the pages and logs of its approvals.
type origin struct {
	caller string // the caller's name (the token file's), or ""
	base   string // the server's URL as the caller reached it, e.g. "https://mcp.example.com"
	// r, when base is "", is the HTTP request the call came in on: its
	// base is only made when a task needs it (baseURL), not every call.
	r *http.Request
	// trace is the trace context the call came with.
	trace observe.TraceParent
}

// baseURL returns the server's URL as the caller reached it, or "".
func (o origin) baseURL() string {
	if o.base == "" && o.r != nil {
		return requestBase(o.r)
	}
	return o.base
}

type originKey struct{}

// withBase returns ctx carrying base, the server's URL as the HTTP
// request of a call reached it, for the links of the approvals the call
// may reach (the SDK's paths; the lean path reads its request).
func withBase(ctx context.Context, base string) context.Context {
	return context.WithValue(ctx, originKey{}, base)
}

// baseOf returns the server's base URL for links: Options.PublicURL when
// set, else the one ctx carries (withBase), else "".
func (s *Server) baseOf(ctx context.Context) string {
	if s.opts.PublicURL != "" {
		return s.opts.PublicURL
	}
	b, _ := ctx.Value(originKey{}).(string)
	return b
}

// awaitApproval makes t wait for the answer to ap and sets how long it
// waits, by the approvals' expiry policy: ap's timeout, or for as long as
// the task lives (approvals.Expires), the task being kept long enough to
// go on after the timeout (approvals.Lifetime). The asking's key is the
// ask's id and the task's count of rounds that ended asking, so that a
// link answers one asking of one question. The run store keeps no link
// (approvalLink mints one when needed) and the webhook URL only sealed:
// both are credentials.
func (s *Server) awaitApproval(t *tasks.Task, ap *flow.Approval) error {
	now := s.engine.Now()
	t.Asked++
	t.Status, t.State = tasks.Working, ap.State
	t.Requests, t.Questions, t.Answers = nil, nil, nil
	req, err := wire.AppendInputRequest(nil, ap.Question)
	if err != nil {
		return err
	}
	webhook, err := s.sealer.SealAtRest(ap.Webhook)
	if err != nil {
		return fmt.Errorf("seal the approval's webhook: %w", err)
	}
	t.TTL = approvals.Lifetime(t.TTL, ap.Timeout, s.opts.TaskTTL)
	a := &tasks.Approval{Key: approvals.Key(ap.Node, t.Asked), Node: ap.Node, Run: ap.Run, Request: req, To: ap.To, Webhook: webhook,
		Asked: now, Expires: approvals.Expires(now, ap.Timeout, t.TTL)}
	if ap.Timeout > 0 {
		a.Deadline = a.Expires
	}
	if _, err := s.sealer.Seal(ticket(t.ID, a)); err != nil {
		return fmt.Errorf("seal the approval link: %w", err) // a key too long for a link
	}
	t.Approval = a
	t.Message = fmt.Sprintf("waiting for %s to answer %q (until %s)", a.To, a.Node, wire.Time(a.Expires))
	return nil
}

// ticket is the ticket of the links of approval a of task id.
func ticket(id string, a *tasks.Approval) approvals.Ticket {
	return approvals.Ticket{Task: id, Key: a.Key, Expires: a.Expires}
}

// approvalLink mints a link to the page of the approval t waits for: a
// fresh token for the same ticket each time, all of them working until
// the approval's expiry. "" when t waits for none, or sealing fails.
func (s *Server) approvalLink(t *tasks.Task) string {
	if t.Approval == nil {
		return ""
	}
	link, err := s.sealer.Link(t.Base, ticket(t.ID, t.Approval))
	if err != nil {
		s.log.Error("cannot mint an approval link", "task", t.ID, "ask", t.Approval.Node, "err", err)
		return ""
	}
	return link
}

// statusMessage is the statusMessage of t: the one stored, followed,
// while t waits for an approval whose ask has no webhook, by the link
// (see linkFor).
func (s *Server) statusMessage(t *tasks.Task) string {
	if t.Status != tasks.Working || t.Approval == nil || t.Approval.Answered {
		return t.Message
	}
	return t.Message + s.linkFor(t)
}

// linkFor returns how a message to the caller names where the approval
// t waits for is answered: " at <link>" when the ask has no other
// channel (the caller passes it on), else "" (the link went only to the
// webhook: see approvals.ToCaller).
func (s *Server) linkFor(t *tasks.Task) string {
	if !approvals.ToCaller(t.Approval.Webhook) {
		return ""
	}
	return " at " + s.approvalLink(t)
}

// approvalWaiting does what follows a task's entering approval wait, once
// stored: it schedules its timeout and sends its notification.
func (s *Server) approvalWaiting(ctx context.Context, t *tasks.Task) {
	a := t.Approval
	if !a.Deadline.IsZero() {
		if err := s.tasks.DispatchAt(ctx, t.ID, a.Deadline); err != nil {
			// The timeout is then taken by the next round that reads
			// the task (a page answer still works).
			s.log.Error("cannot schedule an approval's timeout", "task", t.ID, "tool", t.Tool, "ask", a.Node, "err", err)
		}
	}
	s.metrics.Approvals.WithLabelValues(t.Tool, "asked").Inc()
	// The link is a credential: the log shows only its start, and where
	// it went (the webhook, or the caller, who is to pass it on).
	sentTo := "webhook"
	if approvals.ToCaller(a.Webhook) {
		sentTo = "caller"
	}
	link := s.approvalLink(t)
	s.log.Info("approval waiting", "task", t.ID, "tool", t.Tool, "ask", a.Node, "to", a.To, "expires", a.Expires,
		"link", approvals.Redact(link), "sent_to", sentTo)
	if a.Webhook != "" {
		s.notify(t, a, link)
	}
}

// errNotWaiting aborts a change of a task that no longer waits for the
// approval a ticket or a round was for.
var errNotWaiting = errors.New("the task no longer waits for this approval")

// waitsFor reports whether t waits for the approval of key.
func waitsFor(t *tasks.Task, key string) bool {
	return t.Status == tasks.Working && t.Approval != nil && t.Approval.Key == key && !t.Approval.Answered
}

// approvalDue reports whether the approval t waits for has timed out and
// no call waits for it inline: a worker then journals its timeout.
func (s *Server) approvalDue(t *tasks.Task) bool {
	a := t.Approval
	now := s.engine.Now()
	return !a.Deadline.IsZero() && !now.Before(a.Deadline) && !a.Waiter.After(now)
}

// answerApproval runs the round that journals ans, the answer to the
// approval t waits for, and stores the state it gives: the task goes on
// on a worker, unless a call waits for it inline (approvalwait.go). It
// returns why the answer was not accepted, or "".
func (s *Server) answerApproval(ctx context.Context, t *tasks.Task, ans *flow.ApprovalAnswer) (string, error) {
	p, ok := s.runProgram(ctx, t.Tool, t.Version)
	if !ok {
		return "", fmt.Errorf("the %s tool is no longer served", t.Tool)
	}
	key := t.Approval.Key
	next, rejected, err := s.approvalRound(ctx, p, t, ans)
	if err != nil || rejected != "" {
		return rejected, err
	}
	inline := false
	stored, err := s.tasks.Update(ctx, t.ID, func(t *tasks.Task) error {
		if !waitsFor(t, key) {
			return errNotWaiting
		}
		inline = t.Approval.Waiter.After(s.engine.Now())
		t.State, t.Message = next, ""
		if !ans.TimedOut {
			t.Answered = append(t.Answered, key)
		}
		if inline {
			t.Approval.Answered = true
		} else {
			t.Approval = nil
		}
		t.Updated = s.engine.Now()
		return nil
	})
	if err != nil {
		return "", err
	}
	action := "answered"
	if ans.TimedOut {
		action = "timeout"
	}
	s.metrics.Approvals.WithLabelValues(stored.Tool, action).Inc()
	s.log.Info("approval "+action, "task", stored.ID, "tool", stored.Tool, "ask", ans.Node, "by", ans.By)
	if !inline {
		if err := s.tasks.Dispatch(ctx, stored.ID); err != nil {
			s.log.Error("approval answered but the task was not dispatched; retrying", "task", stored.ID, "err", err)
			s.work.Redispatch(stored.ID, "")
		}
	}
	return "", nil
}

// approvalRound runs, on p, the round that journals ans: the page's
// answer to the approval t waits for, or its timeout. It returns the
// state the run goes on from or, for an answer the form or its validate
// rules refuse, why.
func (s *Server) approvalRound(ctx context.Context, p *flow.Program, t *tasks.Task, ans *flow.ApprovalAnswer) (next, rejected string, err error) {
	fr := &flow.Request{Arguments: t.Arguments, State: t.State, Client: flowClient(t.Client),
		Principal: t.Principal, Identity: flowIdentity(t.Identity), StateTTL: t.TTL, Task: t.ID}
	rounds := &callRounds{s: s, p: p, label: wire.FirstModernVersion, rule: replyNone,
		o: origin{caller: "approval " + t.ID, trace: observe.ParseTaskTrace(t.Trace)}}
	d := rounds.driver()
	next, again, err := d.Journal(ctx, p, fr, ans)
	if again != nil {
		return "", again.Question.Rejected, nil
	}
	return next, "", err
}

// pages serves the approval pages from the run store: their
// approvals.Backend.
type pages struct{ s *Server }

// lookup returns the task a ticket is for, waiting for its approval.
func (b pages) lookup(ctx context.Context, tk approvals.Ticket) (*tasks.Task, error) {
	t, err := b.s.tasks.Get(ctx, tk.Task)
	switch {
	case errors.Is(err, tasks.ErrNotFound):
		return nil, approvals.ErrGone
	case err != nil:
		return nil, err
	case slices.Contains(t.Answered, tk.Key):
		return nil, approvals.ErrAnswered
	case t.Status.Terminal():
		return nil, approvals.ErrGone
	case !waitsFor(t, tk.Key):
		return nil, approvals.ErrAnswered
	}
	if _, ok := b.s.runProgram(ctx, t.Tool, t.Version); !ok {
		// The tool was removed (a reload): its run cannot go on.
		return nil, approvals.ErrGone
	}
	return t, nil
}

// Page returns the page of the question a ticket is for.
func (b pages) Page(ctx context.Context, tk approvals.Ticket) (*approvals.Page, error) {
	t, err := b.lookup(ctx, tk)
	if err != nil {
		return nil, err
	}
	q, err := storedQuestion(t.Approval)
	if err != nil {
		return nil, fmt.Errorf("stored approval of task %s: %w", t.ID, err)
	}
	pg := &approvals.Page{Tool: t.Tool, Message: q.Message, Schema: q.Schema,
		To: t.Approval.To, For: onBehalfOf(t), Expires: t.Approval.Expires}
	if t.Identity != nil {
		pg.Caller = t.Identity.Subject // with sign-in, they may not answer it
	}
	if p, ok := b.s.runProgram(ctx, t.Tool, t.Version); ok {
		pg.Title = p.Title()
	}
	return pg, nil
}

// pageQuestion is the question of a stored approval, as its page and
// its notification show it.
type pageQuestion struct {
	Message string         `json:"message"`
	Schema  map[string]any `json:"requestedSchema"`
}

// storedQuestion returns the question a stored approval asks (its
// Request's params).
func storedQuestion(a *tasks.Approval) (pageQuestion, error) {
	var req struct {
		Params pageQuestion `json:"params"`
	}
	err := json.Unmarshal(a.Request, &req)
	return req.Params, err
}

// onBehalfOf names the caller of t for its approval page.
func onBehalfOf(t *tasks.Task) string {
	switch {
	case t.Caller != "" && t.Client.Name != "":
		return t.Caller + " (through " + t.Client.Name + ")"
	case t.Caller != "":
		return t.Caller
	}
	return t.Client.Name
}

// Submit takes an answer from the page.
func (b pages) Submit(ctx context.Context, tk approvals.Ticket, a approvals.Answer) (string, error) {
	t, err := b.lookup(ctx, tk)
	if err != nil {
		return "", err
	}
	ans, err := a.Engine(t.Approval.Node)
	if err != nil {
		return "", err
	}
	reason, err := b.s.answerApproval(ctx, t, ans)
	if errors.Is(err, errNotWaiting) {
		return "", approvals.ErrAnswered
	}
	return reason, err
}

// timeoutApproval journals that nobody answered the approval t waits for
// in time, under claim c, and returns the task to go on with.
func (s *Server) timeoutApproval(ctx context.Context, c *tasks.Claim, t *tasks.Task, p *flow.Program) (*tasks.Task, error) {
	key := t.Approval.Key
	ans := approvals.Timeout(t.Approval.Node, s.engine.Now())
	next, _, err := s.approvalRound(ctx, p, t, ans)
	if err != nil {
		return nil, err
	}
	stored, err := tasks.UpdateOwned(ctx, s.tasks, c, func(t *tasks.Task) error {
		if !waitsFor(t, key) {
			return errNotWaiting
		}
		t.State, t.Approval, t.Message = next, nil, ""
		t.Updated = s.engine.Now()
		return nil
	})
	if err == nil {
		s.metrics.Approvals.WithLabelValues(t.Tool, "timeout").Inc()
		s.log.Info("approval timed out", "task", t.ID, "tool", t.Tool, "ask", ans.Node)
	}
	return stored, err
}

// approvalHandler serves the approval pages.
func (s *Server) approvalHandler() http.Handler {
	return approve.NewHandler(pages{s}, s.sealer, approve.Options{Now: s.engine.Now, Log: s.log,
		SignIn: s.opts.ApprovalSignIn, PublicURL: s.opts.PublicURL})
}
