package serve

import (
	"github.com/flowserve/flowserve/approvals"
	"github.com/flowserve/flowserve/tasks"
)

// Defaults of the webhook delivery options: the approvals Notifier's.
const (
	DefaultWebhookAttempts = approvals.DefaultAttempts
	DefaultWebhookBackoff  = approvals.DefaultBackoff
)

// notification is what a's webhook is posted for task t, with the link
// to its page.
func notification(t *tasks.Task, a *tasks.Approval, title, link string) approvals.Notification {
	// A request that cannot be read (never one this server stored) gives
	// a notification without its message: the link is what matters.
	q, _ := storedQuestion(a)
	return approvals.NewNotification(approvals.Notice{Tool: t.Tool, Title: title, Run: a.Run, Task: t.ID, Question: a.Node,
		Message: q.Message, To: a.To, Link: link, Expires: a.Expires})
}

// notify posts the notification of approval a of task t, with link, to
// its webhook (sealed in a: see awaitApproval) in the background, with
// the approvals Notifier: retried with exponential backoff
// (Options.WebhookAttempts attempts, from Options.WebhookBackoff, at most
// a minute apart), every attempt logged and counted
// (flowserve_webhook_deliveries_total). It never blocks or fails the run:
// the link works whether or not the notification arrives.
func (s *Server) notify(t *tasks.Task, a *tasks.Approval, link string) {
	log := s.log.With("task", t.ID, "tool", t.Tool, "ask", a.Node)
	webhook, err := s.sealer.OpenAtRest(a.Webhook)
	if err != nil {
		s.metrics.Webhooks.WithLabelValues(approvals.Failed).Inc()
		log.Error("approval webhook cannot be opened (the state key changed?); nobody is notified", "err", err)
		return
	}
	title := ""
	if p, ok := s.program(t.Tool); ok {
		title = p.Title()
	}
	nf := &approvals.Notifier{Client: s.opts.WebhookClient, Attempts: s.opts.WebhookAttempts, Backoff: s.opts.WebhookBackoff,
		UserAgent: "flowserve/" + s.opts.Version,
		Count:     func(result string) { s.metrics.Webhooks.WithLabelValues(result).Inc() }}
	// The error is logged and counted by Notify.
	_ = nf.Notify(s.work.Claiming(), log, webhook, notification(t, a, title, link))
}
