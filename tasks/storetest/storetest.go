// Package storetest is the contract every tasks.Store keeps, as tests a
// store's own test file runs with Contract: what Create, Get and Update
// store and return, expiry, atomic updates, dispatch to exactly one
// worker, claims that honour their context and fenced writes under Own
// and UpdateOwned (claim.go), delayed dispatch (DispatchAt) by the
// store's clock (dispatchat.go), the count of each principal's open tasks
// that CreateLimited enforces its limit with (open.go), and a store that
// refuses work once closed. Its Reopen tests
// add, for stores whose data outlives them, that schedules and that count
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

	"github.com/flowserve/flowserve/internal/kv/kvtest"
	"github.com/flowserve/flowserve/tasks"
)

// wait bounds how long a test waits for something a store must do; it is
// generous so that slow machines and the race detector do not fail tests.
const wait = 30 * time.Second

// due bounds how long after its instant a schedule (DispatchAt) may take
// to be claimed: a store may look for due schedules only now and then.
const due = 5 * time.Second

// Clock is a clock tests move by hand, so that tasks expire without the
// tests sleeping (kvtest.Clock).
type Clock = kvtest.Clock

// Contract is the contract: a store's own test file runs it over each
// implementation with Contract.RunBackends, each test as a subtest on a
// store of its own. The stores' clocks start at the current time (in UTC,
// to the millisecond), so a store that also hands expiry to its backend
// (Redis's PX) sees realistic lifetimes; in the tests of DispatchAt they
// start an hour earlier, so that a store that decides what is due by
// another clock than its own fails them.
//
// The clocks stand still unless a test moves them. A test of DispatchAt
// moves the clock past a schedule's instant once as much real time has
// passed, so that a store may wait for a schedule in real time (Memory's
// timers) or look at its clock (Bolt, Redis): either way the claim comes
// no earlier than the instant, and no later than a few seconds after it.
//
// The Reopen tests run on implementations whose data outlives a store:
// that a schedule (DispatchAt) made before Close fires once the store is
// opened again, at once when it fell due meanwhile, and that the count of
// open tasks outlives the store.
var Contract = kvtest.Suite[tasks.Store]{
	Tests: []kvtest.Test[tasks.Store]{
		{Name: "CreateGet", Run: testCreateGet},
		{Name: "Copies", Run: testCopies},
		{Name: "Exists", Run: testExists},
		{Name: "NotFound", Run: testNotFound},
		{Name: "Update", Run: testUpdate},
		{Name: "UpdateAbort", Run: testUpdateAbort},
		{Name: "Expiry", Run: testExpiry},
		{Name: "ConcurrentUpdates", Run: testConcurrentUpdates},
		{Name: "DispatchOnce", Run: testDispatchOnce},
		{Name: "ClaimContext", Run: testClaimContext},
		{Name: "Fencing", Run: testFencing},
		{Name: "OpenTasks", Run: testOpenTasks},
		{Name: "CreateLimited", Run: testCreateLimited},
		{Name: "CreateLimitedConcurrent", Run: testCreateLimitedConcurrent},
		{Name: "DispatchAtPast", Run: testDispatchAtPast, Behind: time.Hour},
		{Name: "DispatchAtLater", Run: testDispatchAtLater, Behind: time.Hour},
		{Name: "DispatchAtOrder", Run: testDispatchAtOrder, Behind: time.Hour},
		{Name: "DispatchAtAndDispatch", Run: testDispatchAtAndDispatch, Behind: time.Hour},
		{Name: "DispatchAtSeveral", Run: testDispatchAtSeveral, Behind: time.Hour},
		{Name: "Close", Run: testClose},
	},
	Reopen: []kvtest.ReopenTest[tasks.Store]{
		{Name: "DispatchAtReopen", Run: testDispatchAtReopen, Behind: time.Hour},
		{Name: "OpenTasksReopen", Run: testOpenTasksReopen, Behind: time.Hour},
	},
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
