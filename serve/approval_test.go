package serve_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/flowserve/flowserve/actions"
	"github.com/flowserve/flowserve/approvals"
	"github.com/flowserve/flowserve/flow"
	"github.com/flowserve/flowserve/flow/state"
	"github.com/flowserve/flowserve/replies/redis/redistest"
	"github.com/flowserve/flowserve/serve"
	"github.com/flowserve/flowserve/tasks"
	taskredis "github.com/flowserve/flowserve/tasks/redis"
)

// refundFlow asks a manager (the `manager` argument) to approve a refund
// on the approval page, notifying the `hook` argument's webhook when one
// is given, and says who approved.
const refundFlow = `
name: refund
description: refunds an amount once a manager approves
input:
  type: object
  properties:
    amount: {type: integer}
    manager: {type: string}
    hook: {type: string}
  required: [amount, manager]
nodes:
  - id: approval
    ask: "Refund {{ input.amount }} EUR?"
    to: "{{ input.manager }}"
    notify: {webhook: "{{ input.?hook.orValue('') }}"}
    timeout: TIMEOUT
    on_timeout: expired
    form:
      approve: {type: boolean, title: Approve the refund}
      note: {type: string, title: Note, maxLength: 20}
    required: [approve]
    validate:
      - rule: "approval.content.approve || has(approval.content.note)"
        message: say why not in the note
  - branch:
      - if: "approval.action == 'accept' && approval.content.approve"
        then: done
      - else: refused
  - id: done
    return: "refunded {{ input.amount }}, approved by {{ approval.answered_by }}"
  - id: refused
    return: "not refunded ({{ approval.action }}): {{ approval.content.note }}"
  - id: expired
    return: "nobody answered in time"
`

// refundProgram compiles refundFlow with the given timeout.
func refundProgram(t testing.TB, timeout string) *flow.Program {
	t.Helper()
	src := strings.Replace(refundFlow, "TIMEOUT", timeout, 1)
	return compileSource(t, "refund.yaml", []byte(src), flow.Env{Actions: actions.Default()})
}

// approvalServer serves the refund flow over HTTP and returns the server
// and the endpoint's URL.
func approvalServer(t testing.TB, timeout string, opts serve.Options) (*serve.Server, string) {
	t.Helper()
	if opts.PollInterval == 0 {
		opts.PollInterval = 50 * time.Millisecond
	}
	if opts.WebhookBackoff == 0 {
		opts.WebhookBackoff = 10 * time.Millisecond
	}
	srv := serverWith(t, []*flow.Program{refundProgram(t, timeout)}, opts)
	t.Cleanup(func() {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		srv.Close(ctx)
	})
	return srv, startHTTP(t, srv)
}

// linkPattern finds an approval link in a text.
var linkPattern = regexp.MustCompile(`https?://[^\s"]+/approve/[A-Za-z0-9_-]+`)

// waitingLink waits until task id waits for its approval and returns the
// link its status message gives.
func waitingLink(t testing.TB, ctx context.Context, url, id string) string {
	t.Helper()
	task := waitTask(t, ctx, url, id, func(w wireTask) bool { return linkPattern.MatchString(w.StatusMessage) || terminal(w) })
	if task.Status != "working" {
		t.Fatalf("task %s: want it working on its approval, got %+v", id, task)
	}
	return linkPattern.FindString(task.StatusMessage)
}

// browser is a person's browser on the approval pages: it keeps cookies.
type browser struct {
	t  testing.TB
	hc *http.Client
}

func newBrowser(t testing.TB) *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{t: t, hc: &http.Client{Jar: jar}}
}

