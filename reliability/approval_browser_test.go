package reliability

// The approval page (DESIGN §12) in a real browser: the real flowserve
// binary serves a refund flow whose ask is addressed to a manager; a
// 2026-07-28 client with the tasks extension calls it and gets a task
// that waits, with the page's link in its statusMessage; headless
// Chromium, driven over the DevTools protocol by chromedp, opens the
// link, answers by keyboard and mouse, is refused by the flow's own
// validate rule, answers again, and the task completes with the answer
// and the name typed on the page. It runs once with JavaScript on and
// once with it off: the page is plain HTML and must work without it.

import (
	"context"
	"encoding/base64"
	"flag"
	"fmt"
	"html"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// refundApprovalFlow asks the manager the call names to approve a refund
// on the approval page. A refusal needs a note saying why; nobody
// answering within the timeout ends the run as expired.
const refundApprovalFlow = `name: refund
title: Refund a customer payment
description: Refunds a customer's payment once a manager approves it.
input:
  type: object
  properties:
    amount: {type: string, description: Amount in EUR}
    customer: {type: string}
    order: {type: string}
    reason: {type: string, description: Why the customer asks for a refund}
    manager: {type: string, description: Who approves the refund}
  required: [amount, customer, order, reason, manager]
nodes:
  - id: approval
    ask: |-
      Refund {{ input.amount }} EUR to {{ input.customer }} for order {{ input.order }}?
      Reason given by the customer: {{ input.reason }}
    to: "{{ input.manager }}"
    timeout: 1h
    on_timeout: expired
    form:
      approve: {type: boolean, title: Approve the refund}
      note: {type: string, title: Note for the support agent, description: Needed when you refuse the refund, maxLength: 200}
    required: [approve]
    validate:
      - rule: "approval.content.approve || has(approval.content.note)"
        message: Say in the note why the refund is refused
  - branch:
      - if: "approval.action == 'accept' && approval.content.approve"
        then: refunded
      - else: refused
  - id: refunded
    return: "Refund of {{ input.amount }} EUR to {{ input.customer }} approved by {{ approval.answered_by }}."
  - id: refused
    return: "Refund of {{ input.amount }} EUR to {{ input.customer }} refused ({{ approval.action }}) by {{ approval.answered_by }}: {{ approval.content.?note.orValue('') }}"
  - id: expired
    return: "Nobody answered the refund of {{ input.amount }} EUR to {{ input.customer }} in time."
`

// refundArgs are the arguments of a realistic refund call.
func refundArgs(manager string) map[string]any {
	return map[string]any{"amount": "249.90", "customer": "Jane Cooper", "order": "A-10472",
		"reason": "The parcel arrived damaged; photos attached to ticket #5531.", "manager": manager}
}

// chromiumInstall says how to get Chromium; test failures quote it.
const chromiumInstall = "install it with `apt-get install -y chromium` (Debian, Ubuntu; as root; .ci/run does), " +
	"or set CHROMIUM to the path of a Chromium or Chrome binary"

// chromiumPath returns the browser the tests drive: $CHROMIUM,
// /usr/bin/chromium, or the first chromium, chromium-browser or
// google-chrome on $PATH. A missing browser fails the test, as a missing
// redis-server does (replies/redis/redistest): these tests must run
// wherever `go test ./...` runs, CI included.
func chromiumPath(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("CHROMIUM"); p != "" {
		return p
	}
	if _, err := os.Stat("/usr/bin/chromium"); err == nil {
		return "/usr/bin/chromium"
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Fatalf("Chromium is not installed; the approval page's browser tests need it: %s", chromiumInstall)
	return ""
}

// startBrowser starts headless Chromium for the test and returns its
// context; tabs are chromedp.NewContext of it. It is stopped when the test
// ends.
func startBrowser(t testing.TB) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromiumPath(t)),
		chromedp.Headless,
		chromedp.DisableGPU,
		chromedp.UserDataDir(t.TempDir()),
	)
	if os.Geteuid() == 0 {
		opts = append(opts, chromedp.NoSandbox) // Chromium refuses to run as root with its sandbox
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	bctx, cancelBrowser := chromedp.NewContext(actx)
	t.Cleanup(func() { cancelBrowser(); cancelAlloc() })
	// The first Do starts the browser.
	if err := chromedp.Do(bctx); err != nil {
		t.Fatalf("start Chromium: %v (%s)", err, chromiumInstall)
	}
	return bctx
}

