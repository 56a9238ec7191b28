package serve_test

// Sub-flows (call and link nodes, DESIGN §2) as real clients see them, at
// every protocol era: private callees are neither listed nor served;
// their questions reach the client keyed by the call path, in rounds, in
// one session call, or in a task; an approval inside a callee makes the
// caller a task; a reload while a run is inside a callee's frame lets the
// run finish on the callee version it began on; a callee's failure is the
// caller's on_error, or its isError result.

import (
	"context"
	"errors"
	"maps"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/flowserve/flowserve/actions"
	"github.com/flowserve/flowserve/flow"
	"github.com/flowserve/flowserve/flow/state"
	"github.com/flowserve/flowserve/project"
	"github.com/flowserve/flowserve/serve"
	"github.com/flowserve/flowserve/versions"
)

// callCounter counts the runs of the calls.count action, by key.
type callCounter struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *callCounter) get(key string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[key]
}

// callsRegistry is the default actions and calls.count, counting on c.
func callsRegistry(t testing.TB, c *callCounter) *actions.Registry {
	t.Helper()
	reg := actions.Default().Clone()
	err := reg.Register(actions.Spec{Name: "calls.count", Summary: "counts its runs by key",
		Input: map[string]any{"type": "object", "properties": map[string]any{"key": map[string]any{"type": "string"}},
			"required": []string{"key"}},
		Output: map[string]any{"type": "object", "properties": map[string]any{"n": map[string]any{"type": "integer"}},
			"required": []string{"n"}},
		Func: func(_ context.Context, in map[string]any) (any, error) {
			key, _ := in["key"].(string)
			c.mu.Lock()
			defer c.mu.Unlock()
			if c.n == nil {
				c.n = map[string]int{}
			}
			c.n[key]++
			return map[string]any{"n": c.n[key]}, nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

// callsDir copies testdata/calls to a fresh directory, so that a test can
// edit its flows and load them again.
func callsDir(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	files, err := filepath.Glob(filepath.Join("testdata", "calls", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no testdata/calls flows: %v", err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, dir, filepath.Base(f), string(b))
	}
	return dir
}

// loadCalls loads the flows of dir as the server does (project.Load:
// checked, compiled with their callees and linked), failing on errors.
func loadCalls(t testing.TB, dir string, reg *actions.Registry) *project.Set {
	t.Helper()
	set, diags := project.Load([]string{dir}, project.Options{Actions: reg})
	if diags.HasErrors() {
		t.Fatalf("load %s:\n%v", dir, diags)
	}
	return set
}

// editFlow replaces old with new in dir's file name, failing when old is
// not there.
func editFlow(t testing.TB, dir, name, old, new string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), old) {
		t.Fatalf("%s has no %q", name, old)
	}
	writeFile(t, dir, name, strings.Replace(string(b), old, new, 1))
}

// callsServer serves the flows of a fresh copy of testdata/calls and
// returns the server, the copy's directory and the counter of its
// calls.count steps.
func callsServer(t testing.TB, opts serve.Options) (*serve.Server, string, *callCounter) {
	t.Helper()
	counter := &callCounter{}
	dir := callsDir(t)
	reg := callsRegistry(t, counter)
	set := loadCalls(t, dir, reg)
	if opts.PollInterval == 0 {
		opts.PollInterval = 20 * time.Millisecond
	}
	if opts.WebhookBackoff == 0 {
		opts.WebhookBackoff = 10 * time.Millisecond
	}
	if opts.Host == nil {
		opts.Host = &actions.Host{FSRoot: t.TempDir()}
	}
	opts.Resources = set.Resources
	srv := serverWith(t, set.Programs, opts)
	t.Cleanup(func() {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		srv.Close(ctx)
	})
	return srv, dir, counter
}

// The questions of testdata/calls, as the client sees them.
func reallyQ(action string, answer *mcp.ElicitResult, has ...string) question {
	return question{id: "confirm/ok", has: append([]string{"Really " + action + "?"}, has...), answer: answer}
}

func sureQ(what string, answer *mcp.ElicitResult) question {
	return question{id: "confirm/check/sure", has: []string{"Sure about " + what + "?"}, answer: answer}
}

var (
	yesFine = accept(map[string]any{"yes": true, "note": "fine"})
	noThere = accept(map[string]any{"yes": false, "note": "no"})
	sure    = accept(map[string]any{"sure": true})
	unsure  = accept(map[string]any{"sure": false})
)

// callCases drive remove_item, strict_remove and hand_over to their
// ends.
var callCases = []struct {
	name, tool string
	asks       []question
	isError    bool
	want       string
	structured map[string]any // the result's structuredContent, when it has one
	counted    int            // runs of confirm_action's step
}{
	{name: "linked", tool: "hand_over",
		asks: []question{reallyQ("hand over report.txt", yesFine), sureQ("hand over report.txt", sure)},
		want: `{"checked":"sure","count":1,"note":"fine"}`, counted: 1,
		structured: map[string]any{"note": "fine", "checked": "sure", "count": 1}},
	{name: "linked callee fails", tool: "hand_over",
		asks:    []question{reallyQ("hand over report.txt", declined)},
		isError: true, want: "hand over report.txt was not confirmed", counted: 1},
	{name: "confirmed", tool: "remove_item",
		asks: []question{reallyQ("remove report.txt", yesFine), sureQ("remove report.txt", sure)},
		want: "Removed report.txt (fine, sure, counted 1)", counted: 1},
	{name: "declined", tool: "remove_item",
		asks: []question{reallyQ("remove report.txt", declined)},
		want: "Kept report.txt: remove report.txt was not confirmed", counted: 1},
	{name: "said no", tool: "remove_item",
		asks: []question{reallyQ("remove report.txt", noThere)},
		want: "Kept report.txt: remove report.txt was not confirmed", counted: 1},
	{name: "nested callee fails", tool: "remove_item",
		asks: []question{reallyQ("remove report.txt", yesFine), sureQ("remove report.txt", unsure)},
		want: "Kept report.txt: not sure about remove report.txt", counted: 1},
	{name: "nested callee cancelled", tool: "remove_item",
		asks: []question{reallyQ("remove report.txt", yesFine), sureQ("remove report.txt", canceled)},
		want: "Kept report.txt: not sure about remove report.txt", counted: 1},
	{name: "confirmed without on_error", tool: "strict_remove",
		asks: []question{reallyQ("remove report.txt", yesFine), sureQ("remove report.txt", sure)},
		want: "Removed report.txt (fine)", counted: 1},
	{name: "callee fails without on_error", tool: "strict_remove",
		asks:    []question{reallyQ("remove report.txt", declined)},
		isError: true, want: "remove report.txt was not confirmed", counted: 1},
	{name: "nested callee fails without on_error", tool: "strict_remove",
		asks:    []question{reallyQ("remove report.txt", yesFine), sureQ("remove report.txt", unsure)},
		isError: true, want: "not sure about remove report.txt", counted: 1},
}

// TestCallsEveryEra drives the tools that call private flows to each of
// their ends at every protocol era, in memory (the SDK's handlers) and
// over HTTP (the lean path at 2026-07-28, sessions before): the callee's
// step runs once, its questions (and its nested callee's) are keyed by
// the call path, its failure is the caller's on_error or the caller's
// isError result with the callee's message.
func TestCallsEveryEra(t *testing.T) {
	for _, tc := range callCases {
		for _, e := range eras {
			for _, kind := range transports {
				t.Run(tc.tool+"/"+tc.name+"/"+e.name+"/"+string(kind), func(t *testing.T) {
					t.Parallel()
					ctx := testCtx(t)
					srv, _, counter := callsServer(t, serve.Options{})
					sc := newScript(t, e.version, tc.asks)
					cs := connect(t, ctx, srv, kind, e.version, clientFor(e, sc, false, nil, nil), nil)
					res, rounds, err := callTool(t, ctx, cs, e, sc, &mcp.CallToolParams{Name: tc.tool, Arguments: map[string]any{"item": "report.txt"}})
					if err != nil {
						t.Fatalf("call %s: %v", tc.tool, err)
					}
					checkText(t, res, tc.isError, tc.want)
					if got := resultText(res); got != tc.want {
						t.Errorf("result text %q, want %q", got, tc.want)
					}
					if n := sc.count(); n != len(tc.asks) {
						t.Errorf("asked %d questions, want %d", n, len(tc.asks))
					}
					if e.manual {
						if rounds != len(tc.asks)+1 {
							t.Errorf("%d rounds, want %d", rounds, len(tc.asks)+1)
						}
						if want := slices.Collect(func(yield func(string) bool) {
							for _, q := range tc.asks {
								yield(q.id)
							}
						}); !slices.Equal(sc.keys, want) {
							t.Errorf("inputRequests keys %q, want %q", sc.keys, want)
						}
					}
					if tc.structured != nil && !jsonEqual(res.StructuredContent, tc.structured) {
						t.Errorf("structuredContent = %v, want %v", res.StructuredContent, tc.structured)
					}
					if n := counter.get("confirm_action"); n != tc.counted {
						t.Errorf("confirm_action's step ran %d times, want %d", n, tc.counted)
					}
				})
			}
		}
	}
}

// TestCallsPrivateFlowsNotServed: at every era and over both transports,
// tools/list and prompts/list leave the private flows out, and calling
// one by name is the unknown-tool (unknown-prompt) error.
func TestCallsPrivateFlowsNotServed(t *testing.T) {
	private := []string{"confirm_action", "double_check", "slow_confirm", "manager_approval"}
	srv, dir, _ := callsServer(t, serve.Options{})
	if got, want := srv.Tools(), []string{"archive_items", "hand_over", "refund_order", "remove_item", "strict_remove"}; !slices.Equal(got, want) {
		t.Fatalf("Tools() = %q, want %q", got, want)
	}
	if got, want := srv.Prompts(), []string{"public_prompt"}; !slices.Equal(got, want) {
		t.Fatalf("Prompts() = %q, want %q", got, want)
	}
	for _, e := range eras {
		if e.manual {
			continue // the same client as 2026-07-28 for lists
		}
		for _, kind := range transports {
			t.Run(e.name+"/"+string(kind), func(t *testing.T) {
				ctx := testCtx(t)
				sc := newScript(t, e.version, nil)
				cs := connect(t, ctx, srv, kind, e.version, clientFor(e, sc, false, nil, nil), nil)
				tools, err := cs.ListTools(ctx, nil)
				if err != nil {
					t.Fatal(err)
				}
				var names []string
				for _, tool := range tools.Tools {
					names = append(names, tool.Name)
				}
				slices.Sort(names)
				if want := srv.Tools(); !slices.Equal(names, want) {
					t.Errorf("tools/list: %q, want %q", names, want)
				}
				prompts, err := cs.ListPrompts(ctx, nil)
				if err != nil {
					t.Fatal(err)
				}
				names = nil
				for _, p := range prompts.Prompts {
					names = append(names, p.Name)
				}
				if want := []string{"public_prompt"}; !slices.Equal(names, want) {
					t.Errorf("prompts/list: %q, want %q", names, want)
				}
				for _, name := range private {
					res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: map[string]any{"action": "x", "what": "x", "amount": 1, "manager": "m"}})
					rpcErr := rpcErrorOf(err)
					if rpcErr == nil || rpcErr.Code != -32602 || !strings.Contains(rpcErr.Message, `unknown tool "`+name+`"`) {
						t.Errorf("tools/call %s: want the unknown-tool error, got %v (result %+v)", name, err, res)
					}
				}
				_, err = cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "private_prompt"})
				if rpcErr := rpcErrorOf(err); rpcErr == nil || rpcErr.Code != -32602 || !strings.Contains(rpcErr.Message, `unknown prompt "private_prompt"`) {
					t.Errorf("prompts/get private_prompt: want the unknown-prompt error, got %v", err)
				}
				got, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "public_prompt"})
				if err != nil || len(got.Messages) != 1 {
					t.Errorf("prompts/get public_prompt: %v %+v", err, got)
				}
			})
		}
	}
	// A raw 2026-07-28 client on the lean path, with and without a
	// requestState (with one, the path looks for flows a reload removed),
	// before and after a reload that changed a private flow: the version
	// it replaced is kept for the runs in flight inside it, and is no tool
	// either.
	ctx := testCtx(t)
	u := startHTTP(t, srv)
	first := rawRound(t, ctx, u, nil, callParams("remove_item", map[string]any{"item": "a"}, formCaps))
	wantInputRequired(t, first, "confirm/ok")
	check := func(when string) {
		for _, name := range private {
			for _, st := range []string{"", first.RequestState} {
				rpcErr := postRaw(t, ctx, u, nil, "tools/call", retry(name, map[string]any{"action": "a"}, st, nil)).rpcErr(t)
				if rpcErr.Code != -32602 || !strings.Contains(rpcErr.Message, `unknown tool "`+name+`"`) {
					t.Errorf("%s: raw tools/call %s (with a requestState: %v): %d %s", when, name, st != "", rpcErr.Code, rpcErr.Message)
				}
			}
		}
		var list struct {
			Tools []struct{ Name string } `json:"tools"`
		}
		postRaw(t, ctx, u, nil, "tools/list", map[string]any{"_meta": modernMeta(formCaps)}).result(t, &list)
		if len(list.Tools) != len(srv.Tools()) {
			t.Errorf("%s: raw tools/list: %+v", when, list.Tools)
		}
	}
	check("before a reload")
	confirmV2(t, dir)
	reloadCalls(t, srv, dir)
	check("after a reload")
}