// get opens a page and returns its status and body.
func (b *browser) get(link string) (int, string) {
	b.t.Helper()
	resp, err := b.hc.Get(link)
	if err != nil {
		b.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

var csrfPattern = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// submit opens the page at link and posts the form with values (and the
// page's csrf field unless noCSRF), as the page's form would.
func (b *browser) submit(link string, values url.Values, noCSRF bool) (int, string) {
	b.t.Helper()
	status, page := b.get(link)
	m := csrfPattern.FindStringSubmatch(page)
	if m == nil {
		b.t.Fatalf("GET %s: %d, no form: %s", link, status, page)
	}
	form := url.Values{}
	for k, v := range values {
		form[k] = v
	}
	if !noCSRF {
		form.Set("csrf", strings.ReplaceAll(m[1], "&#43;", "+"))
	}
	req, _ := http.NewRequest(http.MethodPost, link, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	u, _ := url.Parse(link)
	req.Header.Set("Origin", u.Scheme+"://"+u.Host)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	resp, err := b.hc.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

func approveValues(name string, fields map[string]string) url.Values {
	v := url.Values{"answered_by": {name}, "action": {"accept"}}
	for k, x := range fields {
		v.Set("f."+k, x)
	}
	return v
}

func TestApprovalAsTask(t *testing.T) {
	ctx := testCtx(t)
	_, u := approvalServer(t, "1h", serve.Options{})
	task := taskCall(t, ctx, u, "refund", map[string]any{"amount": 120, "manager": "ana@example.com"})
	link := waitingLink(t, ctx, u, task.TaskID)
	if task := getTask(t, ctx, u, task.TaskID); !strings.Contains(task.StatusMessage, "ana@example.com") || task.InputRequests != nil {
		t.Fatalf("waiting task: %+v", task)
	}

	b := newBrowser(t)
	status, page := b.get(link)
	for _, want := range []string{"Refund 120 EUR?", "ana@example.com", "Approve the refund", `name="answered_by"`} {
		if status != http.StatusOK || !strings.Contains(page, want) {
			t.Fatalf("GET %s: %d, no %q in the page:\n%s", link, status, want, page)
		}
	}
	// Without the form's CSRF field the answer is refused, and nothing changes.
	if status, _ := b.submit(link, approveValues("Ana", map[string]string{"approve": "true"}), true); status != http.StatusForbidden {
		t.Fatalf("POST without csrf: %d", status)
	}
	// An answer the flow's rules refuse is shown again with the reason.
	status, page = b.submit(link, approveValues("Ana", map[string]string{"approve": "false"}), false)
	if status != http.StatusUnprocessableEntity || !strings.Contains(page, "say why not in the note") {
		t.Fatalf("invalid answer: %d\n%s", status, page)
	}
	status, page = b.submit(link, approveValues("Ana", map[string]string{"approve": "false", "note": strings.Repeat("x", 30)}), false)
	if status != http.StatusUnprocessableEntity || !strings.Contains(page, "note") {
		t.Fatalf("answer over maxLength: %d\n%s", status, page)
	}
	if got := getTask(t, ctx, u, task.TaskID); got.Status != "working" {
		t.Fatalf("an invalid answer moved the task: %+v", got)
	}
	status, page = b.submit(link, approveValues("Ana Lima", map[string]string{"approve": "true"}), false)
	if status != http.StatusOK || !strings.Contains(page, "Ana Lima") {
		t.Fatalf("valid answer: %d\n%s", status, page)
	}
	done := waitTask(t, ctx, u, task.TaskID, terminal)
	if done.Status != "completed" || done.Result.text() != "refunded 120, approved by Ana Lima" {
		t.Fatalf("task: %+v %s", done, done.Result.text())
	}
	// The link is single-use.
	if status, page := newBrowser(t).get(link); status != http.StatusGone || strings.Contains(page, "<form") || !strings.Contains(page, "already been answered") {
		t.Fatalf("reused link: %d\n%s", status, page)
	}
}

func TestApprovalLinks(t *testing.T) {
	ctx := testCtx(t)
	_, u := approvalServer(t, "1h", serve.Options{})
	a := taskCall(t, ctx, u, "refund", map[string]any{"amount": 1, "manager": "ana"})
	linkA := waitingLink(t, ctx, u, a.TaskID)

	b := newBrowser(t)
	// A tampered token is not a link this server made.
	i := strings.LastIndex(linkA, "/") + 10
	flip := "A"
	if linkA[i] == 'A' {
		flip = "B"
	}
	if status, page := b.get(linkA[:i] + flip + linkA[i+1:]); status != http.StatusNotFound || strings.Contains(page, "<form") {
		t.Fatalf("tampered: %d", status)
	}
	// A link of a task that was cancelled shows that the request is closed.
	taskRequest(t, ctx, u, "tasks/cancel", a.TaskID, tasksCaps, nil)
	if status, page := b.get(linkA); status != http.StatusGone || strings.Contains(page, "<form") {
		t.Fatalf("cancelled task's link: %d\n%s", status, page)
	}
	// The link of another task's earlier question does not answer this one.
	c := taskCall(t, ctx, u, "refund", map[string]any{"amount": 2, "manager": "ana"})
	linkC := waitingLink(t, ctx, u, c.TaskID)
	if linkC == linkA {
		t.Fatal("two tasks got the same link")
	}
	if status, _ := b.submit(linkC, approveValues("Ana", map[string]string{"approve": "true"}), false); status != http.StatusOK {
		t.Fatalf("answer: %d", status)
	}
	waitTask(t, ctx, u, c.TaskID, terminal)
	if status, _ := b.get(linkA); status != http.StatusGone {
		t.Fatalf("A's link after C was answered: %d", status)
	}
}

func TestApprovalTimeout(t *testing.T) {
	ctx := testCtx(t)
	_, u := approvalServer(t, "1s", serve.Options{})
	task := taskCall(t, ctx, u, "refund", map[string]any{"amount": 5, "manager": "ana"})
	link := waitingLink(t, ctx, u, task.TaskID)
	done := waitTask(t, ctx, u, task.TaskID, terminal)
	if done.Status != "completed" || done.Result.text() != "nobody answered in time" {
		t.Fatalf("timed out task: %+v", done)
	}
	if status, page := newBrowser(t).get(link); status != http.StatusGone || strings.Contains(page, "<form") {
		t.Fatalf("expired link: %d\n%s", status, page)
	}
}

// hook is a webhook that fails its first fails posts with 500.
type hook struct {
	mu    sync.Mutex
	fails int
	posts []approvals.Notification
	got   chan approvals.Notification
}

func newHook(t testing.TB, fails int) (*hook, string) {
	h := &hook{fails: fails, got: make(chan approvals.Notification, 16)}
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var n approvals.Notification
		json.NewDecoder(r.Body).Decode(&n)
		h.mu.Lock()
		h.posts = append(h.posts, n)
		fail := len(h.posts) <= h.fails
		h.mu.Unlock()
		if fail {
			http.Error(w, "down", http.StatusInternalServerError)
			return
		}
		h.got <- n
	}))
	t.Cleanup(hs.Close)
	return h, hs.URL
}

// first returns the link of the first post the hook got.
func (h *hook) first(t testing.TB) string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		h.mu.Lock()
		n := len(h.posts)
		var link string
		if n > 0 {
			link = h.posts[0].Link
		}
		h.mu.Unlock()
		if link != "" {
			return link
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("the webhook got no post")
	return ""
}

func TestApprovalWebhook(t *testing.T) {
	ctx := testCtx(t)
	h, hookURL := newHook(t, 2)
	_, u := approvalServer(t, "1h", serve.Options{})
	task := taskCall(t, ctx, u, "refund", map[string]any{"amount": 9, "manager": "ana", "hook": hookURL})
	var n approvals.Notification
	select {
	case n = <-h.got:
	case <-time.After(10 * time.Second):
		t.Fatal("the webhook got no notification")
	}
	h.mu.Lock()
	attempts := len(h.posts)
	h.mu.Unlock()
	if attempts != 3 {
		t.Errorf("want 2 failed posts and a good one, got %d posts", attempts)
	}
	if n.Tool != "refund" || n.Task != task.TaskID || n.Question != "approval" || n.To != "ana" || n.Run == "" ||
		!linkPattern.MatchString(n.Link) || n.Expires == "" || !strings.Contains(n.Text, n.Link) || !strings.Contains(n.Text, "Refund 9 EUR?") {
		t.Fatalf("notification: %+v", n)
	}
	// With a webhook, the caller is not given the link.
	if w := getTask(t, ctx, u, task.TaskID); linkPattern.MatchString(w.StatusMessage) {
		t.Errorf("status message has the link: %s", w.StatusMessage)
	}
	if status, _ := newBrowser(t).submit(n.Link, approveValues("Ana", map[string]string{"approve": "true"}), false); status != http.StatusOK {
		t.Fatalf("answer: %d", status)
	}
	if done := waitTask(t, ctx, u, task.TaskID, terminal); done.Result.text() != "refunded 9, approved by Ana" {
		t.Fatalf("task: %+v", done)
	}
}

func TestApprovalWebhookNeverBlocks(t *testing.T) {
	ctx := testCtx(t)
	h, hookURL := newHook(t, 1000)
	_, u := approvalServer(t, "1h", serve.Options{WebhookBackoff: time.Hour})
	task := taskCall(t, ctx, u, "refund", map[string]any{"amount": 3, "manager": "ana", "hook": hookURL})
	// The page works while the webhook keeps failing.
	link := h.first(t)
	if status, _ := newBrowser(t).submit(link, approveValues("Ana", map[string]string{"approve": "true"}), false); status != http.StatusOK {
		t.Fatalf("answer: %d", status)
	}
	if done := waitTask(t, ctx, u, task.TaskID, terminal); done.Status != "completed" {
		t.Fatalf("task: %+v", done)
	}
}

func TestApprovalInline(t *testing.T) {
	ctx := testCtx(t)
	h, hookURL := newHook(t, 0)
	_, u := approvalServer(t, "1h", serve.Options{})
	formOnly := map[string]any{"elicitation": map[string]any{}}
	var wg sync.WaitGroup
	var reply *httpReply
	wg.Add(1)
	go func() {
		defer wg.Done()
		reply = postRaw(t, ctx, u, nil, "tools/call", withProgress(callParams("refund", map[string]any{"amount": 7, "manager": "bo", "hook": hookURL}, formOnly)))
	}()
	link := h.first(t)
	if status, _ := newBrowser(t).submit(link, approveValues("Bo", map[string]string{"approve": "true"}), false); status != http.StatusOK {
		t.Fatalf("answer: %d", status)
	}
	wg.Wait()
	var res rawCallResult
	reply.result(t, &res)
	if res.IsError || res.text() != "refunded 7, approved by Bo" {
		t.Fatalf("result: %+v", res)
	}
	if len(reply.notifications) == 0 || !strings.Contains(string(reply.notifications[0].Params), "waiting for bo") {
		t.Errorf("no progress notification while the call waited: %+v", reply.notifications)
	}
}

func TestApprovalInlineGivesUp(t *testing.T) {
	ctx := testCtx(t)
	srv, u := approvalServer(t, "1h", serve.Options{MaxWait: 300 * time.Millisecond})
	_ = srv
	formOnly := map[string]any{"elicitation": map[string]any{}}
	var res rawCallResult
	postRaw(t, ctx, u, nil, "tools/call", callParams("refund", map[string]any{"amount": 8, "manager": "bo"}, formOnly)).result(t, &res)
	link := linkPattern.FindString(res.text())
	if !res.IsError || link == "" || !strings.Contains(res.text(), "bo") {
		t.Fatalf("want an error result with the link: %+v", res)
	}
	// The link still works: the run goes on in the background.
	b := newBrowser(t)
	if status, _ := b.submit(link, approveValues("Bo", map[string]string{"approve": "true"}), false); status != http.StatusOK {
		t.Fatalf("answer after the call gave up: %d", status)
	}
}

// withProgress adds a progress token to call params.
func withProgress(params map[string]any) map[string]any {
	params["_meta"].(map[string]any)["progressToken"] = "p1"
	return params
}

// TestApprovalTwoInstancesOnRedis serves the flow from two instances on
// one Redis run store with one key ring: instance A takes the call, the
// page is answered on instance B, and A reports the task completed.
func TestApprovalTwoInstancesOnRedis(t *testing.T) {
	ctx := testCtx(t)
	redisURL := redistest.Start(t).URL
	codec := newCodec(t, state.Options{})
	instance := func() string {
		rs, err := taskredis.Open(redisURL, taskredis.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { rs.Close() })
		_, u := approvalServer(t, "1h", serve.Options{Tasks: rs, Engine: newEngine(t, flow.EngineOptions{Codec: codec})})
		return u
	}
	a, b := instance(), instance()
	task := taskCall(t, ctx, a, "refund", map[string]any{"amount": 40, "manager": "ana"})
	link := waitingLink(t, ctx, a, task.TaskID)
	onB := strings.TrimSuffix(b, serve.EndpointPath) + link[strings.Index(link, serve.ApprovePath):]
	br := newBrowser(t)
	if status, page := br.get(onB); status != http.StatusOK || !strings.Contains(page, "Refund 40 EUR?") {
		t.Fatalf("page on B: %d\n%s", status, page)
	}
	if status, _ := br.submit(onB, approveValues("Ana", map[string]string{"approve": "true"}), false); status != http.StatusOK {
		t.Fatalf("answer on B: %d", status)
	}
	if done := waitTask(t, ctx, a, task.TaskID, terminal); done.Status != "completed" || done.Result.text() != "refunded 40, approved by Ana" {
		t.Fatalf("task on A: %+v", done)
	}
	if status, _ := br.get(link); status != http.StatusGone {
		t.Fatalf("the link on A after the answer on B: %d", status)
	}
}

// TestApprovalSessionClient calls the flow from session clients: the call
// waits with progress notifications until the page is answered, or gives
// up after MaxWait with an error result carrying the link.
func TestApprovalSessionClient(t *testing.T) {
	for _, version := range []string{v20251125, v20250618} {
		t.Run(version, func(t *testing.T) {
			ctx := testCtx(t)
			h, hookURL := newHook(t, 0)
			srv, _ := approvalServer(t, "1h", serve.Options{})
			var progress atomic.Int32
			client := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, &mcp.ClientOptions{
				ProgressNotificationHandler: func(ctx context.Context, req *mcp.ProgressNotificationClientRequest) {
					if strings.Contains(req.Params.Message, "waiting for ana") {
						progress.Add(1)
					}
				}})
			cs := connect(t, ctx, srv, overHTTP, version, client, nil)
			go func() {
				link := h.first(t)
				newBrowser(t).submit(link, approveValues("Ana", map[string]string{"approve": "true"}), false)
			}()
			params := &mcp.CallToolParams{Name: "refund", Arguments: map[string]any{"amount": 11, "manager": "ana", "hook": hookURL}}
			params.SetProgressToken("p")
			res, err := cs.CallTool(ctx, params)
			if err != nil {
				t.Fatal(err)
			}
			checkText(t, res, false, "refunded 11, approved by Ana")
			if progress.Load() == 0 {
				t.Error("no progress notification while the call waited")
			}
		})
	}
	t.Run("gives up", func(t *testing.T) {
		ctx := testCtx(t)
		srv, _ := approvalServer(t, "1h", serve.Options{MaxWait: 300 * time.Millisecond})
		cs := connect(t, ctx, srv, overHTTP, v20251125, mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil), nil)
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "refund", Arguments: map[string]any{"amount": 12, "manager": "ana"}})
		if err != nil {
			t.Fatal(err)
		}
		checkText(t, res, true, "waiting for ana", "/approve/")
	})
}

