// Package storetest is the contract every tasks.Store keeps, as tests a
// store's own test file runs with Run: what Create, Get and Update store
// and return, expiry, atomic updates, dispatch to exactly one worker,
// delayed dispatch (DispatchAt) by the store's clock, claims that honour
// their context, fenced writes under Own and UpdateOwned, the count of
// each principal's open tasks that CreateLimited enforces its limit with
// (open.go), and a store that refuses work once closed. RunReopen adds,
// for stores whose data outlives them, that schedules and that count
// outlive the store too.
package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/flowserve/flowserve/internal/clock"
	"github.com/flowserve/flowserve/tasks"
)

// wait bounds how long a test waits for something a store must do; it is
// generous so that slow machines and the race detector do not fail tests.
const wait = 30 * time.Second

// due bounds how long after its instant a schedule (DispatchAt) may take
// to be claimed: a store may look for due schedules only now and then.
const due = 5 * time.Second

// Opener returns a new, empty store for the test, whose clock is now.
// Run closes the store when the test ends; Close must be safe to call
// twice.
type Opener func(t *testing.T, now func() time.Time) tasks.Store

// Reopener returns, for one test, a function that opens a store on the
// same data each time it is called, with the clock now: the first call an
// empty store, each later one a store on what the ones before it left
// (the file of Bolt, the keys of Redis). The test closes each store before
// it opens the next; RunReopen closes them all when the test ends, so
// Close must be safe to call twice.
type Reopener func(t *testing.T, now func() time.Time) func() tasks.Store

// Clock is a clock tests move by hand, so that tasks expire without the
// tests sleeping (clock.Manual).
type Clock = clock.Manual

// NewClock returns a clock that reads start until it is advanced.
func NewClock(start time.Time) *Clock { return clock.NewManual(start) }

// Run runs the contract tests, each as a subtest on a store of its own
// from open. The stores' clocks start at the current time (in UTC, to the
// millisecond), so a store that also hands expiry to its backend (Redis's
// PX) sees realistic lifetimes; in the tests of DispatchAt they start an
// hour earlier, so that a store that decides what is due by another
// clock than its own fails them.
//
// The clocks stand still unless a test moves them. A test of DispatchAt
// moves the clock past a schedule's instant once as much real time has
// passed, so that a store may wait for a schedule in real time (Memory's
// timers) or look at its clock (Bolt, Redis): either way the claim comes
// no earlier than the instant, and no later than a few seconds after it.
func Run(t *testing.T, open Opener) {
	tests := []struct {
		name   string
		run    func(t *testing.T, s tasks.Store, clock *Clock)
		behind time.Duration // how far the clock starts behind the real time
	}{
		{"CreateGet", testCreateGet, 0},
		{"Copies", testCopies, 0},
		{"Exists", testExists, 0},
		{"NotFound", testNotFound, 0},
		{"Update", testUpdate, 0},
		{"UpdateAbort", testUpdateAbort, 0},
		{"Expiry", testExpiry, 0},
		{"ConcurrentUpdates", testConcurrentUpdates, 0},
		{"DispatchOnce", testDispatchOnce, 0},
		{"ClaimContext", testClaimContext, 0},
		{"Fencing", testFencing, 0},
		{"OpenTasks", testOpenTasks, 0},
		{"CreateLimited", testCreateLimited, 0},
		{"CreateLimitedConcurrent", testCreateLimitedConcurrent, 0},
		{"DispatchAtPast", testDispatchAtPast, time.Hour},
		{"DispatchAtLater", testDispatchAtLater, time.Hour},
		{"DispatchAtOrder", testDispatchAtOrder, time.Hour},
		{"DispatchAtAndDispatch", testDispatchAtAndDispatch, time.Hour},
		{"DispatchAtSeveral", testDispatchAtSeveral, time.Hour},
		{"Close", testClose, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			clock := NewClock(time.Now().Add(-tc.behind).UTC().Truncate(time.Millisecond))
			s := open(t, clock.Now)
			t.Cleanup(func() { s.Close() })
			tc.run(t, s, clock)
		})
	}
}

