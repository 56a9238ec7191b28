package versions_test

import (
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
	storetest.Contract.RunBackends(t, append([]kvtest.Backend[versions.Store]{
		{Name: "memory", Open: func(t *testing.T, now func() time.Time) versions.Store { return versions.NewMemory(now) }},
		kvtest.BoltBackend("versions.db", func(t *testing.T, path string, now func() time.Time) versions.Store {
			return openBolt(t, path, now)
		}),
	}, kvtest.RedisBackends(
		func(url, prefix string, now func() time.Time) (versions.Store, error) {
			return redis.Open(url, redis.Options{Prefix: prefix, Now: now})
		},
		func(client goredis.UniversalClient, prefix string, now func() time.Time) (versions.Store, error) {
			return redis.New(client, redis.Options{Prefix: prefix, Now: now})
		},
	)...)...)
}
