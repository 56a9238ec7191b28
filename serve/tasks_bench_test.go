package serve_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/flowserve/flowserve/actions"
	"github.com/flowserve/flowserve/replies/redis/redistest"
	"github.com/flowserve/flowserve/serve"
	"github.com/flowserve/flowserve/tasks"
	taskredis "github.com/flowserve/flowserve/tasks/redis"
)

// The task benchmarks drive slow_compute (testdata/conformance/pending)
// with seconds 0 over real HTTP on loopback: its first step is `long: true`
// and returns at once, so a client with the tasks extension gets a
// CreateTaskResult and polls tasks/get until the task is completed, and a
// client without it gets the result inline in one round (the MRTR
// baseline). They are benchmarks only, so the normal test run does not pay
// for them:
//
//	go test ./serve -run '^$' -bench Task -benchtime 2s -count 3

const (
	// benchClients is the parallelism of b.RunParallel: benchClients ×
	// GOMAXPROCS clients, each doing one task at a time.
	benchClients = 8
	// benchPollPause is how long a client waits between two tasks/get of
	// a task still working. Real clients wait the pollIntervalMs they are
	// told; the benchmark waits little so that it measures the server,
	// not the clients' sleep, and not so little that its polls take the
	// CPU the task workers need.
	benchPollPause = time.Millisecond
)

// BenchmarkTaskLifecycle measures tasks created, polled and completed per
// second on each kind of run store: one op is a tools/call answered with a
// CreateTaskResult, then tasks/get until the task is completed.
func BenchmarkTaskLifecycle(b *testing.B) {
	stores := []struct {
		name string
		open func(b *testing.B) tasks.Store
	}{
		{"memory", func(b *testing.B) tasks.Store { return tasks.NewMemory(nil) }},
		{"bolt", func(b *testing.B) tasks.Store {
			s, err := tasks.OpenBolt(filepath.Join(b.TempDir(), "tasks.db"), tasks.BoltOptions{})
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { s.Close() })
			return s
		}},
		{"redis", func(b *testing.B) tasks.Store {
			s, err := taskredis.Open(redistest.Start(b).URL, taskredis.Options{})
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { s.Close() })
			return s
		}},
	}
	for _, st := range stores {
		b.Run(st.name, func(b *testing.B) {
			c := newBenchTaskClient(b, st.open(b))
			var polls atomic.Int64
			b.SetParallelism(benchClients)
			b.ResetTimer()
			start := time.Now()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					n, err := c.task()
					if err != nil {
						b.Error(err)
						return
					}
					polls.Add(int64(n))
				}
			})
			elapsed := time.Since(start)
			b.StopTimer()
			b.ReportMetric(float64(b.N)/elapsed.Seconds(), "tasks/s")
			b.ReportMetric(float64(polls.Load())/float64(b.N), "polls/task")
		})
	}
}

// BenchmarkTaskMRTRBaseline is the same call from a client without the
// tasks extension: the long step runs inside the call, and the result
// comes back in one round. One op is one round.
func BenchmarkTaskMRTRBaseline(b *testing.B) {
	c := newBenchTaskClient(b, tasks.NewMemory(nil))
	b.SetParallelism(benchClients)
	b.ResetTimer()
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := c.inline(); err != nil {
				b.Error(err)
				return
			}
		}
	})
	elapsed := time.Since(start)
	b.StopTimer()
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "rounds/s")
}

// benchTaskClient is a raw 2026-07-28 client of a server of the task
// fixtures. It is safe for concurrent use, and reports failures as errors
// (b.Fatal may not be called from RunParallel's goroutines).
type benchTaskClient struct {
	url    string
	client *http.Client
	ids    atomic.Int64
	// callTask and callInline are the tools/call params with and without
	// the tasks extension.
	callTask, callInline json.RawMessage
}

