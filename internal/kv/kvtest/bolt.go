package kvtest

import (
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/flowserve/flowserve/internal/boltcheck"
)

// BoltOpener opens a store on the bbolt file at path.
type BoltOpener func(path string) (io.Closer, error)

// BoltBackend returns the backend "bolt" of a store in a bbolt file: each
// test's stores open, with open, the file name in a directory of the
// test's own.
func BoltBackend[S any](name string, open func(t *testing.T, path string, now func() time.Time) S) Backend[S] {
	return Backend[S]{Name: "bolt", Reopen: func(t *testing.T, now func() time.Time) func() S {
		path := filepath.Join(t.TempDir(), name)
		return func() S { return open(t, path, now) }
	}}
}

// wait bounds how long BoltInUse waits for the second open.
const wait = 30 * time.Second

// BoltInUse checks that a second store on the file at path, which a first
// store holds, fails with an error containing want (the store "is in use
// by another flowserve process") instead of waiting for the first to
// close.
func BoltInUse(t *testing.T, path string, open BoltOpener, want string) {
	t.Helper()
	first, err := open(path)
	if err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	defer first.Close()
	done := make(chan error, 1)
	go func() {
		s, err := open(path)
		if err == nil {
			s.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("second open = %v, want an error saying %q", err, want)
		}
	case <-time.After(wait):
		t.Fatalf("second open still waiting after %s", wait)
	}
}

// BoltNotADatabase checks that a text file at path is refused with an
// error naming it.
func BoltNotADatabase(t *testing.T, path string, open BoltOpener) {
	t.Helper()
	if err := os.WriteFile(path, []byte(strings.Repeat("not a bolt file\n", 1000)), 0o600); err != nil {
		t.Fatal(err)
	}
	if s, err := open(path); err == nil {
		s.Close()
		t.Fatal("open of a text file succeeded")
	} else if !strings.Contains(err.Error(), path) {
		t.Fatalf("open of a text file = %v, want an error naming the file", err)
	}
}

// WantDamaged fails the test unless err is a *boltcheck.DamagedError that
// refuses the file at path as the damaged store kind ("the run store PATH
// is damaged: "), with a problem containing want, and says how to recover
// ("move it aside ... (" + kind.Lost + "), or restore it from a backup").
func WantDamaged(t *testing.T, err error, path string, kind boltcheck.Kind, want string) {
	t.Helper()
	var damaged *boltcheck.DamagedError
	if !errors.As(err, &damaged) {
		t.Fatalf("open = %v, want a *boltcheck.DamagedError", err)
	}
	prefix := "the " + kind.Store + " " + path + " is damaged: "
	recovery := "; move it aside to start with an empty store (" + kind.Lost + "), or restore it from a backup"
	if msg := err.Error(); !strings.HasPrefix(msg, prefix) || !strings.Contains(msg, want) || !strings.HasSuffix(msg, recovery) {
		t.Fatalf("open = %q, want %q, then %q, then %q", msg, prefix, want, recovery)
	}
}

// Unzip writes the gzipped file at src (a store written by an earlier
// flowserve, in testdata), uncompressed, to a file name in a temporary
// directory and returns its path.
func Unzip(t *testing.T, src, name string) string {
	t.Helper()
	f, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}
