package boltcheck

import (
	"bytes"
	"errors"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

var testKind = Kind{Store: "test store", Lost: "its keys are lost"}

// writeFile writes a bbolt file of n keys in a bucket at path, closes it
// and returns its bytes and page size.
func writeFile(t *testing.T, path string, n int) ([]byte, int) {
	t.Helper()
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		bk, err := tx.CreateBucket([]byte("keys"))
		if err != nil {
			return err
		}
		for i := range n {
			if err := bk.Put(fmt.Appendf(nil, "key%05d", i), bytes.Repeat([]byte("v"), 100)); err != nil {
				return err
			}
		}
		return nil
	})
	psz := db.Info().PageSize
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data, psz
}

// Offsets in a meta page, after the page header.
const (
	metaPageSize = 8
	metaRoot     = 16
	metaFreelist = 32
	metaPgid     = 40
)

// setMeta sets the field at off of the meta pages of b at offsets pages
// (both when none are given) and signs them again, as a meta page bbolt
// wrote with that value would be.
func setMeta(b []byte, psz, off int, v uint64, pages ...int) {
	if len(pages) == 0 {
		pages = []int{0, psz}
	}
	for _, page := range pages {
		x := b[page+pageHeaderSize:]
		if off == metaPageSize {
			order.PutUint32(x[off:], uint32(v))
		} else {
			order.PutUint64(x[off:], v)
		}
		h := fnv.New64a()
		h.Write(x[:metaChecksum])
		order.PutUint64(x[metaChecksum:], h.Sum64())
	}
}

// TestCheck checks files Check refuses whose damage the tasks and
// versions stores' tests do not make: meta pages signed with wrong
// values, and a page bbolt's own check finds unaccounted for; and the
// files it passes.
func TestCheck(t *testing.T) {
	dir := t.TempDir()
	good, psz := writeFile(t, filepath.Join(dir, "good.db"), 200)
	pgid := order.Uint64(good[pageHeaderSize+metaPgid:])
	edit := func(fn func(b []byte)) []byte {
		b := bytes.Clone(good)
		fn(b)
		return b
	}
	tests := []struct {
		name string
		data []byte
		want string // "" when the file passes
	}{
		{"good", good, ""},
		{"empty", []byte{}, ""},
		{"page size bbolt does not use", edit(func(b []byte) { setMeta(b, psz, metaPageSize, 512) }),
			"meta page 0 gives a page size of 512 bytes, which bbolt does not use"},
		{"meta pages that disagree on the page size", edit(func(b []byte) { setMeta(b, psz, metaPageSize, uint64(2*psz), psz) }),
			fmt.Sprintf("its meta pages disagree on the page size: %d and %d bytes", psz, 2*psz)},
		{"root outside the pages", edit(func(b []byte) { setMeta(b, psz, metaRoot, pgid) }),
			fmt.Sprintf("puts the root bucket on page %d, outside pages 2 to %d", pgid, pgid-1)},
		{"free list outside the pages", edit(func(b []byte) { setMeta(b, psz, metaFreelist, 1) }),
			fmt.Sprintf("puts the free list on page 1, outside pages 2 to %d", pgid-1)},
		{"too few pages", edit(func(b []byte) { setMeta(b, psz, metaPgid, 2) }), "counts 2 pages, fewer than a store has"},
		{"more pages than the file", edit(func(b []byte) { setMeta(b, psz, metaPgid, 1<<50) }),
			fmt.Sprintf("less than its %d pages of %d bytes", uint64(1<<50), psz)},
		{"a page neither used nor free (bbolt's check)", edit(func(b []byte) { setMeta(b, psz, metaPgid, pgid+1) }),
			fmt.Sprintf("bbolt's consistency check found a problem: page %d: unreachable unfreed", pgid)},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, fmt.Sprintf("case%d.db", i))
			if err := os.WriteFile(path, tc.data, 0o600); err != nil {
				t.Fatal(err)
			}
			err := Check(path, testKind, time.Second)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("Check = %v, want nil", err)
				}
				return
			}
			var damaged *DamagedError
			prefix := "the test store " + path + " is damaged: "
			if !errors.As(err, &damaged) || !strings.HasPrefix(err.Error(), prefix) || !strings.Contains(damaged.Problem, tc.want) {
				t.Fatalf("Check = %v, want %q then %q", err, prefix, tc.want)
			}
		})
	}
}