// taskAnswer answers the one question task asks with content, checking
// that its key is new over the task's life, names the question id (the
// call path) and that it asks with message; it returns the key.
func taskAnswer(t testing.TB, ctx context.Context, u string, task wireTask, seen map[string]bool, id, message string, content map[string]any) string {
	t.Helper()
	if task.Status != "input_required" || len(task.InputRequests) != 1 {
		t.Fatalf("want the task to ask %s: %+v", id, task)
	}
	var key string
	for k, raw := range task.InputRequests {
		key = k
		if !strings.Contains(string(raw), message) {
			t.Errorf("input request %s asks %s, want %q", k, raw, message)
		}
	}
	if seen[key] {
		t.Errorf("input request key %q asked twice over the task's life", key)
	}
	seen[key] = true
	if !strings.HasPrefix(key, id) {
		t.Errorf("input request key %q, want one for question %s", key, id)
	}
	var ack map[string]any
	taskRequest(t, ctx, u, "tasks/update", task.TaskID, tasksCaps, map[string]any{"inputResponses": map[string]any{
		key: formAnswer(content)}}).result(t, &ack)
	if ack["resultType"] != "complete" {
		t.Fatalf("tasks/update ack: %v", ack)
	}
	return key
}

// asking reports a task that no longer works.
func asking(w wireTask) bool { return w.Status != "working" }

