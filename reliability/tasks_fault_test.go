package reliability

// The fault test of durable runs (DESIGN §11, MCP tasks): real flowserve
// processes, killed with SIGKILL in the middle of a long step and started
// again, with 100 tasks in flight. Every task must complete, and a step's
// effect (recorded by an HTTP server in the test under its idempotency
// key) must be seen at least once and at most twice: once, plus the one
// re-run a takeover allows.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

const (
	durableTasks = 100             // tasks started per scenario
	durableHold  = 2 * time.Second // how long the effect server holds each step's request
	durableTool  = "durable_job"
)

// durableCaps is the clientCapabilities of a client with tasks.
var durableCaps = map[string]any{"elicitation": map[string]any{},
	"extensions": map[string]any{"io.modelcontextprotocol/tasks": map[string]any{}}}

// effectLog is the HTTP server the steps act on: it records each
// request's idempotency key on arrival (the effect), then holds the
// response for durableHold, so that a kill lands mid-step.
type effectLog struct {
	mu          sync.Mutex
	seen        map[string]int // idempotency key → requests
	inflight    map[string]int // instance → requests being held
	interrupted int            // requests whose client went away while held
	arrivals    int
}

func newEffectLog() *effectLog {
	return &effectLog{seen: map[string]int{}, inflight: map[string]int{}}
}

func (e *effectLog) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	key, inst := r.Header.Get("Idempotency-Key"), r.Header.Get("X-Instance")
	if key == "" {
		http.Error(w, "no Idempotency-Key", http.StatusBadRequest)
		return
	}
	e.mu.Lock()
	e.seen[key]++
	e.arrivals++
	e.inflight[inst]++
	e.mu.Unlock()
	defer func() {
		e.mu.Lock()
		e.inflight[inst]--
		e.mu.Unlock()
	}()
	select {
	case <-time.After(durableHold):
	case <-r.Context().Done():
		e.mu.Lock()
		e.interrupted++
		e.mu.Unlock()
		return
	}
	w.Header().Set("Content-Type", "application/json")
	io.WriteString(w, `{"ok":true}`)
}

// state returns the arrivals so far and the requests held for inst.
func (e *effectLog) state(inst string) (arrivals, inflight int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.arrivals, e.inflight[inst]
}

// buildFlowserve builds the flowserve binary into a directory of t.
func buildFlowserve(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "flowserve")
	cmd := exec.Command("go", "build", "-o", bin, "../cmd/flowserve")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ../cmd/flowserve: %v\n%s", err, out)
	}
	return bin
}

// durableSetup is what the processes of a scenario share.
type durableSetup struct {
	bin, ringFile, flowDir, effectURL string
}

func newDurableSetup(t *testing.T, bin, effectURL string) durableSetup {
	t.Helper()
	dir := t.TempDir()
	s := durableSetup{bin: bin, effectURL: effectURL,
		ringFile: filepath.Join(dir, "keys"), flowDir: filepath.Join(dir, "flows")}
	k := testKey("k1", 7)
	if err := os.WriteFile(s.ringFile, []byte(k.ID+":"+base64.StdEncoding.EncodeToString(k.Secret[:])+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	flowYAML, err := os.ReadFile(filepath.Join("testdata", "durable_job.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(s.flowDir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(s.flowDir, "durable_job.yaml"), flowYAML, 0o600); err != nil {
		t.Fatal(err)
	}
	return s
}

// proc is one flowserve serve process.
type proc struct {
	name, url string
	cmd       *exec.Cmd
	stderr    *lockedWriter
	done      chan struct{}
}

var servingLine = regexp.MustCompile(`at (http://\S+/mcp)`)

// startProc starts flowserve serve with store flags (--replies … or
// --data …) and waits for the URL it serves at. The process is killed
// when the test ends.
func startProc(t *testing.T, s durableSetup, name string, store ...string) *proc {
	t.Helper()
	args := append([]string{"serve", "--http", "127.0.0.1:0", "--keys", s.ringFile, "--log-level", "warn",
		"--metrics", "--task-workers", "256", "--poll-interval", "200ms"}, store...)
	args = append(args, s.flowDir)
	p := &proc{name: name, cmd: exec.Command(s.bin, args...), stderr: &lockedWriter{w: &bytes.Buffer{}}, done: make(chan struct{})}
	p.cmd.Env = append(os.Environ(), "FLOWSERVE_VAR_EFFECT_URL="+s.effectURL, "FLOWSERVE_VAR_INSTANCE="+name)
	p.cmd.Stderr = p.stderr
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if m := servingLine.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case urls <- m[1]:
				default:
				}
			}
		}
	}()
	go func() { p.cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		p.kill()
		if t.Failed() {
			t.Logf("%s stderr:\n%s", p.name, p.stderr.String())
		}
	})
	select {
	case p.url = <-urls:
	case <-p.done:
		t.Fatalf("%s exited before serving: %s\n%s", name, p.cmd.ProcessState, p.stderr.String())
	case <-time.After(30 * time.Second):
		t.Fatalf("%s did not say where it serves within 30s", name)
	}
	return p
}

