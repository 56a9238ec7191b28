package kvtest

import (
	"fmt"
	"sync"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/flowserve/flowserve/replies/redis/redistest"
)

// RedisBackends returns the backends of a store on Redis, each on a
// redis-server started for it (replies/redis/redistest): "redis-open",
// whose stores open makes on the server's URL (a store that owns its
// client), and "redis-new", whose stores build makes on a client the
// tests share. Each test's stores have a key prefix of their own, so
// that they see only what the stores before them in the test left.
func RedisBackends[S any](
	open func(url, prefix string, now func() time.Time) (S, error),
	build func(client goredis.UniversalClient, prefix string, now func() time.Time) (S, error),
) []Backend[S] {
	var (
		srv    *redistest.Server
		shared *goredis.Client
		mu     sync.Mutex
		n      int
	)
	start := func(t *testing.T) {
		srv = redistest.Start(t)
		shared = srv.Client(t)
	}
	prefix := func() string {
		mu.Lock()
		defer mu.Unlock()
		n++
		return fmt.Sprintf("test%d:", n)
	}
	backend := func(name string, newStore func(prefix string, now func() time.Time) (S, error)) Backend[S] {
		return Backend[S]{Name: name, Setup: start, Reopen: func(t *testing.T, now func() time.Time) func() S {
			p := prefix()
			return func() S {
				s, err := newStore(p, now)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				return s
			}
		}}
	}
	return []Backend[S]{
		backend("redis-open", func(p string, now func() time.Time) (S, error) { return open(srv.URL, p, now) }),
		backend("redis-new", func(p string, now func() time.Time) (S, error) { return build(shared, p, now) }),
	}
}
