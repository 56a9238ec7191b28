package redis_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/flowserve/flowserve/replies/redis/redistest"
	"github.com/flowserve/flowserve/tasks"
	"github.com/flowserve/flowserve/tasks/redis"
	"github.com/flowserve/flowserve/tasks/storetest"
)

// wait bounds how long a test waits for the store to do something.
const wait = 30 * time.Second

func init() { redistest.Quiet() }

// newStore returns a store on client and closes it when the test ends.
func newStore(t *testing.T, client goredis.UniversalClient, opts redis.Options) *redis.Store {
	t.Helper()
	s, err := redis.New(client, opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// claim claims the next task of s, or fails the test after wait.
func claim(t *testing.T, s tasks.Store) *tasks.Claim {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	c, err := s.Claim(ctx)
	if err != nil {
		t.Fatalf("Claim: %v", err)
	}
	return c
}

// create stores a sample task through s and dispatches it.
func createAndDispatch(t *testing.T, s tasks.Store) *tasks.Task {
	t.Helper()
	ctx := context.Background()
	task := storetest.Sample(t, time.Now())
	if err := s.Create(ctx, task); err != nil {
		t.Fatalf("Create: %v", err)
	}
	if err := s.Dispatch(ctx, task.ID); err != nil {
		t.Fatalf("Dispatch: %v", err)
	}
	return task
}

// pending returns the stream's pending entries.
func pending(t *testing.T, raw *goredis.Client, s *redis.Store) []goredis.XPendingExt {
	t.Helper()
	p, err := raw.XPendingExt(context.Background(), &goredis.XPendingExtArgs{
		Stream: s.Stream(), Group: "workers", Start: "-", End: "+", Count: 100,
	}).Result()
	if err != nil {
		t.Fatalf("XPENDING: %v", err)
	}
	return p
}

// checkEmpty fails the test unless the stream holds no entries, pending
// or not.
func checkEmpty(t *testing.T, raw *goredis.Client, s *redis.Store) {
	t.Helper()
	if p := pending(t, raw, s); len(p) != 0 {
		t.Errorf("%d entries pending, want none: %+v", len(p), p)
	}
	if n, err := raw.XLen(context.Background(), s.Stream()).Result(); err != nil || n != 0 {
		t.Errorf("XLEN = %d, %v; want 0", n, err)
	}
}

// TestTakeover checks that the claim of a store closed without releasing
// it goes, once the lease has passed, to another instance as a takeover,
// and that the old claim can no longer write.
func TestTakeover(t *testing.T) {
	ctx := context.Background()
	raw := redistest.Start(t).Client(t)
	opts := func(consumer string) redis.Options {
		return redis.Options{Prefix: "takeover:", Consumer: consumer, Lease: 300 * time.Millisecond}
	}
	a := newStore(t, raw, opts("a"))
	b := newStore(t, raw, opts("b"))

	task := createAndDispatch(t, a)
	old := claim(t, a)
	if old.ID != task.ID || old.Takeover {
		t.Fatalf("first claim = {%s, takeover %v}, want %s, no takeover", old.ID, old.Takeover, task.ID)
	}
	if _, err := tasks.Own(ctx, a, old); err != nil {
		t.Fatalf("Own: %v", err)
	}
	if err := a.Close(); err != nil { // the instance stops mid-step
		t.Fatalf("Close: %v", err)
	}

	cur := claim(t, b)
	if cur.ID != task.ID || !cur.Takeover {
		t.Fatalf("claim on the other instance = {%s, takeover %v}, want %s as a takeover", cur.ID, cur.Takeover, task.ID)
	}
	owned, err := tasks.Own(ctx, b, cur)
	if err != nil {
		t.Fatalf("Own: %v", err)
	}
	if owned.Runs != task.Runs+2 || owned.Takeovers != task.Takeovers+1 {
		t.Errorf("after the takeover: Runs %d, Takeovers %d; want %d, %d", owned.Runs, owned.Takeovers, task.Runs+2, task.Takeovers+1)
	}
	if _, err := tasks.UpdateOwned(ctx, b, old, func(*tasks.Task) error { return nil }); !errors.Is(err, tasks.ErrNotOwner) {
		t.Errorf("UpdateOwned under the old claim = %v, want ErrNotOwner", err)
	}
	if err := old.Release(); !errors.Is(err, tasks.ErrClosed) {
		t.Errorf("Release on the closed store = %v, want ErrClosed", err)
	}
	if p := pending(t, raw, b); len(p) != 1 || p[0].Consumer != "b" {
		t.Fatalf("pending entries = %+v, want one, of consumer b", p)
	}
	if err := cur.Release(); err != nil {
		t.Fatalf("Release: %v", err)
	}
	checkEmpty(t, raw, b)
}

// TestKeepAlive checks that a claim held past several leases is not taken
// over by another instance that is claiming all along.
func TestKeepAlive(t *testing.T) {
	const lease = time.Second
	raw := redistest.Start(t).Client(t)
	opts := func(consumer string) redis.Options {
		return redis.Options{Prefix: "keepalive:", Consumer: consumer, Lease: lease}
	}
	a := newStore(t, raw, opts("a"))
	b := newStore(t, raw, opts("b"))

	createAndDispatch(t, a)
	held := claim(t, a)
	ctx, cancel := context.WithTimeout(context.Background(), 4*lease)
	defer cancel()
	if c, err := b.Claim(ctx); c != nil {
		t.Fatalf("another instance took over a claim kept alive (takeover %v)", c.Takeover)
	} else if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Claim = %v, want DeadlineExceeded", err)
	}
	p := pending(t, raw, a)
	if len(p) != 1 || p[0].Consumer != "a" || p[0].Idle >= lease {
		t.Fatalf("pending entries = %+v, want one of consumer a, idle less than the lease", p)
	}
	if p[0].RetryCount != 1 {
		t.Errorf("entry delivered %d times, want once (keeping it alive is not a delivery)", p[0].RetryCount)
	}
	if err := held.Release(); err != nil {
		t.Fatalf("Release: %v", err)
	}
	checkEmpty(t, raw, a)
}

// TestTakeoverOfGoneTask checks that an entry to take over whose task is
// gone is acknowledged and skipped, not handed to a worker.
func TestTakeoverOfGoneTask(t *testing.T) {
	raw := redistest.Start(t).Client(t)
	opts := func(consumer string) redis.Options {
		return redis.Options{Prefix: "gone:", Consumer: consumer, Lease: 100 * time.Millisecond}
	}
	a := newStore(t, raw, opts("a"))
	b := newStore(t, raw, opts("b"))
	task := createAndDispatch(t, a)
	claim(t, a)
	a.Close()
	if err := raw.Del(context.Background(), a.Key(task.ID)).Err(); err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		c, err := b.Claim(ctx)
		if c != nil {
			err = fmt.Errorf("claimed %s, whose task is gone (takeover %v)", c.ID, c.Takeover)
		}
		done <- err
	}()
	deadline := time.Now().Add(wait)
	for len(pending(t, raw, b)) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("the entry of a gone task still pending after %s", wait)
		}
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Claim = %v, want Canceled", err)
	}
	checkEmpty(t, raw, b)
}

