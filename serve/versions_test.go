package serve_test

import (
	"context"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/flowserve/flowserve/actions"
	"github.com/flowserve/flowserve/flow"
	"github.com/flowserve/flowserve/flow/state"
	"github.com/flowserve/flowserve/replies/redis/redistest"
	"github.com/flowserve/flowserve/serve"
	"github.com/flowserve/flowserve/versions"
	versionredis "github.com/flowserve/flowserve/versions/redis"
)

// pinnedV1 asks a question, runs a long step (so that a client with tasks
// gets a task), asks another question, and says which version answered.
const pinnedV1 = `
name: pinned
description: version 1
nodes:
  - id: first
    ask: "v1 first?"
    form:
      a: {type: string}
  - id: wait
    step: time.sleep
    long: true
    with: {seconds: 0.01}
  - id: second
    ask: "v1 second?"
    form:
      b: {type: string}
  - return: "v1 done"
`

func pinnedV2() string {
	return strings.NewReplacer("version 1", "version 2", "v1 ", "v2 ").Replace(pinnedV1)
}

func compilePinned(t testing.TB, src string) *flow.Program {
	return compileSource(t, "pinned.yaml", []byte(src), flow.Env{Actions: actions.Default()})
}

// TestTaskFinishesOnItsVersion: a task that began on v1 asks v1's next
// question and finishes on v1 after a reload to v2; a new call gets v2.
func TestTaskFinishesOnItsVersion(t *testing.T) {
	ctx := testCtx(t)
	srv := serverWith(t, []*flow.Program{compilePinned(t, pinnedV1)}, serve.Options{PollInterval: 20 * time.Millisecond})
	t.Cleanup(func() { c, cancel := context.WithCancel(context.Background()); cancel(); srv.Close(c) })
	u := startHTTP(t, srv)
	first := rawRound(t, ctx, u, nil, callParams("pinned", map[string]any{}, tasksCaps))
	wantInputRequired(t, first, "first")
	var task wireTask
	postRaw(t, ctx, u, nil, "tools/call", withCaps(retry("pinned", map[string]any{}, first.RequestState,
		map[string]any{"first": formAnswer(map[string]any{"a": "x"})}), tasksCaps)).result(t, &task)
	if task.ResultType != "task" {
		t.Fatalf("want a task: %+v", task)
	}
	if err := srv.Replace([]*flow.Program{compilePinned(t, pinnedV2())}); err != nil {
		t.Fatal(err)
	}
	asked := waitTask(t, ctx, u, task.TaskID, func(w wireTask) bool { return w.Status != "working" })
	if asked.Status != "input_required" || len(asked.InputRequests) != 1 {
		t.Fatalf("want v1's second question: %+v", asked)
	}
	for key, raw := range asked.InputRequests {
		if !strings.Contains(string(raw), "v1 second?") {
			t.Fatalf("the task asks %s, want v1's question", raw)
		}
		taskRequest(t, ctx, u, "tasks/update", task.TaskID, tasksCaps, map[string]any{"inputResponses": map[string]any{
			key: formAnswer(map[string]any{"b": "y"})}})
	}
	if done := waitTask(t, ctx, u, task.TaskID, terminal); done.Result.text() != "v1 done" {
		t.Fatalf("task: %+v", done)
	}
	fresh := rawRound(t, ctx, u, nil, callParams("pinned", map[string]any{}, formCaps))
	if q := fresh.inputRequest(t, "first"); q.Params.Message != "v2 first?" {
		t.Errorf("a new call asks %q", q.Params.Message)
	}
}

// TestInstancesOnTwoVersions: an instance serving v1 and one serving v2,
// sharing a key ring and a Redis version store, serve each other's runs
// on the version they began on.
func TestInstancesOnTwoVersions(t *testing.T) {
	ctx := testCtx(t)
	url := redistest.Start(t).URL
	codec := newCodec(t, state.Options{})
	instance := func(src string) string {
		store, err := versionredis.Open(url, versionredis.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { store.Close() })
		vs := serve.NewVersions(serve.VersionsOptions{Store: store, Logger: quietLogger(), Compile: func(path string, src []byte) (*flow.Program, error) {
			return compileSource(t, path, src, flow.Env{Actions: actions.Default()}), nil
		}})
		engine := newEngine(t, flow.EngineOptions{Codec: codec, Versions: vs})
		srv := serverWith(t, []*flow.Program{compilePinned(t, src)}, serve.Options{Engine: engine, Versions: vs})
		return startHTTP(t, srv)
	}
	a, b := instance(pinnedV1), instance(pinnedV2())
	for _, tc := range []struct {
		name         string
		start, other string
		want         string
	}{
		{"v1 run on v2's instance", a, b, "v1 second?"},
		{"v2 run on v1's instance", b, a, "v2 second?"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			first := rawRound(t, ctx, tc.start, nil, callParams("pinned", map[string]any{}, formCaps))
			next := rawRound(t, ctx, tc.other, nil, retry("pinned", map[string]any{}, first.RequestState,
				map[string]any{"first": formAnswer(map[string]any{"a": "x"})}))
			if q := next.inputRequest(t, "second"); q.Params.Message != tc.want {
				t.Fatalf("the other instance asks %q, want %q", q.Params.Message, tc.want)
			}
		})
	}
}

