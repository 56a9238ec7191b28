package kvtest_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/flowserve/flowserve/internal/kv/kvtest"
)

// fake is a store that counts its Close calls; data is what a store on
// the same data sees.
type fake struct {
	closes *int
	data   *[]string
	now    func() time.Time
}

func (f fake) Close() error { *f.closes++; return nil }

// TestSuite checks what the skeleton runs: every test once per backend,
// each on a fresh store closed at its end, the clock where the test
// asked; Setup once per backend; the reopen tests only on backends that
// reopen, each store of them on the same data.
func TestSuite(t *testing.T) {
	var (
		ran     []string
		setups  = map[string]int{}
		closes  int
		opened  int
		clockAt time.Duration // how far behind the real time a clock started
	)
	suite := kvtest.Suite[fake]{
		Tests: []kvtest.Test[fake]{
			{Name: "A", Run: func(t *testing.T, s fake, clock *kvtest.Clock) {
				ran = append(ran, t.Name())
				if len(*s.data) != 0 {
					t.Errorf("a fresh store holds %q", *s.data)
				}
				*s.data = append(*s.data, "a")
			}},
			{Name: "B", Behind: time.Hour, Run: func(t *testing.T, s fake, clock *kvtest.Clock) {
				ran = append(ran, t.Name())
				clockAt = time.Since(s.now())
				if !s.now().Equal(clock.Now()) {
					t.Error("the store's clock is not the test's")
				}
			}},
		},
		Reopen: []kvtest.ReopenTest[fake]{
			{Name: "R", Run: func(t *testing.T, open func() fake, clock *kvtest.Clock) {
				ran = append(ran, t.Name())
				s := open()
				*s.data = append(*s.data, "r")
				s.Close()
				if s := open(); len(*s.data) != 1 {
					t.Errorf("a store opened again holds %q, want what the first left", *s.data)
				}
			}},
		},
	}
	open := func(t *testing.T, now func() time.Time) fake {
		opened++
		return fake{closes: &closes, data: new([]string), now: now}
	}
	reopen := func(t *testing.T, now func() time.Time) func() fake {
		data := new([]string)
		return func() fake {
			opened++
			return fake{closes: &closes, data: data, now: now}
		}
	}
	t.Run("run", func(t *testing.T) {
		suite.RunBackends(t,
			kvtest.Backend[fake]{Name: "memory", Open: open},
			kvtest.Backend[fake]{Name: "file", Reopen: reopen, Setup: func(t *testing.T) { setups[t.Name()]++ }},
		)
	})
	want := []string{
		"TestSuite/run/memory/A", "TestSuite/run/memory/B",
		"TestSuite/run/file/A", "TestSuite/run/file/B", "TestSuite/run/file/R",
	}
	if len(ran) != len(want) {
		t.Fatalf("ran %q, want %q", ran, want)
	}
	for i := range want {
		if ran[i] != want[i] {
			t.Fatalf("ran %q, want %q", ran, want)
		}
	}
	if len(setups) != 1 || setups["TestSuite/run/file"] != 1 {
		t.Errorf("Setup ran %v, want once, in the file backend's subtest", setups)
	}
	// R opened two stores and closed the first itself: the suite closes
	// every store once more.
	if opened != 6 || closes != 7 {
		t.Errorf("%d stores opened, %d Close calls; want 6 and 7", opened, closes)
	}
	if clockAt < time.Hour || clockAt > time.Hour+time.Minute {
		t.Errorf("a test with Behind an hour ran %v behind the real time", clockAt)
	}
}

// TestSuiteNoClose checks stores without a Close method (replies.Memory).
func TestSuiteNoClose(t *testing.T) {
	ran := 0
	kvtest.Suite[*int]{Tests: []kvtest.Test[*int]{{Name: "A", Run: func(t *testing.T, s *int, _ *kvtest.Clock) { ran += *s }}}}.
		RunBackends(t, kvtest.Backend[*int]{Name: "x", Open: func(*testing.T, func() time.Time) *int { one := 1; return &one }})
	if ran != 1 {
		t.Errorf("the test ran %d times, want once", ran)
	}
}

// TestBoltBackend checks that each test's stores open one file, named,
// in a directory of the test's own.
func TestBoltBackend(t *testing.T) {
	type file struct{ path string }
	var paths []string
	suite := kvtest.Suite[file]{
		Tests: []kvtest.Test[file]{{Name: "A", Run: func(t *testing.T, s file, _ *kvtest.Clock) { paths = append(paths, s.path) }}},
		Reopen: []kvtest.ReopenTest[file]{{Name: "R", Run: func(t *testing.T, open func() file, _ *kvtest.Clock) {
			if a, b := open(), open(); a.path != b.path {
				t.Errorf("stores of one test opened %s and %s", a.path, b.path)
			} else {
				paths = append(paths, a.path)
			}
		}}},
	}
	suite.RunBackends(t, kvtest.BoltBackend("x.db", func(t *testing.T, path string, _ func() time.Time) file { return file{path} }))
	if len(paths) != 2 || paths[0] == paths[1] || filepath.Base(paths[0]) != "x.db" || filepath.Base(paths[1]) != "x.db" {
		t.Errorf("the tests' files: %q, want two files x.db in directories of their own", paths)
	}
}

// TestRedisBackends checks the two Redis backends: each runs on a server
// that answers, with Open's stores on its URL and New's on a client that
// answers, and each test's stores under a prefix of its own.
func TestRedisBackends(t *testing.T) {
	type conn struct {
		backend, prefix string
		client          goredis.UniversalClient
	}
	ctx := context.Background()
	var (
		seen   = map[string]string{} // prefix → the test that had it
		counts = map[string]int{}    // backend → tests run
	)
	check := func(t *testing.T, s conn) {
		if err := s.client.Ping(ctx).Err(); err != nil {
			t.Errorf("%s: the server does not answer: %v", s.backend, err)
		}
		if other, ok := seen[s.prefix]; ok && other != t.Name() {
			t.Errorf("prefix %q of %s was %s's too", s.prefix, t.Name(), other)
		}
		seen[s.prefix] = t.Name()
		counts[s.backend]++
	}
	suite := kvtest.Suite[conn]{
		Tests: []kvtest.Test[conn]{
			{Name: "A", Run: func(t *testing.T, s conn, _ *kvtest.Clock) { check(t, s) }},
			{Name: "B", Run: func(t *testing.T, s conn, _ *kvtest.Clock) { check(t, s) }},
		},
		Reopen: []kvtest.ReopenTest[conn]{{Name: "R", Run: func(t *testing.T, open func() conn, _ *kvtest.Clock) {
			a, b := open(), open()
			if a.prefix != b.prefix {
				t.Errorf("stores of one test have prefixes %q and %q", a.prefix, b.prefix)
			}
			check(t, a)
		}}},
	}
	suite.RunBackends(t, kvtest.RedisBackends(
		func(url, prefix string, _ func() time.Time) (conn, error) {
			o, err := goredis.ParseURL(url)
			if err != nil {
				return conn{}, err
			}
			c := goredis.NewClient(o)
			t.Cleanup(func() { c.Close() })
			return conn{"open", prefix, c}, nil
		},
		func(client goredis.UniversalClient, prefix string, _ func() time.Time) (conn, error) {
			return conn{"new", prefix, client}, nil
		},
	)...)
	if counts["open"] != 3 || counts["new"] != 3 || len(seen) != 6 {
		t.Errorf("tests run %v with %d prefixes; want 3 on each backend, 6 prefixes", counts, len(seen))
	}
}