// TestKeysAndExpiry checks what the store writes: the task in the stored
// format under "<prefix><id>" with a PX expiry of the time it has left,
// renewed by Update, and nothing for a task that has expired.
func TestKeysAndExpiry(t *testing.T) {
	ctx := context.Background()
	raw := redistest.Start(t).Client(t)
	s := newStore(t, raw, redis.Options{})
	now := time.Now()

	task := storetest.Sample(t, now)
	if err := s.Create(ctx, task); err != nil {
		t.Fatalf("Create: %v", err)
	}
	key := redis.DefaultPrefix + task.ID
	if s.Key(task.ID) != key {
		t.Fatalf("Key = %q, want %q", s.Key(task.ID), key)
	}
	want, _ := tasks.Marshal(task)
	if got, err := raw.Get(ctx, key).Bytes(); err != nil || string(got) != string(want) {
		t.Fatalf("GET %s = %s, %v; want %s", key, got, err, want)
	}
	checkTTL := func(what string, lo, hi time.Duration) {
		t.Helper()
		ttl, err := raw.PTTL(ctx, key).Result()
		if err != nil || ttl < lo || ttl > hi {
			t.Fatalf("PTTL %s = %s, %v; want within [%s, %s]", what, ttl, err, lo, hi)
		}
	}
	checkTTL("after Create", time.Hour-time.Minute, time.Hour)

	if _, err := s.Update(ctx, task.ID, func(t *tasks.Task) error {
		t.Updated = now.Add(30 * time.Minute)
		return nil
	}); err != nil {
		t.Fatalf("Update: %v", err)
	}
	checkTTL("after an Update half an hour on", 90*time.Minute-time.Minute, 90*time.Minute)

	if _, err := s.Update(ctx, task.ID, func(t *tasks.Task) error {
		t.Updated = now.Add(-2 * time.Hour)
		return nil
	}); err != nil {
		t.Fatalf("Update: %v", err)
	}
	if n, err := raw.Exists(ctx, key).Result(); err != nil || n != 0 {
		t.Fatalf("EXISTS after an Update that left the task expired = %d, %v; want 0", n, err)
	}

	old := storetest.Sample(t, now.Add(-2*time.Hour))
	if err := s.Create(ctx, old); err != nil {
		t.Fatalf("Create of an expired task: %v", err)
	}
	if n, err := raw.Exists(ctx, s.Key(old.ID)).Result(); err != nil || n != 0 {
		t.Fatalf("EXISTS after Create of an expired task = %d, %v; want 0", n, err)
	}
}