// TestVersionRetired: a version that stopped being served is kept for
// Keep, then retired from the store.
func TestVersionRetired(t *testing.T) {
	clock := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	now := func() time.Time { return clock }
	store := versions.NewMemory(now)
	var logs logBuffer
	vs := serve.NewVersions(serve.VersionsOptions{Store: store, Keep: time.Hour, Now: now, Logger: logs.logger(0)})
	v1, v2 := compilePinned(t, pinnedV1), compilePinned(t, pinnedV2())
	serve.ServeVersions(t, vs, v1)
	serve.ServeVersions(t, vs, v2)
	ctx := testCtx(t)
	if _, err := vs.Program(ctx, "pinned", v1.Version()); err != nil {
		t.Fatalf("v1 right after the reload: %v", err)
	}
	clock = clock.Add(30 * time.Minute)
	serve.TendVersions(vs)
	if _, err := store.Get(ctx, v1.Version().String()); err != nil {
		t.Fatalf("v1 within Keep: %v", err)
	}
	clock = clock.Add(2 * time.Hour)
	serve.TendVersions(vs)
	if _, err := store.Get(ctx, v1.Version().String()); err == nil {
		t.Fatal("v1 kept past Keep")
	}
	if _, err := vs.Program(ctx, "pinned", v1.Version()); err == nil {
		t.Fatal("v1 still resolves after it was retired")
	}
	if _, err := store.Get(ctx, v2.Version().String()); err != nil {
		t.Fatalf("the current version was retired: %v", err)
	}
	if !strings.Contains(logs.text(), "flow version retired") || !strings.Contains(logs.text(), v1.Version().Short()) {
		t.Errorf("no retire log line:\n%s", logs.text())
	}
}

// withCaps declares caps in params' _meta.
func withCaps(params map[string]any, caps map[string]any) map[string]any {
	params["_meta"] = modernMeta(caps)
	return params
}

// TestRunSurvivesDeployAndRestart: a run that began on v1 goes on on v1
// after the server restarts with v2, its version compiled from the
// version store's file (as --data keeps it), though this process never
// loaded v1.
func TestRunSurvivesDeployAndRestart(t *testing.T) {
	ctx := testCtx(t)
	path := filepath.Join(t.TempDir(), "versions.db")
	codec := newCodec(t, state.Options{})
	start := func(src string) (string, func()) {
		store, err := versions.OpenBolt(path, versions.BoltOptions{})
		if err != nil {
			t.Fatal(err)
		}
		vs := serve.NewVersions(serve.VersionsOptions{Store: store, Logger: quietLogger(), Compile: func(path string, src []byte) (*flow.Program, error) {
			return compileSource(t, path, src, flow.Env{Actions: actions.Default()}), nil
		}})
		srv := serverWith(t, []*flow.Program{compilePinned(t, src)}, serve.Options{Engine: newEngine(t, flow.EngineOptions{Codec: codec, Versions: vs}), Versions: vs})
		hs := httptest.NewServer(srv.HTTPHandler(serve.HTTPOptions{}))
		return hs.URL + serve.EndpointPath, func() {
			hs.Close()
			c, cancel := context.WithCancel(context.Background())
			cancel()
			srv.Close(c)
			store.Close()
		}
	}
	u1, stop1 := start(pinnedV1)
	first := rawRound(t, ctx, u1, nil, callParams("pinned", map[string]any{}, formCaps))
	stop1()

	u2, stop2 := start(pinnedV2())
	defer stop2()
	next := rawRound(t, ctx, u2, nil, retry("pinned", map[string]any{}, first.RequestState,
		map[string]any{"first": formAnswer(map[string]any{"a": "x"})}))
	if q := next.inputRequest(t, "second"); q.Params.Message != "v1 second?" {
		t.Fatalf("after the restart on v2 the run asks %q", q.Params.Message)
	}
}
