package storetest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/flowserve/flowserve/tasks"
)

// The contract of dispatch and claims: each dispatch is claimed by exactly
// one worker, Claim honours its context, and a claim taken over fences the
// writes of the one before it (Own, UpdateOwned).

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
