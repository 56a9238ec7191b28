// Package storetest is the contract every versions.Store keeps, as tests
// a store's own test file runs with Contract: what Put and Get store and
// return (copies), that a Put of a stored version keeps it and only
// extends its Until, that Keep only extends, that a version is gone once
// its Until has passed, that Retire returns each version it removes once,
// also to callers racing it, large flow files, ids refused, and a store
// that refuses work once closed. Its Reopen tests add, for stores whose
// data outlives them, that versions outlive the store too.
package storetest

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/flowserve/flowserve/internal/kv/kvtest"
	"github.com/flowserve/flowserve/versions"
)

// Clock is a clock tests move by hand, so that versions expire without the
// tests sleeping (kvtest.Clock).
type Clock = kvtest.Clock

// Contract is the contract: a store's own test file runs it over each
// implementation with Contract.RunBackends, each test as a subtest on a
// store of its own. The stores' clocks start at the current time (in
// UTC, to the millisecond, which is what Redis keeps of an Until), so a
// store that also hands expiry to its backend (Redis's PEXPIREAT) sees
// realistic lifetimes, and stand still unless a test moves them. The
// Reopen tests run on implementations whose data outlives a store: that
// versions, their Served and their extended Until outlive the store, and
// that retired versions stay retired.
var Contract = kvtest.Suite[versions.Store]{
	Tests: []kvtest.Test[versions.Store]{
		{Name: "PutGet", Run: testPutGet},
		{Name: "Copies", Run: testCopies},
		{Name: "PutTwice", Run: testPutTwice},
		{Name: "PutServed", Run: testPutServed},
		{Name: "PutExpired", Run: testPutExpired},
		{Name: "NotFound", Run: testNotFound},
		{Name: "Keep", Run: testKeep},
		{Name: "Expiry", Run: testExpiry},
		{Name: "Retire", Run: testRetire},
		{Name: "RetireNothing", Run: testRetireNothing},
		{Name: "RetireConcurrent", Run: testRetireConcurrent},
		{Name: "ConcurrentPutKeep", Run: testConcurrentPutKeep},
		{Name: "LargeSource", Run: testLargeSource},
		{Name: "InvalidID", Run: testInvalidID},
		{Name: "Close", Run: testClose},
	},
	Reopen: []kvtest.ReopenTest[versions.Store]{
		{Name: "Reopen", Run: testReopen},
	},
}

// NewID returns a random version id.
func NewID(t *testing.T) string {
	t.Helper()
	var b [versions.IDLen / 2]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b[:])
}

// Sample returns a version of tool "deploy" under a new id, served at now
// and kept for an hour.
func Sample(t *testing.T, now time.Time) *versions.Version {
	t.Helper()
	id := NewID(t)
	return &versions.Version{
		ID:     id,
		Tool:   "deploy",
		Path:   "flows/deploy.yaml",
		Source: []byte("name: deploy\ndescription: Deploy a service (" + id[:8] + ")\nsteps:\n  - id: go\n    return: ok\n"),
		Served: now,
		Until:  now.Add(time.Hour),
	}
}

// Same fails the test unless got and want are the same version: the same
// fields, the times the same instants.
func Same(t *testing.T, what string, got, want *versions.Version) {
	t.Helper()
	if got == nil {
		t.Fatalf("%s: got no version, want %s", what, show(want))
	}
	if got.ID != want.ID || got.Tool != want.Tool || got.Path != want.Path ||
		!bytes.Equal(got.Source, want.Source) || !got.Served.Equal(want.Served) || !got.Until.Equal(want.Until) {
		t.Fatalf("%s:\n got %s\nwant %s", what, show(got), show(want))
	}
}

// show describes v briefly: its source by length and start.
func show(v *versions.Version) string {
	src := v.Source
	if len(src) > 24 {
		src = src[:24]
	}
	return fmt.Sprintf("{id %s tool %q path %q source %d bytes %q… served %s until %s}",
		v.ID, v.Tool, v.Path, len(v.Source), src, v.Served.Format(time.RFC3339Nano), v.Until.Format(time.RFC3339Nano))
}

// put stores v.
func put(t *testing.T, s versions.Store, v *versions.Version) {
	t.Helper()
	if err := s.Put(context.Background(), v); err != nil {
		t.Fatalf("Put: %v", err)
	}
}