// TestOptions checks the defaults and the options refused.
func TestOptions(t *testing.T) {
	raw := redistest.Start(t).Client(t)
	s := newStore(t, raw, redis.Options{})
	host, _ := os.Hostname()
	if c, want := s.Consumer(), fmt.Sprintf("%s-%d-", host, os.Getpid()); !strings.HasPrefix(c, want) || len(c) != len(want)+8 {
		t.Errorf("default consumer = %q, want %q and 8 hex digits", c, want)
	}
	if other := newStore(t, raw, redis.Options{}); other.Consumer() == s.Consumer() {
		t.Errorf("two stores share the default consumer name %q", s.Consumer())
	}
	if got, want := s.Stream(), redis.DefaultPrefix+"queue"; got != want {
		t.Errorf("Stream = %q, want %q", got, want)
	}

	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := l.Addr().String()
	l.Close()

	cases := []struct {
		name string
		open func() (*redis.Store, error)
		want string
	}{
		{"short lease", func() (*redis.Store, error) {
			return redis.New(raw, redis.Options{Lease: time.Millisecond})
		}, "lease 1ms is shorter than"},
		{"bad URL", func() (*redis.Store, error) { return redis.Open("ftp://example.com", redis.Options{}) }, "redis task store:"},
		{"no server", func() (*redis.Store, error) {
			return redis.Open("redis://"+dead+"/0?dial_timeout=1s&max_retries=0", redis.Options{})
		}, "create the consumer group"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, err := tc.open()
			if err == nil {
				s.Close()
				t.Fatal("no error")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %q, want one containing %q", err, tc.want)
			}
		})
	}
}

