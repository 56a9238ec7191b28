package tasks_test

import (
	"context"
	"testing"
	"time"

	"github.com/flowserve/flowserve/tasks"
	"github.com/flowserve/flowserve/tasks/storetest"
)

// TestMemoryDispatchAtRealClock checks a schedule of a store on the real
// clock, and that a store closes with a schedule pending.
func TestMemoryDispatchAtRealClock(t *testing.T) {
	ctx := context.Background()
	m := tasks.NewMemory(nil)
	task := storetest.Sample(t, time.Now())
	if err := m.Create(ctx, task); err != nil {
		t.Fatalf("Create: %v", err)
	}
	if err := m.DispatchAt(ctx, task.ID, time.Now().Add(100*time.Millisecond)); err != nil {
		t.Fatalf("DispatchAt: %v", err)
	}
	if err := m.DispatchAt(ctx, task.ID, time.Now().Add(time.Hour)); err != nil {
		t.Fatalf("DispatchAt: %v", err)
	}
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	c, err := m.Claim(cctx)
	if err != nil {
		t.Fatalf("Claim: %v", err)
	}
	if c.ID != task.ID || c.Takeover {
		t.Fatalf("claim = {%s, takeover %v}, want %s, no takeover", c.ID, c.Takeover, task.ID)
	}
	if err := m.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := m.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
}