// TestCheckFiles checks what is no damaged file: a missing file passes,
// and a directory and a file another process has open are errors of
// their own.
func TestCheckFiles(t *testing.T) {
	dir := t.TempDir()
	if err := Check(filepath.Join(dir, "missing.db"), testKind, time.Second); err != nil {
		t.Errorf("Check of a missing file = %v, want nil", err)
	}
	if err := Check(dir, testKind, time.Second); err == nil || errors.As(err, new(*DamagedError)) {
		t.Errorf("Check of a directory = %v, want an error that is no DamagedError", err)
	}
	path := filepath.Join(dir, "open.db")
	writeFile(t, path, 1)
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := Check(path, testKind, 10*time.Millisecond); !errors.Is(err, berrors.ErrTimeout) {
		t.Errorf("Check of a file open in another store = %v, want ErrTimeout", err)
	}
	if _, err := Open(path, 0o600, testKind, bolt.Options{Timeout: 10 * time.Millisecond}); !errors.Is(err, berrors.ErrTimeout) {
		t.Errorf("Open of a file open in another store = %v, want ErrTimeout", err)
	}
}

// TestGuard checks that a panic becomes a DamagedError saying what
// bbolt said.
func TestGuard(t *testing.T) {
	err := guard("/d/x.db", testKind, func() error { panic("assertion failed: Page expected to be: 2") })
	want := "the test store /d/x.db is damaged: bbolt failed on it: assertion failed: Page expected to be: 2; " +
		"move it aside to start with an empty store (its keys are lost), or restore it from a backup"
	if err == nil || err.Error() != want {
		t.Errorf("guard = %v, want %q", err, want)
	}
	if err := guard("/d/x.db", testKind, func() error { return nil }); err != nil {
		t.Errorf("guard of no panic = %v", err)
	}
}

// panicLogger is a bbolt logger that panics when bbolt says it opened a
// file, as bbolt panics on a damaged one, after it locked the file.
type panicLogger struct{ bolt.DefaultLogger }

// Infof panics on bbolt's message of a file it opened.
func (panicLogger) Infof(format string, v ...any) {
	if strings.Contains(format, "successfully") {
		panic("assertion failed: Page expected to be: 2")
	}
}

// TestOpenPanic checks that a panic in bbolt's Open is a DamagedError and
// lets go of the file's lock, so that the file can be opened again.
func TestOpenPanic(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.db")
	writeFile(t, path, 10)
	logger := &panicLogger{}
	_, err := Open(path, 0o600, testKind, bolt.Options{Timeout: 10 * time.Millisecond, Logger: logger})
	if !errors.As(err, new(*DamagedError)) || !strings.Contains(err.Error(), "bbolt failed on it: assertion failed") {
		t.Fatalf("Open with a panic = %v, want a DamagedError saying bbolt failed", err)
	}
	db, err := Open(path, 0o600, testKind, bolt.Options{Timeout: 10 * time.Millisecond})
	if err != nil {
		t.Fatalf("Open after a panic = %v, want the file (its lock let go)", err)
	}
	db.Close()
}

// TestCheckProblem checks how the problems of bbolt's check are said.
func TestCheckProblem(t *testing.T) {
	var five []error
	for i := range 5 {
		five = append(five, fmt.Errorf("page %d: unreachable unfreed", i+2))
	}
	tests := []struct {
		problems []error
		want     string
	}{
		{five[:1], "bbolt's consistency check found a problem: page 2: unreachable unfreed"},
		{five[:2], "bbolt's consistency check found 2 problems: page 2: unreachable unfreed; page 3: unreachable unfreed"},
		{five, "bbolt's consistency check found 5 problems: page 2: unreachable unfreed; page 3: unreachable unfreed; page 4: unreachable unfreed; ..."},
	}
	for _, tc := range tests {
		if got := checkProblem(tc.problems); got != tc.want {
			t.Errorf("checkProblem(%d problems) = %q, want %q", len(tc.problems), got, tc.want)
		}
	}
}

// TestShow checks how keys are shown: text quoted, anything else in hex.
func TestShow(t *testing.T) {
	for in, want := range map[string]string{
		"0053baa6a4d93534": `"0053baa6a4d93534"`,
		"\x00\x00\x00\x01": "00000001",
		"a\nb":             "610a62",
		"\xff":             "ff",
	} {
		if got := show([]byte(in)); got != want {
			t.Errorf("show(%q) = %s, want %s", in, got, want)
		}
	}
}
