package kvbolt_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"

	"github.com/flowserve/flowserve/internal/boltcheck"
	"github.com/flowserve/flowserve/internal/kv/kvbolt"
	"github.com/flowserve/flowserve/internal/kv/kvtest"
)

var (
	errClosed   = errors.New("test store is closed")
	errNotFound = errors.New("no such record")
)

var spec = kvbolt.Spec{
	Name:    "test store",
	Kind:    boltcheck.Kind{Store: "test store", Lost: "its records are lost"},
	Buckets: [][]byte{[]byte("a"), []byte("b")},
	Closed:  errClosed,
	Pass:    []error{errNotFound},
}

// open opens a file with spec and closes it when the test ends.
func open(t *testing.T, path string) *kvbolt.File {
	t.Helper()
	f, err := kvbolt.Open(path, spec, nil)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func opener(path string) (io.Closer, error) { return kvbolt.Open(path, spec, nil) }

// TestOpen checks a new file: its mode, its buckets, and init, which runs
// in the transaction that made them.
func TestOpen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "test.db")
	var sawBuckets bool
	f, err := kvbolt.Open(path, spec, func(tx *bolt.Tx) error {
		sawBuckets = tx.Bucket([]byte("a")) != nil && tx.Bucket([]byte("b")) != nil
		return tx.Bucket([]byte("a")).Put([]byte("k"), []byte("v"))
	})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer f.Close()
	if !sawBuckets {
		t.Error("init ran before the buckets were made")
	}
	if info, err := os.Stat(path); err != nil || info.Mode().Perm() != kvbolt.Mode {
		t.Errorf("the file's mode: %v, %v; want %v", info.Mode().Perm(), err, os.FileMode(kvbolt.Mode))
	}
	if f.Path != path {
		t.Errorf("Path = %q, want %q", f.Path, path)
	}
	f.DB.View(func(tx *bolt.Tx) error {
		if v := tx.Bucket([]byte("a")).Get([]byte("k")); string(v) != "v" {
			t.Errorf("what init wrote: %q", v)
		}
		return nil
	})
}

// TestOpenInitFails checks that a failing init leaves nothing open: the
// error names the file, and the file opens again at once.
func TestOpenInitFails(t *testing.T) {
	path := filepath.Join(t.TempDir(), "test.db")
	boom := errors.New("boom")
	_, err := kvbolt.Open(path, spec, func(*bolt.Tx) error { return boom })
	if want := "open the test store " + path + ": boom"; !errors.Is(err, boom) || err.Error() != want {
		t.Fatalf("Open with a failing init = %v, want %q", err, want)
	}
	open(t, path)
}

func TestInUse(t *testing.T) {
	path := filepath.Join(t.TempDir(), "test.db")
	kvtest.BoltInUse(t, path, opener, "the test store "+path+" is in use by another flowserve process")
	// The error wraps bbolt's.
	first := open(t, path)
	_, err := kvbolt.Open(path, spec, nil)
	if !errors.Is(err, berrors.ErrTimeout) {
		t.Errorf("Open of a file in use = %v, want it to wrap ErrTimeout", err)
	}
	first.Close()
}

func TestNotADatabase(t *testing.T) {
	kvtest.BoltNotADatabase(t, filepath.Join(t.TempDir(), "test.db"), opener)
}

// TestDamaged checks that a damaged file is refused as the store's, and
// left as it was; an empty file opens.
func TestDamaged(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.db")
	f := open(t, good)
	f.Close()
	data, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		data []byte
		want string // "" when it opens
	}{
		{"meta page 0 flipped", flip(data, 16+40), "meta page 0 does not match its checksum"},
		{"cut to 100 bytes", data[:100], "less than the two"},
		{"a text file", []byte(strings.Repeat("text\n", 2000)), "it is not a bbolt database file"},
		{"empty", nil, ""},
		{"good", data, ""},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, fmt.Sprintf("case%d.db", i))
			if err := os.WriteFile(path, tc.data, 0o600); err != nil {
				t.Fatal(err)
			}
			f, err := kvbolt.Open(path, spec, nil)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("Open = %v, want the store", err)
				}
				f.Close()
				return
			}
			kvtest.WantDamaged(t, err, path, boltcheck.Kind{Store: "test store", Lost: "its records are lost"}, tc.want)
			if got, _ := os.ReadFile(path); string(got) != string(tc.data) {
				t.Error("a refused file was changed")
			}
		})
	}
}