// TestApprovalRequiredTask runs a task: required flow whose worker reaches
// the approval (not the call's first round), and a timeout shorter than
// MaxWait for a caller without tasks.
func TestApprovalRequiredTask(t *testing.T) {
	ctx := testCtx(t)
	src := strings.Replace(strings.Replace(refundFlow, "TIMEOUT", "1h", 1), "nodes:\n", "task: required\nnodes:\n", 1)
	p := compileSource(t, "refund.yaml", []byte(src), flow.Env{Actions: actions.Default()})
	h, hookURL := newHook(t, 0)
	srv := serverWith(t, []*flow.Program{p}, serve.Options{PollInterval: 50 * time.Millisecond})
	t.Cleanup(func() { c, cancel := context.WithCancel(context.Background()); cancel(); srv.Close(c) })
	u := startHTTP(t, srv)
	task := taskCall(t, ctx, u, "refund", map[string]any{"amount": 70, "manager": "ana", "hook": hookURL})
	link := h.first(t)
	if status, _ := newBrowser(t).submit(link, approveValues("Ana", map[string]string{"approve": "true"}), false); status != http.StatusOK {
		t.Fatalf("answer: %d", status)
	}
	if done := waitTask(t, ctx, u, task.TaskID, terminal); done.Result.text() != "refunded 70, approved by Ana" {
		t.Fatalf("task: %+v", done)
	}
}