// newTab opens a tab in a fresh browser context (its own cookies) that
// gives up after timeout. With noJS the tab runs no script at all.
func newTab(t testing.TB, browser context.Context, timeout time.Duration, noJS bool) context.Context {
	t.Helper()
	tctx, cancelTimeout := context.WithTimeout(browser, timeout)
	tab, cancelTab := chromedp.NewContext(tctx, chromedp.WithNewBrowserContext())
	t.Cleanup(func() { cancelTab(); cancelTimeout() })
	steps := []chromedp.Action[chromedp.Void]{
		// A headless tab is not focused: without this, focus moves but
		// :focus matches nothing.
		callVoid(emulation.SetFocusEmulationEnabled, emulation.SetFocusEmulationEnabledParams{Enabled: true}),
	}
	if noJS {
		steps = append(steps, callVoid(emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}))
	}
	if err := chromedp.Do(tab, steps...); err != nil {
		t.Fatalf("open a tab: %v", err)
	}
	return tab
}

// callVoid is a protocol command as an action that returns nothing.
func callVoid[P, R any](cmd cdp.Command[P, R], params P) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, cmd, params)
		return err
	})
}

// approvalClient is a 2026-07-28 client with the tasks extension, as
// raw JSON-RPC over HTTP.
type approvalClient struct {
	url  string // the MCP endpoint
	name string // its clientInfo name: the page shows it as on whose behalf the tool asks
}

// rpc sends one request; mcpName goes in Mcp-Name (the tool, or the task
// id of a tasks/* request).
func (c approvalClient) rpc(ctx context.Context, method, mcpName string, params map[string]any) (*durableTask, error) {
	return durableRPCAs(ctx, c.url, c.name, method, mcpName, params)
}

// startRefund calls the refund tool and returns the task it becomes.
func (c approvalClient) startRefund(t testing.TB, ctx context.Context, args map[string]any) string {
	t.Helper()
	task, err := c.rpc(ctx, "tools/call", "refund", map[string]any{"name": "refund", "arguments": args})
	if err != nil {
		t.Fatal(err)
	}
	if task.ResultType != "task" || task.TaskID == "" || task.Status != "working" {
		t.Fatalf("tools/call refund: want a CreateTaskResult, working, got %+v", task)
	}
	return task.TaskID
}

// waitTask polls tasks/get until done says the task is where the test
// wants it.
func (c approvalClient) waitTask(t testing.TB, ctx context.Context, id string, done func(*durableTask) bool) *durableTask {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		task, err := c.rpc(ctx, "tasks/get", id, map[string]any{"taskId": id})
		if err != nil {
			t.Fatal(err)
		}
		if done(task) {
			return task
		}
		if time.Now().After(deadline) {
			t.Fatalf("task %s: still %s (%s) after 20s", id, task.Status, task.StatusMessage)
		}
		time.Sleep(25 * time.Millisecond)
	}
}

// approvalLink finds an approval page's link in a text.
var approvalLink = regexp.MustCompile(`https?://[^\s"]+/approve/[A-Za-z0-9_-]+`)

// waitLink waits until the task waits for its approval and returns the
// link its statusMessage gives (the flow has no webhook, so the caller
// is the one to pass it on).
func (c approvalClient) waitLink(t testing.TB, ctx context.Context, id string) string {
	t.Helper()
	task := c.waitTask(t, ctx, id, func(w *durableTask) bool {
		return approvalLink.MatchString(w.StatusMessage) || w.Status != "working"
	})
	if task.Status != "working" {
		t.Fatalf("task %s: want it working on its approval, got %+v", id, task)
	}
	return approvalLink.FindString(task.StatusMessage)
}

// resultText joins the text blocks of a task's result.
func resultText(task *durableTask) string {
	if task.Result == nil {
		return ""
	}
	var parts []string
	for _, c := range task.Result.Content {
		parts = append(parts, c.Text)
	}
	return strings.Join(parts, "\n")
}

