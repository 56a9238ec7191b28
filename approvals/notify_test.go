package approvals

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestNewNotification pins the webhook's payload, field by field, as
// docs/approvals.md shows it.
func TestNewNotification(t *testing.T) {
	n := Notice{Tool: "refund_approval", Title: "Refund an order", Run: "5f0c", Task: "9b1d", Question: "approval",
		Message: "Refund 120 EUR on order A-1009?", To: "finance@example.com", Link: "https://mcp.example.com/approve/AQ",
		Expires: time.Date(2026, 12, 3, 15, 5, 9, 0, time.FixedZone("CET", 3600))}
	got, err := json.Marshal(NewNotification(n))
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"tool":"refund_approval","run":"5f0c","task":"9b1d","question":"approval",` +
		`"message":"Refund 120 EUR on order A-1009?","to":"finance@example.com","link":"https://mcp.example.com/approve/AQ",` +
		`"expires":"2026-12-03T14:05:09Z",` +
		`"text":"Refund an order asks finance@example.com: Refund 120 EUR on order A-1009?\nAnswer by 3 Dec 2026 14:05 UTC: https://mcp.example.com/approve/AQ"}`
	if string(got) != want {
		t.Errorf("notification\n got %s\nwant %s", got, want)
	}
	// Without a title, the text names the tool.
	n.Title = ""
	if text := NewNotification(n).Text; !strings.HasPrefix(text, "refund_approval asks finance@example.com: ") {
		t.Errorf("text without a title: %q", text)
	}
}

// hookServer answers its posts with statuses in turn (the last one
// thereafter) and records them.
type hookServer struct {
	mu       sync.Mutex
	statuses []int
	bodies   []string
	agents   []string
	posted   chan struct{}
}

func newHookServer(t *testing.T, statuses ...int) (*hookServer, string) {
	h := &hookServer{statuses: statuses, posted: make(chan struct{}, 100)}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body bytes.Buffer
		body.ReadFrom(r.Body)
		h.mu.Lock()
		h.bodies = append(h.bodies, body.String())
		h.agents = append(h.agents, r.Header.Get("User-Agent")+" "+r.Header.Get("Content-Type")+" "+r.Method)
		status := h.statuses[min(len(h.bodies), len(h.statuses))-1]
		h.mu.Unlock()
		w.WriteHeader(status)
		h.posted <- struct{}{}
	}))
	t.Cleanup(srv.Close)
	return h, srv.URL + "/services/T0/s3cr3t"
}

// posts returns the number of posts the hook got.
func (h *hookServer) posts() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.bodies)
}

// counts collects a Notifier's counts.
type counts struct {
	mu sync.Mutex
	m  map[string]int
}

func (c *counts) count(result string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m[result]++
}

func (c *counts) get() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[string]int{}
	for k, v := range c.m {
		out[k] = v
	}
	return out
}

// TestNotifierRetries: failed attempts (5xx, 408, 429) are retried until
// one is delivered or the attempts run out; another 4xx is not retried.
// Every attempt is logged with the webhook's host, never its URL, and
// counted.
func TestNotifierRetries(t *testing.T) {
	tests := []struct {
		name     string
		statuses []int
		attempts int
		posts    int
		counts   map[string]int
		log      string
	}{
		{"delivered at once", []int{200}, 3, 1, map[string]int{Delivered: 1}, "approval webhook delivered"},
		{"after a 500, a 408 and a 429", []int{500, 408, 429, 204}, 6, 4, map[string]int{Retried: 3, Delivered: 1}, "approval webhook delivered"},
		{"refused for good", []int{500, 404}, 6, 2, map[string]int{Retried: 1, Failed: 1}, "refused the notification; not retried"},
		{"attempts run out", []int{503}, 3, 3, map[string]int{Retried: 2, Failed: 1}, "giving up (the link still works)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, hook := newHookServer(t, tt.statuses...)
			c := &counts{m: map[string]int{}}
			var logs syncBuffer
			log := slog.New(slog.NewTextHandler(&logs, nil))
			done := make(chan struct{})
			nf := &Notifier{Attempts: tt.attempts, Backoff: time.Millisecond, UserAgent: "flowserve/test",
				Count: func(r string) {
					c.count(r)
					if r != Retried {
						close(done)
					}
				}}
			n := NewNotification(Notice{Tool: "refund", Question: "approval", To: "ana", Link: "https://x/approve/AQ", Expires: time.Unix(0, 0)})
			if err := nf.Notify(t.Context(), log, hook, n); err != nil {
				t.Fatal(err)
			}
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Fatalf("no delivery ended; counts %v", c.get())
			}
			if got := h.posts(); got != tt.posts {
				t.Errorf("%d posts, want %d", got, tt.posts)
			}
			if got := c.get(); !equalCounts(got, tt.counts) {
				t.Errorf("counts %v, want %v", got, tt.counts)
			}
			h.mu.Lock()
			body, agent := h.bodies[0], h.agents[0]
			h.mu.Unlock()
			if want, _ := json.Marshal(n); body != string(want) {
				t.Errorf("posted %s, want %s", body, want)
			}
			if agent != "flowserve/test application/json POST" {
				t.Errorf("User-Agent, Content-Type and method: %q", agent)
			}
			if !strings.Contains(logs.String(), tt.log) || !strings.Contains(logs.String(), "webhook=127.0.0.1:") || strings.Contains(logs.String(), "s3cr3t") {
				t.Errorf("log lacks %q or the webhook's host, or has its path:\n%s", tt.log, logs.String())
			}
		})
	}
}

func equalCounts(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestNotifierNotHTTP: a webhook that is not an http(s) URL is refused at
// once, logged and counted as failed, and nothing is posted.
func TestNotifierNotHTTP(t *testing.T) {
	for _, hook := range []string{"", "ftp://example.com/x", "mailto:ana@example.com", "https://", "://bad", "/relative/path"} {
		c := &counts{m: map[string]int{}}
		var logs syncBuffer
		nf := &Notifier{Count: c.count}
		err := nf.Notify(t.Context(), slog.New(slog.NewTextHandler(&logs, nil)), hook, Notification{})
		if err == nil {
			t.Errorf("Notify(%q): want an error", hook)
		}
		if got := c.get(); got[Failed] != 1 || len(got) != 1 {
			t.Errorf("Notify(%q): counts %v, want one failed", hook, got)
		}
		if !strings.Contains(logs.String(), "is not an http(s) URL") {
			t.Errorf("Notify(%q): log %q", hook, logs.String())
		}
	}
}

// TestNotifierStops: a delivery that waits to retry ends when its context
// does.
func TestNotifierStops(t *testing.T) {
	h, hook := newHookServer(t, 500)
	ctx, cancel := context.WithCancel(t.Context())
	var logs syncBuffer
	nf := &Notifier{Attempts: 100, Backoff: time.Hour}
	if err := nf.Notify(ctx, slog.New(slog.NewTextHandler(&logs, nil)), hook, Notification{}); err != nil {
		t.Fatal(err)
	}
	<-h.posted
	cancel()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(logs.String(), "not delivered: the server is stopping") {
		if time.Now().After(deadline) {
			t.Fatalf("the delivery did not stop:\n%s", logs.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	if got := h.posts(); got != 1 {
		t.Errorf("%d posts, want 1", got)
	}
}

// syncBuffer is a log written by a delivery's goroutine and read by the
// test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestNotifierUnreachable: a webhook nobody answers at is retried like a
// failed one, until the attempts run out.
func TestNotifierUnreachable(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	hook := srv.URL + "/hook"
	srv.Close()
	c := &counts{m: map[string]int{}}
	done := make(chan struct{})
	nf := &Notifier{Attempts: 3, Backoff: time.Millisecond, Count: func(r string) {
		c.count(r)
		if r == Failed {
			close(done)
		}
	}}
	if err := nf.Notify(t.Context(), slog.New(slog.DiscardHandler), hook, Notification{}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatalf("the delivery did not end; counts %v", c.get())
	}
	if got := c.get(); !equalCounts(got, map[string]int{Retried: 2, Failed: 1}) {
		t.Errorf("counts %v, want 2 retried and 1 failed", got)
	}
}
