package serve_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	dto "github.com/prometheus/client_model/go"

	"github.com/flowserve/flowserve/actions"
	"github.com/flowserve/flowserve/flow"
	"github.com/flowserve/flowserve/replies/redis/redistest"
	"github.com/flowserve/flowserve/serve"
	"github.com/flowserve/flowserve/tasks"
	taskredis "github.com/flowserve/flowserve/tasks/redis"
)

// tasksCaps is the clientCapabilities of a client that declared the tasks
// extension and answers forms.
var tasksCaps = map[string]any{"elicitation": map[string]any{},
	"extensions": map[string]any{"io.modelcontextprotocol/tasks": map[string]any{}}}

// wireTask is a task as tasks/get and a CreateTaskResult send it.
type wireTask struct {
	ResultType     string                     `json:"resultType"`
	TaskID         string                     `json:"taskId"`
	Status         string                     `json:"status"`
	StatusMessage  string                     `json:"statusMessage"`
	CreatedAt      string                     `json:"createdAt"`
	LastUpdatedAt  string                     `json:"lastUpdatedAt"`
	TTLMs          *int64                     `json:"ttlMs"`
	PollIntervalMs int64                      `json:"pollIntervalMs"`
	InputRequests  map[string]json.RawMessage `json:"inputRequests"`
	Result         *rawCallResult             `json:"result"`
	Error          *rpcError                  `json:"error"`
	RequestState   *string                    `json:"requestState"`
}

// conformanceTaskFlows compiles the tasks fixtures of the conformance
// suite.
func conformanceTaskFlows(t testing.TB) []*flow.Program {
	t.Helper()
	var progs []*flow.Program
	for _, name := range []string{"greet", "slow_compute", "failing_job", "protocol_error_job", "confirm_delete", "multi_input", "test_tool_with_task"} {
		progs = append(progs, compileFile(t, filepath.Join("..", "testdata", "conformance", "pending", name+".yaml"), flow.Env{Actions: actions.Default()}))
	}
	return progs
}

// taskServer serves the task fixtures over HTTP on store (nil: memory).
func taskServer(t testing.TB, store tasks.Store) (*serve.Server, string) {
	t.Helper()
	srv, err := serve.New(conformanceTaskFlows(t), serve.Options{Version: "test", Logger: quietLogger(),
		Host: &actions.Host{FSRoot: t.TempDir()}, Tasks: store, PollInterval: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		srv.Close(ctx)
	})
	return srv, startHTTP(t, srv)
}

// taskCall calls a tool as a client with tasks and returns its task.
func taskCall(t testing.TB, ctx context.Context, url, tool string, args any) wireTask {
	t.Helper()
	var task wireTask
	postRaw(t, ctx, url, nil, "tools/call", callParams(tool, args, tasksCaps)).result(t, &task)
	if task.ResultType != "task" || task.TaskID == "" {
		t.Fatalf("tools/call %s: want a CreateTaskResult, got %+v", tool, task)
	}
	return task
}

// taskRequest sends a tasks/* request for id.
func taskRequest(t testing.TB, ctx context.Context, url, method, id string, caps map[string]any, extra map[string]any) *httpReply {
	t.Helper()
	params := map[string]any{"taskId": id, "_meta": modernMeta(caps)}
	for k, v := range extra {
		params[k] = v
	}
	return postRaw(t, ctx, url, http.Header{"Mcp-Name": {id}}, method, params)
}

// getTask is tasks/get.
func getTask(t testing.TB, ctx context.Context, url, id string) wireTask {
	t.Helper()
	var task wireTask
	taskRequest(t, ctx, url, "tasks/get", id, tasksCaps, nil).result(t, &task)
	return task
}

