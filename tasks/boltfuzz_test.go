package tasks_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/flowserve/flowserve/internal/boltcheck"
	"github.com/flowserve/flowserve/tasks"
)

// fuzzStore writes a small run store (tasks, dispatches) and returns its
// bytes and its tasks' ids.
func fuzzStore(f *testing.F) ([]byte, []string) {
	ctx := context.Background()
	path := filepath.Join(f.TempDir(), "tasks.db")
	s, err := tasks.OpenBolt(path, tasks.BoltOptions{})
	if err != nil {
		f.Fatal(err)
	}
	var ids []string
	for i := range 40 {
		id, err := tasks.NewID()
		if err != nil {
			f.Fatal(err)
		}
		now := time.Now()
		task := &tasks.Task{ID: id, Tool: "deploy", Version: "9f86d081884c7d65", Status: tasks.Working,
			State: strings.Repeat("s", 200), Created: now, Updated: now, TTL: 24 * time.Hour}
		if err := s.Create(ctx, task); err != nil {
			f.Fatal(err)
		}
		if i%4 == 0 {
			if err := s.Dispatch(ctx, id); err != nil {
				f.Fatal(err)
			}
		}
		ids = append(ids, id)
	}
	if err := s.Close(); err != nil {
		f.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	return data, ids
}

// FuzzOpenBolt opens run store files made by damaging a real one: OpenBolt
// never panics (nor faults), a damaged file is refused with an error naming
// it, and a file it opens serves each task, or says it is gone, or corrupt
// by its id.
func FuzzOpenBolt(f *testing.F) {
	good, ids := fuzzStore(f)
	psz := os.Getpagesize()
	f.Add(good)
	f.Add(good[:3*psz])
	f.Add(good[:len(good)-psz/2])
	f.Add([]byte{})
	f.Add([]byte("not a bolt file\n"))
	for _, off := range []int{16 + 40, psz + 16 + 40, 2*psz + 4, 3*psz + 8, 3*psz + 20} {
		b := append([]byte(nil), good...)
		b[off] ^= 0xff
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "tasks.db")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		s, err := tasks.OpenBolt(path, tasks.BoltOptions{})
		var damaged *boltcheck.DamagedError
		switch {
		case errors.As(err, &damaged):
			if prefix := "the run store " + path + " is damaged: "; !strings.HasPrefix(err.Error(), prefix) {
				t.Fatalf("OpenBolt = %q, want it to begin %q", err, prefix)
			}
			return
		case err != nil: // a file bbolt opens whose buckets are not the store's
			if !strings.Contains(err.Error(), path) {
				t.Fatalf("OpenBolt = %q, want an error naming the file", err)
			}
			return
		}
		defer s.Close()
		servesOrNames(t, s, ids)
	})
}