// TestCallsAsTask: a callee's long step makes its caller run as a task
// for a client with the tasks extension (HasLongSteps counts callees):
// the first question is an MRTR round, then the call is a task whose
// questions, the callee's and its nested callee's, in two iterations of a
// loop, come through tasks/get with keys unique over the task's life and
// are answered with tasks/update.
func TestCallsAsTask(t *testing.T) {
	ctx := testCtx(t)
	set := loadCalls(t, callsDir(t), callsRegistry(t, &callCounter{}))
	for name, long := range map[string]bool{"archive_items": true, "slow_confirm": true, "remove_item": false, "confirm_action": false} {
		if p, ok := set.Program(name); !ok || p.HasLongSteps() != long {
			t.Errorf("%s: HasLongSteps() = %v, want %v", name, ok && p.HasLongSteps(), long)
		}
	}
	srv, _, _ := callsServer(t, serve.Options{})
	u := startHTTP(t, srv)
	first := rawRound(t, ctx, u, nil, callParams("archive_items", map[string]any{}, tasksCaps))
	wantInputRequired(t, first, "confirm/ok")
	if q := first.inputRequest(t, "confirm/ok"); q.Params.Message != "Really archive item 1?" {
		t.Fatalf("first question %q", q.Params.Message)
	}
	var task wireTask
	postRaw(t, ctx, u, nil, "tools/call", withCaps(retry("archive_items", map[string]any{}, first.RequestState,
		map[string]any{"confirm/ok": formAnswer(map[string]any{"note": "n1"})}), tasksCaps)).result(t, &task)
	if task.ResultType != "task" || task.TaskID == "" {
		t.Fatalf("want a task once the callee's long step is reached: %+v", task)
	}
	seen := map[string]bool{}
	taskAnswer(t, ctx, u, waitTask(t, ctx, u, task.TaskID, asking), seen, "confirm/check/sure", "Sure about archive item 1?", map[string]any{"sure": true})
	taskAnswer(t, ctx, u, waitTask(t, ctx, u, task.TaskID, asking), seen, "confirm/ok", "Really archive item 2?", map[string]any{"note": "n2"})
	taskAnswer(t, ctx, u, waitTask(t, ctx, u, task.TaskID, asking), seen, "confirm/check/sure", "Sure about archive item 2?", map[string]any{"sure": true})
	done := waitTask(t, ctx, u, task.TaskID, terminal)
	if done.Status != "completed" || done.Result == nil || done.Result.IsError || done.Result.text() != "archived both: n2" {
		t.Fatalf("final task: %+v %+v", done, done.Result)
	}
	t.Logf("task input request keys: %v", slices.Sorted(maps.Keys(seen)))
	if len(seen) != 3 {
		t.Errorf("keys %v", seen)
	}

	// A client without the extension runs the same flow inline: every
	// question an MRTR round.
	e := era{name: v20260728 + "-manual", version: v20260728, manual: true}
	sc := newScript(t, e.version, []question{
		{id: "confirm/ok", has: []string{"Really archive item 1?"}, answer: accept(map[string]any{"note": "a"})},
		{id: "confirm/check/sure", has: []string{"Sure about archive item 1?"}, answer: sure},
		{id: "confirm/ok", has: []string{"Really archive item 2?"}, answer: accept(map[string]any{"note": "b"})},
		{id: "confirm/check/sure", has: []string{"Sure about archive item 2?"}, answer: sure},
	})
	cs := connect(t, ctx, srv, overHTTP, e.version, clientFor(e, sc, false, nil, nil), nil)
	res, _, err := callTool(t, ctx, cs, e, sc, &mcp.CallToolParams{Name: "archive_items", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	checkText(t, res, false, "archived both: b")
}

// TestCallsApprovalInCallee: an approval (an ask with to) inside a
// callee makes the caller a task for a client with tasks; the page
// answers it, with the callee's question, and the run finishes with the
// callee's result bound to the call; a refusal is the callee's failure,
// which the caller's on_error takes. A client without tasks waits inside
// its call, at 2026-07-28 (lean path) and on a session era.
func TestCallsApprovalInCallee(t *testing.T) {
	ctx := testCtx(t)
	srv, _, _ := callsServer(t, serve.Options{})
	u := startHTTP(t, srv)
	for _, tc := range []struct {
		name    string
		approve string
		want    string
	}{
		{"approved", "true", "refunded 120: approved by Ana Lima"},
		{"refused", "false", "not refunded: refused by Ana Lima"},
	} {
		t.Run("task/"+tc.name, func(t *testing.T) {
			task := taskCall(t, ctx, u, "refund_order", map[string]any{"amount": 120, "manager": "ana@example.com"})
			link := waitingLink(t, ctx, u, task.TaskID)
			b := newBrowser(t)
			status, page := b.get(link)
			for _, want := range []string{"Refund 120 EUR?", "ana@example.com", "Approve the refund"} {
				if status != 200 || !strings.Contains(page, want) {
					t.Fatalf("GET %s: %d, no %q in the page:\n%s", link, status, want, page)
				}
			}
			if status, page := b.submit(link, approveValues("Ana Lima", map[string]string{"approve": tc.approve}), false); status != 200 {
				t.Fatalf("answer: %d\n%s", status, page)
			}
			done := waitTask(t, ctx, u, task.TaskID, terminal)
			if done.Status != "completed" || done.Result == nil || done.Result.IsError || done.Result.text() != tc.want {
				t.Fatalf("task: %+v %+v", done, done.Result)
			}
		})
	}

	t.Run("inline/"+v20260728, func(t *testing.T) {
		h, hookURL := newHook(t, 0)
		var wg sync.WaitGroup
		var res rawCallResult
		var reply *httpReply
		wg.Add(1)
		go func() {
			defer wg.Done()
			reply = postRaw(t, ctx, u, nil, "tools/call", callParams("refund_order", map[string]any{"amount": 7, "manager": "bo", "hook": hookURL}, formCaps))
		}()
		link := h.first(t)
		if status, _ := newBrowser(t).submit(link, approveValues("Bo", map[string]string{"approve": "true"}), false); status != 200 {
			t.Fatalf("answer: %d", status)
		}
		wg.Wait()
		reply.result(t, &res)
		wantComplete(t, &res, false, "refunded 7: approved by Bo")
	})

	t.Run("inline/"+v20251125, func(t *testing.T) {
		h, hookURL := newHook(t, 0)
		cs := connect(t, ctx, srv, overHTTP, v20251125, sessionClient(func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			t.Error("an approval reached the caller's client")
			return nil, errors.New("no")
		}), nil)
		done := make(chan struct{})
		var res *mcp.CallToolResult
		var err error
		go func() {
			defer close(done)
			res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "refund_order", Arguments: map[string]any{"amount": 8, "manager": "cy", "hook": hookURL}})
		}()
		link := h.first(t)
		if status, _ := newBrowser(t).submit(link, approveValues("Cy", map[string]string{"approve": "true"}), false); status != 200 {
			t.Fatalf("answer: %d", status)
		}
		<-done
		if err != nil {
			t.Fatal(err)
		}
		checkText(t, res, false, "refunded 8: approved by Cy")
	})
}

