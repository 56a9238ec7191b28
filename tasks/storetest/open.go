package storetest

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/flowserve/flowserve/tasks"
)

// The contract of the count of open tasks (OpenTasks) and of the limit
// CreateLimited enforces with it: what counts (tasks that have not ended
// nor expired, of that principal), that a refused task is not stored,
// that concurrent creations never exceed the limit, and, for stores whose
// data outlives them, that the count does too.

// sampleOf returns a sample task of principal with status st.
func sampleOf(t *testing.T, now time.Time, principal string, st tasks.Status) *tasks.Task {
	t.Helper()
	task := Sample(t, now)
	task.Principal, task.Status = principal, st
	return task
}

// openCount fails the test unless principal has want open tasks, counted
// with no bound and with bound max.
func openCount(t *testing.T, s tasks.Store, principal string, want int, what string) {
	t.Helper()
	ctx := context.Background()
	n, err := s.OpenTasks(ctx, principal, 0)
	if err != nil {
		t.Fatalf("%s: OpenTasks(%q): %v", what, principal, err)
	}
	if n != want {
		t.Fatalf("%s: OpenTasks(%q) = %d, want %d", what, principal, n, want)
	}
	if want > 1 {
		if n, err := s.OpenTasks(ctx, principal, want-1); err != nil || n != want-1 {
			t.Fatalf("%s: OpenTasks(%q, max %d) = %d, %v, want %d", what, principal, want-1, n, err, want-1)
		}
	}
}

// setStatus updates task id to status st, at the clock's now.
func setStatus(t *testing.T, s tasks.Store, clock *Clock, id string, st tasks.Status) {
	t.Helper()
	_, err := s.Update(context.Background(), id, func(task *tasks.Task) error {
		task.Status, task.Updated = st, clock.Now()
		return nil
	})
	if err != nil {
		t.Fatalf("Update to %s: %v", st, err)
	}
}

func testOpenTasks(t *testing.T, s tasks.Store, clock *Clock) {
	ctx := context.Background()
	openCount(t, s, "alice", 0, "an empty store")
	working := sampleOf(t, clock.Now(), "alice", tasks.Working)
	asking := sampleOf(t, clock.Now(), "alice", tasks.InputRequired)
	done := sampleOf(t, clock.Now(), "alice", tasks.Completed)
	bobs := sampleOf(t, clock.Now(), "bob", tasks.Working)
	nobody := sampleOf(t, clock.Now(), "", tasks.Working)
	for _, task := range []*tasks.Task{working, asking, done, bobs, nobody} {
		if err := s.Create(ctx, task); err != nil {
			t.Fatalf("Create: %v", err)
		}
	}
	openCount(t, s, "alice", 2, "working and input_required count, completed does not")
	openCount(t, s, "bob", 1, "another principal's")
	openCount(t, s, "", 1, "the tasks of no principal")
	openCount(t, s, "carol", 0, "a principal with no task")

	setStatus(t, s, clock, asking.ID, tasks.Working) // still open
	openCount(t, s, "alice", 2, "after a task goes back to working")
	setStatus(t, s, clock, working.ID, tasks.Cancelled)
	openCount(t, s, "alice", 1, "after a task is cancelled")
	setStatus(t, s, clock, asking.ID, tasks.Failed)
	openCount(t, s, "alice", 0, "after the last one failed")

	// An open task that expires stops counting, refreshed or not.
	kept := sampleOf(t, clock.Now(), "alice", tasks.Working)
	lapsing := sampleOf(t, clock.Now(), "alice", tasks.Working)
	for _, task := range []*tasks.Task{kept, lapsing} {
		if err := s.Create(ctx, task); err != nil {
			t.Fatalf("Create: %v", err)
		}
	}
	clock.Advance(59 * time.Minute)
	setStatus(t, s, clock, kept.ID, tasks.Working) // its TTL runs from now
	openCount(t, s, "alice", 2, "before the TTL")
	clock.Advance(time.Minute)
	openCount(t, s, "alice", 1, "once one has expired")
	openCount(t, s, "bob", 0, "once bob's has expired")
}

