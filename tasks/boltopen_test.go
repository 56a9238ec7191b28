package tasks_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/flowserve/flowserve/internal/kv/kvtest"
	"github.com/flowserve/flowserve/tasks"
	"github.com/flowserve/flowserve/tasks/storetest"
)

// TestBoltOpenIndexBuilt: a file written before the index of open tasks
// existed (no "open" bucket) gets it built from its tasks, by a count or
// by the first write, so that the limit counts the tasks made before.
func TestBoltOpenIndexBuilt(t *testing.T) {
	ctx := context.Background()
	clock := kvtest.NewClock(time.Now().UTC())
	tests := []struct {
		name  string
		first func(t *testing.T, s *tasks.Bolt) // what meets the file without the index first
	}{
		{"a count", func(t *testing.T, s *tasks.Bolt) {
			if n, err := s.OpenTasks(ctx, "alice", 0); err != nil || n != 2 {
				t.Fatalf("OpenTasks = %d, %v, want 2", n, err)
			}
		}},
		{"a creation", func(t *testing.T, s *tasks.Bolt) {
			err := s.CreateLimited(ctx, sample(t, clock, "alice", tasks.Working), 2)
			if !errors.Is(err, tasks.ErrTooMany) {
				t.Fatalf("CreateLimited at the limit = %v, want ErrTooMany", err)
			}
		}},
		{"another principal's creation", func(t *testing.T, s *tasks.Bolt) {
			other := sample(t, clock, "bob", tasks.Working)
			if err := s.Create(ctx, other); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "tasks.db")
			s := openBolt(t, path, clock.Now)
			for _, st := range []tasks.Status{tasks.Working, tasks.InputRequired, tasks.Completed} {
				if err := s.Create(ctx, sample(t, clock, "alice", st)); err != nil {
					t.Fatal(err)
				}
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			dropIndex(t, path)
			s = openBolt(t, path, clock.Now)
			tt.first(t, s)
			if n, err := s.OpenTasks(ctx, "alice", 0); err != nil || n != 2 {
				t.Fatalf("OpenTasks after %s = %d, %v, want 2", tt.name, n, err)
			}
		})
	}
}

// sample is a task of principal with status st, updated now, kept an hour.
func sample(t *testing.T, clock *kvtest.Clock, principal string, st tasks.Status) *tasks.Task {
	t.Helper()
	task := storetest.Sample(t, clock.Now())
	task.Principal, task.Status = principal, st
	return task
}

// dropIndex deletes the index of open tasks from the file at path, as a
// file written before the index existed lacks it.
func dropIndex(t *testing.T, path string) {
	t.Helper()
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = db.Update(func(tx *bolt.Tx) error { return tx.DeleteBucket([]byte("open")) })
	if err != nil {
		t.Fatalf("delete the index: %v", err)
	}
}
