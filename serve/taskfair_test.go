package serve_test

import (
	"context"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/flowserve/flowserve/flow"
	"github.com/flowserve/flowserve/serve"
	"github.com/flowserve/flowserve/tasks"
)

// The flows of the fairness and limit tests: hold runs as a task whose
// step blocks until the test's blocker opens, quick as a task that ends
// at once, and ask as a task that waits for an answer (open, on no
// worker).
const (
	holdFlow = `
name: hold
description: blocks until the test lets it go
task: required
nodes:
  - id: wait
    step: test.block
    long: true
  - return: "held"
`
	quickFlow = `
name: quick
description: ends at once
task: required
nodes:
  - return: "quick done"
`
	askFlow = `
name: ask
description: waits for an answer
task: required
nodes:
  - id: name
    ask: "Name?"
    form:
      name: {type: string}
  - return: "hello {{ name.content.name }}"
`
)

// fairFlows compiles hold (blocking on b), quick and ask.
func fairFlows(t testing.TB, b *blocker) []*flow.Program {
	t.Helper()
	env := flow.Env{Actions: opsRegistry(t, b)}
	return []*flow.Program{
		compileSource(t, "hold.yaml", []byte(holdFlow), env),
		compileSource(t, "quick.yaml", []byte(quickFlow), env),
		compileSource(t, "ask.yaml", []byte(askFlow), env),
	}
}

// callerTokens are the bearer tokens of two callers, alice and bob.
var callerTokens = []byte("alice:token-alice-0123456789\nbob:token-bob-0123456789ab\n")

var (
	asAlice = bearer("token-alice-0123456789")
	asBob   = bearer("token-bob-0123456789ab")
)

// fairServer serves the fair flows and extra on store with opts, checking
// the two callers' tokens, and returns the endpoint's URL. The blocker
// opens, and the server closes, when the test ends.
func fairServer(t *testing.T, b *blocker, store tasks.Store, opts serve.Options, extra ...*flow.Program) (*serve.Server, string) {
	t.Helper()
	opts.Tasks = store
	if opts.PollInterval == 0 {
		opts.PollInterval = 20 * time.Millisecond
	}
	srv := serverWith(t, append(fairFlows(t, b), extra...), opts)
	t.Cleanup(func() {
		b.open()
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		srv.Close(ctx)
	})
	tokens, err := serve.ParseTokens(callerTokens)
	if err != nil {
		t.Fatal(err)
	}
	return srv, startHTTPWith(t, srv, serve.HTTPOptions{Tokens: tokens})
}

// startTask calls tool as a client with tasks, as who, and returns the
// task's id.
func startTask(t *testing.T, ctx context.Context, url string, who http.Header, tool string) string {
	t.Helper()
	var task wireTask
	postRaw(t, ctx, url, who, "tools/call", callParams(tool, map[string]any{}, tasksCaps)).result(t, &task)
	if task.ResultType != "task" || task.TaskID == "" {
		t.Fatalf("tools/call %s: want a CreateTaskResult, got %+v", tool, task)
	}
	return task.TaskID
}

// taskAs sends a tasks/* request for task id as who.
func taskAs(t *testing.T, ctx context.Context, url string, who http.Header, method, id string, extra map[string]any) *httpReply {
	t.Helper()
	h := who.Clone()
	h.Set("Mcp-Name", id)
	params := map[string]any{"taskId": id, "_meta": modernMeta(tasksCaps)}
	for k, v := range extra {
		params[k] = v
	}
	return postRaw(t, ctx, url, h, method, params)
}