// RunReopen runs the contract tests (Run) on the first store each test's
// reopen function opens, and the tests that need a store opened again on
// the same data: that a schedule (DispatchAt) made before Close fires
// once the store is opened again, at once when it fell due meanwhile.
func RunReopen(t *testing.T, reopen Reopener) {
	Run(t, func(t *testing.T, now func() time.Time) tasks.Store { return reopen(t, now)() })
	tests := []struct {
		name string
		run  func(t *testing.T, open func() tasks.Store, clock *Clock)
	}{
		{"DispatchAtReopen", testDispatchAtReopen},
		{"OpenTasksReopen", testOpenTasksReopen},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			clock := NewClock(time.Now().Add(-time.Hour).UTC().Truncate(time.Millisecond))
			open := reopen(t, clock.Now)
			tc.run(t, func() tasks.Store {
				s := open()
				t.Cleanup(func() { s.Close() })
				return s
			}, clock)
		})
	}
}

// Sample returns a task with every field set, updated at now and kept for
// an hour, under a new id.
func Sample(t *testing.T, now time.Time) *tasks.Task {
	t.Helper()
	id, err := tasks.NewID()
	if err != nil {
		t.Fatal(err)
	}
	return &tasks.Task{
		ID:        id,
		Tool:      "deploy",
		Version:   "9f86d081884c7d65",
		Principal: "alice",
		Arguments: json.RawMessage(`{"env":"prod","replicas":3}`),
		Client: tasks.Client{
			Name: "inspector", Version: "1.2.0", Protocol: "2025-11-25",
			Form: true, URL: true, Sampling: true, Roots: true,
		},
		State:     "sealed-state",
		Status:    tasks.InputRequired,
		Message:   "waiting for approval",
		Requests:  map[string]json.RawMessage{"q1": json.RawMessage(`{"method":"elicitation/create","params":{"message":"ok?"}}`)},
		Questions: map[string]string{"q1": "approve"},
		Answers:   map[string]json.RawMessage{"name": json.RawMessage(`"bob"`)},
		Result:    json.RawMessage(`{"content":[]}`),
		Error:     json.RawMessage(`{"code":-32603,"message":"boom"}`),
		Created:   now.Add(-time.Minute),
		Updated:   now,
		TTL:       time.Hour,
		Asked:     1,
		Runs:      2,
		Takeovers: 1,
		Owner:     "",
	}
}

// Same fails the test unless got and want are the same task in the
// stored format (tasks.Marshal), which ignores how times and JSON values
// are represented in memory.
func Same(t *testing.T, what string, got, want *tasks.Task) {
	t.Helper()
	if got == nil {
		t.Fatalf("%s: got no task, want %s", what, encode(t, want))
	}
	if g, w := encode(t, got), encode(t, want); g != w {
		t.Fatalf("%s:\n got %s\nwant %s", what, g, w)
	}
}

func encode(t *testing.T, task *tasks.Task) string {
	t.Helper()
	b, err := tasks.Marshal(task)
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	return string(b)
}

// create stores a sample task and returns (a copy of) what it stored.
func create(t *testing.T, s tasks.Store, now time.Time) *tasks.Task {
	t.Helper()
	task := Sample(t, now)
	if err := s.Create(context.Background(), task); err != nil {
		t.Fatalf("Create: %v", err)
	}
	return task.Clone()
}

func get(t *testing.T, s tasks.Store, id string) *tasks.Task {
	t.Helper()
	task, err := s.Get(context.Background(), id)
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	return task
}

// claim claims the next task, waiting at most wait.
func claim(t *testing.T, s tasks.Store) *tasks.Claim {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	c, err := s.Claim(ctx)
	if err != nil {
		t.Fatalf("Claim: %v", err)
	}
	return c
}

// claimed claims the next task, waiting at most due, fails the test
// unless it is an ordinary claim (not a takeover) of task id, and releases
// it.
func claimed(t *testing.T, s tasks.Store, id, what string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), due)
	defer cancel()
	c, err := s.Claim(ctx)
	if err != nil {
		t.Fatalf("%s: Claim: %v", what, err)
	}
	if c.ID != id || c.Takeover {
		t.Fatalf("%s: claimed {%s, takeover %v}, want %s, no takeover", what, c.ID, c.Takeover, id)
	}
	if err := c.Release(); err != nil {
		t.Fatalf("%s: Release: %v", what, err)
	}
}