// waitTask polls the task until done says it is where the test wants it.
func waitTask(t testing.TB, ctx context.Context, url, id string, done func(wireTask) bool) wireTask {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		task := getTask(t, ctx, url, id)
		if done(task) {
			return task
		}
		if time.Now().After(deadline) {
			t.Fatalf("task %s: still %s (%s)", id, task.Status, task.StatusMessage)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func terminal(task wireTask) bool {
	return task.Status == "completed" || task.Status == "failed" || task.Status == "cancelled"
}

func TestTaskLifecycle(t *testing.T) {
	ctx := testCtx(t)
	_, url := taskServer(t, nil)

	// A flow without long steps stays a plain call, even with tasks.
	var sync rawCallResult
	postRaw(t, ctx, url, nil, "tools/call", callParams("greet", map[string]any{"name": "World"}, tasksCaps)).result(t, &sync)
	if sync.ResultType != "complete" || sync.text() != "Hello, World!" {
		t.Fatalf("greet: %+v", sync)
	}

	created := taskCall(t, ctx, url, "slow_compute", map[string]any{"seconds": 0.2, "label": "x"})
	if created.Status != "working" || created.TTLMs == nil || *created.TTLMs <= 0 || created.PollIntervalMs != 50 ||
		created.RequestState != nil || created.InputRequests != nil || created.Result != nil {
		t.Fatalf("CreateTaskResult: %+v", created)
	}
	for _, ts := range []string{created.CreatedAt, created.LastUpdatedAt} {
		if _, err := time.Parse(time.RFC3339Nano, ts); err != nil {
			t.Errorf("time %q: %v", ts, err)
		}
	}
	done := waitTask(t, ctx, url, created.TaskID, terminal)
	if done.Status != "completed" || done.Result == nil || !strings.Contains(done.Result.text(), "Computed x") || done.ResultType != "complete" {
		t.Fatalf("final task: %+v", done)
	}

	// A tool error completes the task with isError; a JSON-RPC error fails it.
	failing := waitTask(t, ctx, url, taskCall(t, ctx, url, "failing_job", map[string]any{}).TaskID, terminal)
	if failing.Status != "completed" || failing.Result == nil || !failing.Result.IsError {
		t.Fatalf("failing_job: %+v", failing)
	}
	protocol := waitTask(t, ctx, url, taskCall(t, ctx, url, "protocol_error_job", map[string]any{}).TaskID, terminal)
	if protocol.Status != "failed" || protocol.Error == nil || protocol.Error.Code != -32021 || protocol.Result != nil {
		t.Fatalf("protocol_error_job: %+v", protocol)
	}
}

func TestTaskCancel(t *testing.T) {
	ctx := testCtx(t)
	_, url := taskServer(t, nil)
	task := taskCall(t, ctx, url, "slow_compute", map[string]any{"seconds": 60})
	var ack map[string]any
	taskRequest(t, ctx, url, "tasks/cancel", task.TaskID, tasksCaps, nil).result(t, &ack)
	if len(ack) != 1 || ack["resultType"] != "complete" {
		t.Fatalf("cancel ack: %v", ack)
	}
	if got := getTask(t, ctx, url, task.TaskID); got.Status != "cancelled" {
		t.Fatalf("after cancel: %+v", got)
	}
	// Cancelling again, or a finished task, gets the same ack.
	taskRequest(t, ctx, url, "tasks/cancel", task.TaskID, tasksCaps, nil).result(t, &ack)
	if ack["resultType"] != "complete" {
		t.Fatalf("second cancel: %v", ack)
	}
}

func TestTaskInputAndPartialUpdate(t *testing.T) {
	ctx := testCtx(t)
	_, url := taskServer(t, nil)
	task := taskCall(t, ctx, url, "multi_input", map[string]any{})
	asked := waitTask(t, ctx, url, task.TaskID, func(w wireTask) bool { return w.Status != "working" })
	if asked.Status != "input_required" || len(asked.InputRequests) != 2 {
		t.Fatalf("want two questions: %+v", asked)
	}
	keys := slices.Sorted(func(yield func(string) bool) {
		for k := range asked.InputRequests {
			if !yield(k) {
				return
			}
		}
	})
	answer := map[string]any{"action": "accept", "content": map[string]any{"name": "partial", "confirm": true}}
	update := func(responses map[string]any) {
		var ack map[string]any
		taskRequest(t, ctx, url, "tasks/update", task.TaskID, tasksCaps, map[string]any{"inputResponses": responses}).result(t, &ack)
		if len(ack) != 1 || ack["resultType"] != "complete" {
			t.Fatalf("update ack: %v", ack)
		}
	}
	// A malformed answer to a known key refuses the whole update, and
	// keeps nothing of it.
	bad := taskRequest(t, ctx, url, "tasks/update", task.TaskID, tasksCaps, map[string]any{"inputResponses": map[string]any{
		keys[0]: answer, keys[1]: map[string]any{"action": "maybe"}}})
	if e := bad.rpcErr(t); e.Code != -32602 || !strings.Contains(e.Message, keys[1]) || !strings.Contains(e.Message, "accept, decline or cancel") {
		t.Fatalf("malformed answer: %+v", e)
	}
	if still := getTask(t, ctx, url, task.TaskID); len(still.InputRequests) != 2 {
		t.Fatalf("a refused update kept answers: %+v", still)
	}
	update(map[string]any{keys[0]: answer, "unknown-key": map[string]any{"ignored": true}})
	mid := getTask(t, ctx, url, task.TaskID)
	if _, still := mid.InputRequests[keys[0]]; mid.Status != "input_required" || still || mid.InputRequests[keys[1]] == nil {
		t.Fatalf("after a partial update: %+v", mid)
	}
	update(map[string]any{keys[1]: answer})
	done := waitTask(t, ctx, url, task.TaskID, terminal)
	if done.Status != "completed" || !strings.Contains(done.Result.text(), "accept and accept") {
		t.Fatalf("final: %+v", done)
	}
}

func TestTaskAfterMRTRRounds(t *testing.T) {
	ctx := testCtx(t)
	_, url := taskServer(t, nil)
	var r1 rawCallResult
	postRaw(t, ctx, url, nil, "tools/call", callParams("test_tool_with_task", map[string]any{}, tasksCaps)).result(t, &r1)
	if r1.ResultType != "input_required" || r1.InputRequests["user_name"] == nil {
		t.Fatalf("round 1: %+v", r1)
	}
	params := callParams("test_tool_with_task", map[string]any{}, tasksCaps)
	params["requestState"] = r1.RequestState
	params["inputResponses"] = map[string]any{"user_name": map[string]any{"action": "accept", "content": map[string]any{"name": "Alice"}}}
	var created wireTask
	postRaw(t, ctx, url, nil, "tools/call", params).result(t, &created)
	if created.ResultType != "task" || created.RequestState != nil || created.InputRequests != nil {
		t.Fatalf("round 2: %+v", created)
	}
	done := waitTask(t, ctx, url, created.TaskID, terminal)
	if done.Status != "completed" || !strings.Contains(done.Result.text(), "Alice") {
		t.Fatalf("final: %+v", done)
	}
}

func TestTaskWireErrors(t *testing.T) {
	ctx := testCtx(t)
	_, url := taskServer(t, nil)
	noExt := map[string]any{}
	for _, method := range []string{"tasks/get", "tasks/update", "tasks/cancel"} {
		if e := taskRequest(t, ctx, url, method, "gate-test", noExt, nil).rpcErr(t); e.Code != -32021 || !strings.Contains(string(e.Data), "io.modelcontextprotocol/tasks") {
			t.Errorf("%s without the extension: %+v", method, e)
		}
	}
	if e := taskRequest(t, ctx, url, "tasks/get", "nonexistent", tasksCaps, nil).rpcErr(t); e.Code != -32602 {
		t.Errorf("unknown task: %+v", e)
	}
	for _, method := range []string{"tasks/result", "tasks/list"} {
		r := postRaw(t, ctx, url, nil, method, map[string]any{"taskId": "x", "_meta": modernMeta(tasksCaps)})
		if e := r.rpcErr(t); e.Code != -32601 || r.status != http.StatusNotFound {
			t.Errorf("%s: HTTP %d %+v", method, r.status, e)
		}
	}
	// The Mcp-Name header must name the task.
	task := taskCall(t, ctx, url, "slow_compute", map[string]any{"seconds": 60})
	r := postRaw(t, ctx, url, http.Header{"Mcp-Name": {"wrong"}}, "tasks/get", map[string]any{"taskId": task.TaskID, "_meta": modernMeta(tasksCaps)})
	if e := r.rpcErr(t); e.Code != -32020 || r.status != http.StatusBadRequest {
		t.Errorf("mismatched Mcp-Name: HTTP %d %+v", r.status, e)
	}
	// A task: required flow refuses a client without the extension.
	if e := postRaw(t, ctx, url, nil, "tools/call", callParams("failing_job", map[string]any{}, noExt)).rpcErr(t); e.Code != -32021 {
		t.Errorf("failing_job without tasks: %+v", e)
	}
	// Without the extension a long step runs inside the call.
	var inline rawCallResult
	postRaw(t, ctx, url, nil, "tools/call", callParams("slow_compute", map[string]any{"seconds": 0, "label": "now"}, noExt)).result(t, &inline)
	if inline.ResultType != "complete" || !strings.Contains(inline.text(), "Computed now") {
		t.Errorf("slow_compute inline: %+v", inline)
	}
}

func TestTaskBoundToPrincipal(t *testing.T) {
	ctx := testCtx(t)
	srv, err := serve.New(conformanceTaskFlows(t), serve.Options{Version: "test", Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	tokens, err := serve.ParseTokens([]byte("alice:token-alice-0123456789\nbob:token-bob-0123456789ab\n"))
	if err != nil {
		t.Fatal(err)
	}
	url := startHTTPWith(t, srv, serve.HTTPOptions{Tokens: tokens})
	alice := http.Header{"Authorization": {"Bearer token-alice-0123456789"}}
	bob := http.Header{"Authorization": {"Bearer token-bob-0123456789ab"}}
	var task wireTask
	postRaw(t, ctx, url, alice, "tools/call", callParams("slow_compute", map[string]any{"seconds": 60}, tasksCaps)).result(t, &task)
	for _, method := range []string{"tasks/get", "tasks/update", "tasks/cancel"} {
		h := bob.Clone()
		h.Set("Mcp-Name", task.TaskID)
		r := postRaw(t, ctx, url, h, method, map[string]any{"taskId": task.TaskID, "_meta": modernMeta(tasksCaps)})
		if e := r.rpcErr(t); e.Code != -32602 {
			t.Errorf("%s by another caller: %+v", method, e)
		}
	}
	h := alice.Clone()
	h.Set("Mcp-Name", task.TaskID)
	var got wireTask
	postRaw(t, ctx, url, h, "tasks/get", map[string]any{"taskId": task.TaskID, "_meta": modernMeta(tasksCaps)}).result(t, &got)
	if got.TaskID != task.TaskID {
		t.Fatalf("owner's get: %+v", got)
	}
}

// TestTaskFlowsForSessionClients drives the task fixtures with go-sdk
// clients at the session eras and at 2026-07-28 without the extension: a
// long step runs inside the call, a task: required flow is refused, and
// MaxWait bounds the wait.
func TestTaskFlowsForSessionClients(t *testing.T) {
	ctx := testCtx(t)
	srv, err := serve.New(conformanceTaskFlows(t), serve.Options{Version: "test", Logger: quietLogger(), MaxWait: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	for _, version := range []string{v20251125, v20250618, v20260728} {
		t.Run(version, func(t *testing.T) {
			cs := connect(t, ctx, srv, overHTTP, version, mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil), nil)
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "slow_compute", Arguments: map[string]any{"seconds": 0.05, "label": "inline"}})
			if err != nil {
				t.Fatal(err)
			}
			checkText(t, res, false, "Computed inline")
			res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "slow_compute", Arguments: map[string]any{"seconds": 30}})
			if err != nil {
				t.Fatal(err)
			}
			checkText(t, res, true, "compute")
			res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "failing_job", Arguments: map[string]any{}})
			if version == v20260728 {
				if e := rpcErrorOf(err); e == nil || e.Code != -32021 {
					t.Fatalf("failing_job at 2026-07-28 without tasks: %v, %v", res, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			checkText(t, res, true, "runs only as an MCP task")
		})
	}
}

// taskStores opens each kind of run store for a test: memory, the bbolt
// file, and Redis.
func taskStores(t *testing.T) map[string]func(t *testing.T) tasks.Store {
	return map[string]func(t *testing.T) tasks.Store{
		"memory": func(t *testing.T) tasks.Store { return tasks.NewMemory(nil) },
		"bolt": func(t *testing.T) tasks.Store {
			b, err := tasks.OpenBolt(filepath.Join(t.TempDir(), "tasks.db"), tasks.BoltOptions{})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { b.Close() })
			return b
		},
		"redis": func(t *testing.T) tasks.Store {
			rs, err := taskredis.Open(redistest.Start(t).URL, taskredis.Options{})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { rs.Close() })
			return rs
		},
	}
}

