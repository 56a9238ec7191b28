package runui

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/flowserve/flowserve/approvals"
	"github.com/flowserve/flowserve/approve"
)

// Page answers approvals on an approval page, as a server does: at the
// first approval of the run it starts an HTTP server (on PageOptions.Addr)
// serving approve.NewHandler at /approve/, prints the link of the
// approval the run waits for, and waits until the page is answered, the
// approval expires (approvals.Expires: it times out, or, without a
// timeout, the run's lifetime ends and the run with it), or the context
// ends. It posts no webhook: for an approval with one it prints the
// notification it would post.
type Page struct {
	opts PageOptions

	startOnce sync.Once
	startErr  error
	ln        net.Listener
	srv       *http.Server
	sealer    *approvals.Sealer
	base      string // http://host:port

	mu      sync.Mutex
	cur     *waiting        // the approval the run waits for; nil when none
	settled map[string]bool // keys of approvals answered or timed out
	asked   map[string]int  // approvals asked, by ask id
}

// PageOptions configure a Page.
type PageOptions struct {
	// Addr is where the page's server listens; "" means 127.0.0.1:0 (a
	// free port on the loopback interface).
	Addr string
	// Log receives the approval handler's log lines; nil drops them.
	Log *slog.Logger
}

// Page answers approvals.
var _ Approver = (*Page)(nil)

// waiting is the approval a Page waits for the answer to.
type waiting struct {
	ap     *Approval
	ticket approvals.Ticket
	page   *approvals.Page
	answer AnswerFunc
	out    io.Writer
	done   chan error // receives the outcome once: nil when an answer was accepted
}

// NewPage returns a Page; its server starts at the run's first approval.
// Close it when the run is over.
func NewPage(opts PageOptions) *Page {
	if opts.Addr == "" {
		opts.Addr = "127.0.0.1:0"
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	return &Page{opts: opts, settled: map[string]bool{}, asked: map[string]int{}}
}

// start starts the page's server, once.
func (pg *Page) start() error {
	pg.startOnce.Do(func() {
		secret := make([]byte, 32)
		rand.Read(secret) // never fails (crypto/rand)
		s, err := approvals.NewSealer(secret)
		if err != nil {
			pg.startErr = err
			return
		}
		ln, err := net.Listen("tcp", pg.opts.Addr)
		if err != nil {
			pg.startErr = fmt.Errorf("the approval page cannot listen on %s: %w", pg.opts.Addr, err)
			return
		}
		pg.mu.Lock()
		pg.sealer, pg.ln = s, ln
		pg.base = "http://" + ln.Addr().String()
		pg.mu.Unlock()
		mux := http.NewServeMux()
		mux.Handle(approvals.PathPrefix, approve.NewHandler(pageBackend{pg}, s, approve.Options{Log: pg.opts.Log}))
		srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
		pg.mu.Lock()
		pg.srv = srv
		pg.mu.Unlock()
		go srv.Serve(ln)
	})
	return pg.startErr
}

// URL returns the base URL the page is served at, http://host:port, or
// "" before the first approval.
func (pg *Page) URL() string {
	pg.mu.Lock()
	defer pg.mu.Unlock()
	return pg.base
}

// Close stops the page's server, once the pages being sent are sent (the
// one that took the run's last answer among them), or after a few
// seconds.
func (pg *Page) Close() error {
	pg.mu.Lock()
	srv := pg.srv
	pg.mu.Unlock()
	if srv == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		return srv.Close()
	}
	return nil
}

// Approve serves ap on the page and waits for its answer.
func (pg *Page) Approve(ctx context.Context, ap *Approval, answer AnswerFunc, out io.Writer) error {
	if err := pg.start(); err != nil {
		return err
	}
	pg.mu.Lock()
	pg.asked[ap.Node]++
	t := approvals.Ticket{Task: ap.Run, Key: approvals.Key(ap.Node, pg.asked[ap.Node]), Expires: ap.Expires}
	link, err := pg.sealer.Link(pg.base, t)
	pg.mu.Unlock()
	if err != nil {
		return fmt.Errorf("seal the approval link: %w", err)
	}
	w := &waiting{ap: ap, ticket: t, answer: answer, out: out, done: make(chan error, 1),
		page: &approvals.Page{Tool: ap.Tool, Title: ap.Title, Message: ap.Question.Message, Schema: ap.Question.Schema,
			To: ap.To, For: ap.Question.Approval.By + " (through flowserve run)", Expires: ap.Expires}}
	pg.mu.Lock()
	pg.cur = w
	pg.mu.Unlock()
	defer func() {
		pg.mu.Lock()
		if pg.cur == w {
			pg.cur = nil
		}
		pg.mu.Unlock()
	}()

	fmt.Fprintf(out, "approval: waiting for %s to answer %q at %s (until %s)\n", ap.To, ap.Node, link, untilText(ap.Expires))
	if ap.Webhook != "" {
		b, err := json.MarshalIndent(ap.Notification(link), "", "  ")
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "  flowserve run does not post webhooks: the ask's webhook (%s) would get\n  %s\n", hostOf(ap.Webhook), indent(string(b), "  "))
	}

	expiry := time.NewTimer(time.Until(ap.Expires))
	defer expiry.Stop()
	select {
	case err := <-w.done:
		return err
	case <-ctx.Done():
		pg.withdraw(w)
		return ctx.Err()
	case <-expiry.C:
	}
	return pg.expire(ctx, w)
}