// nothingFor fails the test if a task is claimed within d.
func nothingFor(t *testing.T, s tasks.Store, d time.Duration, what string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	c, err := s.Claim(ctx)
	if c != nil {
		c.Release()
		t.Fatalf("%s: claimed %s (takeover %v)", what, c.ID, c.Takeover)
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("%s: Claim = %v, want DeadlineExceeded", what, err)
	}
}

// dispatchAt schedules task id at at.
func dispatchAt(t *testing.T, s tasks.Store, id string, at time.Time) {
	t.Helper()
	if err := s.DispatchAt(context.Background(), id, at); err != nil {
		t.Fatalf("DispatchAt: %v", err)
	}
}

// reach waits until d of real time has passed since start, then moves
// clock to at least at.
func reach(clock *Clock, start time.Time, d time.Duration, at time.Time) {
	time.Sleep(time.Until(start.Add(d)))
	if n := clock.Now(); n.Before(at) {
		clock.Advance(at.Sub(n))
	}
}

func testCreateGet(t *testing.T, s tasks.Store, clock *Clock) {
	want := create(t, s, clock.Now())
	Same(t, "Get after Create", get(t, s, want.ID), want)

	// A minimal task round-trips too.
	id, _ := tasks.NewID()
	bare := &tasks.Task{ID: id, Status: tasks.Working, Created: clock.Now(), Updated: clock.Now(), TTL: time.Minute}
	if err := s.Create(context.Background(), bare); err != nil {
		t.Fatalf("Create: %v", err)
	}
	Same(t, "Get of a minimal task", get(t, s, id), bare)
}

func testCopies(t *testing.T, s tasks.Store, clock *Clock) {
	ctx := context.Background()
	task := Sample(t, clock.Now())
	want := task.Clone()
	if err := s.Create(ctx, task); err != nil {
		t.Fatalf("Create: %v", err)
	}
	mutate := func(task *tasks.Task) {
		task.Status = tasks.Failed
		task.Questions["q1"] = "changed"
		task.Requests["q1"][2] = 'X'
		task.Answers["other"] = json.RawMessage(`1`)
		task.Arguments[2] = 'X'
	}
	mutate(task)
	Same(t, "Get after changing the task given to Create", get(t, s, want.ID), want)

	mutate(get(t, s, want.ID))
	Same(t, "Get after changing what Get returned", get(t, s, want.ID), want)

	got, err := s.Update(ctx, want.ID, func(task *tasks.Task) error {
		task.Message = "updated"
		return nil
	})
	if err != nil {
		t.Fatalf("Update: %v", err)
	}
	want.Message = "updated"
	mutate(got)
	Same(t, "Get after changing what Update returned", get(t, s, want.ID), want)
}

func testExists(t *testing.T, s tasks.Store, clock *Clock) {
	want := create(t, s, clock.Now())
	other := Sample(t, clock.Now())
	other.ID = want.ID
	other.Tool = "other"
	if err := s.Create(context.Background(), other); !errors.Is(err, tasks.ErrExists) {
		t.Fatalf("Create of a taken id = %v, want ErrExists", err)
	}
	Same(t, "Get after a refused Create", get(t, s, want.ID), want)
}

func testNotFound(t *testing.T, s tasks.Store, clock *Clock) {
	ctx := context.Background()
	create(t, s, clock.Now()) // the store is not empty
	id, _ := tasks.NewID()
	if _, err := s.Get(ctx, id); !errors.Is(err, tasks.ErrNotFound) {
		t.Errorf("Get of an unknown id = %v, want ErrNotFound", err)
	}
	_, err := s.Update(ctx, id, func(*tasks.Task) error {
		t.Error("Update ran fn for an unknown id")
		return nil
	})
	if !errors.Is(err, tasks.ErrNotFound) {
		t.Errorf("Update of an unknown id = %v, want ErrNotFound", err)
	}
	if _, err := s.Get(ctx, id); !errors.Is(err, tasks.ErrNotFound) {
		t.Errorf("Get after Update of an unknown id = %v, want ErrNotFound", err)
	}
}