// create stores a sample version and returns (a copy of) what it stored.
func create(t *testing.T, s versions.Store, now time.Time) *versions.Version {
	t.Helper()
	v := Sample(t, now)
	put(t, s, v)
	return v.Clone()
}

func get(t *testing.T, s versions.Store, id string) *versions.Version {
	t.Helper()
	v, err := s.Get(context.Background(), id)
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	return v
}

func keep(t *testing.T, s versions.Store, id string, until time.Time) {
	t.Helper()
	if err := s.Keep(context.Background(), id, until); err != nil {
		t.Fatalf("Keep: %v", err)
	}
}

// gone fails the test unless Get of id says ErrNotFound.
func gone(t *testing.T, s versions.Store, id, what string) {
	t.Helper()
	if v, err := s.Get(context.Background(), id); !errors.Is(err, versions.ErrNotFound) {
		t.Fatalf("%s: Get = %v, %v; want ErrNotFound", what, v, err)
	}
}

func retire(t *testing.T, s versions.Store, now time.Time) []*versions.Version {
	t.Helper()
	r, err := s.Retire(context.Background(), now)
	if err != nil {
		t.Fatalf("Retire: %v", err)
	}
	return r
}

// retired fails the test unless got are want's ids, tools and Until, in
// that order.
func retired(t *testing.T, what string, got []*versions.Version, want ...*versions.Version) {
	t.Helper()
	describe := func(vs []*versions.Version) string {
		var b strings.Builder
		for _, v := range vs {
			fmt.Fprintf(&b, "\n\t%s %q until %s", v.ID, v.Tool, v.Until.Format(time.RFC3339Nano))
		}
		return b.String()
	}
	ok := len(got) == len(want)
	for i := 0; ok && i < len(got); i++ {
		ok = got[i] != nil && got[i].ID == want[i].ID && got[i].Tool == want[i].Tool && got[i].Until.Equal(want[i].Until)
	}
	if !ok {
		t.Fatalf("%s: Retire returned%s\nwant%s", what, describe(got), describe(want))
	}
}

func testPutGet(t *testing.T, s versions.Store, clock *Clock) {
	want := create(t, s, clock.Now())
	Same(t, "Get after Put", get(t, s, want.ID), want)

	// Another tool's version, with a name that has a colon and a space.
	other := Sample(t, clock.Now().Add(-time.Minute))
	other.Tool, other.Path = "ops: restart", ""
	put(t, s, other)
	Same(t, "Get of a second version", get(t, s, other.ID), other)
	Same(t, "Get of the first version again", get(t, s, want.ID), want)

	// An empty source round-trips too.
	bare := &versions.Version{ID: NewID(t), Tool: "t", Source: []byte{}, Served: clock.Now(), Until: clock.Now().Add(time.Minute)}
	put(t, s, bare)
	if got := get(t, s, bare.ID); len(got.Source) != 0 || !got.Until.Equal(bare.Until) {
		t.Fatalf("Get of a version with an empty source = %s", show(got))
	}
}

func testCopies(t *testing.T, s versions.Store, clock *Clock) {
	v := Sample(t, clock.Now())
	want := v.Clone()
	put(t, s, v)
	v.Source[0] = 'X'
	v.Tool = "changed"
	v.Until = v.Until.Add(time.Hour)
	Same(t, "Get after changing the version given to Put", get(t, s, want.ID), want)

	got := get(t, s, want.ID)
	got.Source[0] = 'X'
	got.Source = append(got.Source[:4], "more"...)
	got.Until = got.Until.Add(time.Hour)
	Same(t, "Get after changing what Get returned", get(t, s, want.ID), want)
}

func testPutTwice(t *testing.T, s versions.Store, clock *Clock) {
	want := create(t, s, clock.Now())
	clock.Advance(10 * time.Minute)

	// Put again later, by another instance which loaded the same program
	// from another file: the first stays, with the later Until.
	again := want.Clone()
	again.Served = clock.Now()
	again.Path = "/srv/other/deploy.yaml"
	again.Source = append([]byte("# a comment does not change the version\n"), want.Source...)
	again.Until = clock.Now().Add(time.Hour)
	put(t, s, again)
	want.Until = again.Until
	Same(t, "Get after a second Put with a later Until", get(t, s, want.ID), want)

	// A Put with an earlier Until changes nothing.
	earlier := again.Clone()
	earlier.Until = clock.Now().Add(time.Minute)
	put(t, s, earlier)
	Same(t, "Get after a Put with an earlier Until", get(t, s, want.ID), want)

	// Nor does one with the same Until.
	put(t, s, again)
	Same(t, "Get after a Put with the same Until", get(t, s, want.ID), want)
}

