package tasks_test

import (
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/flowserve/flowserve/internal/kv/kvtest"
	"github.com/flowserve/flowserve/replies/redis/redistest"
	"github.com/flowserve/flowserve/tasks"
	"github.com/flowserve/flowserve/tasks/redis"
	"github.com/flowserve/flowserve/tasks/storetest"
)

var (
	_ tasks.Store = (*tasks.Memory)(nil)
	_ tasks.Store = (*tasks.Bolt)(nil)
	_ tasks.Store = (*redis.Store)(nil)
)

func init() { redistest.Quiet() }

// TestContract runs the store contract over every implementation: Memory,
// Bolt (each test on a file of its own), and Redis, on a redis-server
// started for the test, with stores made both ways: with Open (the store
// owns its client and closes it) and with New on a shared client, each
// store under a prefix of its own.
func TestContract(t *testing.T) {
	var (
		srv    *redistest.Server
		shared *goredis.Client
		mu     sync.Mutex
		n      int
	)
	startRedis := func(t *testing.T) {
		srv = redistest.Start(t)
		shared = srv.Client(t)
	}
	prefix := func() string {
		mu.Lock()
		defer mu.Unlock()
		n++
		return fmt.Sprintf("test%d:", n)
	}
	storetest.Contract.RunBackends(t,
		kvtest.Backend[tasks.Store]{Name: "memory", Open: func(t *testing.T, now func() time.Time) tasks.Store {
			return tasks.NewMemory(now)
		}},
		kvtest.Backend[tasks.Store]{Name: "bolt", Reopen: func(t *testing.T, now func() time.Time) func() tasks.Store {
			path := filepath.Join(t.TempDir(), "tasks.db")
			return func() tasks.Store { return openBolt(t, path, now) }
		}},
		kvtest.Backend[tasks.Store]{Name: "redis-open", Setup: startRedis, Reopen: func(t *testing.T, now func() time.Time) func() tasks.Store {
			p := prefix()
			return func() tasks.Store {
				s, err := redis.Open(srv.URL, redis.Options{Prefix: p, Now: now})
				if err != nil {
					t.Fatalf("Open: %v", err)
				}
				return s
			}
		}},
		kvtest.Backend[tasks.Store]{Name: "redis-new", Setup: startRedis, Reopen: func(t *testing.T, now func() time.Time) func() tasks.Store {
			p := prefix()
			return func() tasks.Store {
				s, err := redis.New(shared, redis.Options{Prefix: p, Now: now})
				if err != nil {
					t.Fatalf("New: %v", err)
				}
				t.Cleanup(func() { s.Close() })
				return s
			}
		}},
	)
}
