package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/flowserve/flowserve/tasks"
)

// The contract of delayed dispatch (DispatchAt): a schedule is claimed
// once the store's clock reaches it, not before; schedules are claimed in
// the order of their instants, each once, beside the task's dispatches;
// and, for stores whose data outlives them, a schedule outlives the
// store.

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