func testUpdate(t *testing.T, s tasks.Store, clock *Clock) {
	ctx := context.Background()
	want := create(t, s, clock.Now())
	clock.Advance(time.Minute)
	got, err := s.Update(ctx, want.ID, func(task *tasks.Task) error {
		Same(t, "the task fn is given", task, want)
		task.Status = tasks.Completed
		task.Requests = nil
		task.Questions = nil
		task.Result = json.RawMessage(`{"content":[{"type":"text","text":"done"}]}`)
		task.Updated = clock.Now()
		task.Asked++
		task.ID = "not-the-id" // the id stays
		return nil
	})
	if err != nil {
		t.Fatalf("Update: %v", err)
	}
	want.Status = tasks.Completed
	want.Requests = nil
	want.Questions = nil
	want.Result = json.RawMessage(`{"content":[{"type":"text","text":"done"}]}`)
	want.Updated = clock.Now()
	want.Asked++
	Same(t, "what Update returned", got, want)
	Same(t, "Get after Update", get(t, s, want.ID), want)
	if _, err := s.Get(ctx, "not-the-id"); !errors.Is(err, tasks.ErrNotFound) {
		t.Errorf("Get of the id fn set = %v, want ErrNotFound", err)
	}
}

func testUpdateAbort(t *testing.T, s tasks.Store, clock *Clock) {
	want := create(t, s, clock.Now())
	abort := fmt.Errorf("round failed: %w", errors.New("cause"))
	got, err := s.Update(context.Background(), want.ID, func(task *tasks.Task) error {
		task.Status = tasks.Failed
		task.Message = "half-done"
		return abort
	})
	if !errors.Is(err, abort) {
		t.Fatalf("Update whose fn failed = %v, want fn's error", err)
	}
	if got != nil {
		t.Errorf("Update whose fn failed returned a task")
	}
	Same(t, "Get after an aborted Update", get(t, s, want.ID), want)
}

func testExpiry(t *testing.T, s tasks.Store, clock *Clock) {
	ctx := context.Background()
	kept := create(t, s, clock.Now())      // refreshed below
	dropped := create(t, s, clock.Now())   // left to expire
	updated := create(t, s, clock.Now())   // updated once expired
	recreated := create(t, s, clock.Now()) // created again once expired

	clock.Advance(59 * time.Minute)
	Same(t, "Get before expiry", get(t, s, dropped.ID), dropped)
	if _, err := s.Update(ctx, kept.ID, func(task *tasks.Task) error {
		task.Updated = clock.Now()
		return nil
	}); err != nil {
		t.Fatalf("Update before expiry: %v", err)
	}
	kept.Updated = clock.Now()

	clock.Advance(time.Minute) // dropped, updated and recreated expire now
	if _, err := s.Get(ctx, dropped.ID); !errors.Is(err, tasks.ErrNotFound) {
		t.Errorf("Get at Updated+TTL = %v, want ErrNotFound", err)
	}
	_, err := s.Update(ctx, updated.ID, func(*tasks.Task) error {
		t.Error("Update ran fn for an expired task")
		return nil
	})
	if !errors.Is(err, tasks.ErrNotFound) {
		t.Errorf("Update of an expired task = %v, want ErrNotFound", err)
	}
	again := Sample(t, clock.Now())
	again.ID = recreated.ID
	if err := s.Create(ctx, again); err != nil {
		t.Errorf("Create with the id of an expired task: %v", err)
	} else {
		Same(t, "Get of a task created again", get(t, s, again.ID), again)
	}
	Same(t, "Get of a refreshed task", get(t, s, kept.ID), kept)

	clock.Advance(61 * time.Minute)
	if _, err := s.Get(ctx, kept.ID); !errors.Is(err, tasks.ErrNotFound) {
		t.Errorf("Get past the refreshed expiry = %v, want ErrNotFound", err)
	}
}

func testConcurrentUpdates(t *testing.T, s tasks.Store, clock *Clock) {
	const n = 50
	id := create(t, s, clock.Now()).ID
	if _, err := s.Update(context.Background(), id, func(task *tasks.Task) error {
		task.Asked = 0
		return nil
	}); err != nil {
		t.Fatalf("Update: %v", err)
	}
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			if _, err := s.Update(context.Background(), id, func(task *tasks.Task) error {
				task.Asked++
				return nil
			}); err != nil {
				t.Errorf("Update: %v", err)
			}
		})
	}
	wg.Wait()
	if got := get(t, s, id).Asked; got != n {
		t.Fatalf("after %d concurrent increments Asked = %d", n, got)
	}
}

