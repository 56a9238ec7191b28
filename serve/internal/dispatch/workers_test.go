package dispatch

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/flowserve/flowserve/tasks"
)

// store returns a run store holding a working task of each caller named
// in ids ("<caller><n>"), each dispatched in that order.
func store(t *testing.T, ids ...string) *tasks.Memory {
	t.Helper()
	m := tasks.NewMemory(nil)
	ctx := context.Background()
	for _, id := range ids {
		now := time.Now()
		if err := m.Create(ctx, &tasks.Task{ID: id, Tool: "t", Principal: id[:1], Status: tasks.Working, Created: now, Updated: now, TTL: time.Hour}); err != nil {
			t.Fatal(err)
		}
		if err := m.Dispatch(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	return m
}

// rounds records the rounds a Workers runs, each held until let go.
type rounds struct {
	mu      sync.Mutex
	started []string
	arrived chan string
	letGo   chan struct{}
}

func newRounds() *rounds {
	return &rounds{arrived: make(chan string, 100), letGo: make(chan struct{})}
}

func (r *rounds) run(ctx context.Context, c *tasks.Claim) {
	r.mu.Lock()
	r.started = append(r.started, c.ID)
	r.mu.Unlock()
	r.arrived <- c.ID
	select {
	case <-r.letGo:
		c.Release()
	case <-ctx.Done():
	}
}

// wait returns the ids of the next n rounds to start, sorted.
func (r *rounds) wait(t *testing.T, n int) []string {
	t.Helper()
	var ids []string
	for range n {
		select {
		case id := <-r.arrived:
			ids = append(ids, id)
		case <-time.After(5 * time.Second):
			t.Fatalf("only %q started", ids)
		}
	}
	slices.Sort(ids)
	return ids
}

// quiet fails when a round starts within a short while.
func (r *rounds) quiet(t *testing.T) {
	t.Helper()
	select {
	case id := <-r.arrived:
		t.Fatalf("%s started", id)
	case <-time.After(100 * time.Millisecond):
	}
}

// TestWorkersFair: a caller's backlog holds the shared workers only; a
// caller with nothing running starts on the reserve at once; every task
// runs once.
func TestWorkersFair(t *testing.T) {
	m := store(t, "a1", "a2", "a3", "b1")
	r := newRounds()
	w := New(Options{Store: m, Workers: 2, Log: slog.New(slog.DiscardHandler), Run: r.run})
	w.Start()
	defer shut(w)
	got := r.wait(t, 2)
	if got[0][0] != 'a' || got[1] != "b1" {
		t.Fatalf("first rounds %q, want one of a's and b1", got)
	}
	r.quiet(t)
	for range 2 {
		r.letGo <- struct{}{}
	}
	// a's backlog runs one round at a time: the other worker is the
	// reserve, kept for a caller with nothing running.
	rest := r.wait(t, 1)
	r.quiet(t)
	r.letGo <- struct{}{}
	rest = append(rest, r.wait(t, 1)...)
	all := slices.Concat(got, rest)
	slices.Sort(all)
	if !slices.Equal(all, []string{"a1", "a2", "a3", "b1"}) {
		t.Errorf("rounds %q, want each task once", all)
	}
	close(r.letGo)
}

// TestWorkersCloseHandsBack: Close stops the rounds running when its
// context ends, and hands the claims no round ran back to the store,
// where other workers find them.
func TestWorkersCloseHandsBack(t *testing.T) {
	m := store(t, "a1", "a2", "a3")
	r := newRounds()
	w := New(Options{Store: m, Workers: 1, Log: slog.New(slog.DiscardHandler), Run: r.run})
	w.Start()
	first := r.wait(t, 1)
	time.Sleep(100 * time.Millisecond) // the other claims reach the pool
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := w.Close(ctx); err == nil {
		t.Error("Close with a round still running past its deadline says nothing")
	}
	again := newRounds()
	w2 := New(Options{Store: m, Workers: 4, Log: slog.New(slog.DiscardHandler), Run: again.run})
	w2.Start()
	defer shut(w2)
	got := again.wait(t, 2)
	if slices.Contains(got, first[0]) || len(got) != 2 {
		t.Errorf("handed back %q; the round of %s was running", got, first[0])
	}
	close(again.letGo)
}

// TestWorkersRunning: a registered round's context ends on Stop, and
// when its task ends elsewhere (read from the store).
func TestWorkersRunning(t *testing.T) {
	m := store(t)
	ctx := context.Background()
	now := time.Now()
	for _, id := range []string{"a1", "a2"} {
		if err := m.Create(ctx, &tasks.Task{ID: id, Principal: "a", Status: tasks.Working, Created: now, Updated: now, TTL: time.Hour}); err != nil {
			t.Fatal(err)
		}
	}
	w := New(Options{Store: m, Workers: 1, Poll: 10 * time.Millisecond, Run: func(context.Context, *tasks.Claim) {}})
	stopped, done := w.Running(ctx, "a1")
	defer done()
	watched, done2 := w.Running(ctx, "a2")
	defer done2()
	w.Stop("a1")
	if stopped.Err() == nil {
		t.Error("Stop left the round running")
	}
	if watched.Err() != nil {
		t.Fatal("another task's round stopped")
	}
	if _, err := m.Update(ctx, "a2", func(t *tasks.Task) error { t.Status = tasks.Cancelled; return nil }); err != nil {
		t.Fatal(err)
	}
	select {
	case <-watched.Done():
	case <-time.After(5 * time.Second):
		t.Error("the round of a task cancelled elsewhere runs on")
	}
	w.Stop("nothing") // no round: nothing happens
}

// TestWorkersRedispatch: a task given up by its owner is cleared of it
// and dispatched again.
func TestWorkersRedispatch(t *testing.T) {
	m := store(t)
	ctx := context.Background()
	now := time.Now()
	if err := m.Create(ctx, &tasks.Task{ID: "a1", Principal: "a", Status: tasks.Working, Owner: "tok", Created: now, Updated: now, TTL: time.Hour}); err != nil {
		t.Fatal(err)
	}
	w := New(Options{Store: m, Workers: 1, Run: func(context.Context, *tasks.Claim) {}})
	defer w.StopClaims()
	w.Redispatch("a1", "tok")
	claimCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	c, err := m.Claim(claimCtx)
	if err != nil {
		t.Fatalf("not dispatched again: %v", err)
	}
	task, err := m.Get(ctx, c.ID)
	if err != nil {
		t.Fatal(err)
	}
	if c.ID != "a1" || task.Owner != "" {
		t.Errorf("claimed %s with owner %q", c.ID, task.Owner)
	}
}

// TestWorkersGoneTask: a claim of a task that is gone is released
// without a round.
func TestWorkersGoneTask(t *testing.T) {
	m := store(t, "a1")
	if _, err := m.Update(context.Background(), "a1", func(*tasks.Task) error { return nil }); err != nil {
		t.Fatal(err)
	}
	ran := make(chan string, 1)
	gone := &goneStore{Memory: m, gone: "a1"}
	w := New(Options{Store: gone, Workers: 1, Run: func(_ context.Context, c *tasks.Claim) { ran <- c.ID }})
	w.Start()
	defer shut(w)
	select {
	case id := <-ran:
		t.Errorf("ran the round of %s, which is gone", id)
	case <-time.After(200 * time.Millisecond):
	}
}

// goneStore is a store whose task gone is not found.
type goneStore struct {
	*tasks.Memory
	gone string
}

func (g *goneStore) Get(ctx context.Context, id string) (*tasks.Task, error) {
	if id == g.gone {
		return nil, fmt.Errorf("get %s: %w", id, tasks.ErrNotFound)
	}
	return g.Memory.Get(ctx, id)
}

// shut closes w, stopping the rounds still running.
func shut(w *Workers) {
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	w.Close(ctx)
}