func newBenchTaskClient(b *testing.B, store tasks.Store) *benchTaskClient {
	b.Helper()
	srv, err := serve.New(conformanceTaskFlows(b), serve.Options{Version: "bench", Logger: quietLogger(),
		Host: &actions.Host{FSRoot: b.TempDir()}, Tasks: store})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		srv.Close(ctx)
	})
	hs := httptest.NewServer(srv.HTTPHandler(serve.HTTPOptions{}))
	b.Cleanup(hs.Close)
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = 256 // a kept-alive connection for every client
	b.Cleanup(tr.CloseIdleConnections)
	args := map[string]any{"seconds": 0, "label": "bench"}
	c := &benchTaskClient{url: hs.URL + serve.EndpointPath, client: &http.Client{Transport: tr, Timeout: time.Minute}}
	c.callTask = benchJSON(b, callParams("slow_compute", args, tasksCaps))
	c.callInline = benchJSON(b, callParams("slow_compute", args, map[string]any{}))
	return c
}

func benchJSON(b *testing.B, v any) json.RawMessage {
	out, err := json.Marshal(v)
	if err != nil {
		b.Fatal(err)
	}
	return out
}

// task calls slow_compute as a task and polls it until it is completed;
// it returns how many tasks/get it sent.
func (c *benchTaskClient) task() (int, error) {
	var created wireTask
	if err := c.post("tools/call", "slow_compute", c.callTask, &created); err != nil {
		return 0, err
	}
	if created.ResultType != "task" || created.TaskID == "" {
		return 0, fmt.Errorf("tools/call: want a CreateTaskResult, got %+v", created)
	}
	get, err := json.Marshal(map[string]any{"taskId": created.TaskID, "_meta": modernMeta(tasksCaps)})
	if err != nil {
		return 0, err
	}
	deadline := time.Now().Add(30 * time.Second)
	for polls := 1; ; polls++ {
		var task wireTask
		if err := c.post("tasks/get", created.TaskID, get, &task); err != nil {
			return polls, err
		}
		switch task.Status {
		case "completed":
			if task.Result == nil || task.Result.IsError || !strings.Contains(task.Result.text(), "Computed bench") {
				return polls, fmt.Errorf("task %s completed with %+v", created.TaskID, task.Result)
			}
			return polls, nil
		case "working":
		default:
			return polls, fmt.Errorf("task %s: %s (%s)", created.TaskID, task.Status, task.StatusMessage)
		}
		if time.Now().After(deadline) {
			return polls, fmt.Errorf("task %s still working after 30 s", created.TaskID)
		}
		time.Sleep(benchPollPause)
	}
}

// inline calls slow_compute without the tasks extension: one round.
func (c *benchTaskClient) inline() error {
	var res rawCallResult
	if err := c.post("tools/call", "slow_compute", c.callInline, &res); err != nil {
		return err
	}
	if res.ResultType != "complete" || res.IsError || !strings.Contains(res.text(), "Computed bench") {
		return fmt.Errorf("inline call: %+v", res)
	}
	return nil
}

// post sends one JSON-RPC request and decodes its result into v.
func (c *benchTaskClient) post(method, name string, params json.RawMessage, v any) error {
	var body bytes.Buffer
	fmt.Fprintf(&body, `{"jsonrpc":"2.0","id":%d,"method":%q,"params":`, c.ids.Add(1), method)
	body.Write(params)
	body.WriteByte('}')
	req, err := http.NewRequest(http.MethodPost, c.url, &body)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", v20260728)
	req.Header.Set("Mcp-Method", method)
	req.Header.Set("Mcp-Name", name)
	resp, err := c.client.Do(req)
	if err != nil {
		return fmt.Errorf("POST %s: %w", method, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("%s: read the reply: %w", method, err)
	}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		// The response is the last event; notifications come before it.
		var last []byte
		sc := bufio.NewScanner(bytes.NewReader(raw))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if data, ok := bytes.CutPrefix(sc.Bytes(), []byte("data:")); ok {
				last = append(last[:0], bytes.TrimSpace(data)...)
			}
		}
		raw = last
	}
	var msg rpcMessage
	if err := json.Unmarshal(raw, &msg); err != nil {
		return fmt.Errorf("%s: HTTP %d, not JSON-RPC: %v: %s", method, resp.StatusCode, err, raw)
	}
	if msg.Error != nil {
		return fmt.Errorf("%s: JSON-RPC error %d: %s", method, msg.Error.Code, msg.Error.Message)
	}
	return json.Unmarshal(msg.Result, v)
}
