package redis_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/flowserve/flowserve/replies/redis/redistest"
	"github.com/flowserve/flowserve/tasks"
	"github.com/flowserve/flowserve/tasks/redis"
	"github.com/flowserve/flowserve/tasks/storetest"
)

// TestOpenTasksAcrossInstances: instances sharing a Redis share each
// principal's count of open tasks, and creating tasks of one principal
// from several at once never exceeds the limit; a task ended on one
// instance makes room on another.
func TestOpenTasksAcrossInstances(t *testing.T) {
	srv := redistest.Start(t)
	ctx := context.Background()
	var instances []*redis.Store
	for range 3 {
		instances = append(instances, newStore(t, srv.Client(t), redis.Options{Prefix: "shared:"}))
	}
	const limit, each = 4, 6
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		made []string
	)
	for _, s := range instances {
		for range each {
			wg.Add(1)
			go func() {
				defer wg.Done()
				task := storetest.Sample(t, time.Now())
				task.Status = tasks.Working
				err := s.CreateLimited(ctx, task, limit)
				switch {
				case err == nil:
					mu.Lock()
					made = append(made, task.ID)
					mu.Unlock()
				case !errors.Is(err, tasks.ErrTooMany):
					t.Errorf("CreateLimited: %v", err)
				}
			}()
		}
	}
	wg.Wait()
	if len(made) != limit {
		t.Fatalf("%d instances creating %d tasks each with limit %d: %d made", len(instances), each, limit, len(made))
	}
	for _, s := range instances {
		if n, err := s.OpenTasks(ctx, "alice", 0); err != nil || n != limit {
			t.Errorf("OpenTasks on an instance = %d, %v, want %d", n, err, limit)
		}
	}
	if _, err := instances[0].Update(ctx, made[0], func(task *tasks.Task) error {
		task.Status = tasks.Cancelled
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	task := storetest.Sample(t, time.Now())
	if err := instances[2].CreateLimited(ctx, task, limit); err != nil {
		t.Errorf("CreateLimited on another instance after a task ended: %v", err)
	}
}

// TestOpenIndexKey: a principal's index of open tasks lives as long as
// its last open task, and is gone once none is open, so that it leaves
// nothing behind in Redis.
func TestOpenIndexKey(t *testing.T) {
	srv := redistest.Start(t)
	client := srv.Client(t)
	s := newStore(t, client, redis.Options{Prefix: "index:"})
	ctx := context.Background()
	key := s.OpenKey("alice")
	if !strings.HasPrefix(key, "index:open:") || strings.Contains(key, "alice") {
		t.Errorf("index key %q: want the prefix, and the principal hashed", key)
	}
	task := storetest.Sample(t, time.Now())
	task.Status, task.TTL = tasks.Working, time.Hour
	if err := s.Create(ctx, task); err != nil {
		t.Fatal(err)
	}
	ttl, err := client.PTTL(ctx, key).Result()
	if err != nil || ttl <= 59*time.Minute || ttl > time.Hour+time.Second {
		t.Errorf("the index's expiry: %v, %v, want the task's hour", ttl, err)
	}
	if _, err := s.Update(ctx, task.ID, func(task *tasks.Task) error {
		task.Status = tasks.Completed
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if n, err := client.Exists(ctx, key).Result(); err != nil || n != 0 {
		t.Errorf("the index once no task is open: exists %d, %v", n, err)
	}
}