// confirmV2 edits confirm_action in dir into its version 2: another
// question, another note.
func confirmV2(t testing.TB, dir string) {
	t.Helper()
	editFlow(t, dir, "confirm_action.yaml", `ask: "Really `, `ask: "Version 2: really `)
	editFlow(t, dir, "confirm_action.yaml", `note: "{{ ok.content.note }}"`, `note: "v2 {{ ok.content.note }}"`)
}

// reloadCalls loads dir again and swaps it in, as a reload does.
func reloadCalls(t testing.TB, srv *serve.Server, dir string) {
	t.Helper()
	set := loadCalls(t, dir, callsRegistry(t, &callCounter{}))
	if err := srv.ReplaceAll(set.Programs, set.Resources); err != nil {
		t.Fatal(err)
	}
}

// TestCallsReloadInsideCallee: a reload that changes a callee while a run
// is inside its frame (asked its question, or its nested callee's) lets
// the run finish on the callee version its call began on, at every era;
// a new call runs the new version.
func TestCallsReloadInsideCallee(t *testing.T) {
	for _, e := range eras {
		for _, kind := range transports {
			t.Run(e.name+"/"+string(kind), func(t *testing.T) {
				t.Parallel()
				ctx := testCtx(t)
				srv, dir, _ := callsServer(t, serve.Options{})
				// The reload happens while the client is being asked the
				// callee's first question: between two rounds (2026-07-28)
				// or while the session call waits for the answer.
				var once sync.Once
				reload := func() { once.Do(func() { confirmV2(t, dir); reloadCalls(t, srv, dir) }) }
				sc := newScript(t, e.version, []question{
					reallyQ("remove a.txt", yesFine),
					sureQ("remove a.txt", sure),
				})
				// The client's answers go through reload first (the SDK's
				// own MRTR loop at 2026-07-28 and session elicitations).
				c := clientFor(e, nil, false, &mcp.ClientCapabilities{Elicitation: elicitationCaps(e.version)}, &mcp.ClientOptions{
					ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
						reload()
						return sc.handler(ctx, req)
					}})
				cs := connect(t, ctx, srv, kind, e.version, c, nil)
				params := &mcp.CallToolParams{Name: "remove_item", Arguments: map[string]any{"item": "a.txt"}}
				var res *mcp.CallToolResult
				if e.manual {
					// Round by round, reloading after the first.
					r1, err := cs.CallTool(ctx, params)
					if err != nil || !r1.NeedsInput() {
						t.Fatalf("round 1: %v %+v", err, r1)
					}
					responses, err := answerAll(t, 1, sc, r1.InputRequests)
					if err != nil {
						t.Fatal(err)
					}
					reload()
					p := *params
					p.InputResponses, p.RequestState = responses, r1.RequestState
					res, _, err = callTool(t, ctx, cs, e, sc, &p)
					if err != nil {
						t.Fatal(err)
					}
				} else {
					var err error
					if res, _, err = callTool(t, ctx, cs, e, sc, params); err != nil {
						t.Fatal(err)
					}
				}
				checkText(t, res, false)
				if got, want := resultText(res), "Removed a.txt (fine, sure, counted 1)"; got != want {
					t.Errorf("the run in flight: %q, want %q (version 1 of the callee)", got, want)
				}
				if n := sc.count(); n != 2 {
					t.Errorf("asked %d questions, want 2", n)
				}
				// A new call runs version 2.
				sc2 := newScript(t, e.version, []question{
					{id: "confirm/ok", has: []string{"Version 2: really remove b.txt?"}, answer: yesFine},
					sureQ("remove b.txt", sure),
				})
				cs2 := connect(t, ctx, srv, kind, e.version, clientFor(e, sc2, false, nil, nil), nil)
				res2, _, err := callTool(t, ctx, cs2, e, sc2, &mcp.CallToolParams{Name: "remove_item", Arguments: map[string]any{"item": "b.txt"}})
				if err != nil {
					t.Fatal(err)
				}
				if got, want := resultText(res2), "Removed b.txt (v2 fine, sure, counted 1)"; got != want {
					t.Errorf("a new call: %q, want %q (version 2 of the callee)", got, want)
				}
			})
		}
	}
}

