package versions_test

import (
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/flowserve/flowserve/internal/kv/kvtest"
	"github.com/flowserve/flowserve/replies/redis/redistest"
	"github.com/flowserve/flowserve/versions"
	"github.com/flowserve/flowserve/versions/redis"
	"github.com/flowserve/flowserve/versions/storetest"
)

var (
	_ versions.Store = (*versions.Memory)(nil)
	_ versions.Store = (*versions.Bolt)(nil)
	_ versions.Store = (*redis.Store)(nil)
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
		kvtest.Backend[versions.Store]{Name: "memory", Open: func(t *testing.T, now func() time.Time) versions.Store {
			return versions.NewMemory(now)
		}},
		kvtest.Backend[versions.Store]{Name: "bolt", Reopen: func(t *testing.T, now func() time.Time) func() versions.Store {
			path := filepath.Join(t.TempDir(), "versions.db")
			return func() versions.Store { return openBolt(t, path, now) }
		}},
		kvtest.Backend[versions.Store]{Name: "redis-open", Setup: startRedis, Reopen: func(t *testing.T, now func() time.Time) func() versions.Store {
			p := prefix()
			return func() versions.Store {
				s, err := redis.Open(srv.URL, redis.Options{Prefix: p, Now: now})
				if err != nil {
					t.Fatalf("Open: %v", err)
				}
				return s
			}
		}},
		kvtest.Backend[versions.Store]{Name: "redis-new", Setup: startRedis, Reopen: func(t *testing.T, now func() time.Time) func() versions.Store {
			p := prefix()
			return func() versions.Store {
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
