package redis_test

import (
	"context"
	"errors"
	"net"
	"strconv"
	"strings"
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

var _ versions.Store = (*redis.Store)(nil)

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

// TestShared checks two instances on one Redis: a version one puts the
// other gets and extends, and Retire called on both at once returns each
// expired version exactly once overall.
func TestShared(t *testing.T) {
	ctx := context.Background()
	raw := redistest.Start(t).Client(t)
	clock := kvtest.NewClock(time.Now().UTC().Truncate(time.Millisecond))
	opts := redis.Options{Prefix: "shared:", Now: clock.Now}
	a, b := newStore(t, raw, opts), newStore(t, raw, opts)

	v := storetest.Sample(t, clock.Now())
	if err := a.Put(ctx, v); err != nil {
		t.Fatalf("Put: %v", err)
	}
	if err := b.Keep(ctx, v.ID, v.Until.Add(time.Hour)); err != nil {
		t.Fatalf("Keep on the other instance: %v", err)
	}
	v.Until = v.Until.Add(time.Hour)
	got, err := b.Get(ctx, v.ID)
	if err != nil {
		t.Fatalf("Get on the other instance: %v", err)
	}
	storetest.Same(t, "Get on the other instance", got, v)
	got, err = a.Get(ctx, v.ID)
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	storetest.Same(t, "Get after the other instance's Keep", got, v)

	const n = 300
	want := map[string]string{}
	for i := range n {
		x := storetest.Sample(t, clock.Now().Add(time.Duration(i)*time.Millisecond-time.Hour))
		x.Tool = "tool" + strconv.Itoa(i)
		s := a
		if i%2 == 1 {
			s = b
		}
		if err := s.Put(ctx, x); err != nil {
			t.Fatalf("Put: %v", err)
		}
		want[x.ID] = x.Tool
	}
	clock.Advance(n * time.Millisecond)
	for round := range 3 {
		var (
			mu  sync.Mutex
			got = map[string]int{}
			wg  sync.WaitGroup
		)
		for _, s := range []*redis.Store{a, b, a, b} {
			wg.Go(func() {
				r, err := s.Retire(ctx, clock.Now())
				if err != nil {
					t.Errorf("Retire: %v", err)
					return
				}
				mu.Lock()
				defer mu.Unlock()
				for _, x := range r {
					got[x.ID]++
					if x.Tool != want[x.ID] {
						t.Errorf("Retire returned %s with tool %q, want %q", x.ID, x.Tool, want[x.ID])
					}
				}
			})
		}
		wg.Wait()
		if round > 0 {
			if len(got) != 0 {
				t.Fatalf("Retire again returned %d versions, want none", len(got))
			}
			continue
		}
		for id, c := range got {
			if _, ok := want[id]; !ok {
				t.Errorf("Retire returned %s, which had not expired", id)
			} else if c != 1 {
				t.Errorf("Retire returned %s %d times overall, want once", id, c)
			}
		}
		if len(got) != n {
			t.Fatalf("Retire returned %d versions overall, want %d", len(got), n)
		}
	}
	if _, err := b.Get(ctx, v.ID); err != nil {
		t.Errorf("Get of the live version after Retire: %v", err)
	}
}

// TestKeys checks what the store writes: the version in the stored format
// under "<prefix><id>" expiring a minute after its Until, its Until in
// unix milliseconds in "<prefix>until", its tool in "<prefix>tools"; that
// Keep moves the expiry and the score only forward; and that Retire
// leaves none of them.
func TestKeys(t *testing.T) {
	ctx := context.Background()
	raw := redistest.Start(t).Client(t)
	s := newStore(t, raw, redis.Options{})
	now := time.Now().UTC()
	v := storetest.Sample(t, now)
	v.Until = v.Until.Add(1500 * time.Microsecond) // rounded up to the millisecond
	if err := s.Put(ctx, v); err != nil {
		t.Fatalf("Put: %v", err)
	}
	key := redis.DefaultPrefix + v.ID
	if s.Key(v.ID) != key || s.Until() != redis.DefaultPrefix+"until" || s.Tools() != redis.DefaultPrefix+"tools" {
		t.Fatalf("keys %q, %q, %q; want under %q", s.Key(v.ID), s.Until(), s.Tools(), redis.DefaultPrefix)
	}
	want, _ := versions.Marshal(v)
	if got, err := raw.Get(ctx, key).Bytes(); err != nil || string(got) != string(want) {
		t.Fatalf("GET %s = %.80s…, %v; want %.80s…", key, got, err, want)
	}
	check := func(what string, until time.Time) {
		t.Helper()
		ms := until.UnixMilli()
		if until.After(time.UnixMilli(ms)) {
			ms++
		}
		if at, err := raw.PExpireTime(ctx, key).Result(); err != nil || at != time.Duration(ms+redis.ExpiryMargin.Milliseconds())*time.Millisecond {
			t.Fatalf("PEXPIRETIME %s = %d, %v; want %d", what, at.Milliseconds(), err, ms+redis.ExpiryMargin.Milliseconds())
		}
		if score, err := raw.ZScore(ctx, s.Until(), v.ID).Result(); err != nil || score != float64(ms) {
			t.Fatalf("ZSCORE %s = %f, %v; want %d", what, score, err, ms)
		}
		if tool, err := raw.HGet(ctx, s.Tools(), v.ID).Result(); err != nil || tool != v.Tool {
			t.Fatalf("HGET %s = %q, %v; want %q", what, tool, err, v.Tool)
		}
		got, err := s.Get(ctx, v.ID)
		if err != nil || !got.Until.Equal(time.UnixMilli(ms)) {
			t.Fatalf("Get %s = %v, %v; want Until %s", what, got, err, time.UnixMilli(ms))
		}
	}
	check("after Put", v.Until)

	later := v.Until.Add(time.Hour)
	if err := s.Keep(ctx, v.ID, later); err != nil {
		t.Fatalf("Keep: %v", err)
	}
	check("after Keep", later)
	if err := s.Keep(ctx, v.ID, v.Until); err != nil {
		t.Fatalf("Keep: %v", err)
	}
	check("after Keep backward", later)
	again := v.Clone()
	again.Until = later.Add(time.Hour)
	if err := s.Put(ctx, again); err != nil {
		t.Fatalf("Put: %v", err)
	}
	check("after a second Put", again.Until)
	if got, err := raw.Get(ctx, key).Bytes(); err != nil || string(got) != string(want) {
		t.Fatalf("GET %s after a second Put = %.80s…, %v; want the first Put's %.80s…", key, got, err, want)
	}

	// Its Until, rounded up to the millisecond, is before the millisecond
	// after next.
	if r, err := s.Retire(ctx, again.Until.Add(time.Millisecond)); err != nil || len(r) != 0 {
		t.Fatalf("Retire within the millisecond after Until rounded up = %v, %v; want nothing", r, err)
	}
	if r, err := s.Retire(ctx, again.Until.Add(2*time.Millisecond)); err != nil || len(r) != 1 {
		t.Fatalf("Retire = %v, %v; want one version", r, err)
	}
	for _, k := range []string{key, s.Until(), s.Tools()} {
		if n, err := raw.Exists(ctx, k).Result(); err != nil || n != 0 {
			t.Errorf("EXISTS %s after Retire = %d, %v; want 0", k, n, err)
		}
	}
}

// TestExpiredByRedis checks a version whose string Redis dropped before
// Retire ran (a minute after its Until): Get says ErrNotFound, Keep too,
// and Retire still reports it, with its tool and Until, once.
func TestExpiredByRedis(t *testing.T) {
	ctx := context.Background()
	raw := redistest.Start(t).Client(t)
	clock := kvtest.NewClock(time.Now().UTC().Truncate(time.Millisecond))
	s := newStore(t, raw, redis.Options{Now: clock.Now})
	v := storetest.Sample(t, clock.Now())
	v.Tool = "ops: restart"
	if err := s.Put(ctx, v); err != nil {
		t.Fatalf("Put: %v", err)
	}
	// Let Redis expire the string (as it does a minute after Until).
	if err := raw.PExpire(ctx, s.Key(v.ID), time.Millisecond).Err(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for raw.Exists(ctx, s.Key(v.ID)).Val() != 0 {
		if time.Now().After(deadline) {
			t.Fatal("Redis did not expire the string")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if _, err := s.Get(ctx, v.ID); !errors.Is(err, versions.ErrNotFound) {
		t.Errorf("Get of a version Redis dropped = %v, want ErrNotFound", err)
	}
	if err := s.Keep(ctx, v.ID, v.Until.Add(time.Hour)); !errors.Is(err, versions.ErrNotFound) {
		t.Errorf("Keep of a version Redis dropped = %v, want ErrNotFound", err)
	}

	clock.Advance(time.Hour + time.Minute)
	r, err := s.Retire(ctx, clock.Now())
	if err != nil || len(r) != 1 || r[0].ID != v.ID || r[0].Tool != v.Tool || !r[0].Until.Equal(v.Until) {
		t.Fatalf("Retire = %v, %v; want %s of %q until %s", r, err, v.ID, v.Tool, v.Until)
	}
	if r, err := s.Retire(ctx, clock.Now()); err != nil || len(r) != 0 {
		t.Fatalf("Retire again = %v, %v; want nothing", r, err)
	}
	// Put again, it is stored anew.
	v.Served, v.Until = clock.Now(), clock.Now().Add(time.Hour)
	if err := s.Put(ctx, v); err != nil {
		t.Fatalf("Put: %v", err)
	}
	got, err := s.Get(ctx, v.ID)
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	storetest.Same(t, "Get of a version put again once Redis had dropped it", got, v)
}

// TestCorrupt checks a string that is not a version: Get says ErrCorrupt.
func TestCorrupt(t *testing.T) {
	ctx := context.Background()
	raw := redistest.Start(t).Client(t)
	s := newStore(t, raw, redis.Options{})
	v := storetest.Sample(t, time.Now())
	if err := s.Put(ctx, v); err != nil {
		t.Fatalf("Put: %v", err)
	}
	if err := raw.Set(ctx, s.Key(v.ID), "{not json", goredis.KeepTTL).Err(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(ctx, v.ID); !errors.Is(err, versions.ErrCorrupt) {
		t.Errorf("Get of a corrupt string = %v, want ErrCorrupt", err)
	}
	other := storetest.Sample(t, time.Now())
	b, _ := versions.Marshal(other)
	if err := raw.Set(ctx, s.Key(v.ID), b, goredis.KeepTTL).Err(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(ctx, v.ID); !errors.Is(err, versions.ErrCorrupt) {
		t.Errorf("Get of another version's string = %v, want ErrCorrupt", err)
	}
}

// TestOptions checks the failures of Open and New.
func TestOptions(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := l.Addr().String()
	l.Close()
	for _, tc := range []struct {
		name, url, want string
	}{
		{"bad URL", "ftp://example.com", "redis version store:"},
		{"no server", "redis://" + dead + "/0?dial_timeout=1s&max_retries=0", "redis version store:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := redis.Open(tc.url, redis.Options{})
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