func TestApprovalInlineTimeout(t *testing.T) {
	ctx := testCtx(t)
	_, u := approvalServer(t, "300ms", serve.Options{MaxWait: time.Minute})
	var res rawCallResult
	postRaw(t, ctx, u, nil, "tools/call", callParams("refund", map[string]any{"amount": 1, "manager": "bo"},
		map[string]any{"elicitation": map[string]any{}})).result(t, &res)
	if res.IsError || res.text() != "nobody answered in time" {
		t.Fatalf("result: %+v", res)
	}
}

// TestApprovalTimeoutAfterRestart: an approval's timeout is kept by the
// run store, so it fires after the server and its store restart.
func TestApprovalTimeoutAfterRestart(t *testing.T) {
	ctx := testCtx(t)
	path := filepath.Join(t.TempDir(), "tasks.db")
	engine := newEngine(t, flow.EngineOptions{})
	start := func() (*serve.Server, tasks.Store, string) {
		b, err := tasks.OpenBolt(path, tasks.BoltOptions{})
		if err != nil {
			t.Fatal(err)
		}
		srv, u := approvalServer(t, "1s", serve.Options{Engine: engine, Tasks: b})
		return srv, b, u
	}
	srv1, store1, u1 := start()
	task := taskCall(t, ctx, u1, "refund", map[string]any{"amount": 2, "manager": "ana"})
	waitingLink(t, ctx, u1, task.TaskID)
	stopped, cancel := context.WithCancel(ctx)
	cancel()
	srv1.Close(stopped)
	store1.Close()

	_, _, u2 := start()
	if done := waitTask(t, ctx, u2, task.TaskID, terminal); done.Result.text() != "nobody answered in time" {
		t.Fatalf("after the restart: %+v", done)
	}
}

