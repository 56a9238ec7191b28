package serve_test

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/flowserve/flowserve/flow"
	"github.com/flowserve/flowserve/serve"
	"github.com/flowserve/flowserve/tasks"
)

// askTask starts an ask task as who and waits until it asks, so that it
// is open on no worker.
func askTask(t *testing.T, ctx context.Context, url string, who http.Header) string {
	t.Helper()
	id := startTask(t, ctx, url, who, "ask")
	for {
		var task wireTask
		taskAs(t, ctx, url, who, "tasks/get", id, nil).result(t, &task)
		if task.Status == "input_required" {
			return id
		}
		if terminal(task) {
			t.Fatalf("ask task %s ended: %+v", id, task)
		}
		select {
		case <-ctx.Done():
			t.Fatalf("ask task %s: still %s", id, task.Status)
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// wantTooMany checks that a call was refused for the caller's limit of
// open tasks, naming the limit and the flag.
func wantTooMany(t *testing.T, r *httpReply, limit string) {
	t.Helper()
	e := r.rpcErr(t)
	if e.Code != -32000 || r.status != http.StatusOK || string(e.Data) != `{"maxTasksPerCaller":`+limit+`}` ||
		!strings.Contains(e.Message, "this caller has "+limit+" open tasks") || !strings.Contains(e.Message, "--max-tasks-per-caller") {
		t.Fatalf("over the limit: HTTP %d, %d %q %s", r.status, e.Code, e.Message, e.Data)
	}
}

// callTask is a tools/call of tool as who by a client with tasks.
func callTask(t *testing.T, ctx context.Context, url string, who http.Header, tool string) *httpReply {
	t.Helper()
	return postRaw(t, ctx, url, who, "tools/call", callParams(tool, map[string]any{}, tasksCaps))
}

// TestTaskLimitPerCaller: a caller with as many open tasks as
// MaxTasksPerCaller allows is refused another (the attack: thousands of
// tasks accepted from one caller), with an error naming the limit and the
// flag; another caller is not, and a task that ends, cancelled or
// completed, makes room again.
func TestTaskLimitPerCaller(t *testing.T) {
	for name, open := range taskStores(t) {
		t.Run(name, func(t *testing.T) {
			ctx := testCtx(t)
			_, url := fairServer(t, newBlocker(), open(t), serve.Options{MaxTasksPerCaller: 2})
			first, second := askTask(t, ctx, url, asAlice), askTask(t, ctx, url, asAlice)
			wantTooMany(t, callTask(t, ctx, url, asAlice, "ask"), "2")
			wantTooMany(t, callTask(t, ctx, url, asAlice, "quick"), "2") // whatever the tool
			askTask(t, ctx, url, asBob)                                  // another caller has places of their own

			var ack map[string]any
			taskAs(t, ctx, url, asAlice, "tasks/cancel", first, nil).result(t, &ack)
			askTask(t, ctx, url, asAlice)
			wantTooMany(t, callTask(t, ctx, url, asAlice, "ask"), "2")

			var asked wireTask
			taskAs(t, ctx, url, asAlice, "tasks/get", second, nil).result(t, &asked)
			responses := map[string]any{}
			for key := range asked.InputRequests {
				responses[key] = map[string]any{"action": "accept", "content": map[string]any{"name": "Ada"}}
			}
			taskAs(t, ctx, url, asAlice, "tasks/update", second, map[string]any{"inputResponses": responses}).result(t, &ack)
			if done := waitTaskAs(t, ctx, url, asAlice, second); done.Status != "completed" {
				t.Fatalf("answered task: %+v", done)
			}
			askTask(t, ctx, url, asAlice)
			wantTooMany(t, callTask(t, ctx, url, asAlice, "ask"), "2")
		})
	}
}

// TestTaskLimitDefault: the limit is 100 open tasks unless Options say
// otherwise; a negative limit is none.
func TestTaskLimitDefault(t *testing.T) {
	tests := []struct {
		name    string
		limit   int
		refused bool // the 101st task
	}{
		{"default", 0, true},
		{"none", -1, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := testCtx(t)
			// Held tasks open at once and stay open; with one worker,
			// one runs and the others wait.
			_, url := fairServer(t, newBlocker(), tasks.NewMemory(nil), serve.Options{MaxTasksPerCaller: tt.limit, TaskWorkers: 1})
			for i := range serve.DefaultMaxTasksPerCaller {
				if r := callTask(t, ctx, url, asAlice, "hold"); r.response == nil || r.response.Error != nil {
					t.Fatalf("task %d: HTTP %d %s", i+1, r.status, r.body)
				}
			}
			r := callTask(t, ctx, url, asAlice, "hold")
			if tt.refused {
				wantTooMany(t, r, fmt.Sprint(serve.DefaultMaxTasksPerCaller))
			} else if r.response == nil || r.response.Error != nil {
				t.Fatalf("task 101 with no limit: HTTP %d %s", r.status, r.body)
			}
		})
	}
}

// TestTaskLimitSurvivesRestart: the open tasks are counted in the run
// store, so a server started again on the same file still refuses.
func TestTaskLimitSurvivesRestart(t *testing.T) {
	ctx := testCtx(t)
	path := filepath.Join(t.TempDir(), "tasks.db")
	engine := newEngine(t, flow.EngineOptions{})
	start := func() (*serve.Server, tasks.Store, string) {
		store, err := tasks.OpenBolt(path, tasks.BoltOptions{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { store.Close() }) // after the server's own cleanup
		srv, url := fairServer(t, newBlocker(), store, serve.Options{Engine: engine, MaxTasksPerCaller: 2})
		return srv, store, url
	}
	srv1, store1, url1 := start()
	askTask(t, ctx, url1, asAlice)
	askTask(t, ctx, url1, asAlice)
	stopped, cancel := context.WithCancel(ctx)
	cancel()
	srv1.Close(stopped)
	store1.Close()

	_, _, url2 := start()
	wantTooMany(t, callTask(t, ctx, url2, asAlice, "ask"), "2")
	askTask(t, ctx, url2, asBob)
}

// TestTaskLimitCountsInlineApprovals: a call of a client without tasks
// that waits for an approval inside itself keeps its run as a hidden task
// of the caller, which counts: it takes a place (and keeps it once the
// call gives up waiting), and it has none when the caller's places are
// taken.
func TestTaskLimitCountsInlineApprovals(t *testing.T) {
	refund := func(t *testing.T, ctx context.Context, url string, who http.Header) rawCallResult {
		t.Helper()
		var res rawCallResult
		postRaw(t, ctx, url, who, "tools/call", callParams("refund", map[string]any{"amount": 7, "manager": "bo"}, formCaps)).result(t, &res)
		return res
	}
	opts := serve.Options{MaxTasksPerCaller: 1, MaxWait: 200 * time.Millisecond}
	t.Run("an approval wait takes a place", func(t *testing.T) {
		ctx := testCtx(t)
		_, url := fairServer(t, newBlocker(), tasks.NewMemory(nil), opts, refundProgram(t, "1h"))
		if res := refund(t, ctx, url, asAlice); !res.IsError || strings.Contains(res.text(), "max-tasks-per-caller") {
			t.Fatalf("the call that waited: %+v", res)
		}
		wantTooMany(t, callTask(t, ctx, url, asAlice, "ask"), "1")
		askTask(t, ctx, url, asBob)
	})
	t.Run("no place for an approval wait", func(t *testing.T) {
		ctx := testCtx(t)
		_, url := fairServer(t, newBlocker(), tasks.NewMemory(nil), opts, refundProgram(t, "1h"))
		askTask(t, ctx, url, asAlice)
		res := refund(t, ctx, url, asAlice)
		if !res.IsError || !strings.Contains(res.text(), "this caller has 1 open tasks") || !strings.Contains(res.text(), "--max-tasks-per-caller") {
			t.Fatalf("an approval wait over the limit: %+v", res)
		}
		// bob has a place: his call waits for its approval, then gives up.
		if res := refund(t, ctx, url, asBob); !res.IsError || strings.Contains(res.text(), "max-tasks-per-caller") {
			t.Fatalf("bob's call: %+v", res)
		}
	})
}