func testDispatchOnce(t *testing.T, s tasks.Store, clock *Clock) {
	const n, workers = 20, 4
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ids := map[string]bool{}
	for range n {
		ids[create(t, s, clock.Now()).ID] = true
	}

	var (
		mu      sync.Mutex
		claimed []string
		more    = make(chan struct{}, 1)
		wg      sync.WaitGroup
	)
	for range workers {
		wg.Go(func() {
			for {
				c, err := s.Claim(ctx)
				if err != nil {
					if ctx.Err() == nil {
						t.Errorf("Claim: %v", err)
					}
					return
				}
				if c.Takeover {
					t.Errorf("claim of a task dispatched once is a takeover")
				}
				if err := c.Release(); err != nil {
					t.Errorf("Release: %v", err)
				}
				mu.Lock()
				claimed = append(claimed, c.ID)
				mu.Unlock()
				select {
				case more <- struct{}{}:
				default:
				}
			}
		})
	}
	for id := range ids {
		if err := s.Dispatch(ctx, id); err != nil {
			t.Fatalf("Dispatch: %v", err)
		}
	}
	timeout := time.After(wait)
	for {
		mu.Lock()
		got := len(claimed)
		mu.Unlock()
		if got >= n {
			break
		}
		select {
		case <-more:
		case <-timeout:
			t.Fatalf("%d of %d dispatched tasks claimed after %s", got, n, wait)
		}
	}
	cancel()
	wg.Wait()
	seen := map[string]int{}
	for _, id := range claimed {
		seen[id]++
	}
	for id, k := range seen {
		switch {
		case !ids[id]:
			t.Errorf("claimed %s, which was never dispatched", id)
		case k > 1:
			t.Errorf("task dispatched once was claimed %d times", k)
		}
	}
	if len(seen) != n {
		t.Errorf("%d distinct tasks claimed, want %d", len(seen), n)
	}
}

func testClaimContext(t *testing.T, s tasks.Store, _ *Clock) {
	cases := []struct {
		name   string
		ctx    func() (context.Context, context.CancelFunc)
		before bool // cancel before Claim is called
		want   error
	}{
		{"cancelled before", func() (context.Context, context.CancelFunc) { return context.WithCancel(context.Background()) }, true, context.Canceled},
		{"cancelled while waiting", func() (context.Context, context.CancelFunc) { return context.WithCancel(context.Background()) }, false, context.Canceled},
		{"deadline", func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), 100*time.Millisecond)
		}, false, context.DeadlineExceeded},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := tc.ctx()
			defer cancel()
			if tc.before {
				cancel()
			}
			done := make(chan error, 1)
			go func() {
				c, err := s.Claim(ctx)
				if c != nil {
					c.Release()
					err = fmt.Errorf("claimed %s with nothing dispatched", c.ID)
				}
				done <- err
			}()
			if !tc.before && tc.want == context.Canceled {
				time.Sleep(50 * time.Millisecond) // let Claim start waiting
				cancel()
			}
			select {
			case err := <-done:
				if !errors.Is(err, tc.want) {
					t.Fatalf("Claim = %v, want %v", err, tc.want)
				}
			case <-time.After(wait):
				t.Fatalf("Claim did not return %s after its context ended", wait)
			}
		})
	}
}