func testPutServed(t *testing.T, s versions.Store, clock *Clock) {
	v := Sample(t, clock.Now())
	v.Served = time.Time{}
	put(t, s, v)
	want := v.Clone()
	want.Served = clock.Now()
	Same(t, "Get of a version put without Served", get(t, s, v.ID), want)

	clock.Advance(time.Minute)
	put(t, s, v) // a stored version keeps its Served
	Same(t, "Get after a second Put without Served", get(t, s, v.ID), want)
}

func testPutExpired(t *testing.T, s versions.Store, clock *Clock) {
	v := Sample(t, clock.Now().Add(-2*time.Hour))
	put(t, s, v)
	gone(t, s, v.ID, "a version put with an Until that had passed")
	retired(t, "after putting a version with an Until that had passed", retire(t, s, clock.Now()))

	// Nor does such a Put shorten a stored version.
	kept := create(t, s, clock.Now())
	old := kept.Clone()
	old.Until = clock.Now().Add(-time.Minute)
	put(t, s, old)
	Same(t, "Get after a Put with an Until that had passed", get(t, s, kept.ID), kept)
}

func testNotFound(t *testing.T, s versions.Store, clock *Clock) {
	ctx := context.Background()
	create(t, s, clock.Now()) // the store is not empty
	id := NewID(t)
	gone(t, s, id, "an unknown id")
	if err := s.Keep(ctx, id, clock.Now().Add(time.Hour)); !errors.Is(err, versions.ErrNotFound) {
		t.Errorf("Keep of an unknown id = %v, want ErrNotFound", err)
	}
	gone(t, s, id, "an unknown id after Keep")
}

func testKeep(t *testing.T, s versions.Store, clock *Clock) {
	want := create(t, s, clock.Now())

	keep(t, s, want.ID, want.Until.Add(2*time.Hour))
	want.Until = want.Until.Add(2 * time.Hour)
	Same(t, "Get after Keep forward", get(t, s, want.ID), want)

	keep(t, s, want.ID, want.Until.Add(-time.Hour))
	Same(t, "Get after Keep backward", get(t, s, want.ID), want)

	keep(t, s, want.ID, clock.Now().Add(-time.Hour))
	Same(t, "Get after Keep to the past", get(t, s, want.ID), want)

	keep(t, s, want.ID, want.Until)
	Same(t, "Get after Keep to the same Until", get(t, s, want.ID), want)

	// Kept past the Until it was put with, it is found there and retired
	// only after the new one.
	clock.Advance(2 * time.Hour)
	Same(t, "Get past the Until of Put, before that of Keep", get(t, s, want.ID), want)
	retired(t, "Retire before the Until of Keep", retire(t, s, clock.Now()))
	clock.Advance(time.Hour + time.Millisecond)
	gone(t, s, want.ID, "past the Until of Keep")
	retired(t, "Retire past the Until of Keep", retire(t, s, clock.Now()), want)
}

func testExpiry(t *testing.T, s versions.Store, clock *Clock) {
	ctx := context.Background()
	v := create(t, s, clock.Now())
	clock.Advance(time.Hour) // at Until: still there
	Same(t, "Get at Until", get(t, s, v.ID), v)
	keep(t, s, v.ID, v.Until) // and Keep finds it

	clock.Advance(time.Millisecond)
	gone(t, s, v.ID, "just past Until")
	if err := s.Keep(ctx, v.ID, clock.Now().Add(time.Hour)); !errors.Is(err, versions.ErrNotFound) {
		t.Errorf("Keep just past Until = %v, want ErrNotFound", err)
	}
	gone(t, s, v.ID, "after a Keep past Until")

	// Put again before Retire: stored anew, as served now.
	again := v.Clone()
	again.Served = clock.Now()
	again.Path = "flows/again.yaml"
	again.Until = clock.Now().Add(time.Hour)
	put(t, s, again)
	Same(t, "Get of a version put again once its Until had passed", get(t, s, v.ID), again)
	retired(t, "Retire after the version was put again", retire(t, s, clock.Now()))
	Same(t, "Get after Retire", get(t, s, v.ID), again)
}