// kill sends SIGKILL and waits for the process to end.
func (p *proc) kill() {
	select {
	case <-p.done:
		return
	default:
	}
	p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.done
}

// takeovers reads flowserve_task_takeovers_total from /metrics.
func (p *proc) takeovers(ctx context.Context) (float64, error) {
	u := strings.TrimSuffix(p.url, "/mcp") + "/metrics"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return 0, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, err
	}
	var sum float64
	for _, line := range strings.Split(string(body), "\n") {
		if !strings.HasPrefix(line, "flowserve_task_takeovers_total") {
			continue
		}
		f := strings.Fields(line)
		v, err := strconv.ParseFloat(f[len(f)-1], 64)
		if err != nil {
			return 0, fmt.Errorf("metrics line %q: %v", line, err)
		}
		sum += v
	}
	return sum, nil
}

// lockedWriter is a bytes.Buffer safe for the process's writes and the
// test's reads.
type lockedWriter struct {
	mu sync.Mutex
	w  *bytes.Buffer
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

func (l *lockedWriter) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.String()
}

// durableTask is a task as a CreateTaskResult and tasks/get send it.
type durableTask struct {
	ResultType    string `json:"resultType"`
	TaskID        string `json:"taskId"`
	Status        string `json:"status"`
	StatusMessage string `json:"statusMessage"`
	Result        *struct {
		IsError bool `json:"isError"`
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	} `json:"result"`
	Error json.RawMessage `json:"error"`
}

// durableRPC sends one 2026-07-28 request; name goes in Mcp-Name.
func durableRPC(ctx context.Context, url, method, name string, params map[string]any) (*durableTask, error) {
	return durableRPCAs(ctx, url, "reliability-tasks", method, name, params)
}