func flip(b []byte, off int) []byte {
	c := append([]byte(nil), b...)
	c[off] ^= 0xff
	return c
}

// TestFail checks what the store's errors become.
func TestFail(t *testing.T) {
	path := filepath.Join(t.TempDir(), "test.db")
	f := open(t, path)
	other := errors.New("disk on fire")
	wrapped := fmt.Errorf("record x: %w", errNotFound)
	tests := []struct {
		name string
		in   error
		want error  // errors.Is
		same bool   // Fail returns in itself
		text string // the error's text, when not in's
	}{
		{"nil", nil, nil, true, ""},
		{"closed", berrors.ErrDatabaseNotOpen, errClosed, false, "test store is closed"},
		{"a store error", errNotFound, errNotFound, true, ""},
		{"a store error, wrapped", wrapped, errNotFound, true, ""},
		{"another error", other, other, false, "test store " + path + ": disk on fire"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := f.Fail(tc.in)
			if !errors.Is(got, tc.want) || (tc.same && got != tc.in) || (tc.text != "" && got.Error() != tc.text) {
				t.Fatalf("Fail(%v) = %v", tc.in, got)
			}
		})
	}
}

// TestViewUpdate checks the transactions' errors: the context's before
// anything runs, the store's (Fail) after, and ErrClosed once closed.
func TestViewUpdate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "test.db")
	f := open(t, path)
	ctx := context.Background()
	ended, cancel := context.WithCancel(ctx)
	cancel()
	ran := false
	mark := func(*bolt.Tx) error { ran = true; return nil }
	if err := f.View(ended, mark); !errors.Is(err, context.Canceled) || ran {
		t.Errorf("View on an ended context = %v (ran %v)", err, ran)
	}
	if err := f.Update(ended, mark); !errors.Is(err, context.Canceled) || ran {
		t.Errorf("Update on an ended context = %v (ran %v)", err, ran)
	}
	if err := f.Update(ctx, func(tx *bolt.Tx) error { return tx.Bucket([]byte("a")).Put([]byte("k"), []byte("v")) }); err != nil {
		t.Fatalf("Update: %v", err)
	}
	if err := f.View(ctx, func(*bolt.Tx) error { return errNotFound }); err != errNotFound {
		t.Errorf("View failing with a store error = %v", err)
	}
	if err := f.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := f.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if err := f.View(ctx, mark); err != errClosed || ran {
		t.Errorf("View after Close = %v (ran %v), want errClosed", err, ran)
	}
	if err := f.Update(ctx, mark); err != errClosed || ran {
		t.Errorf("Update after Close = %v (ran %v), want errClosed", err, ran)
	}
}

func TestDeleteIf(t *testing.T) {
	path := filepath.Join(t.TempDir(), "test.db")
	f := open(t, path)
	ctx := context.Background()
	err := f.Update(ctx, func(tx *bolt.Tx) error {
		bk := tx.Bucket([]byte("a"))
		for _, k := range []string{"a1", "a2", "b1", "b2", "c1"} {
			if err := bk.Put([]byte(k), []byte("v"+k)); err != nil {
				return err
			}
		}
		var seen []string
		err := kvbolt.DeleteIf(bk, func(k, v []byte) bool {
			seen = append(seen, string(k)+"="+string(v))
			return k[1] == '1'
		})
		if want := "a1=va1 a2=va2 b1=vb1 b2=vb2 c1=vc1"; strings.Join(seen, " ") != want {
			t.Errorf("DeleteIf saw %q, want %q", seen, want)
		}
		return err
	})
	if err != nil {
		t.Fatalf("Update: %v", err)
	}
	f.View(ctx, func(tx *bolt.Tx) error {
		var left []string
		tx.Bucket([]byte("a")).ForEach(func(k, _ []byte) error {
			left = append(left, string(k))
			return nil
		})
		if strings.Join(left, " ") != "a2 b2" {
			t.Errorf("left %q, want a2 b2", left)
		}
		return nil
	})
}