// TestTaskStores runs a task through questions, a partial update and a
// long step on every kind of run store.
func TestTaskStores(t *testing.T) {
	for name, open := range taskStores(t) {
		t.Run(name, func(t *testing.T) {
			ctx := testCtx(t)
			_, url := taskServer(t, open(t))
			task := taskCall(t, ctx, url, "confirm_delete", map[string]any{"filename": "a.txt"})
			asked := waitTask(t, ctx, url, task.TaskID, func(w wireTask) bool { return w.Status != "working" })
			if asked.Status != "input_required" || len(asked.InputRequests) != 1 {
				t.Fatalf("want one question: %+v", asked)
			}
			var key string
			for k := range asked.InputRequests {
				key = k
			}
			var ack map[string]any
			taskRequest(t, ctx, url, "tasks/update", task.TaskID, tasksCaps, map[string]any{"inputResponses": map[string]any{
				key: map[string]any{"action": "accept", "content": map[string]any{"confirm": true}}}}).result(t, &ack)
			done := waitTask(t, ctx, url, task.TaskID, terminal)
			if done.Status != "completed" || !strings.Contains(done.Result.text(), "Deleted a.txt") {
				t.Fatalf("final: %+v", done)
			}
		})
	}
}

// TestTaskSurvivesRestart stops a server mid-step, its run store closed,
// and opens the store again under a new server: the task is taken over
// and completes, its long step run again.
func TestTaskSurvivesRestart(t *testing.T) {
	ctx := testCtx(t)
	path := filepath.Join(t.TempDir(), "tasks.db")
	engine := newEngine(t, flow.EngineOptions{}) // one key ring for both servers
	start := func() (*serve.Server, tasks.Store, string) {
		b, err := tasks.OpenBolt(path, tasks.BoltOptions{})
		if err != nil {
			t.Fatal(err)
		}
		srv, err := serve.New(conformanceTaskFlows(t), serve.Options{Version: "test", Logger: quietLogger(), Engine: engine, Tasks: b})
		if err != nil {
			t.Fatal(err)
		}
		return srv, b, startHTTP(t, srv)
	}
	stop := func(srv *serve.Server, store tasks.Store) {
		stopped, cancel := context.WithCancel(ctx)
		cancel()
		srv.Close(stopped) // as a crash: the rounds stop, their outcomes not stored
		store.Close()
	}
	srv1, store1, url1 := start()
	task := taskCall(t, ctx, url1, "slow_compute", map[string]any{"seconds": 1, "label": "again"})
	waitTask(t, ctx, url1, task.TaskID, func(w wireTask) bool { return w.Status == "working" })
	time.Sleep(200 * time.Millisecond) // the step is running
	stop(srv1, store1)

	srv2, store2, url2 := start()
	defer stop(srv2, store2)
	done := waitTask(t, ctx, url2, task.TaskID, terminal)
	if done.Status != "completed" || !strings.Contains(done.Result.text(), "Computed again") {
		t.Fatalf("after the restart: %+v", done)
	}
	var m dto.Metric
	if err := srv2.Metrics().TaskTakeovers.WithLabelValues("slow_compute").Write(&m); err != nil {
		t.Fatal(err)
	}
	if n := m.GetCounter().GetValue(); n != 1 {
		t.Errorf("takeovers counted: %v, want 1", n)
	}
}

// failingStore is a run store whose Updates fail while failing is set.
type failingStore struct {
	tasks.Store
	failing atomic.Bool
}

func (f *failingStore) Update(ctx context.Context, id string, fn func(*tasks.Task) error) (*tasks.Task, error) {
	if f.failing.Load() {
		return nil, errors.New("the store is down")
	}
	return f.Store.Update(ctx, id, fn)
}

// TestTaskStoreOutage: a store that fails while a task's round runs does
// not end the task: its round runs again once the store is back.
func TestTaskStoreOutage(t *testing.T) {
	ctx := testCtx(t)
	store := &failingStore{Store: tasks.NewMemory(nil)}
	_, url := taskServer(t, store)
	task := taskCall(t, ctx, url, "slow_compute", map[string]any{"seconds": 0.3, "label": "outage"})
	store.failing.Store(true)
	time.Sleep(600 * time.Millisecond) // the step ends, its checkpoint fails
	store.failing.Store(false)
	done := waitTask(t, ctx, url, task.TaskID, terminal)
	if done.Status != "completed" || !strings.Contains(done.Result.text(), "Computed outage") {
		t.Fatalf("after the outage: %+v", done)
	}
}