// TestApprovalGoSDKClient drives an approval that follows an ordinary
// question through the go-sdk client at 2026-07-28 (multi round-trip
// rounds, no tasks): the first round asks the caller, the next one waits
// for the page inside the call, and the result names who approved.
func TestApprovalGoSDKClient(t *testing.T) {
	ctx := testCtx(t)
	src := strings.Replace(strings.Replace(refundFlow, "TIMEOUT", "1h", 1), "nodes:\n", `nodes:
  - id: reason
    ask: Why the refund?
    form:
      text: {type: string}
    required: [text]
`, 1)
	p := compileSource(t, "refund.yaml", []byte(src), flow.Env{Actions: actions.Default()})
	h, hookURL := newHook(t, 0)
	srv := serverWith(t, []*flow.Program{p}, serve.Options{PollInterval: 50 * time.Millisecond})
	t.Cleanup(func() { c, cancel := context.WithCancel(context.Background()); cancel(); srv.Close(c) })
	asked := 0
	client := mcp.NewClient(&mcp.Implementation{Name: "go-sdk", Version: "1"}, &mcp.ClientOptions{
		Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}},
		ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			asked++
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"text": "damaged"}}, nil
		}})
	cs := connect(t, ctx, srv, overHTTP, v20260728, client, nil)
	go func() {
		newBrowser(t).submit(h.first(t), approveValues("Ana", map[string]string{"approve": "true"}), false)
	}()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "refund", Arguments: map[string]any{"amount": 15, "manager": "ana", "hook": hookURL}})
	if err != nil {
		t.Fatal(err)
	}
	checkText(t, res, false, "refunded 15, approved by Ana")
	if asked != 1 {
		t.Errorf("the client was asked %d questions, want 1 (the approval is not its to answer)", asked)
	}
}