func testRetire(t *testing.T, s versions.Store, clock *Clock) {
	base := clock.Now()
	first := create(t, s, base.Add(-50*time.Minute)) // until base+10m
	second := Sample(t, base.Add(-40*time.Minute))   // until base+20m
	second.Tool = "review"
	put(t, s, second)
	kept := create(t, s, base.Add(-50*time.Minute)) // until base+10m, kept to base+30m
	keep(t, s, kept.ID, base.Add(30*time.Minute))
	kept.Until = base.Add(30 * time.Minute)
	live := create(t, s, base) // until base+1h

	retired(t, "Retire at first's Until", retire(t, s, first.Until))
	Same(t, "Get of first after Retire at its Until", get(t, s, first.ID), first)

	clock.Advance(25 * time.Minute)
	retired(t, "Retire past two Untils", retire(t, s, clock.Now()), first, second)
	retired(t, "Retire again", retire(t, s, clock.Now()))
	gone(t, s, first.ID, "a retired version")
	gone(t, s, second.ID, "a retired version")
	Same(t, "Get of a kept version", get(t, s, kept.ID), kept)
	Same(t, "Get of a live version", get(t, s, live.ID), live)

	// Retire goes by the instant it is given, not the store's clock.
	retired(t, "Retire at a later instant", retire(t, s, base.Add(2*time.Hour)), kept, live)
	gone(t, s, kept.ID, "a version retired early")
	gone(t, s, live.ID, "a version retired early")
	retired(t, "Retire once all are retired", retire(t, s, base.Add(3*time.Hour)))

	// A retired version can be put again.
	again := live.Clone()
	again.Served = clock.Now()
	put(t, s, again)
	Same(t, "Get of a version put again once retired", get(t, s, again.ID), again)
}

func testRetireNothing(t *testing.T, s versions.Store, clock *Clock) {
	retired(t, "Retire on an empty store", retire(t, s, clock.Now()))
	v := create(t, s, clock.Now())
	retired(t, "Retire with nothing expired", retire(t, s, clock.Now()))
	retired(t, "Retire in the past", retire(t, s, time.Time{}))
	Same(t, "Get after Retire with nothing expired", get(t, s, v.ID), v)
}

func testRetireConcurrent(t *testing.T, s versions.Store, clock *Clock) {
	const n, callers = 250, 8 // more than one batch of Redis's script
	want := map[string]bool{}
	for i := range n {
		v := Sample(t, clock.Now().Add(-time.Hour+time.Duration(i)*time.Millisecond))
		put(t, s, v)
		want[v.ID] = true
	}
	live := create(t, s, clock.Now())
	clock.Advance(n * time.Millisecond)

	var (
		mu  sync.Mutex
		got = map[string]int{}
		wg  sync.WaitGroup
	)
	for range callers {
		wg.Go(func() {
			r, err := s.Retire(context.Background(), clock.Now())
			if err != nil {
				t.Errorf("Retire: %v", err)
				return
			}
			mu.Lock()
			defer mu.Unlock()
			for _, v := range r {
				got[v.ID]++
			}
		})
	}
	wg.Wait()
	for id, c := range got {
		if !want[id] {
			t.Errorf("Retire returned %s, which had not expired", id)
		} else if c != 1 {
			t.Errorf("Retire returned %s %d times, want once", id, c)
		}
	}
	if len(got) != len(want) {
		t.Errorf("Retire returned %d versions overall, want %d", len(got), len(want))
	}
	Same(t, "Get of the live version", get(t, s, live.ID), live)
}

func testConcurrentPutKeep(t *testing.T, s versions.Store, clock *Clock) {
	const n = 40
	v := create(t, s, clock.Now())
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			until := clock.Now().Add(time.Hour + time.Duration(i)*time.Second)
			var err error
			if i%2 == 0 {
				c := v.Clone()
				c.Served = clock.Now().Add(time.Duration(i) * time.Second)
				c.Until = until
				err = s.Put(context.Background(), c)
			} else {
				err = s.Keep(context.Background(), v.ID, until)
			}
			if err != nil {
				t.Errorf("Put or Keep: %v", err)
			}
		})
	}
	wg.Wait()
	v.Until = clock.Now().Add(time.Hour + (n-1)*time.Second)
	Same(t, "Get after concurrent Puts and Keeps", get(t, s, v.ID), v)
}