func testFencing(t *testing.T, s tasks.Store, clock *Clock) {
	ctx := context.Background()
	task := create(t, s, clock.Now())
	if _, err := s.Update(ctx, task.ID, func(task *tasks.Task) error {
		task.Runs, task.Takeovers = 0, 0
		return nil
	}); err != nil {
		t.Fatalf("Update: %v", err)
	}

	if err := s.Dispatch(ctx, task.ID); err != nil {
		t.Fatalf("Dispatch: %v", err)
	}
	old := claim(t, s)
	defer old.Release()
	if old.ID != task.ID || old.Token == "" {
		t.Fatalf("claim = {ID %q, Token %q}, want task %s and a token", old.ID, old.Token, task.ID)
	}
	owned, err := tasks.Own(ctx, s, old)
	if err != nil {
		t.Fatalf("Own: %v", err)
	}
	if owned.Owner != old.Token || owned.Runs != 1 || owned.Takeovers != 0 {
		t.Fatalf("after Own: Owner %q, Runs %d, Takeovers %d; want %q, 1, 0", owned.Owner, owned.Runs, owned.Takeovers, old.Token)
	}
	if _, err := tasks.UpdateOwned(ctx, s, old, func(task *tasks.Task) error {
		task.Message = "old worker"
		return nil
	}); err != nil {
		t.Fatalf("UpdateOwned by the owner: %v", err)
	}

	// A second worker claims the task and owns it.
	if err := s.Dispatch(ctx, task.ID); err != nil {
		t.Fatalf("Dispatch: %v", err)
	}
	cur := claim(t, s)
	defer cur.Release()
	if cur.ID != task.ID {
		t.Fatalf("second claim is of %s, want %s", cur.ID, task.ID)
	}
	if cur.Token == old.Token {
		t.Fatalf("two claims share the token %q", cur.Token)
	}
	if owned, err = tasks.Own(ctx, s, cur); err != nil {
		t.Fatalf("Own: %v", err)
	}
	if owned.Owner != cur.Token || owned.Runs != 2 {
		t.Fatalf("after the second Own: Owner %q, Runs %d; want %q, 2", owned.Owner, owned.Runs, cur.Token)
	}

	_, err = tasks.UpdateOwned(ctx, s, old, func(task *tasks.Task) error {
		task.Message = "stale write"
		return nil
	})
	if !errors.Is(err, tasks.ErrNotOwner) {
		t.Fatalf("UpdateOwned by the old claim = %v, want ErrNotOwner", err)
	}
	if got := get(t, s, task.ID); got.Message != "old worker" {
		t.Fatalf("a stale UpdateOwned changed the message to %q", got.Message)
	}
	if _, err := tasks.UpdateOwned(ctx, s, cur, func(task *tasks.Task) error {
		task.Message = "new worker"
		return nil
	}); err != nil {
		t.Fatalf("UpdateOwned by the new owner: %v", err)
	}
	if got := get(t, s, task.ID); got.Message != "new worker" || got.Owner != cur.Token {
		t.Fatalf("after the owner's write: Message %q, Owner %q", got.Message, got.Owner)
	}
	for _, c := range []*tasks.Claim{old, cur} {
		if err := c.Release(); err != nil {
			t.Errorf("Release: %v", err)
		}
		if err := c.Release(); err != nil {
			t.Errorf("second Release: %v", err)
		}
	}
}

func testDispatchAtPast(t *testing.T, s tasks.Store, clock *Clock) {
	past := create(t, s, clock.Now())
	dispatchAt(t, s, past.ID, clock.Now().Add(-time.Minute))
	claimed(t, s, past.ID, "a schedule a minute ago")
	now := create(t, s, clock.Now())
	dispatchAt(t, s, now.ID, clock.Now())
	claimed(t, s, now.ID, "a schedule at the store's now")
}

func testDispatchAtLater(t *testing.T, s tasks.Store, clock *Clock) {
	const delay = 200 * time.Millisecond
	task := create(t, s, clock.Now())
	start := time.Now()
	at := clock.Now().Add(delay)
	dispatchAt(t, s, task.ID, at)
	nothingFor(t, s, 50*time.Millisecond, "before the schedule's instant")
	reach(clock, start, delay, at)
	claimed(t, s, task.ID, "once the schedule is due")
	if d := time.Since(start); d < delay {
		t.Errorf("a schedule %s ahead was claimed after %s", delay, d)
	}
}

func testDispatchAtOrder(t *testing.T, s tasks.Store, clock *Clock) {
	later, sooner := create(t, s, clock.Now()), create(t, s, clock.Now())
	start := time.Now()
	base := clock.Now()
	dispatchAt(t, s, later.ID, base.Add(300*time.Millisecond))
	dispatchAt(t, s, sooner.ID, base.Add(150*time.Millisecond))
	reach(clock, start, 300*time.Millisecond, base.Add(300*time.Millisecond))
	claimed(t, s, sooner.ID, "first claim of two schedules")
	claimed(t, s, later.ID, "second claim of two schedules")
}