// capturedHooks is a webhook HTTP client that posts nowhere: it hands each
// notification to the test and answers 204.
type capturedHooks chan approvals.Notification

func (c capturedHooks) RoundTrip(r *http.Request) (*http.Response, error) {
	var n approvals.Notification
	json.NewDecoder(r.Body).Decode(&n)
	r.Body.Close()
	c <- n
	return &http.Response{StatusCode: http.StatusNoContent, Body: http.NoBody, Request: r}, nil
}

// TestExampleRefundApproval drives flows/refund_approval.yaml at every
// era: a task for a client with tasks, the call waiting inside itself for
// the others; finance answers on the page the webhook announces.
func TestExampleRefundApproval(t *testing.T) {
	hooks := make(capturedHooks, 8)
	srv := serverWith(t, exampleFlows(t), serve.Options{PollInterval: 50 * time.Millisecond,
		WebhookClient: &http.Client{Transport: hooks}})
	t.Cleanup(func() { c, cancel := context.WithCancel(context.Background()); cancel(); srv.Close(c) })
	u := startHTTP(t, srv)
	args := map[string]any{"order": "A-1042", "amount": 49.5, "reason": "arrived broken"}
	answer := func(t *testing.T) {
		select {
		case n := <-hooks:
			if n.To != "finance@example.com" || !strings.Contains(n.Message, "order A-1042") {
				t.Errorf("notification: %+v", n)
			}
			if status, page := newBrowser(t).submit(n.Link, approveValues("Fran", map[string]string{"approve": "true"}), false); status != http.StatusOK {
				t.Errorf("answer: %d\n%s", status, page)
			}
		case <-time.After(10 * time.Second):
			t.Error("no notification")
		}
	}
	check := func(t *testing.T, structured any) {
		m, _ := structured.(map[string]any)
		if m["status"] != "refunded" || m["decided_by"] != "Fran" || m["order"] != "A-1042" || m["refund_id"] == "" {
			t.Errorf("structuredContent: %v", structured)
		}
	}
	for _, version := range []string{v20260728, v20251125, v20250618} {
		t.Run(version, func(t *testing.T) {
			ctx := testCtx(t)
			cs := connect(t, ctx, srv, overHTTP, version, mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil), nil)
			go answer(t)
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "refund_approval", Arguments: args})
			if err != nil {
				t.Fatal(err)
			}
			checkText(t, res, false, "approved by Fran")
			check(t, res.StructuredContent)
		})
	}
	t.Run("task", func(t *testing.T) {
		ctx := testCtx(t)
		task := taskCall(t, ctx, u, "refund_approval", args)
		answer(t)
		done := waitTask(t, ctx, u, task.TaskID, terminal)
		if done.Status != "completed" {
			t.Fatalf("task: %+v", done)
		}
		check(t, done.Result.StructuredContent)
	})
}

