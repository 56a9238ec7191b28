package approvals

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"time"
)

// Notification is the JSON body an approval's webhook receives (the ask's
// notify.webhook). Text is a sentence with the link that a chat's
// incoming webhook (Slack, Mattermost, Teams, Google Chat) can post as is.
type Notification struct {
	Tool     string `json:"tool"`
	Run      string `json:"run"`
	Task     string `json:"task"`
	Question string `json:"question"` // the ask's id
	Message  string `json:"message"`  // the question as the flow renders it
	To       string `json:"to"`
	Link     string `json:"link"`
	Expires  string `json:"expires"` // RFC 3339, UTC
	Text     string `json:"text"`
}

// Notice is what a Notification is made of.
type Notice struct {
	Tool, Title       string // the tool's name, and its title ("" for none)
	Run, Task         string // the run's id and the task's ("" outside a server)
	Question, Message string // the ask's id and its question as rendered
	To, Link          string // who is asked, and the page's URL
	Expires           time.Time
}

// NewNotification returns the notification of n: its fields, and a Text
// naming the tool (its title when it has one), who is asked, the
// question, until when and the link. It is the one builder of the
// payload: a server posts it, `flowserve run` prints it, and `flowserve
// test` checks it.
func NewNotification(n Notice) Notification {
	title := n.Title
	if title == "" {
		title = n.Tool
	}
	return Notification{Tool: n.Tool, Run: n.Run, Task: n.Task, Question: n.Question, Message: n.Message,
		To: n.To, Link: n.Link, Expires: n.Expires.UTC().Format(time.RFC3339),
		Text: fmt.Sprintf("%s asks %s: %s\nAnswer by %s: %s", title, n.To, n.Message,
			n.Expires.UTC().Format("2 Jan 2006 15:04 MST"), n.Link)}
}

// Defaults of a Notifier, and its limits.
const (
	DefaultAttempts = 6
	DefaultBackoff  = time.Second
	attemptTimeout  = 10 * time.Second
	maxBackoff      = time.Minute
	maxReply        = 64 << 10 // the most of a webhook's reply read
)

// The results a Notifier counts (Notifier.Count).
const (
	Delivered = "delivered"
	Retried   = "retried"
	Failed    = "failed"
)

// Notifier posts notifications to webhooks, in the background, retried
// with exponential backoff: an attempt that fails (no answer within 10 s,
// or a 5xx, 408 or 429) is retried after Backoff, then twice as long
// each time, at most a minute apart, Attempts attempts in all; another
// 4xx is not retried. Every attempt is logged with the webhook's host
// only (its URL often holds a secret). Delivery never holds up or fails
// the run: the link works whether or not the notification arrives.
type Notifier struct {
	// Client posts; nil means http.DefaultClient.
	Client *http.Client
	// Attempts is how many times a notification is posted before giving
	// up, and Backoff the pause after the first failed attempt; 0 means
	// DefaultAttempts and DefaultBackoff.
	Attempts int
	Backoff  time.Duration
	// UserAgent is the posts' User-Agent; "" means "flowserve".
	UserAgent string
	// Count, when set, counts each attempt's outcome, once it is logged:
	// Delivered, Retried or Failed.
	Count func(result string)
}

// errNotHTTP is Notify's error for a webhook that is not an http(s) URL.
var errNotHTTP = errors.New("approvals: the webhook is not an http(s) URL")

// Notify posts n to webhook in the background, until it is delivered,
// refused for good, the attempts run out or ctx ends, and logs each
// attempt to log (which says which approval it is). It returns at once:
// with an error, and nothing posted, when webhook is not an http(s) URL,
// which it logs and counts as Failed.
func (nf *Notifier) Notify(ctx context.Context, log *slog.Logger, webhook string, n Notification) error {
	u, err := url.Parse(webhook)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		nf.count(Failed)
		log.Error("approval webhook is not an http(s) URL; nobody is notified")
		return errNotHTTP
	}
	body, err := json.Marshal(n)
	if err != nil {
		nf.count(Failed)
		return fmt.Errorf("approvals: encode the notification: %w", err)
	}
	go nf.deliver(ctx, log.With("webhook", u.Host), u.String(), body)
	return nil
}

// deliver posts body to u until it is accepted (2xx), refused for good (a
// 4xx other than 408 and 429), the attempts run out, or ctx ends.
func (nf *Notifier) deliver(ctx context.Context, log *slog.Logger, u string, body []byte) {
	attempts, wait := nf.Attempts, nf.Backoff
	if attempts <= 0 {
		attempts = DefaultAttempts
	}
	if wait <= 0 {
		wait = DefaultBackoff
	}
	for attempt := 1; ; attempt++ {
		status, err := nf.post(ctx, u, body)
		switch {
		case err == nil && status/100 == 2:
			log.Info("approval webhook delivered", "attempt", attempt, "status", status)
			nf.count(Delivered)
			return
		case err == nil && status/100 == 4 && status != http.StatusRequestTimeout && status != http.StatusTooManyRequests:
			log.Error("approval webhook refused the notification; not retried", "attempt", attempt, "status", status)
			nf.count(Failed)
			return
		case attempt >= attempts:
			log.Error("approval webhook not delivered; giving up (the link still works)", "attempts", attempt, "status", status, "err", err)
			nf.count(Failed)
			return
		}
		log.Warn("approval webhook failed; retrying", "attempt", attempt, "status", status, "err", err, "in", wait)
		nf.count(Retried)
		select {
		case <-ctx.Done():
			log.Warn("approval webhook not delivered: the server is stopping")
			return
		case <-time.After(wait):
		}
		wait = min(2*wait, maxBackoff)
	}
}

// post sends one attempt and returns its HTTP status.
func (nf *Notifier) post(ctx context.Context, u string, body []byte) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, attemptTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	agent := nf.UserAgent
	if agent == "" {
		agent = "flowserve"
	}
	req.Header.Set("User-Agent", agent)
	client := nf.Client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, maxReply))
	resp.Body.Close()
	return resp.StatusCode, nil
}

// count counts an attempt's result.
func (nf *Notifier) count(result string) {
	if nf.Count != nil {
		nf.Count(result)
	}
}
