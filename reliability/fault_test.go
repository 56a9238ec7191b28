package reliability

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/flowserve/flowserve/actions"
	"github.com/flowserve/flowserve/replies/redis"
)

// The fault and load test's parameters.
const (
	faultRuns         = 200  // concurrent runs
	faultLost         = 0.20 // chance a reply to a round is lost: the client sends the same request again
	faultOlder        = 0.10 // chance the client goes back a round: it sends its previous request again
	faultFinalRetries = 2    // times each final round is sent again after its reply
	faultRestartAt    = 700  // requests served before instance B restarts
	faultDown         = 100 * time.Millisecond
	faultSeed         = 8 // issue 8; FLOWSERVE_FAULT_SEED overrides it
)

// effects counts the calls of the test.effect action by run id and node:
// the side effects the engine promises to run at least once (middle
// steps) or exactly once (final steps) per run.
type effects struct {
	mu      sync.Mutex
	byRun   map[string]map[string]int
	unknown int // calls without an actions.Call in their context
}

func (e *effects) inc(ctx context.Context) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	call, ok := actions.CallFrom(ctx)
	if !ok {
		e.unknown++
		return 0
	}
	if e.byRun == nil {
		e.byRun = map[string]map[string]int{}
	}
	if e.byRun[call.RunID] == nil {
		e.byRun[call.RunID] = map[string]int{}
	}
	e.byRun[call.RunID][call.Node]++
	return e.byRun[call.RunID][call.Node]
}