// expire settles the approval w once it expired: it times out, or,
// without a timeout, the run ends, its lifetime over, as a server's task
// would.
func (pg *Page) expire(ctx context.Context, w *waiting) error {
	ap := w.ap
	pg.mu.Lock()
	if pg.cur != w {
		// Answered as the timer fired.
		pg.mu.Unlock()
		return <-w.done
	}
	pg.cur = nil
	if ap.Timeout <= 0 {
		pg.mu.Unlock()
		return fmt.Errorf("nobody answered %q by %s: an approval without a timeout waits as long as its run can go on, and this run's lifetime is over", ap.Node, untilText(ap.Expires))
	}
	pg.settled[w.ticket.Key] = true
	pg.mu.Unlock()
	out := w.out
	reason, err := w.answer(ctx, approvals.Timeout(ap.Node, time.Now()))
	if err == nil && reason != "" {
		err = fmt.Errorf("the timeout of %q was not accepted: %s", ap.Node, reason)
	}
	if err == nil {
		fmt.Fprintf(out, "→ %s (nobody answered by %s)\n", ActionTimeout, untilText(ap.Expires))
	}
	return err
}

// withdraw closes the approval w, if it is still open, without an
// answer: its page then says it is no longer open.
func (pg *Page) withdraw(w *waiting) {
	pg.mu.Lock()
	defer pg.mu.Unlock()
	if pg.cur == w {
		pg.cur = nil
	}
}

// pageBackend is the approval handler's Backend: the one approval the run
// waits for.
type pageBackend struct{ pg *Page }

// lookup returns the approval a ticket is for, with the page's lock
// held, or the error for a question no longer open (the lock released).
func (b pageBackend) lookup(t approvals.Ticket) (*waiting, error) {
	pg := b.pg
	pg.mu.Lock()
	w := pg.cur
	if w != nil && w.ticket.Task == t.Task && w.ticket.Key == t.Key {
		return w, nil
	}
	settled := pg.settled[t.Key]
	pg.mu.Unlock()
	if settled {
		return nil, approvals.ErrAnswered
	}
	return nil, approvals.ErrGone
}

// Page returns the page of the approval the run waits for.
func (b pageBackend) Page(_ context.Context, t approvals.Ticket) (*approvals.Page, error) {
	w, err := b.lookup(t)
	if err != nil {
		return nil, err
	}
	defer b.pg.mu.Unlock()
	return w.page, nil
}

// Submit runs the round that journals the page's answer. The page's lock
// is held throughout, so that one answer (or the timeout) settles the
// approval.
func (b pageBackend) Submit(ctx context.Context, t approvals.Ticket, a approvals.Answer) (string, error) {
	w, err := b.lookup(t)
	if err != nil {
		return "", err
	}
	defer b.pg.mu.Unlock()
	ans := &Answer{Action: a.Action, By: a.By}
	if a.Action == ActionAccept {
		ans.Content = a.Content
	}
	engine, err := a.Engine(w.ap.Node)
	if err != nil {
		return "", err
	}
	reason, err := w.answer(ctx, engine)
	switch {
	case err != nil:
		// The run cannot go on: it ends with the error.
		b.pg.cur = nil
		w.done <- err
		return "", err
	case reason != "":
		fmt.Fprintf(w.out, "\n✗ Not accepted (on the page): %s\n", reason)
		return reason, nil
	}
	b.pg.cur = nil
	b.pg.settled[t.Key] = true
	printAnswer(w.out, ans)
	w.done <- nil
	return "", nil
}
