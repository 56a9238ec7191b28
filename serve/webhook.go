package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/flowserve/flowserve/approve"
	"github.com/flowserve/flowserve/tasks"
)

// Defaults of the webhook delivery options.
const (
	DefaultWebhookAttempts = 6
	DefaultWebhookBackoff  = time.Second
	webhookTimeout         = 10 * time.Second
	webhookMaxBackoff      = time.Minute
)

// notification is what a's webhook is posted for task t, with the link
// to its page.
func notification(t *tasks.Task, a *tasks.Approval, title, link string) approve.Notification {
	var req struct {
		Params struct {
			Message string `json:"message"`
		} `json:"params"`
	}
	json.Unmarshal(a.Request, &req)
	return approve.NewNotification(approve.Notice{Tool: t.Tool, Title: title, Run: a.Run, Task: t.ID, Question: a.Node,
		Message: req.Params.Message, To: a.To, Link: link, Expires: a.Expires})
}

// notify posts the notification of approval a of task t, with link, to
// its webhook (sealed in a: see awaitApproval) in
// the background, retried with exponential backoff (Options.WebhookAttempts
// attempts, from Options.WebhookBackoff, at most a minute apart) and every
// attempt logged. It never blocks or fails the run: the link works whether
// or not the notification arrives.
func (s *Server) notify(t *tasks.Task, a *tasks.Approval, link string) {
	webhook, err := s.sealer.OpenAtRest(a.Webhook)
	if err != nil {
		s.metrics.Webhooks.WithLabelValues("failed").Inc()
		s.log.Error("approval webhook cannot be opened (the state key changed?); nobody is notified", "task", t.ID, "tool", t.Tool, "ask", a.Node, "err", err)
		return
	}
	u, err := url.Parse(webhook)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		s.metrics.Webhooks.WithLabelValues("failed").Inc()
		s.log.Error("approval webhook is not an http(s) URL; nobody is notified", "task", t.ID, "tool", t.Tool, "ask", a.Node)
		return
	}
	title := ""
	if p, ok := s.program(t.Tool); ok {
		title = p.Title()
	}
	body, _ := json.Marshal(notification(t, a, title, link))
	go s.deliver(s.work.claims, t, a, u, body)
}

// deliver posts body to u until it is accepted (2xx), refused for good (a
// 4xx other than 408 and 429), the attempts run out, or ctx ends.
func (s *Server) deliver(ctx context.Context, t *tasks.Task, a *tasks.Approval, u *url.URL, body []byte) {
	// The URL is not logged: webhook URLs often hold a secret.
	log := s.log.With("task", t.ID, "tool", t.Tool, "ask", a.Node, "webhook", u.Host)
	wait := s.opts.WebhookBackoff
	for attempt := 1; ; attempt++ {
		status, err := s.post(ctx, u.String(), body)
		switch {
		case err == nil && status/100 == 2:
			s.metrics.Webhooks.WithLabelValues("delivered").Inc()
			log.Info("approval webhook delivered", "attempt", attempt, "status", status)
			return
		case err == nil && status/100 == 4 && status != http.StatusRequestTimeout && status != http.StatusTooManyRequests:
			s.metrics.Webhooks.WithLabelValues("failed").Inc()
			log.Error("approval webhook refused the notification; not retried", "attempt", attempt, "status", status)
			return
		case attempt >= s.opts.WebhookAttempts:
			s.metrics.Webhooks.WithLabelValues("failed").Inc()
			log.Error("approval webhook not delivered; giving up (the link still works)", "attempts", attempt, "status", status, "err", err)
			return
		}
		s.metrics.Webhooks.WithLabelValues("retried").Inc()
		log.Warn("approval webhook failed; retrying", "attempt", attempt, "status", status, "err", err, "in", wait)
		select {
		case <-ctx.Done():
			log.Warn("approval webhook not delivered: the server is stopping")
			return
		case <-time.After(wait):
		}
		wait = min(2*wait, webhookMaxBackoff)
	}
}

// post sends one attempt and returns its HTTP status.
func (s *Server) post(ctx context.Context, u string, body []byte) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, webhookTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "flowserve/"+s.opts.Version)
	resp, err := s.webhookClient().Do(req)
	if err != nil {
		return 0, err
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	return resp.StatusCode, nil
}

// webhookClient is the HTTP client webhooks are posted with: Options'
// WebhookClient, or http.DefaultClient.
func (s *Server) webhookClient() *http.Client {
	if s.opts.WebhookClient != nil {
		return s.opts.WebhookClient
	}
	return http.DefaultClient
}