// registry returns a registry with test.effect, which returns its input
// value and how many times it has run for this run and node.
func (e *effects) registry(t testing.TB) *actions.Registry {
	t.Helper()
	reg := actions.NewRegistry()
	err := reg.Register(actions.Spec{
		Name: "test.effect", Summary: "counts its calls per run and node",
		Input: map[string]any{"type": "object", "required": []string{"value"},
			"properties": map[string]any{"value": map[string]any{"type": "integer"}}},
		Output: map[string]any{"type": "object", "properties": map[string]any{
			"value": map[string]any{"type": "integer"}, "calls": map[string]any{"type": "integer"}}},
		Func: func(ctx context.Context, in map[string]any) (any, error) {
			return map[string]any{"value": in["value"], "calls": e.inc(ctx)}, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

// faultTally is what the clients saw.
type faultTally struct {
	requests, lost, older, finalRetries, failovers, replayed atomic.Int64
	completed                                                atomic.Int64
}

// faultClient is one virtual client driving one run.
type faultClient struct {
	n     int
	rng   *rand.Rand
	cl    *client
	urls  []string
	tally *faultTally
	next  int // the instance the next request goes to
}

// send sends c, each request to the other instance than the one before;
// when no reply comes (an instance restarting) it sends it again, which
// is what a client that lost a reply does.
func (f *faultClient) send(ctx context.Context, c call) (*result, error) {
	for range 100 {
		url := f.urls[f.next%len(f.urls)]
		f.next++
		f.tally.requests.Add(1)
		res, err := f.cl.do(ctx, url, c)
		if errors.Is(err, errTransport) && ctx.Err() == nil {
			f.tally.failovers.Add(1)
			time.Sleep(time.Duration(5+f.rng.IntN(15)) * time.Millisecond)
			continue
		}
		return res, err
	}
	return nil, errors.New("no instance answered 100 times in a row")
}

// runOutcome is one run's end.
type runOutcome struct {
	client  int
	answers [3]int
	final   *result
	runID   string
}

// run completes one run of the order flow with lost replies, returns to
// older states and final retries.
func (f *faultClient) run(ctx context.Context) (*runOutcome, error) {
	out := &runOutcome{client: f.n}
	for i := range out.answers {
		out.answers[i] = f.rng.IntN(1000)
	}
	fields := map[string]string{"first": "a", "second": "b", "third": "c"}
	values := map[string]int{"first": out.answers[0], "second": out.answers[1], "third": out.answers[2]}
	args := map[string]any{"client": f.n}
	c := call{Tool: "order", Args: args}
	var history []call // the requests whose replies the client used
	for range 60 {
		res, err := f.send(ctx, c)
		if err != nil {
			return nil, fmt.Errorf("client %d, round %d: %w", f.n, len(history)+1, err)
		}
		if res.complete() {
			out.final = res
			break
		}
		switch r := f.rng.Float64(); {
		case r < faultLost:
			f.tally.lost.Add(1)
			continue // the reply is lost: send c again
		case r < faultLost+faultOlder && len(history) > 0:
			f.tally.older.Add(1)
			c, history = history[len(history)-1], history[:len(history)-1]
			continue
		}
		history = append(history, c)
		next := call{Tool: "order", Args: args, State: res.RequestState, Responses: map[string]json.RawMessage{}}
		for id := range res.InputRequests {
			field, ok := fields[id]
			if !ok {
				return nil, fmt.Errorf("client %d: unexpected question %q", f.n, id)
			}
			next.Responses[id] = answer(map[string]any{field: values[id]})
		}
		c = next
		time.Sleep(time.Duration(f.rng.IntN(4)) * time.Millisecond) // think
	}
	if out.final == nil {
		return nil, fmt.Errorf("client %d: no result after 60 requests", f.n)
	}
	out.runID, _ = out.final.StructuredContent["run"].(string)
	// The final reply is lost twice: the same final round again, each time
	// on the other instance.
	for i := range faultFinalRetries {
		f.tally.finalRetries.Add(1)
		again, err := f.send(ctx, c)
		if err != nil {
			return nil, fmt.Errorf("client %d, final retry %d: %w", f.n, i+1, err)
		}
		if again.text() != out.final.text() || !reflect.DeepEqual(again.StructuredContent, out.final.StructuredContent) {
			return nil, fmt.Errorf("client %d, final retry %d: %q, want the first reply %q", f.n, i+1, again.text(), out.final.text())
		}
		f.tally.replayed.Add(1)
	}
	f.tally.completed.Add(1)
	return out, nil
}

// TestFaultsUnderLoad runs 200 concurrent runs over HTTP against two
// instances sharing a key ring and a Redis reply store, while clients
// lose replies (they send a round again, or go back to the round before),
// send every final round twice more, and instance B restarts mid-run with
// freshly compiled programs. Every run must complete with its own answers
// in the result; the middle step runs at least once per run and the final
// step exactly once.
func TestFaultsUnderLoad(t *testing.T) {
	seed := uint64(faultSeed)
	if s := os.Getenv("FLOWSERVE_FAULT_SEED"); s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("FLOWSERVE_FAULT_SEED: %v", err)
		}
		seed = v
	}
	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Second)
	defer cancel()
	url := startRedis(t)
	eff := &effects{}
	cfg := config{
		files:    []string{filepath.Join("testdata", "order.yaml")},
		ring:     ring(t, testKey("k1", 1)),
		redisURL: url,
		actions:  eff.registry(t),
	}
	a, b := startInstance(t, "a", cfg), startInstance(t, "b", cfg)
	urls := []string{a.URL(), b.URL()}
	cl := newClient(t, 2*faultRuns)
	tally := &faultTally{}

	// The restart: B goes down once faultRestartAt requests have been
	// sent, stays down for faultDown, and comes back with programs
	// compiled afresh on the same address.
	var (
		restarts        int
		inFlightAtStop  int64
		servedByOldB    int64
		restartErr      error
		restartDone     = make(chan struct{})
		stopWatchingReq = make(chan struct{})
	)
	go func() {
		defer close(restartDone)
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for tally.requests.Load() < faultRestartAt {
			select {
			case <-tick.C:
			case <-stopWatchingReq:
				return
			}
		}
		inFlightAtStop = faultRuns - tally.completed.Load()
		servedByOldB = b.served.Load()
		restartErr = b.restart(faultDown, nil)
		restarts++
	}()

	start := time.Now()
	outcomes := make([]*runOutcome, faultRuns)
	errs := make([]error, faultRuns)
	var wg sync.WaitGroup
	for i := range faultRuns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f := &faultClient{n: i, rng: rand.New(rand.NewPCG(seed, uint64(i))), cl: cl, urls: urls, tally: tally, next: i}
			outcomes[i], errs[i] = f.run(ctx)
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	close(stopWatchingReq)
	<-restartDone
	if restartErr != nil {
		t.Fatal(restartErr)
	}
	for _, err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if t.Failed() {
		t.FailNow()
	}

	// Every run's result holds its own answers, computed once.
	var answersLost, middleMissing, duplicates int
	finals := map[string]bool{}
	for _, o := range outcomes {
		a, b, c := o.answers[0], o.answers[1], o.answers[2]
		want := fmt.Sprintf("client %d: a=%d b=%d c=%d sum=%d", o.client, a, b, c, a+b+c)
		st := o.final.StructuredContent
		if o.final.IsError || o.final.text() != want || num(st["a"]) != a || num(st["b"]) != b || num(st["c"]) != c {
			answersLost++
			t.Errorf("client %d: %q (isError %v), want %q", o.client, o.final.text(), o.final.IsError, want)
		}
		if num(st["final_calls"]) != 1 {
			t.Errorf("client %d: the final step saw itself as call %v", o.client, st["final_calls"])
		}
		if o.runID == "" || finals[o.runID] {
			t.Errorf("client %d: run id %q missing or shared", o.client, o.runID)
		}
		finals[o.runID] = true
	}
	eff.mu.Lock()
	middleRuns, middleCalls, finalCalls := 0, 0, 0
	for run, nodes := range eff.byRun {
		middleCalls += nodes["middle"]
		finalCalls += nodes["final"]
		if nodes["middle"] > 0 {
			middleRuns++
		}
		switch {
		case finals[run] && nodes["middle"] < 1:
			middleMissing++
		case finals[run] && nodes["final"] != 1:
			duplicates += nodes["final"] - 1
			t.Errorf("run %s: the final step ran %d times", run, nodes["final"])
		case !finals[run] && nodes["final"] > 0:
			duplicates += nodes["final"]
			t.Errorf("run %s, which no client completed, ran its final step %d times", run, nodes["final"])
		}
	}
	unknown := eff.unknown
	eff.mu.Unlock()
	if middleMissing > 0 || unknown > 0 {
		t.Errorf("%d completed runs never ran their middle step; %d effects without a run", middleMissing, unknown)
	}

	// The shared store holds one reply per run.
	rc := goredis.NewClient(mustParseURL(t, url))
	defer rc.Close()
	keys, err := rc.Keys(ctx, redis.DefaultPrefix+"*").Result()
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) != faultRuns {
		t.Errorf("the reply store holds %d replies, want %d (one per run)", len(keys), faultRuns)
	}
	servedByNewB := b.served.Load()
	if restarts != 1 || inFlightAtStop == 0 || servedByNewB == 0 {
		t.Errorf("restart not mid-run: %d restarts, %d runs in flight when B stopped, %d requests served by B after it came back", restarts, inFlightAtStop, servedByNewB)
	}
	lost, older := tally.lost.Load(), tally.older.Load()
	if lost == 0 || older == 0 {
		t.Errorf("no faults injected: %d lost replies, %d returns to an older state", lost, older)
	}

	t.Logf("seed %d, %s: %d runs completed of %d; answers lost %d; duplicate final effects %d",
		seed, elapsed.Round(time.Millisecond), tally.completed.Load(), faultRuns, answersLost, duplicates)
	t.Logf("requests %d (%.0f/s); retries: lost replies %d, older states %d, final rounds %d (all answered from the store: %d), failovers after no reply %d",
		tally.requests.Load(), float64(tally.requests.Load())/elapsed.Seconds(), lost, older, tally.finalRetries.Load(), tally.replayed.Load(), tally.failovers.Load())
	t.Logf("restarts %d (B down %s with %d runs in flight; B served %d requests before, %d after); A served %d",
		restarts, faultDown, inFlightAtStop, servedByOldB, servedByNewB, a.served.Load())
	t.Logf("effects: middle %d calls over %d runs (at least once per completed run; %d re-runs), final %d calls for %d runs (exactly once); replies stored %d",
		middleCalls, middleRuns, middleCalls-middleRuns, finalCalls, len(finals), len(keys))
}

// num reads a JSON number as an int (-1 when it is not one).
func num(v any) int {
	f, ok := v.(float64)
	if !ok {
		return -1
	}
	return int(f)
}

func mustParseURL(t testing.TB, url string) *goredis.Options {
	t.Helper()
	o, err := goredis.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	return o
}
