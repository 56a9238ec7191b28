package tasks_test

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"path/filepath"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/flowserve/flowserve/internal/kv/kvtest"
	"github.com/flowserve/flowserve/tasks"
	"github.com/flowserve/flowserve/tasks/storetest"
)

// openBolt opens the store at path and closes it when the test ends.
func openBolt(t *testing.T, path string, now func() time.Time) *tasks.Bolt {
	t.Helper()
	s, err := tasks.OpenBolt(path, tasks.BoltOptions{Now: now})
	if err != nil {
		t.Fatalf("OpenBolt: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// mustClaim claims the next task, or fails the test after a generous
// timeout.
func mustClaim(t *testing.T, s tasks.Store) *tasks.Claim {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := s.Claim(ctx)
	if err != nil {
		t.Fatalf("Claim: %v", err)
	}
	return c
}

// TestBoltRestart checks what a store opened again dispatches: the claims
// that were not released, as takeovers, then the dispatches not claimed,
// in order; not the released claims, nor tasks that expired meanwhile.
func TestBoltRestart(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "tasks.db")
	clock := kvtest.NewClock(time.Now().UTC())
	s := openBolt(t, path, clock.Now)

	ids := map[string]string{} // name → id
	for _, name := range []string{"done", "crashed", "queued1", "queued2", "expires", "sentinel"} {
		task := storetest.Sample(t, clock.Now())
		if name == "expires" {
			task.TTL = time.Minute
		}
		if err := s.Create(ctx, task); err != nil {
			t.Fatalf("Create: %v", err)
		}
		ids[name] = task.ID
	}
	for _, name := range []string{"done", "crashed", "queued1", "expires", "queued2"} {
		if err := s.Dispatch(ctx, ids[name]); err != nil {
			t.Fatalf("Dispatch: %v", err)
		}
	}
	done := mustClaim(t, s)
	if err := done.Release(); err != nil {
		t.Fatalf("Release: %v", err)
	}
	crashed := mustClaim(t, s)
	if crashed.ID != ids["crashed"] || crashed.Takeover {
		t.Fatalf("second claim = {%s, takeover %v}, want the crashed task, no takeover", crashed.ID, crashed.Takeover)
	}
	if _, err := tasks.Own(ctx, s, crashed); err != nil {
		t.Fatalf("Own: %v", err)
	}
	// The process stops without releasing the claim.
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}

	clock.Advance(2 * time.Minute) // "expires" expires while the file is closed
	s = openBolt(t, path, clock.Now)
	if err := s.Dispatch(ctx, ids["sentinel"]); err != nil {
		t.Fatalf("Dispatch: %v", err)
	}
	want := []struct {
		name     string
		takeover bool
	}{
		{"crashed", true},
		{"queued1", false},
		{"queued2", false},
		{"sentinel", false}, // so nothing else was dispatched again
	}
	var takeover *tasks.Claim
	for i, w := range want {
		c := mustClaim(t, s)
		if c.ID != ids[w.name] || c.Takeover != w.takeover {
			t.Fatalf("claim %d after reopening = {%s, takeover %v}, want %s (%s), takeover %v",
				i, c.ID, c.Takeover, w.name, ids[w.name], w.takeover)
		}
		if w.takeover {
			takeover = c
		} else if err := c.Release(); err != nil {
			t.Fatalf("Release: %v", err)
		}
	}
	owned, err := tasks.Own(ctx, s, takeover)
	if err != nil {
		t.Fatalf("Own: %v", err)
	}
	if want := storetest.Sample(t, clock.Now()); owned.Runs != want.Runs+2 || owned.Takeovers != want.Takeovers+1 {
		t.Errorf("after the takeover: Runs %d, Takeovers %d; want %d, %d", owned.Runs, owned.Takeovers, want.Runs+2, want.Takeovers+1)
	}
	if _, err := s.Get(ctx, ids["expires"]); !errors.Is(err, tasks.ErrNotFound) {
		t.Errorf("Get of a task that expired while closed = %v, want ErrNotFound", err)
	}

	// A takeover that is not released either is taken over again.
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	s = openBolt(t, path, clock.Now)
	if c := mustClaim(t, s); c.ID != ids["crashed"] || !c.Takeover {
		t.Fatalf("claim after the second restart = {%s, takeover %v}, want the crashed task as a takeover", c.ID, c.Takeover)
	} else if err := c.Release(); err != nil {
		t.Fatalf("Release: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}

	// What the file holds: no queued or claimed records left, and the
	// expired task swept at open.
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true, Timeout: time.Second})
	if err != nil {
		t.Fatalf("open the file: %v", err)
	}
	defer db.Close()
	db.View(func(tx *bolt.Tx) error {
		for _, bucket := range []string{"queued", "claimed"} {
			if n := tx.Bucket([]byte(bucket)).Stats().KeyN; n != 0 {
				t.Errorf("bucket %q holds %d records, want none", bucket, n)
			}
		}
		if tx.Bucket([]byte("tasks")).Get([]byte(ids["expires"])) != nil {
			t.Errorf("the expired task is still in the file")
		}
		if tx.Bucket([]byte("tasks")).Get([]byte(ids["done"])) == nil {
			t.Errorf("a live task is gone from the file")
		}
		return nil
	})
}

// boltOpener opens a store on the file at path, for kvtest's checks.
func boltOpener(path string) (io.Closer, error) {
	return tasks.OpenBolt(path, tasks.BoltOptions{})
}

// TestBoltInUse checks that a second store on the same file fails with a
// clear error instead of waiting for the first to close.
func TestBoltInUse(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tasks.db")
	kvtest.BoltInUse(t, path, boltOpener, "the task store "+path+" is in use by another flowserve process")
}

// TestBoltNotADatabase checks that a file that is not a store is refused.
func TestBoltNotADatabase(t *testing.T) {
	kvtest.BoltNotADatabase(t, filepath.Join(t.TempDir(), "tasks.db"), boltOpener)
}

// TestBoltDue checks schedules on the real clock and what the file holds
// of them: a due schedule is moved to the dispatches and gone from
// "due", one not yet due stays there keyed by its instant (big-endian unix
// nanoseconds) and task id, and a schedule of a task that is gone is
// dropped, not dispatched.
func TestBoltDue(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "tasks.db")
	s := openBolt(t, path, nil)
	var ids []string
	for range 3 {
		task := storetest.Sample(t, time.Now())
		if err := s.Create(ctx, task); err != nil {
			t.Fatalf("Create: %v", err)
		}
		ids = append(ids, task.ID)
	}
	soon, later, gone := ids[0], ids[1], ids[2]
	at := time.Now().Add(time.Hour)
	for _, d := range []struct {
		id string
		at time.Time
	}{{later, at}, {gone, time.Now().Add(100 * time.Millisecond)}, {soon, time.Now().Add(150 * time.Millisecond)}} {
		if err := s.DispatchAt(ctx, d.id, d.at); err != nil {
			t.Fatalf("DispatchAt: %v", err)
		}
	}
	if _, err := s.Update(ctx, gone, func(t *tasks.Task) error {
		t.Updated = time.Now().Add(-2 * time.Hour) // expired: dropped by Get
		return nil
	}); err != nil {
		t.Fatalf("Update: %v", err)
	}
	if _, err := s.Get(ctx, gone); !errors.Is(err, tasks.ErrNotFound) {
		t.Fatalf("Get of an expired task = %v, want ErrNotFound", err)
	}
	if c := mustClaim(t, s); c.ID != soon || c.Takeover {
		t.Fatalf("claim = {%s, takeover %v}, want %s, no takeover", c.ID, c.Takeover, soon)
	} else if err := c.Release(); err != nil {
		t.Fatalf("Release: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}

	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true, Timeout: time.Second})
	if err != nil {
		t.Fatalf("open the file: %v", err)
	}
	defer db.Close()
	db.View(func(tx *bolt.Tx) error {
		var keys []string
		tx.Bucket([]byte("due")).ForEach(func(k, _ []byte) error {
			keys = append(keys, string(k))
			return nil
		})
		want := string(binary.BigEndian.AppendUint64(nil, uint64(at.UnixNano()))) + later
		if len(keys) != 1 || keys[0] != want {
			t.Errorf("due holds %q, want only %q", keys, want)
		}
		if n := tx.Bucket([]byte("queued")).Stats().KeyN; n != 0 {
			t.Errorf("queued holds %d records, want none", n)
		}
		return nil
	})
}