// waitTaskAs polls task id as who until it has ended, and returns it.
func waitTaskAs(t *testing.T, ctx context.Context, url string, who http.Header, id string) wireTask {
	t.Helper()
	for {
		var task wireTask
		taskAs(t, ctx, url, who, "tasks/get", id, nil).result(t, &task)
		if terminal(task) {
			return task
		}
		select {
		case <-ctx.Done():
			t.Fatalf("task %s: still %s when the test's time ran out", id, task.Status)
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// started waits for a round of hold to start.
func started(t *testing.T, ctx context.Context, b *blocker, what string) {
	t.Helper()
	select {
	case <-b.started:
	case <-ctx.Done():
		t.Fatalf("%s: no round of hold started", what)
	}
}

// noMoreStarted fails the test if another round of hold has started.
func noMoreStarted(t *testing.T, b *blocker, what string) {
	t.Helper()
	select {
	case <-b.started:
		t.Fatalf("%s: another round of hold started", what)
	default:
	}
}

// TestTaskFairDispatch: with two workers, a caller whose backlog of tasks
// blocks (the attack: thousands of long tasks) holds one worker, not
// both, and another caller's task runs to its end while the backlog is
// still blocked; then the backlog drains.
func TestTaskFairDispatch(t *testing.T) {
	for name, open := range taskStores(t) {
		t.Run(name, func(t *testing.T) {
			ctx := testCtx(t)
			b := newBlocker()
			_, url := fairServer(t, b, open(t), serve.Options{TaskWorkers: 2})
			var backlog []string
			for range 8 {
				backlog = append(backlog, startTask(t, ctx, url, asAlice, "hold"))
			}
			started(t, ctx, b, "alice's first task")

			done := waitTaskAs(t, ctx, url, asBob, startTask(t, ctx, url, asBob, "quick"))
			if done.Status != "completed" || done.Result == nil || done.Result.text() != "quick done" {
				t.Fatalf("bob's task behind alice's backlog: %+v", done)
			}
			noMoreStarted(t, b, "bob's task ended; alice's backlog still holds only one worker")
			var still wireTask
			taskAs(t, ctx, url, asAlice, "tasks/get", backlog[0], nil).result(t, &still)
			if still.Status != "working" {
				t.Fatalf("alice's first task: %+v, want it working", still)
			}

			b.open()
			for _, id := range backlog {
				if task := waitTaskAs(t, ctx, url, asAlice, id); task.Status != "completed" {
					t.Fatalf("alice's task %s: %+v", id, task)
				}
			}
		})
	}
}

// TestTaskFairDurable: tasks claimed and waiting for a worker are not
// lost when the server stops, whether it shuts down (they are handed
// back to the store) or dies (they stay claimed in the file, and are
// taken over): opened again, the store runs every task to its end, and
// only the round that was running counts as taken over.
func TestTaskFairDurable(t *testing.T) {
	tests := []struct {
		name  string
		crash bool // the store goes before the server could hand anything back
	}{
		{"shutdown", false},
		{"crash", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := testCtx(t)
			path := filepath.Join(t.TempDir(), "tasks.db")
			engine := newEngine(t, flow.EngineOptions{}) // one key ring for both servers
			tokens, err := serve.ParseTokens(callerTokens)
			if err != nil {
				t.Fatal(err)
			}
			start := func(b *blocker) (*serve.Server, tasks.Store, string) {
				store, err := tasks.OpenBolt(path, tasks.BoltOptions{})
				if err != nil {
					t.Fatal(err)
				}
				srv := serverWith(t, fairFlows(t, b), serve.Options{Engine: engine, Tasks: store, TaskWorkers: 2, PollInterval: 20 * time.Millisecond})
				return srv, store, startHTTPWith(t, srv, serve.HTTPOptions{Tokens: tokens})
			}
			stopped, cancel := context.WithCancel(ctx)
			cancel()

			b1 := newBlocker()
			srv1, store1, url1 := start(b1)
			var ids []string
			for range 3 {
				ids = append(ids, startTask(t, ctx, url1, asAlice, "hold"))
			}
			started(t, ctx, b1, "alice's first task")
			if tt.crash {
				store1.Close()
				srv1.Close(stopped)
			} else {
				srv1.Close(stopped)
				store1.Close()
			}
			b1.open()

			b2 := newBlocker()
			b2.open()
			srv2, store2, url2 := start(b2)
			defer func() {
				srv2.Close(stopped)
				store2.Close()
			}()
			for _, id := range ids {
				if task := waitTaskAs(t, ctx, url2, asAlice, id); task.Status != "completed" {
					t.Fatalf("task %s after the restart: %+v", id, task)
				}
			}
			var m dto.Metric
			if err := srv2.Metrics().TaskTakeovers.WithLabelValues("hold").Write(&m); err != nil {
				t.Fatal(err)
			}
			if n := m.GetCounter().GetValue(); n != 1 {
				t.Errorf("takeovers counted: %v, want 1 (the round that was running)", n)
			}
		})
	}
}