// slowV2 edits slow_confirm in dir into its version 2.
func slowV2(t testing.TB, dir string) {
	t.Helper()
	editFlow(t, dir, "slow_confirm.yaml", `ask: "Really `, `ask: "Version 2: really `)
	editFlow(t, dir, "slow_confirm.yaml", `note: "{{ ok.content.note }}"`, `note: "v2 {{ ok.content.note }}"`)
}

// TestCallsReloadInsideCalleeTask: a task inside a callee's frame (at its
// nested callee's question) when the callee changes finishes that call on
// the version it began on; the next call of the loop, started after the
// reload, and a new task run version 2.
func TestCallsReloadInsideCalleeTask(t *testing.T) {
	ctx := testCtx(t)
	srv, dir, _ := callsServer(t, serve.Options{})
	u := startHTTP(t, srv)
	first := rawRound(t, ctx, u, nil, callParams("archive_items", map[string]any{}, tasksCaps))
	wantInputRequired(t, first, "confirm/ok")
	var task wireTask
	postRaw(t, ctx, u, nil, "tools/call", withCaps(retry("archive_items", map[string]any{}, first.RequestState,
		map[string]any{"confirm/ok": formAnswer(map[string]any{"note": "n1"})}), tasksCaps)).result(t, &task)
	if task.ResultType != "task" {
		t.Fatalf("want a task: %+v", task)
	}
	seen := map[string]bool{}
	asked := waitTask(t, ctx, u, task.TaskID, asking)
	slowV2(t, dir)
	reloadCalls(t, srv, dir)
	taskAnswer(t, ctx, u, asked, seen, "confirm/check/sure", "Sure about archive item 1?", map[string]any{"sure": true})
	taskAnswer(t, ctx, u, waitTask(t, ctx, u, task.TaskID, asking), seen, "confirm/ok", "Version 2: really archive item 2?", map[string]any{"note": "n2"})
	taskAnswer(t, ctx, u, waitTask(t, ctx, u, task.TaskID, asking), seen, "confirm/check/sure", "Sure about archive item 2?", map[string]any{"sure": true})
	if done := waitTask(t, ctx, u, task.TaskID, terminal); done.Status != "completed" || done.Result.text() != "archived both: v2 n2" {
		t.Fatalf("final task: %+v %+v", done, done.Result)
	}

	// A new task, from its first round, runs version 2.
	fresh := rawRound(t, ctx, u, nil, callParams("archive_items", map[string]any{}, tasksCaps))
	wantInputRequired(t, fresh, "confirm/ok")
	if q := fresh.inputRequest(t, "confirm/ok"); q.Params.Message != "Version 2: really archive item 1?" {
		t.Fatalf("a new call asks %q", q.Params.Message)
	}
	postRaw(t, ctx, u, nil, "tools/call", withCaps(retry("archive_items", map[string]any{}, fresh.RequestState,
		map[string]any{"confirm/ok": formAnswer(map[string]any{"note": "m1"})}), tasksCaps)).result(t, &task)
	seen = map[string]bool{}
	taskAnswer(t, ctx, u, waitTask(t, ctx, u, task.TaskID, asking), seen, "confirm/check/sure", "Sure about archive item 1?", map[string]any{"sure": true})
	taskAnswer(t, ctx, u, waitTask(t, ctx, u, task.TaskID, asking), seen, "confirm/ok", "Version 2: really archive item 2?", map[string]any{"note": "m2"})
	taskAnswer(t, ctx, u, waitTask(t, ctx, u, task.TaskID, asking), seen, "confirm/check/sure", "Sure about archive item 2?", map[string]any{"sure": true})
	if done := waitTask(t, ctx, u, task.TaskID, terminal); done.Status != "completed" || done.Result.text() != "archived both: v2 m2" {
		t.Fatalf("new task: %+v %+v", done, done.Result)
	}
}

