package runui_test

import (
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/flowserve/flowserve/flow"
	"github.com/flowserve/flowserve/runui"
)

// approvalFlow asks the caller an amount, then a manager to approve it,
// and says who did.
const approvalFlow = `name: refund
title: Refund a customer
description: Refunds after a manager approves.
nodes:
  - id: amount
    ask: How much?
    form:
      eur: {type: integer, title: Euros, minimum: 1}
    required: [eur]
  - id: approval
    ask: "Refund {{ amount.content.eur }} EUR?"
    to: manager@example.com
    notify: {webhook: "https://hooks.example.com/secret-path"}
    timeout: TIMEOUT
    on_timeout: expired
    form:
      approve: {type: boolean, title: Approve}
      note: {type: string, title: Note, maxLength: 10}
    required: [approve]
    validate:
      - rule: "approval.content.approve || has(approval.content.note)"
        message: say why not
  - branch:
      - if: "approval.accepted && approval.content.approve"
        then: done
  - id: refused
    return: "refused ({{ approval.action }}) by {{ approval.answered_by }}"
  - id: done
    return: "approved by {{ approval.answered_by }}"
  - id: expired
    return: "expired ({{ approval.action }})"
`

// approvalSrc is approvalFlow with the given timeout.
func approvalSrc(timeout string) string { return strings.Replace(approvalFlow, "TIMEOUT", timeout, 1) }

// TestRunApprovalScript answers approvals from an answers file, as
// `flowserve run --approvals terminal --answers FILE` does.
func TestRunApprovalScript(t *testing.T) {
	tests := []struct {
		name, answers string
		want          string
		errHas        string
		out           []string
	}{
		{
			name:    "approved by whom the answer says",
			answers: "amount: {content: {eur: 30}}\napproval: {content: {approve: true}, by: Mona}\n",
			want:    "approved by Mona",
			out: []string{
				"? [amount] How much?", `→ accept {"eur":30}`,
				"· task working: the call goes on as a task (an approval)",
				"? [approval] Refund 30 EUR?\n  (an approval for manager@example.com, not the caller; times out after 24h)",
				"(flowserve run does not post the ask's webhook, hooks.example.com;",
				`→ accept {"approve":true} (by Mona)`,
				"· task completed",
			},
		},
		{
			name:    "by the run's name when the answer does not say",
			answers: "amount: {content: {eur: 30}}\napproval: decline\n",
			want:    "refused (decline) by Tess",
			out:     []string{"→ decline (by Tess)"},
		},
		{
			name:    "refused without a note, asked again",
			answers: "amount: {content: {eur: 30}}\napproval: [{content: {approve: false}}, {content: {approve: false, note: budget}, by: Mona}]\n",
			want:    "refused (accept) by Mona",
			out: []string{
				`→ accept {"approve":false} (by Tess)`, "✗ Not accepted: say why not\n? [approval] Refund 30 EUR?\n",
				`→ accept {"approve":false,"note":"budget"} (by Mona)`,
			},
		},
		{
			name:    "timed out",
			answers: "amount: {content: {eur: 30}}\napproval: timeout\n",
			want:    "expired (timeout)",
			out:     []string{"→ timeout\n"},
		},
		{
			name:    "an approval cannot be cancelled",
			answers: "amount: {content: {eur: 30}}\napproval: cancel\n",
			errHas:  `the approval "approval" cannot be cancelled`,
		},
		{
			name:    "only approvals time out",
			answers: "amount: timeout\n",
			errHas:  `"amount" is not an approval (an ask with to:)`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			script, err := runui.ParseAnswers("answers.yaml", []byte(tc.answers))
			if err != nil {
				t.Fatal(err)
			}
			var out strings.Builder
			res, err := runui.Run(t.Context(), compile(t, approvalSrc("24h")), runui.Config{Client: allClients, Answerer: script, Out: &out, Name: "Tess"})
			if tc.errHas != "" {
				if err == nil || !strings.Contains(err.Error(), tc.errHas) {
					t.Fatalf("error %v, want one containing %q", err, tc.errHas)
				}
				return
			}
			if err != nil {
				t.Fatalf("run: %v\n%s", err, out.String())
			}
			if got := resultText(res.Complete); got != tc.want {
				t.Errorf("result %q, want %q", got, tc.want)
			}
			checkInOrder(t, out.String(), tc.out)
		})
	}
}