// durableRPCAs is durableRPC from the client named client (its
// clientInfo name).
func durableRPCAs(ctx context.Context, url, client, method, name string, params map[string]any) (*durableTask, error) {
	params["_meta"] = map[string]any{
		"io.modelcontextprotocol/protocolVersion":    protocol,
		"io.modelcontextprotocol/clientCapabilities": durableCaps,
		"io.modelcontextprotocol/clientInfo":         map[string]any{"name": client, "version": "1"},
	}
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", protocol)
	req.Header.Set("Mcp-Method", method)
	req.Header.Set("Mcp-Name", name)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	var msg struct {
		Result *durableTask     `json:"result"`
		Error  *json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(data, &msg); err != nil {
		return nil, fmt.Errorf("%s: HTTP %d, not JSON-RPC: %.300s", method, resp.StatusCode, data)
	}
	if msg.Error != nil || msg.Result == nil {
		return nil, fmt.Errorf("%s: HTTP %d: %.300s", method, resp.StatusCode, data)
	}
	return msg.Result, nil
}

// startTasks calls the tool durableTasks times at once, round robin over
// urls, and returns the task ids.
func startTasks(t *testing.T, ctx context.Context, urls ...string) []string {
	t.Helper()
	ids := make([]string, durableTasks)
	errs := make([]error, durableTasks)
	var wg sync.WaitGroup
	for i := range durableTasks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			task, err := durableRPC(ctx, urls[i%len(urls)], "tools/call", durableTool,
				map[string]any{"name": durableTool, "arguments": map[string]any{}})
			switch {
			case err != nil:
				errs[i] = err
			case task.ResultType != "task" || task.TaskID == "":
				errs[i] = fmt.Errorf("tools/call %d: want a CreateTaskResult, got %+v", i, task)
			default:
				ids[i] = task.TaskID
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	return ids
}

// killMidStep waits until p's instance holds at least one step's request
// and a good part of the steps have started, then kills p with SIGKILL.
// It returns how many of p's requests were held at the kill.
func killMidStep(t *testing.T, effects *effectLog, p *proc) int {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		arrivals, held := effects.state(p.name)
		if arrivals >= durableTasks+durableTasks/5 && held > 0 {
			p.kill()
			return held
		}
		if time.Now().After(deadline) {
			t.Fatalf("no step of %s in flight to kill it in: %d arrivals, %d held", p.name, arrivals, held)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitCompleted polls every task on url until it has ended, and checks it
// completed with the flow's result.
func waitCompleted(t *testing.T, ctx context.Context, url string, ids []string) {
	t.Helper()
	deadline := time.Now().Add(100 * time.Second)
	pending := map[string]bool{}
	for _, id := range ids {
		pending[id] = true
	}
	statuses := map[string]string{}
	for len(pending) > 0 {
		for id := range pending {
			task, err := durableRPC(ctx, url, "tasks/get", id, map[string]any{"taskId": id})
			if err != nil {
				t.Fatalf("task %s lost: %v", id, err)
			}
			statuses[id] = task.Status
			switch task.Status {
			case "working":
				continue
			case "completed":
				if task.Result == nil || task.Result.IsError || len(task.Result.Content) == 0 ||
					task.Result.Content[0].Text != "done 200 200" {
					t.Errorf("task %s completed with %+v, want \"done 200 200\"", id, task.Result)
				}
			default:
				t.Errorf("task %s ended %s (%s) %s", id, task.Status, task.StatusMessage, task.Error)
			}
			delete(pending, id)
		}
		if len(pending) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d tasks have not ended after 100s", len(pending), len(ids))
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// checkEffects checks every step's key was seen once or twice and
// returns how many keys were seen once and twice.
func checkEffects(t *testing.T, effects *effectLog, ids []string) (once, twice int) {
	t.Helper()
	effects.mu.Lock()
	defer effects.mu.Unlock()
	if want := 2 * len(ids); len(effects.seen) != want {
		t.Errorf("the effect server saw %d idempotency keys, want %d (2 steps × %d tasks)", len(effects.seen), want, len(ids))
	}
	var over []string
	for key, n := range effects.seen {
		switch {
		case n == 1:
			once++
		case n == 2:
			twice++
		default:
			over = append(over, fmt.Sprintf("%s×%d", key, n))
		}
	}
	sort.Strings(over)
	if len(over) > 0 {
		t.Errorf("%d step effects recorded more than twice under one key: %v", len(over), over)
	}
	return once, twice
}

// TestTasksSurviveSIGKILL is the fault test of durable runs: 100 tasks
// with two long steps each, an instance killed with SIGKILL mid-step and
// started again; every task completes, none is lost, and no step's effect
// is recorded more than twice under its key (the one re-run of a
// takeover).
func TestTasksSurviveSIGKILL(t *testing.T) {
	bin := buildFlowserve(t)

	t.Run("redis two instances", func(t *testing.T) {
		ctx := context.Background()
		effects := newEffectLog()
		es := httptest.NewServer(effects)
		t.Cleanup(es.Close)
		s := newDurableSetup(t, bin, es.URL)
		redisURL := startRedis(t)
		a := startProc(t, s, "A", "--replies", redisURL)
		b := startProc(t, s, "B", "--replies", redisURL)

		start := time.Now()
		ids := startTasks(t, ctx, a.url, b.url)
		held := killMidStep(t, effects, a)
		t.Logf("killed A with SIGKILL %v after the calls, %d of its steps held", time.Since(start).Round(time.Millisecond), held)
		a2 := startProc(t, s, "A2", "--replies", redisURL)

		waitCompleted(t, ctx, b.url, ids)
		once, twice := checkEffects(t, effects, ids)
		tb, errB := b.takeovers(ctx)
		ta, errA := a2.takeovers(ctx)
		if errA != nil || errB != nil {
			t.Errorf("reading /metrics: %v, %v", errA, errB)
		}
		effects.mu.Lock()
		interrupted := effects.interrupted
		effects.mu.Unlock()
		t.Logf("redis: %d tasks completed; %d step keys seen once, %d twice (re-run after takeover); %d requests cut by the kill; takeovers: B %v, A2 %v; %v",
			len(ids), once, twice, interrupted, tb, ta, time.Since(start).Round(time.Millisecond))
		if tb+ta == 0 {
			t.Errorf("A was killed with %d steps held, but no instance counted a takeover", held)
		}
	})

	t.Run("embedded store restart", func(t *testing.T) {
		ctx := context.Background()
		effects := newEffectLog()
		es := httptest.NewServer(effects)
		t.Cleanup(es.Close)
		s := newDurableSetup(t, bin, es.URL)
		data := t.TempDir()
		a := startProc(t, s, "A", "--data", data)

		start := time.Now()
		ids := startTasks(t, ctx, a.url)
		held := killMidStep(t, effects, a)
		t.Logf("killed A with SIGKILL %v after the calls, %d of its steps held", time.Since(start).Round(time.Millisecond), held)
		a2 := startProc(t, s, "A2", "--data", data)

		waitCompleted(t, ctx, a2.url, ids)
		once, twice := checkEffects(t, effects, ids)
		ta, err := a2.takeovers(ctx)
		if err != nil {
			t.Errorf("reading /metrics: %v", err)
		}
		effects.mu.Lock()
		interrupted := effects.interrupted
		effects.mu.Unlock()
		t.Logf("embedded: %d tasks completed; %d step keys seen once, %d twice (re-run after takeover); %d requests cut by the kill; takeovers: A2 %v; %v",
			len(ids), once, twice, interrupted, ta, time.Since(start).Round(time.Millisecond))
		if ta == 0 {
			t.Errorf("A was killed with %d steps held, but the restarted instance counted no takeover", held)
		}
	})
}