// TestCallsReloaderChangedCallee: a reload by project.Reloader (what
// `flowserve serve --watch` and server.reload run) that changes only a
// callee makes new calls of its unchanged callers run the new callee
// (the reloader keeps an unchanged flow's program only while the flows
// it calls are unchanged too).
func TestCallsReloaderChangedCallee(t *testing.T) {
	ctx := testCtx(t)
	dir := callsDir(t)
	opts := project.Options{Actions: callsRegistry(t, &callCounter{})}
	set := loadCalls(t, dir, opts.Actions)
	srv := serverWith(t, set.Programs, serve.Options{Resources: set.Resources})
	r := project.NewReloader([]string{dir}, opts, srv, set)
	confirmV2(t, dir)
	ch, diags, err := r.Reload()
	if err != nil || diags.HasErrors() {
		t.Fatalf("reload: %v\n%v", err, diags)
	}
	if !slices.Equal(ch.Updated, []string{"confirm_action"}) {
		t.Errorf("reload changed %+v", ch)
	}
	e := era{name: v20260728 + "-manual", version: v20260728, manual: true}
	sc := newScript(t, e.version, []question{
		{id: "confirm/ok", has: []string{"Version 2: really remove c.txt?"}, answer: yesFine},
		sureQ("remove c.txt", sure),
	})
	cs := connect(t, ctx, srv, overHTTP, e.version, clientFor(e, sc, false, nil, nil), nil)
	res, _, err := callTool(t, ctx, cs, e, sc, &mcp.CallToolParams{Name: "remove_item", Arguments: map[string]any{"item": "c.txt"}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := resultText(res), "Removed c.txt (v2 fine, sure, counted 1)"; got != want {
		t.Errorf("a new call after the reload: %q, want %q (version 2 of the callee)", got, want)
	}
}

// TestCallsRestartInsideCallee: a run inside a callee's frame goes on on
// the callee version it began on after the server restarts with the
// callee changed: the new process compiles that version from the version
// store (as `flowserve serve --data` does, with project.LoadSource) and
// links it to the flows it serves.
func TestCallsRestartInsideCallee(t *testing.T) {
	ctx := testCtx(t)
	dir := callsDir(t)
	path := filepath.Join(t.TempDir(), "versions.db")
	codec := newCodec(t, state.Options{})
	start := func() (string, func()) {
		reg := callsRegistry(t, &callCounter{})
		store, err := versions.OpenBolt(path, versions.BoltOptions{})
		if err != nil {
			t.Fatal(err)
		}
		vs := serve.NewVersions(serve.VersionsOptions{Store: store, Logger: quietLogger(), Compile: func(path string, src []byte) (*flow.Program, error) {
			p, diags := project.LoadSource(path, src, project.Options{Actions: reg})
			if p == nil {
				return nil, diags.Err()
			}
			return p, nil
		}})
		set := loadCalls(t, dir, reg)
		srv := serverWith(t, set.Programs, serve.Options{Engine: newEngine(t, flow.EngineOptions{Codec: codec, Versions: vs}), Versions: vs})
		hs := httptest.NewServer(srv.HTTPHandler(serve.HTTPOptions{}))
		return hs.URL + serve.EndpointPath, func() {
			hs.Close()
			c, cancel := context.WithCancel(context.Background())
			cancel()
			srv.Close(c)
			store.Close()
		}
	}
	args := map[string]any{"item": "d.txt"}
	u1, stop1 := start()
	first := rawRound(t, ctx, u1, nil, callParams("remove_item", args, formCaps))
	wantInputRequired(t, first, "confirm/ok")
	stop1()

	confirmV2(t, dir)
	u2, stop2 := start()
	defer stop2()
	next := rawRound(t, ctx, u2, nil, retry("remove_item", args, first.RequestState,
		map[string]any{"confirm/ok": formAnswer(map[string]any{"yes": true, "note": "fine"})}))
	wantInputRequired(t, next, "confirm/check/sure")
	last := rawRound(t, ctx, u2, nil, retry("remove_item", args, next.RequestState,
		map[string]any{"confirm/check/sure": formAnswer(map[string]any{"sure": true})}))
	wantComplete(t, last, false)
	if got, want := last.text(), "Removed d.txt (fine, sure, counted 1)"; got != want {
		t.Errorf("after the restart: %q, want %q (version 1 of the callee)", got, want)
	}
	fresh := rawRound(t, ctx, u2, nil, callParams("remove_item", args, formCaps))
	if q := fresh.inputRequest(t, "confirm/ok"); q.Params.Message != "Version 2: really remove d.txt?" {
		t.Errorf("a new call asks %q", q.Params.Message)
	}
}