func testLargeSource(t *testing.T, s versions.Store, clock *Clock) {
	v := Sample(t, clock.Now())
	v.Source = make([]byte, 1<<20) // 1 MiB, every byte value
	if _, err := rand.Read(v.Source); err != nil {
		t.Fatal(err)
	}
	put(t, s, v)
	Same(t, "Get of a version with a 1 MiB source", get(t, s, v.ID), v)
	keep(t, s, v.ID, v.Until.Add(time.Hour))
	v.Until = v.Until.Add(time.Hour)
	Same(t, "Get of a version with a 1 MiB source after Keep", get(t, s, v.ID), v)
	clock.Advance(3 * time.Hour)
	retired(t, "Retire of a version with a 1 MiB source", retire(t, s, clock.Now()), v)
}

func testInvalidID(t *testing.T, s versions.Store, clock *Clock) {
	ctx := context.Background()
	valid := NewID(t)
	for _, id := range []string{"", "abc", valid[:63], valid + "0", strings.ToUpper(valid), valid[:63] + "g", "../" + valid[3:], valid[:32] + ":" + valid[33:]} {
		v := Sample(t, clock.Now())
		v.ID = id
		if err := s.Put(ctx, v); !errors.Is(err, versions.ErrInvalid) {
			t.Errorf("Put with id %q = %v, want ErrInvalid", id, err)
		}
		if _, err := s.Get(ctx, id); !errors.Is(err, versions.ErrNotFound) {
			t.Errorf("Get of id %q = %v, want ErrNotFound", id, err)
		}
		if err := s.Keep(ctx, id, clock.Now().Add(time.Hour)); !errors.Is(err, versions.ErrNotFound) {
			t.Errorf("Keep of id %q = %v, want ErrNotFound", id, err)
		}
	}
	retired(t, "Retire after refused Puts", retire(t, s, clock.Now().Add(24*time.Hour)))
}

func testClose(t *testing.T, s versions.Store, clock *Clock) {
	ctx := context.Background()
	v := create(t, s, clock.Now())
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	calls := []struct {
		name string
		call func() error
	}{
		{"Put", func() error { return s.Put(ctx, Sample(t, clock.Now())) }},
		{"Put of a stored version", func() error { return s.Put(ctx, v) }},
		{"Get", func() error { _, err := s.Get(ctx, v.ID); return err }},
		{"Keep", func() error { return s.Keep(ctx, v.ID, clock.Now().Add(time.Hour)) }},
		{"Retire", func() error { _, err := s.Retire(ctx, clock.Now().Add(2*time.Hour)); return err }},
	}
	for _, c := range calls {
		if err := c.call(); !errors.Is(err, versions.ErrClosed) {
			t.Errorf("%s after Close = %v, want ErrClosed", c.name, err)
		}
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func testReopen(t *testing.T, open func() versions.Store, clock *Clock) {
	s := open()
	base := clock.Now()
	kept := create(t, s, base)
	keep(t, s, kept.ID, base.Add(3*time.Hour))
	kept.Until = base.Add(3 * time.Hour)
	big := Sample(t, base)
	big.Source = bytes.Repeat([]byte("steps:\n  - id: x\n"), 1<<16)
	put(t, s, big)
	old := create(t, s, base.Add(-50*time.Minute))
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}

	clock.Advance(20 * time.Minute) // old's Until passes while the store is closed
	s = open()
	Same(t, "Get of a kept version after reopening", get(t, s, kept.ID), kept)
	Same(t, "Get of a large version after reopening", get(t, s, big.ID), big)
	gone(t, s, old.ID, "a version whose Until passed while the store was closed")
	put(t, s, kept) // a second Put keeps the first Served and the later Until
	Same(t, "Get after a Put after reopening", get(t, s, kept.ID), kept)
	retired(t, "Retire after reopening", retire(t, s, clock.Now()), old)
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}

	s = open()
	retired(t, "Retire after reopening again", retire(t, s, clock.Now()))
	gone(t, s, old.ID, "a retired version after reopening")
	Same(t, "Get of a kept version after reopening again", get(t, s, kept.ID), kept)
}