func testCreateLimited(t *testing.T, s tasks.Store, clock *Clock) {
	ctx := context.Background()
	first := sampleOf(t, clock.Now(), "alice", tasks.Working)
	second := sampleOf(t, clock.Now(), "alice", tasks.InputRequired)
	ended := sampleOf(t, clock.Now(), "alice", tasks.Completed)
	for _, task := range []*tasks.Task{ended, first, second} {
		if err := s.CreateLimited(ctx, task, 2); err != nil {
			t.Fatalf("CreateLimited under the limit: %v", err)
		}
	}
	third := sampleOf(t, clock.Now(), "alice", tasks.Working)
	if err := s.CreateLimited(ctx, third, 2); !errors.Is(err, tasks.ErrTooMany) {
		t.Fatalf("CreateLimited over the limit = %v, want ErrTooMany", err)
	}
	if _, err := s.Get(ctx, third.ID); !errors.Is(err, tasks.ErrNotFound) {
		t.Fatalf("Get of a refused task = %v, want ErrNotFound", err)
	}
	openCount(t, s, "alice", 2, "after a refused creation")

	// Other principals, a higher limit and no limit are not refused.
	if err := s.CreateLimited(ctx, sampleOf(t, clock.Now(), "bob", tasks.Working), 2); err != nil {
		t.Errorf("CreateLimited of another principal: %v", err)
	}
	if err := s.CreateLimited(ctx, third, 3); err != nil {
		t.Errorf("CreateLimited under a higher limit: %v", err)
	}
	for _, limit := range []int{0, -1} {
		if err := s.CreateLimited(ctx, sampleOf(t, clock.Now(), "alice", tasks.Working), limit); err != nil {
			t.Errorf("CreateLimited with limit %d: %v", limit, err)
		}
	}
	openCount(t, s, "alice", 5, "after creations with no limit")
	// A taken id is still ErrExists, under the limit or not.
	if err := s.CreateLimited(ctx, first.Clone(), 100); !errors.Is(err, tasks.ErrExists) {
		t.Errorf("CreateLimited of a taken id = %v, want ErrExists", err)
	}

	// An ended task frees a place, and so does an expired one.
	clock.Advance(time.Minute)
	limit := 5
	setStatus(t, s, clock, first.ID, tasks.Completed)
	if err := s.CreateLimited(ctx, sampleOf(t, clock.Now(), "alice", tasks.Working), limit); err != nil {
		t.Fatalf("CreateLimited after a task ended: %v", err)
	}
	if err := s.CreateLimited(ctx, sampleOf(t, clock.Now(), "alice", tasks.Working), limit); !errors.Is(err, tasks.ErrTooMany) {
		t.Fatalf("CreateLimited at the limit again = %v, want ErrTooMany", err)
	}
	clock.Advance(59 * time.Minute) // the tasks made at the start expire
	openCount(t, s, "alice", 1, "once the first ones expired")
	if err := s.CreateLimited(ctx, sampleOf(t, clock.Now(), "alice", tasks.Working), 2); err != nil {
		t.Fatalf("CreateLimited after tasks expired: %v", err)
	}
}

func testCreateLimitedConcurrent(t *testing.T, s tasks.Store, clock *Clock) {
	const limit, callers = 5, 24
	var (
		wg            sync.WaitGroup
		mu            sync.Mutex
		made, refused int
	)
	for range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := s.CreateLimited(context.Background(), sampleOf(t, clock.Now(), "alice", tasks.Working), limit)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				made++
			case errors.Is(err, tasks.ErrTooMany):
				refused++
			default:
				t.Errorf("CreateLimited: %v", err)
			}
		}()
	}
	wg.Wait()
	if made != limit || refused != callers-limit {
		t.Fatalf("%d concurrent creations with limit %d: %d made, %d refused", callers, limit, made, refused)
	}
	openCount(t, s, "alice", limit, "after concurrent creations")
}

func testOpenTasksReopen(t *testing.T, open func() tasks.Store, clock *Clock) {
	s := open()
	ctx := context.Background()
	working := sampleOf(t, clock.Now(), "alice", tasks.Working)
	asking := sampleOf(t, clock.Now(), "alice", tasks.InputRequired)
	for _, task := range []*tasks.Task{working, asking, sampleOf(t, clock.Now(), "alice", tasks.Completed)} {
		if err := s.Create(ctx, task); err != nil {
			t.Fatalf("Create: %v", err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	s = open()
	openCount(t, s, "alice", 2, "after the store was opened again")
	if err := s.CreateLimited(ctx, sampleOf(t, clock.Now(), "alice", tasks.Working), 2); !errors.Is(err, tasks.ErrTooMany) {
		t.Fatalf("CreateLimited at the limit after a reopen = %v, want ErrTooMany", err)
	}
	setStatus(t, s, clock, working.ID, tasks.Completed)
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	s = open()
	openCount(t, s, "alice", 1, "after a task ended and the store was opened again")
}