// TestRunApprovalAccessible answers an approval at the accessible
// prompts: its choices (no cancel; time out when it has a timeout), then
// the form and who answers, their name offered.
func TestRunApprovalAccessible(t *testing.T) {
	tests := []struct {
		name, timeout, input, want string
		out                        []string
	}{
		{
			name: "approved under the offered name", timeout: "1h",
			input: "1\n30\n" + "1\ny\n\n\n",
			want:  "approved by " + "Tess",
			out: []string{
				"How do you respond, as manager@example.com? \n1. Answer\n2. Decline (say no)\n3. Let it time out (as if nobody answered within 1h)\n",
				"Approve [y/N] y\n", "Note [at most 10 characters]: \n",
				"Recorded as who answered (answered_by).\nYour name [required; 1 to 200 characters; Enter for Tess]: \n",
				`→ accept {"approve":true} (by Tess)`,
			},
		},
		{
			name: "declined under another name", timeout: "1h",
			input: "1\n30\n" + "2\nMona Lisa\n",
			want:  "refused (decline) by Mona Lisa",
			out:   []string{"Enter a number between 1 and 3: 2\n", "Your name [required; 1 to 200 characters; Enter for Tess]: Mona Lisa\n", "→ decline (by Mona Lisa)"},
		},
		{
			name: "refused, asked again with the answer and name kept", timeout: "1h",
			input: "1\n30\n" + "1\nn\n\nMona\n" + "\n\nnot now\n\n",
			want:  "refused (accept) by Mona",
			out: []string{
				"✗ Not accepted: say why not\n? [approval]",
				"Your name [required; 1 to 200 characters; Enter for Mona]: \n",
				`→ accept {"approve":false,"note":"not now"} (by Mona)`,
			},
		},
		{
			name: "let time out", timeout: "1h",
			input: "1\n30\n" + "3\n",
			want:  "expired (timeout)",
			out:   []string{"→ timeout\n"},
		},
		{
			name: "no timeout, no third choice", timeout: "0s",
			input: "1\n30\n" + "3\n2\n\n",
			want:  "refused (decline) by Tess",
			out:   []string{"2. Decline (say no)\nEnter a number between 1 and 2: 3\n\"3\" is not a choice: enter a number between 1 and 2\n"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := approvalSrc(tc.timeout)
			if tc.timeout == "0s" {
				src = strings.Replace(strings.Replace(src, "    timeout: 0s\n", "", 1), "    on_timeout: expired\n", "", 1)
				src = strings.Replace(src, "  - id: expired\n    return: \"expired ({{ approval.action }})\"\n", "", 1)
			}
			var out strings.Builder
			term := runui.NewTerminal(runui.TerminalOptions{In: strings.NewReader(tc.input), Out: &out, Accessible: true, Echo: true})
			res, err := runui.Run(t.Context(), compile(t, src), runui.Config{Client: allClients, Answerer: term, Out: &out, Name: "Tess"})
			if err != nil {
				t.Fatalf("run: %v\n%s", err, out.String())
			}
			if got := resultText(res.Complete); got != tc.want {
				t.Errorf("result %q, want %q\n%s", got, tc.want, out.String())
			}
			checkInOrder(t, out.String(), tc.out)
		})
	}
}

// syncBuffer is a transcript written by the run and read by the test.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
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

var linkRE = regexp.MustCompile(`approval: waiting for manager@example\.com to answer "approval" at (http://127\.0\.0\.1:\d+/approve/\S+) \(until `)