// TestDispatchAtShared checks that schedules on a Redis two instances
// share are each dispatched once, to one of them, whichever made them:
// one schedule is claimed once across both, and so are many made through
// either (one of them made through both, at the same instant).
func TestDispatchAtShared(t *testing.T) {
	ctx := context.Background()
	raw := redistest.Start(t).Client(t)
	opts := func(consumer string) redis.Options {
		return redis.Options{Prefix: "shared:", Consumer: consumer}
	}
	stores := []*redis.Store{newStore(t, raw, opts("a")), newStore(t, raw, opts("b"))}

	// claimAll claims on both stores, two workers each, until the
	// context ends, and returns how often each task was claimed.
	claimAll := func(ctx context.Context) map[string]int {
		var (
			mu   sync.Mutex
			seen = map[string]int{}
			wg   sync.WaitGroup
		)
		for _, s := range stores {
			for range 2 {
				wg.Go(func() {
					for {
						c, err := s.Claim(ctx)
						if err != nil {
							if ctx.Err() == nil {
								t.Errorf("Claim: %v", err)
							}
							return
						}
						if c.Takeover {
							t.Errorf("the claim of a schedule is a takeover")
						}
						if err := c.Release(); err != nil {
							t.Errorf("Release: %v", err)
						}
						mu.Lock()
						seen[c.ID]++
						mu.Unlock()
					}
				})
			}
		}
		wg.Wait()
		return seen
	}

	one := storetest.Sample(t, time.Now())
	if err := stores[0].Create(ctx, one); err != nil {
		t.Fatalf("Create: %v", err)
	}
	if err := stores[0].DispatchAt(ctx, one.ID, time.Now().Add(200*time.Millisecond)); err != nil {
		t.Fatalf("DispatchAt: %v", err)
	}
	cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	seen := claimAll(cctx)
	cancel()
	if len(seen) != 1 || seen[one.ID] != 1 {
		t.Fatalf("claims of one schedule across two instances: %v, want %s once", seen, one.ID)
	}

	const n = 20
	ids := map[string]bool{}
	base := time.Now().Add(200 * time.Millisecond)
	for i := range n {
		task := storetest.Sample(t, time.Now())
		if err := stores[i%2].Create(ctx, task); err != nil {
			t.Fatalf("Create: %v", err)
		}
		ids[task.ID] = true
		at := base.Add(time.Duration(i) * 10 * time.Millisecond)
		if err := stores[i%2].DispatchAt(ctx, task.ID, at); err != nil {
			t.Fatalf("DispatchAt: %v", err)
		}
		if i == 0 { // the same schedule, made through the other instance
			if err := stores[1].DispatchAt(ctx, task.ID, at); err != nil {
				t.Fatalf("DispatchAt: %v", err)
			}
		}
	}
	cctx, cancel = context.WithTimeout(ctx, 3*time.Second)
	seen = claimAll(cctx)
	cancel()
	for id := range ids {
		if seen[id] != 1 {
			t.Errorf("task %s claimed %d times, want once", id, seen[id])
		}
	}
	if len(seen) != n {
		t.Errorf("%d tasks claimed, want %d", len(seen), n)
	}
	if z, err := raw.ZCard(ctx, stores[0].Due()).Result(); err != nil || z != 0 {
		t.Errorf("ZCARD %s = %d, %v; want 0", stores[0].Due(), z, err)
	}
	checkEmpty(t, raw, stores[0])
}

// TestDueKey checks what DispatchAt writes: a member of "<prefix>due"
// that is the instant in unix nanoseconds as 16 hex digits and the task
// id, scored with the instant in unix milliseconds rounded up; and that a
// schedule is left there, not dispatched, by a store closed before it is
// due.
func TestDueKey(t *testing.T) {
	ctx := context.Background()
	raw := redistest.Start(t).Client(t)
	s := newStore(t, raw, redis.Options{})
	if got, want := s.Due(), redis.DefaultPrefix+"due"; got != want {
		t.Fatalf("Due = %q, want %q", got, want)
	}
	task := storetest.Sample(t, time.Now())
	if err := s.Create(ctx, task); err != nil {
		t.Fatalf("Create: %v", err)
	}
	at := time.Now().Add(time.Hour).Truncate(time.Millisecond).Add(1500 * time.Microsecond)
	if err := s.DispatchAt(ctx, task.ID, at); err != nil {
		t.Fatalf("DispatchAt: %v", err)
	}
	s.Close()
	z, err := raw.ZRangeWithScores(ctx, s.Due(), 0, -1).Result()
	if err != nil {
		t.Fatal(err)
	}
	member := fmt.Sprintf("%016x", at.UnixNano()) + task.ID
	if len(z) != 1 || z[0].Member != member || z[0].Score != float64(at.UnixMilli()+1) {
		t.Fatalf("ZRANGE %s = %+v, want %s scored %d", s.Due(), z, member, at.UnixMilli()+1)
	}
	if n, err := raw.XLen(ctx, s.Stream()).Result(); err != nil || n != 0 {
		t.Errorf("XLEN = %d, %v; want 0", n, err)
	}
}
