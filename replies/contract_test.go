package replies_test

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/flowserve/flowserve/flow"
	"github.com/flowserve/flowserve/internal/kv/kvtest"
	"github.com/flowserve/flowserve/replies"
	"github.com/flowserve/flowserve/replies/redis"
)

// The stores of this module implement flow.ReplyStore.
var (
	_ flow.ReplyStore = (*replies.Memory)(nil)
	_ flow.ReplyStore = (*redis.Store)(nil)
)

// TestContract runs the behaviour every ReplyStore must have over each
// implementation: what a store holds and for how long, as the engine
// relies on it (flow.Program.Run: Get on each round with a state, Put of
// the final result for the state's remaining lifetime), and goroutines
// writing and reading their own keys at once (run with -race). The Redis
// store runs on a redis-server started for the test, made both ways: with
// Open (DefaultPrefix, a client of its own) and with New (a prefix of its
// own, a shared client). The stores run on the real clock, as Redis does:
// the tests of expiry sleep.
func TestContract(t *testing.T) {
	contract().RunBackends(t, append([]kvtest.Backend[flow.ReplyStore]{
		{Name: "memory", Open: func(*testing.T, func() time.Time) flow.ReplyStore { return replies.NewMemory(0, nil) }},
	}, kvtest.RedisBackends(
		func(url, _ string, _ func() time.Time) (flow.ReplyStore, error) { return redis.Open(url) },
		func(client goredis.UniversalClient, prefix string, _ func() time.Time) (flow.ReplyStore, error) {
			return redis.New(client, prefix), nil
		},
	)...)...)
}

func k(b ...byte) [32]byte {
	var key [32]byte
	copy(key[:], b)
	return key
}

// contract returns the tests of the contract: one per case of what a
// store holds, and the concurrent one.
func contract() kvtest.Suite[flow.ReplyStore] {
	binary := make([]byte, 256)
	for i := range binary {
		binary[i] = byte(i)
	}
	type step struct {
		put   bool // Put value under key for ttl, then Get
		key   [32]byte
		value []byte
		ttl   time.Duration
		sleep time.Duration // before the Get
		want  []byte        // nil: absent
	}
	cases := []struct {
		name  string
		steps []step
	}{
		{"missing key", []step{{key: k(1)}}},
		{"stored and read back", []step{{put: true, key: k(2), value: []byte(`{"round":3}`), ttl: time.Minute, want: []byte(`{"round":3}`)}}},
		{"binary value", []step{{put: true, key: k(3), value: binary, ttl: time.Minute, want: binary}}},
		{"empty value is stored", []step{{put: true, key: k(4), value: []byte{}, ttl: time.Minute, want: []byte{}}}},
		{"zero ttl stores nothing", []step{{put: true, key: k(5), value: []byte("x"), ttl: 0}}},
		{"negative ttl stores nothing", []step{{put: true, key: k(6), value: []byte("x"), ttl: -time.Second}}},
		{"overwrite", []step{
			{put: true, key: k(7), value: []byte("one"), ttl: time.Minute, want: []byte("one")},
			{put: true, key: k(7), value: []byte("two"), ttl: time.Minute, want: []byte("two")},
		}},
		{"keys differing in the last byte", []step{
			{put: true, key: k(8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1), value: []byte("a"), ttl: time.Minute, want: []byte("a")},
			{key: k(8)},
		}},
		{"expires", []step{
			{put: true, key: k(9), value: []byte("soon"), ttl: 150 * time.Millisecond, want: []byte("soon")},
			{key: k(9), sleep: 350 * time.Millisecond},
		}},
		{"sub-millisecond ttl does not keep the value long", []step{
			{put: true, key: k(10), value: []byte("brief"), ttl: time.Microsecond, sleep: 20 * time.Millisecond},
		}},
	}
	var suite kvtest.Suite[flow.ReplyStore]
	for _, tc := range cases {
		suite.Tests = append(suite.Tests, kvtest.Test[flow.ReplyStore]{Name: tc.name, Run: func(t *testing.T, store flow.ReplyStore, _ *kvtest.Clock) {
			ctx := context.Background()
			for i, s := range tc.steps {
				if s.put {
					if err := store.Put(ctx, s.key, s.value, s.ttl); err != nil {
						t.Fatalf("step %d: put: %v", i, err)
					}
				}
				time.Sleep(s.sleep)
				got, ok, err := store.Get(ctx, s.key)
				if err != nil {
					t.Fatalf("step %d: get: %v", i, err)
				}
				if ok != (s.want != nil) || !bytes.Equal(got, s.want) {
					t.Fatalf("step %d: got %q (found %v), want %q (found %v)", i, got, ok, s.want, s.want != nil)
				}
			}
		}})
	}
	suite.Tests = append(suite.Tests, kvtest.Test[flow.ReplyStore]{Name: "concurrent", Run: testConcurrent})
	return suite
}

// testConcurrent has goroutines write and read their own keys at once
// through the store; run with -race.
func testConcurrent(t *testing.T, store flow.ReplyStore, _ *kvtest.Clock) {
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for g := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				key := k(byte(g), byte(i), 0xee)
				val := fmt.Appendf(nil, "%d/%d", g, i)
				if err := store.Put(ctx, key, val, time.Minute); err != nil {
					errs <- err
					return
				}
				got, ok, err := store.Get(ctx, key)
				if err != nil || !ok || !bytes.Equal(got, val) {
					errs <- fmt.Errorf("goroutine %d, key %d: got %q (found %v, %v)", g, i, got, ok, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
