package serve_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/flowserve/flowserve/flow"
	"github.com/flowserve/flowserve/serve"
	"github.com/flowserve/flowserve/tasks"
)

// corruptStore is a run store whose record of one task does not decode,
// as tasks.Bolt reports a damaged record: ErrCorrupt on every read.
type corruptStore struct {
	*tasks.Memory
	id       string
	reads    atomic.Int32
	dispatch atomic.Int32
}

func (c *corruptStore) Update(ctx context.Context, id string, fn func(*tasks.Task) error) (*tasks.Task, error) {
	if id == c.id {
		c.reads.Add(1)
		return nil, fmt.Errorf("task %s in the run store: %w", id, tasks.ErrCorrupt)
	}
	return c.Memory.Update(ctx, id, fn)
}

func (c *corruptStore) Dispatch(ctx context.Context, id string) error {
	if id == c.id {
		c.dispatch.Add(1)
	}
	return c.Memory.Dispatch(ctx, id)
}

// TestCorruptTaskNotRetried: a dispatched task whose record is damaged is
// logged once and dropped from the queue, not dispatched again forever.
func TestCorruptTaskNotRetried(t *testing.T) {
	ctx := testCtx(t)
	store := &corruptStore{Memory: tasks.NewMemory(time.Now), id: strings.Repeat("c", 32)}
	t.Cleanup(func() { store.Close() })
	var logs logBuffer
	srv := serverWith(t, []*flow.Program{refundProgram(t, "1h")}, serve.Options{Tasks: store, Logger: logs.logger(0)})
	t.Cleanup(func() {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		srv.Close(ctx)
	})
	now := time.Now()
	if err := store.Create(ctx, &tasks.Task{ID: store.id, Tool: "refund", Status: tasks.Working, Created: now, Updated: now, TTL: time.Hour}); err != nil {
		t.Fatal(err)
	}
	if err := store.Memory.Dispatch(ctx, store.id); err != nil {
		t.Fatal(err)
	}
	for {
		found := false
		for _, r := range logs.records(t) {
			found = found || strings.Contains(fmt.Sprint(r["msg"]), "its record in the run store is damaged")
		}
		if found {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("no log of the damaged task; reads %d, dispatches %d", store.reads.Load(), store.dispatch.Load())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if n := store.dispatch.Load(); n != 0 {
		t.Errorf("the damaged task was dispatched again %d times", n)
	}
}