// startRefundServer builds flowserve and serves the refund flow from a
// temporary directory, with the task store in memory.
func startRefundServer(t *testing.T) *proc {
	t.Helper()
	bin := buildFlowserve(t)
	dir := t.TempDir()
	s := durableSetup{bin: bin, ringFile: filepath.Join(dir, "keys"), flowDir: filepath.Join(dir, "flows")}
	k := testKey("k1", 11)
	if err := os.WriteFile(s.ringFile, []byte(k.ID+":"+base64.StdEncoding.EncodeToString(k.Secret[:])+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(s.flowDir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(s.flowDir, "refund.yaml"), []byte(refundApprovalFlow), 0o600); err != nil {
		t.Fatal(err)
	}
	return startProc(t, s, "flowserve")
}

// The DOM as the tests read it: through DOM.* commands only, never
// Runtime.evaluate, so that the reads work the same with scripts off.

var (
	tagPattern   = regexp.MustCompile(`(?s)<[^>]*>`)
	spacePattern = regexp.MustCompile(`\s+`)
)

// pageText returns the text of the page's body, with its whitespace
// collapsed.
func pageText(t testing.TB, tab context.Context) string {
	t.Helper()
	h, err := chromedp.Run(tab, chromedp.OuterHTML(chromedp.CSS("body")))
	if err != nil {
		t.Fatalf("read the page: %v", err)
	}
	return strings.TrimSpace(spacePattern.ReplaceAllString(html.UnescapeString(tagPattern.ReplaceAllString(h, " ")), " "))
}

// count returns how many elements match the CSS selector now.
func count(t testing.TB, tab context.Context, css string) int {
	t.Helper()
	nodes, err := chromedp.Run(tab, chromedp.Nodes(chromedp.CSSAll(css), chromedp.AtLeast(0)))
	if err != nil {
		t.Fatalf("query %s: %v", css, err)
	}
	return len(nodes)
}

// tabTo presses Tab until the element css matches has the focus.
func tabTo(t testing.TB, tab context.Context, css string) {
	t.Helper()
	for range 12 {
		if count(t, tab, css+":focus") > 0 {
			return
		}
		if err := chromedp.Do(tab, chromedp.KeyEvent(kb.Tab)); err != nil {
			t.Fatalf("press Tab: %v", err)
		}
	}
	t.Fatalf("12 presses of Tab did not reach %s", css)
}

// eventually polls cond for up to 5 seconds.
func eventually(cond func() bool) bool {
	for deadline := time.Now().Add(5 * time.Second); ; {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// wantText fails the test unless the page's text has each of wants.
func wantText(t testing.TB, what, text string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(text, w) {
			t.Fatalf("%s: no %q in the page:\n%s", what, w, text)
		}
	}
}

// TestApprovalInBrowser answers an approval page in headless Chromium:
// a refusal without the note the flow's validate rule asks for is shown
// again with the rule's message, by keyboard; an approval by mouse shows
// the thank-you page and completes the task with the answer and the name
// typed; the link then shows that it was answered, with no form. Once
// with JavaScript on, once with it off.
func TestApprovalInBrowser(t *testing.T) {
	start := time.Now()
	browser := startBrowser(t)
	p := startRefundServer(t)
	t.Logf("flowserve and Chromium started in %v", time.Since(start).Round(time.Millisecond))
	c := approvalClient{url: p.url, name: "support-desk"}

	for _, tc := range []struct {
		name string
		noJS bool
		by   string // the name typed on the page
	}{
		{"javascript", false, "Maria Jensen"},
		{"no javascript", true, "Ana Lima"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			start := time.Now()
			id := c.startRefund(t, ctx, refundArgs("maria.jensen@example.com"))
			link := c.waitLink(t, ctx, id)
			tab := newTab(t, browser, 60*time.Second, tc.noJS)

			if tc.noJS {
				// The tab really runs no script: this page's would
				// rename it.
				if err := chromedp.Do(tab, chromedp.Navigate(`data:text/html,<title>no script</title><script>document.title="script ran"</script>`)); err != nil {
					t.Fatal(err)
				}
				if title, err := chromedp.Run(tab, chromedp.OuterHTML(chromedp.CSS("title"))); err != nil || !strings.Contains(title, "no script") {
					t.Fatalf("scripts are not off in the tab: %q %v", title, err)
				}
			}

			// The page shows the question, the tool and who is asked.
			resp, err := chromedp.Run(tab, chromedp.NavigateResponse(link))
			if err != nil {
				t.Fatalf("open %s: %v", link, err)
			}
			if resp.Status != http.StatusOK {
				t.Fatalf("GET the page: HTTP %d", resp.Status)
			}
			h1, err := chromedp.Run(tab, chromedp.OuterHTML(chromedp.CSS("h1")))
			if err != nil || !strings.Contains(h1, "Refund a customer payment") {
				t.Fatalf("the page's heading is not the tool's title: %q %v", h1, err)
			}
			wantText(t, "the question's page", pageText(t, tab),
				"Refund 249.90 EUR to Jane Cooper for order A-10472?",
				"Reason given by the customer: The parcel arrived damaged",
				"A question for maria.jensen@example.com", "support-desk",
				"Approve the refund", "Note for the support agent", "Your name")
			if n := count(t, tab, `form input[type=radio][name="f.approve"]`); n != 2 {
				t.Fatalf("the boolean has %d radio buttons, want Yes and No", n)
			}

			// By keyboard: Tab to the Yes/No group, arrow down to No, Tab
			// to the name, type it, Enter. No note: the flow refuses.
			tabTo(t, tab, "#f-approve-yes")
			if err := chromedp.Do(tab, chromedp.KeyEvent(kb.ArrowDown)); err != nil {
				t.Fatal(err)
			}
			if count(t, tab, "#f-approve-no:checked") != 1 {
				t.Fatal("the arrow key did not choose No")
			}
			tabTo(t, tab, "#answered_by")
			if err := chromedp.Do(tab, chromedp.KeyEvent(tc.by)); err != nil {
				t.Fatal(err)
			}
			resp, err = chromedp.RunResponse(tab, chromedp.KeyEvent(kb.Enter))
			if err != nil {
				t.Fatalf("submit by Enter: %v", err)
			}
			if resp.Status != http.StatusUnprocessableEntity {
				t.Fatalf("a refusal without a note: HTTP %d, want 422 and the form again", resp.Status)
			}
			wantText(t, "the refused answer's page", pageText(t, tab),
				"There is a problem", "Say in the note why the refund is refused", "Refund 249.90 EUR to Jane Cooper")
			if count(t, tab, "form") != 1 || count(t, tab, fmt.Sprintf(`#answered_by[value=%q]`, tc.by)) != 1 ||
				count(t, tab, "#f-approve-no[checked]") != 1 {
				t.Fatal("the form shown again has lost what was typed")
			}
			// The error summary takes the focus (autofocus, which the
			// browser applies at its next rendering, after the load).
			if !eventually(func() bool { return count(t, tab, ".summary:focus") == 1 }) {
				t.Error("the error summary does not have the focus on the page shown again")
			}
			if task, err := c.rpc(ctx, "tasks/get", id, map[string]any{"taskId": id}); err != nil || task.Status != "working" {
				t.Fatalf("a refused answer moved the task: %+v %v", task, err)
			}

			// By mouse: Yes, Submit.
			if err := chromedp.Do(tab, chromedp.Click(chromedp.CSS("#f-approve-yes"))); err != nil {
				t.Fatal(err)
			}
			resp, err = chromedp.RunResponse(tab, chromedp.Click(chromedp.CSS(`button[name=action][value=accept]`)))
			if err != nil {
				t.Fatalf("submit: %v", err)
			}
			if resp.Status != http.StatusOK {
				t.Fatalf("an approval: HTTP %d", resp.Status)
			}
			wantText(t, "the thank-you page", pageText(t, tab),
				"Thank you — your answer was recorded", "Refund a customer payment", "maria.jensen@example.com",
				"Recorded as answered by "+tc.by)

			done := c.waitTask(t, ctx, id, func(w *durableTask) bool { return w.Status != "working" })
			if want := "Refund of 249.90 EUR to Jane Cooper approved by " + tc.by + "."; done.Status != "completed" || resultText(done) != want {
				t.Fatalf("task: %s %q, want completed %q", done.Status, resultText(done), want)
			}

			// The link was for one answer.
			resp, err = chromedp.Run(tab, chromedp.NavigateResponse(link))
			if err != nil {
				t.Fatalf("open %s again: %v", link, err)
			}
			text := pageText(t, tab)
			if resp.Status != http.StatusGone || count(t, tab, "form") != 0 {
				t.Fatalf("the answered link: HTTP %d, %d forms:\n%s", resp.Status, count(t, tab, "form"), text)
			}
			// Once the task has ended, serve answers its links as closed
			// (ErrGone: "no longer open … withdrawn or has ended") even
			// when it ended by this very answer; between the answer and
			// the task's end they show "already been answered". Either
			// way the page is a notice, with no form.
			if !strings.Contains(text, "This question has already been answered") && !strings.Contains(text, "This request is no longer open") {
				t.Fatalf("the answered link's page is neither answered nor closed:\n%s", text)
			}
			t.Logf("the answered link shows: %.60s", text)
			t.Logf("answered in %v", time.Since(start).Round(time.Millisecond))
		})
	}
}

var screenshot = flag.Bool("screenshot", false, "write ../docs/images/approval-page.png (TestApprovalScreenshot)")

// TestApprovalScreenshot writes docs/images/approval-page.png, the
// approval page of a refund as a manager sees it, for the docs. It is a
// tool that makes a doc image, not a check: it does nothing without
// -screenshot. Run it as
//
//	go test ./reliability -run TestApprovalScreenshot -screenshot
func TestApprovalScreenshot(t *testing.T) {
	if !*screenshot {
		t.Skip("makes docs/images/approval-page.png with -screenshot; not a check")
	}
	browser := startBrowser(t)
	p := startRefundServer(t)
	c := approvalClient{url: p.url, name: "support-desk"}
	ctx := context.Background()
	id := c.startRefund(t, ctx, refundArgs("maria.jensen@example.com"))
	link := c.waitLink(t, ctx, id)
	tab := newTab(t, browser, 60*time.Second, false)
	if err := chromedp.Do(tab, chromedp.EmulateViewport(900, 1000), chromedp.Navigate(link)); err != nil {
		t.Fatal(err)
	}
	png, err := chromedp.Run(tab, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join("..", "docs", "images", "approval-page.png")
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(out, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s (%d bytes)", out, len(png))
}