// waitLink waits for the transcript to show the nth approval link.
func waitLink(t *testing.T, out *syncBuffer, n int) string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if m := linkRE.FindAllStringSubmatch(out.String(), -1); len(m) >= n {
			return m[n-1][1]
		}
		if time.Now().After(deadline) {
			t.Fatalf("no approval link in:\n%s", out.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// browser GETs and POSTs approval pages as a browser does, keeping the
// CSRF cookie.
type browser struct {
	t *testing.T
	c *http.Client
}

func newBrowser(t *testing.T) *browser {
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &browser{t: t, c: &http.Client{Jar: jar, Timeout: 10 * time.Second}}
}

var csrfRE = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// get returns the page's status and body, and its form's CSRF field.
func (b *browser) get(link string) (int, string, string) {
	b.t.Helper()
	resp, err := b.c.Get(link)
	if err != nil {
		b.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	csrf := ""
	if m := csrfRE.FindStringSubmatch(string(body)); m != nil {
		csrf = m[1]
	}
	return resp.StatusCode, string(body), csrf
}

// post sends the form with the CSRF field, as the page's own form does.
func (b *browser) post(link, csrf string, form url.Values) (int, string) {
	b.t.Helper()
	form.Set("csrf", csrf)
	req, err := http.NewRequest(http.MethodPost, link, strings.NewReader(form.Encode()))
	if err != nil {
		b.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	u, _ := url.Parse(link)
	req.Header.Set("Origin", u.Scheme+"://"+u.Host)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	resp, err := b.c.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// runPage runs src in the background with its approvals on a Page; the
// amount is answered from a script.
func runPage(t *testing.T, ctx context.Context, src string) (*syncBuffer, <-chan pageResult) {
	t.Helper()
	script, err := runui.ParseAnswers("answers.yaml", []byte("amount: {content: {eur: 30}}\n"))
	if err != nil {
		t.Fatal(err)
	}
	page := runui.NewPage(runui.PageOptions{})
	t.Cleanup(func() { page.Close() })
	out := &syncBuffer{}
	done := make(chan pageResult, 1)
	go func() {
		res, err := runui.Run(ctx, compile(t, src), runui.Config{Client: allClients, Answerer: script, Out: out, Approver: page, Name: "Tess"})
		done <- pageResult{res, err}
	}()
	return out, done
}

type pageResult struct {
	res *flow.Result
	err error
}

// wait returns the run's outcome.
func wait(t *testing.T, done <-chan pageResult, out *syncBuffer) pageResult {
	t.Helper()
	select {
	case r := <-done:
		return r
	case <-time.After(10 * time.Second):
		t.Fatalf("the run did not end:\n%s", out.String())
	}
	return pageResult{}
}

// TestRunApprovalPage answers an approval on its page: the link the run
// prints shows the form; an answer the flow refuses shows it again with
// the reason; an accepted one lets the run go on, and the link is then
// answered.
func TestRunApprovalPage(t *testing.T) {
	out, done := runPage(t, t.Context(), approvalSrc("24h"))
	link := waitLink(t, out, 1)
	b := newBrowser(t)
	status, body, csrf := b.get(link)
	if status != http.StatusOK || csrf == "" {
		t.Fatalf("GET %d, csrf %q:\n%s", status, csrf, body)
	}
	for _, want := range []string{"Refund a customer", "Refund 30 EUR?", "manager@example.com", "Tess (through flowserve run)"} {
		if !strings.Contains(body, want) {
			t.Errorf("the page lacks %q:\n%s", want, body)
		}
	}
	// The notification the webhook would get, with the link.
	checkInOrder(t, out.String(), []string{
		"flowserve run does not post webhooks: the ask's webhook (hooks.example.com) would get",
		`"tool": "refund"`, `"question": "approval"`, `"to": "manager@example.com"`, `"link": "` + link + `"`,
	})
	if strings.Contains(out.String(), "secret-path") {
		t.Errorf("the transcript shows the webhook's path:\n%s", out.String())
	}

	// Without a CSRF field: refused.
	if status, _ := b.post(link, "", url.Values{"action": {"accept"}, "answered_by": {"Mona"}, "f.approve": {"true"}}); status != http.StatusForbidden {
		t.Errorf("POST without csrf: %d, want 403", status)
	}
	// Refused without a note: the form again, with the flow's reason.
	status, body = b.post(link, csrf, url.Values{"action": {"accept"}, "answered_by": {"Mona"}, "f.approve": {"false"}})
	if status != http.StatusUnprocessableEntity || !strings.Contains(body, "say why not") {
		t.Fatalf("refusal without a note: %d\n%s", status, body)
	}
	status, body = b.post(link, csrf, url.Values{"action": {"accept"}, "answered_by": {"Mona"}, "f.approve": {"true"}})
	if status != http.StatusOK || !strings.Contains(body, "your answer was recorded") {
		t.Fatalf("approval: %d\n%s", status, body)
	}
	r := wait(t, done, out)
	if r.err != nil {
		t.Fatalf("run: %v\n%s", r.err, out.String())
	}
	if got := resultText(r.res.Complete); got != "approved by Mona" {
		t.Errorf("result %q", got)
	}
	checkInOrder(t, out.String(), []string{"✗ Not accepted (on the page): say why not", `→ accept {"approve":true} (by Mona)`})
	if status, body, _ := b.get(link); status != http.StatusGone || !strings.Contains(body, "already been answered") {
		t.Errorf("the link after the answer: %d\n%s", status, body)
	}
}

// TestRunApprovalPageTimeout: nobody answers the page before the
// approval's timeout, and the run goes on to on_timeout.
func TestRunApprovalPageTimeout(t *testing.T) {
	out, done := runPage(t, t.Context(), approvalSrc("1s"))
	link := waitLink(t, out, 1)
	r := wait(t, done, out)
	if r.err != nil {
		t.Fatalf("run: %v\n%s", r.err, out.String())
	}
	if got := resultText(r.res.Complete); got != "expired (timeout)" {
		t.Errorf("result %q", got)
	}
	checkInOrder(t, out.String(), []string{"→ timeout (nobody answered by "})
	if status, _, _ := newBrowser(t).get(link); status != http.StatusGone {
		t.Errorf("the link after the timeout: %d, want 410", status)
	}
}

// TestRunApprovalPageInterrupted: the user leaves while the page waits.
func TestRunApprovalPageInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	out, done := runPage(t, ctx, approvalSrc("24h"))
	link := waitLink(t, out, 1)
	cancel()
	r := wait(t, done, out)
	if r.err != context.Canceled {
		t.Fatalf("error %v, want context.Canceled", r.err)
	}
	if status, body, _ := newBrowser(t).get(link); status != http.StatusGone || !strings.Contains(body, "no longer open") {
		t.Errorf("the link after the interrupt: %d\n%s", status, body)
	}
}

// TestRunApprovalPageLoop: an approval asked again (a loop) gets a new
// link; the old one is answered.
func TestRunApprovalPageLoop(t *testing.T) {
	src := strings.Replace(approvalSrc("24h"), "  - id: refused\n", "  - branch:\n      - if: approval.action == 'decline'\n        then: approval\n  - id: refused\n", 1)
	out, done := runPage(t, t.Context(), src)
	b := newBrowser(t)
	first := waitLink(t, out, 1)
	_, _, csrf := b.get(first)
	if status, body := b.post(first, csrf, url.Values{"action": {"decline"}, "answered_by": {"Mona"}}); status != http.StatusOK {
		t.Fatalf("decline: %d\n%s", status, body)
	}
	second := waitLink(t, out, 2)
	if second == first {
		t.Fatal("the same link twice")
	}
	if status, _, _ := b.get(first); status != http.StatusGone {
		t.Errorf("the first link: %d, want 410", status)
	}
	_, _, csrf = b.get(second)
	if status, body := b.post(second, csrf, url.Values{"action": {"accept"}, "answered_by": {"Mona"}, "f.approve": {"true"}}); status != http.StatusOK {
		t.Fatalf("accept: %d\n%s", status, body)
	}
	r := wait(t, done, out)
	if r.err != nil || resultText(r.res.Complete) != "approved by Mona" {
		t.Fatalf("run: %v %v\n%s", r.res, r.err, out.String())
	}
}

// noTimeoutSrc is approvalSrc without a timeout.
func noTimeoutSrc() string {
	src := strings.Replace(strings.Replace(approvalSrc("0s"), "    timeout: 0s\n", "", 1), "    on_timeout: expired\n", "", 1)
	return strings.Replace(src, "  - id: expired\n    return: \"expired ({{ approval.action }})\"\n", "", 1)
}

// TestRunApprovalPageLifetime: an approval without a timeout waits, and
// its link works, as long as the run lives (approvals.Expires), as on a
// server; then the run ends, saying so, and the link has expired. (Until
// #29 the link expired after a day while the run waited on for ever.)
func TestRunApprovalPageLifetime(t *testing.T) {
	runui.SetLifetime(t, time.Second)
	out, done := runPage(t, t.Context(), noTimeoutSrc())
	link := waitLink(t, out, 1)
	if status, _, csrf := newBrowser(t).get(link); status != http.StatusOK || csrf == "" {
		t.Fatalf("the link while the run lives: %d", status)
	}
	r := wait(t, done, out)
	if r.err == nil || !strings.Contains(r.err.Error(), `nobody answered "approval" by`) || !strings.Contains(r.err.Error(), "lifetime is over") {
		t.Fatalf("error %v, want one saying nobody answered in the run's lifetime\n%s", r.err, out.String())
	}
	if status, body, _ := newBrowser(t).get(link); status != http.StatusGone || !strings.Contains(body, "expired") {
		t.Errorf("the link after the run's lifetime: %d\n%s", status, body)
	}
}

// TestRunApprovalExpires: the link and the notification of an approval
// expire by the one rule: the timeout, or the run's lifetime, a server's
// default task lifetime (a day), without one.
func TestRunApprovalExpires(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		wait      time.Duration
	}{
		{"a timeout", approvalSrc("2h"), 2 * time.Hour},
		{"no timeout", noTimeoutSrc(), 24 * time.Hour},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(t.Context())
			before := time.Now().UTC().Truncate(time.Minute)
			out, done := runPage(t, ctx, tc.src)
			waitLink(t, out, 1)
			m := regexp.MustCompile(`"expires": "([^"]+)"`).FindStringSubmatch(out.String())
			if m == nil {
				t.Fatalf("no notification:\n%s", out.String())
			}
			got, err := time.Parse(time.RFC3339, m[1])
			if err != nil {
				t.Fatal(err)
			}
			if want := before.Add(tc.wait); got.Before(want) || got.After(want.Add(2*time.Minute)) {
				t.Errorf("expires %v, want about %v", got, want)
			}
			cancel()
			wait(t, done, out)
		})
	}
}

// TestRunApprovalStateTTL: the states of a run outlive the waits of its
// approvals (approvals.Lifetime): a run's lifetime without a timeout
// (until #29, a month), the timeout plus a run's lifetime with one (until
// #29, the timeout plus an hour).
func TestRunApprovalStateTTL(t *testing.T) {
	const day = 24 * time.Hour
	tests := []struct {
		name, src string
		want      time.Duration
	}{
		{"no approval", "name: plain\ndescription: d\nnodes:\n  - id: done\n    return: ok\n", 0},
		{"no timeout", noTimeoutSrc(), day},
		{"a short timeout", approvalSrc("1h"), day + time.Hour},
		{"a long timeout", approvalSrc("48h"), 3 * day},
	}
	for _, tc := range tests {
		if got := runui.StateTTL(compile(t, tc.src)); got != tc.want {
			t.Errorf("%s: state TTL %v, want %v", tc.name, got, tc.want)
		}
	}
}