// TestApprovalLinkBoundToItsAsking asks the same approval twice (a loop):
// each asking has its own link, and the first link does not answer the
// second asking.
func TestApprovalLinkBoundToItsAsking(t *testing.T) {
	ctx := testCtx(t)
	src := `
name: twice
description: asks for an approval until it is given twice
nodes:
  - set: {n: 0}
  - id: ok
    ask: "Approve round {{ n + 1 }}?"
    to: ana
    form:
      yes: {type: boolean}
    required: [yes]
  - set: {n: "{{ n + 1 }}"}
  - branch:
      - if: n < 2
        then: ok
  - return: "approved {{ n }} times, last by {{ ok.answered_by }}"
`
	p := compileSource(t, "twice.yaml", []byte(src), flow.Env{Actions: actions.Default()})
	srv := serverWith(t, []*flow.Program{p}, serve.Options{PollInterval: 50 * time.Millisecond})
	t.Cleanup(func() { c, cancel := context.WithCancel(context.Background()); cancel(); srv.Close(c) })
	u := startHTTP(t, srv)
	task := taskCall(t, ctx, u, "twice", map[string]any{})
	first := waitingLink(t, ctx, u, task.TaskID)
	b := newBrowser(t)
	if status, _ := b.submit(first, approveValues("Ana", map[string]string{"yes": "true"}), false); status != http.StatusOK {
		t.Fatalf("first answer: %d", status)
	}
	var second string
	waitTask(t, ctx, u, task.TaskID, func(w wireTask) bool {
		second = linkPattern.FindString(w.StatusMessage)
		return second != "" && second != first
	})
	if status, page := b.get(first); status != http.StatusGone || strings.Contains(page, "<form") {
		t.Fatalf("the first link during the second asking: %d\n%s", status, page)
	}
	if status, page := b.get(second); status != http.StatusOK || !strings.Contains(page, "Approve round 2?") {
		t.Fatalf("second link: %d\n%s", status, page)
	}
	if status, _ := b.submit(second, approveValues("Bea", map[string]string{"yes": "true"}), false); status != http.StatusOK {
		t.Fatalf("second answer: %d", status)
	}
	if done := waitTask(t, ctx, u, task.TaskID, terminal); done.Result.text() != "approved 2 times, last by Bea" {
		t.Fatalf("task: %+v", done)
	}
}