func testDispatchAtAndDispatch(t *testing.T, s tasks.Store, clock *Clock) {
	const delay = 200 * time.Millisecond
	task := create(t, s, clock.Now())
	start := time.Now()
	at := clock.Now().Add(delay)
	dispatchAt(t, s, task.ID, at)
	if err := s.Dispatch(context.Background(), task.ID); err != nil {
		t.Fatalf("Dispatch: %v", err)
	}
	claimed(t, s, task.ID, "the dispatch after the schedule")
	reach(clock, start, delay, at)
	claimed(t, s, task.ID, "the schedule, after a dispatch of its task")
	nothingFor(t, s, 400*time.Millisecond, "after the dispatch and the schedule")
}

func testDispatchAtSeveral(t *testing.T, s tasks.Store, clock *Clock) {
	task := create(t, s, clock.Now())
	start := time.Now()
	base := clock.Now()
	dispatchAt(t, s, task.ID, base.Add(100*time.Millisecond))
	dispatchAt(t, s, task.ID, base.Add(200*time.Millisecond))
	dispatchAt(t, s, task.ID, base.Add(100*time.Millisecond)) // the same schedule again
	reach(clock, start, 200*time.Millisecond, base.Add(200*time.Millisecond))
	claimed(t, s, task.ID, "the first of two schedules")
	claimed(t, s, task.ID, "the second of two schedules")
	nothingFor(t, s, 400*time.Millisecond, "after two schedules, one made twice")
}

func testDispatchAtReopen(t *testing.T, open func() tasks.Store, clock *Clock) {
	s := open()
	base := clock.Now()
	meanwhile, after := create(t, s, base), create(t, s, base)
	dispatchAt(t, s, meanwhile.ID, base.Add(200*time.Millisecond))
	dispatchAt(t, s, after.ID, base.Add(2*time.Second))
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	start := time.Now()
	reach(clock, start, 200*time.Millisecond, base.Add(200*time.Millisecond))

	s = open()
	claimed(t, s, meanwhile.ID, "a schedule that fell due while the store was closed")
	nothingFor(t, s, 400*time.Millisecond, "before the second schedule's instant")
	reach(clock, start, 0, base.Add(2*time.Second))
	claimed(t, s, after.ID, "a schedule due after the store was opened again")
	nothingFor(t, s, 400*time.Millisecond, "after both schedules")
}

func testClose(t *testing.T, s tasks.Store, clock *Clock) {
	ctx := context.Background()
	task := create(t, s, clock.Now())
	waiting := make(chan error, 1)
	go func() {
		_, err := s.Claim(ctx)
		waiting <- err
	}()
	time.Sleep(50 * time.Millisecond) // let Claim start waiting
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	select {
	case err := <-waiting:
		if !errors.Is(err, tasks.ErrClosed) {
			t.Errorf("Claim waiting at Close = %v, want ErrClosed", err)
		}
	case <-time.After(wait):
		t.Errorf("Claim waiting at Close did not return after %s", wait)
	}

	calls := []struct {
		name string
		call func() error
	}{
		{"Create", func() error { return s.Create(ctx, Sample(t, clock.Now())) }},
		{"CreateLimited", func() error { return s.CreateLimited(ctx, Sample(t, clock.Now()), 10) }},
		{"OpenTasks", func() error { _, err := s.OpenTasks(ctx, "alice", 0); return err }},
		{"Get", func() error { _, err := s.Get(ctx, task.ID); return err }},
		{"Update", func() error {
			_, err := s.Update(ctx, task.ID, func(*tasks.Task) error { return nil })
			return err
		}},
		{"Dispatch", func() error { return s.Dispatch(ctx, task.ID) }},
		{"DispatchAt now", func() error { return s.DispatchAt(ctx, task.ID, clock.Now()) }},
		{"DispatchAt later", func() error { return s.DispatchAt(ctx, task.ID, clock.Now().Add(time.Hour)) }},
		{"Claim", func() error { _, err := s.Claim(ctx); return err }},
	}
	for _, c := range calls {
		if err := c.call(); !errors.Is(err, tasks.ErrClosed) {
			t.Errorf("%s after Close = %v, want ErrClosed", c.name, err)
		}
	}
}