// TestApprovalExpiresByTheOneRule: an approval's link and notification
// expire by approvals.Expires: its timeout, or, without one, the task's
// lifetime (--task-ttl), the default of which is the one flowserve run
// and flowserve test give their runs.
func TestApprovalExpiresByTheOneRule(t *testing.T) {
	if serve.DefaultTaskTTL != approvals.DefaultLifetime {
		t.Errorf("serve.DefaultTaskTTL %v, approvals.DefaultLifetime %v: runs here and in flowserve run and test must live as long", serve.DefaultTaskTTL, approvals.DefaultLifetime)
	}
	noTimeout := strings.Replace(strings.Replace(refundFlow, "    timeout: TIMEOUT\n", "", 1), "    on_timeout: expired\n", "", 1)
	noTimeout = strings.Replace(noTimeout, "  - id: expired\n    return: \"nobody answered in time\"\n", "", 1)
	tests := []struct {
		name, src string
		ttl, want time.Duration
	}{
		{"a timeout", strings.Replace(refundFlow, "TIMEOUT", "2h", 1), 3 * time.Hour, 2 * time.Hour},
		{"a timeout past the task's lifetime", strings.Replace(refundFlow, "TIMEOUT", "30h", 1), 3 * time.Hour, 30 * time.Hour},
		{"no timeout: the task's lifetime", noTimeout, 5 * time.Hour, 5 * time.Hour},
		{"no timeout, the default lifetime", noTimeout, 0, approvals.DefaultLifetime},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := testCtx(t)
			h, hookURL := newHook(t, 0)
			p := compileSource(t, "refund.yaml", []byte(tt.src), flow.Env{Actions: actions.Default()})
			srv := serverWith(t, []*flow.Program{p}, serve.Options{TaskTTL: tt.ttl, PollInterval: 50 * time.Millisecond})
			t.Cleanup(func() {
				ctx, cancel := context.WithCancel(context.Background())
				cancel()
				srv.Close(ctx)
			})
			u := startHTTP(t, srv)
			before := time.Now().UTC().Truncate(time.Second)
			task := taskCall(t, ctx, u, "refund", map[string]any{"amount": 4, "manager": "ana", "hook": hookURL})
			var n approvals.Notification
			select {
			case n = <-h.got:
			case <-time.After(10 * time.Second):
				t.Fatal("the webhook got no notification")
			}
			got, err := time.Parse(time.RFC3339, n.Expires)
			if err != nil {
				t.Fatal(err)
			}
			if want := before.Add(tt.want); got.Before(want) || got.After(want.Add(time.Minute)) {
				t.Errorf("expires %v, want about %v", got, want)
			}
			if w := getTask(t, ctx, u, task.TaskID); !strings.Contains(w.StatusMessage, "(until "+got.Format("2006-01-02T15:04:05")) {
				t.Errorf("status message %q does not say until %v", w.StatusMessage, got)
			}
		})
	}
}
