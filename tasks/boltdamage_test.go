package tasks_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/flowserve/flowserve/internal/boltcheck"
	"github.com/flowserve/flowserve/internal/kv/kvtest"
	"github.com/flowserve/flowserve/tasks"
	"github.com/flowserve/flowserve/tasks/storetest"
)

// order is the byte order of a bbolt file's numbers: the machine's.
var order = binary.NativeEndian

// storeFile is a closed run store's file, and where its pages are.
type storeFile struct {
	data      []byte
	ids       []string // the tasks it holds
	psz       int      // the page size
	pgid      uint64   // the high water mark of the meta page in use
	freelist  uint64   // the free list's page
	tasksRoot uint64   // the "tasks" bucket's root page, a branch page
	leaf      uint64   // a leaf page of the "tasks" bucket
}

// writeStore writes a run store of n tasks (one large enough to span
// pages), some dispatched and one claimed, at path, closes it and
// returns its file.
func writeStore(t *testing.T, path string, n int) *storeFile {
	t.Helper()
	ctx := context.Background()
	s, err := tasks.OpenBolt(path, tasks.BoltOptions{})
	if err != nil {
		t.Fatalf("OpenBolt: %v", err)
	}
	f := &storeFile{}
	for i := range n {
		task := storetest.Sample(t, time.Now())
		if i == 0 {
			task.State = strings.Repeat("s", 3*os.Getpagesize())
		}
		if err := s.Create(ctx, task); err != nil {
			t.Fatalf("Create: %v", err)
		}
		f.ids = append(f.ids, task.ID)
	}
	for _, id := range f.ids[:min(n, 5)] {
		if err := s.Dispatch(ctx, id); err != nil {
			t.Fatalf("Dispatch: %v", err)
		}
	}
	mustClaim(t, s)
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if f.data, err = os.ReadFile(path); err != nil {
		t.Fatal(err)
	}
	f.locate(t, path)
	return f
}

// locate finds the pages of f that the damage cases change.
func (f *storeFile) locate(t *testing.T, path string) {
	t.Helper()
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true, Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	f.psz = db.Info().PageSize
	err = db.View(func(tx *bolt.Tx) error {
		f.tasksRoot = uint64(tx.Bucket([]byte("tasks")).Root())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	m0, m1 := f.data[16:], f.data[f.psz+16:]
	m := m0
	if order.Uint64(m1[48:]) > order.Uint64(m0[48:]) {
		m = m1
	}
	f.freelist, f.pgid = order.Uint64(m[32:]), order.Uint64(m[40:])
	root := f.page(f.tasksRoot)
	if order.Uint16(root[8:]) != 0x01 {
		t.Fatalf("the tasks bucket's root page %d is no branch page: write more tasks", f.tasksRoot)
	}
	// The first leaf: the first element's child, down the branches.
	f.leaf = order.Uint64(root[16+8:])
	for order.Uint16(f.page(f.leaf)[8:]) == 0x01 {
		f.leaf = order.Uint64(f.page(f.leaf)[16+8:])
	}
	if order.Uint16(f.page(f.leaf)[8:]) != 0x02 {
		t.Fatalf("page %d is no leaf page", f.leaf)
	}
}

// page returns the bytes of page id, header first.
func (f *storeFile) page(id uint64) []byte { return f.data[int(id)*f.psz : int(id+1)*f.psz] }

// edit returns a copy of f's bytes changed by fn.
func (f *storeFile) edit(fn func(b []byte)) []byte {
	b := bytes.Clone(f.data)
	fn(b)
	return b
}

// at returns the offset in the file of byte off of page id.
func (f *storeFile) at(id uint64, off int) int { return int(id)*f.psz + off }

// damageCase is a file made from a good store, and what opening it gives:
// a refusal whose problem contains want, or, when want is "", a store
// that opens with its tasks.
type damageCase struct {
	name string
	data []byte
	want string
}

// damageCases are the damaged and truncated files TestBoltDamaged opens.
func damageCases(t *testing.T, f *storeFile) []damageCase {
	t.Helper()
	flip := func(off int) []byte { return f.edit(func(b []byte) { b[off] ^= 0xff }) }
	psz, end := f.psz, int(f.pgid)*f.psz
	if len(f.data) <= end {
		t.Fatalf("the file has %d bytes and its pages %d: no unused tail to cut", len(f.data), end)
	}
	leaf := f.page(f.leaf)
	cases := []damageCase{
		{"meta page 0 flipped", flip(16 + 40), "meta page 0 does not match its checksum"},
		{"meta page 1 flipped", flip(psz + 16 + 40), "meta page 1 does not match its checksum"},
		{"both meta pages flipped", f.edit(func(b []byte) { b[16+40] ^= 1; b[psz+16+40] ^= 1 }),
			"meta page 0 does not match its checksum, and no valid meta page 1 follows it"},
		{"meta page 0 of another format version", f.edit(func(b []byte) { order.PutUint32(b[16+4:], 3) }),
			"meta page 0 has bbolt format version 3, not 2"},
		{"a page that says it is another (bbolt: Page expected to be)", flip(f.at(f.tasksRoot, 4)),
			fmt.Sprintf("page %d, which the bucket in element", f.tasksRoot)},
		{"a page of no type", f.edit(func(b []byte) { order.PutUint16(b[f.at(f.tasksRoot, 8):], 0x20) }),
			"has type 0x20 where a branch or leaf page belongs"},
		{"a branch pointing past the file", f.edit(func(b []byte) { order.PutUint64(b[f.at(f.tasksRoot, 16+8):], 1<<40) }),
			"points to page 1099511627776, outside pages 2 to"},
		{"a branch pointing to itself", f.edit(func(b []byte) { order.PutUint64(b[f.at(f.tasksRoot, 16+8):], f.tasksRoot) }),
			"is used twice"},
		{"a leaf value past its page", f.edit(func(b []byte) { order.PutUint32(b[f.at(f.leaf, 16+12):], 1<<30) }),
			"element 0 of page " + fmt.Sprint(f.leaf) + " points past the end of its page"},
		{"a leaf counting more elements than it holds", f.edit(func(b []byte) { order.PutUint16(b[f.at(f.leaf, 10):], 0xFFFF) }),
			"counts 65535 elements, more than it holds"},
		{"a free list page of another type", f.edit(func(b []byte) { order.PutUint16(b[f.at(f.freelist, 8):], 0x02) }),
			"the free list's page"},
		{"keys out of order (bbolt's check)", f.edit(func(b []byte) {
			// The keys of the leaf's first two elements, task ids of the
			// same length, swapped.
			k0 := leafKey(leaf, 0)
			k1 := leafKey(leaf, 1)
			copy(b[f.at(f.leaf, k0.off):], leaf[k1.off:k1.off+k1.n])
			copy(b[f.at(f.leaf, k1.off):], leaf[k0.off:k0.off+k0.n])
		}), "bbolt's consistency check found"},
		{"a text file", []byte(strings.Repeat("not a bolt file\n", 1000)), "it is not a bbolt database file"},
		{"zeros", make([]byte, 4*psz), "it is not a bbolt database file"},
		{"cut to 1 byte", f.data[:1], "it is 1 byte long, too short for a bbolt file's first meta page"},
		{"cut to 100 bytes", f.data[:100], "less than the two"},
		{"cut within meta page 1", f.data[:psz+100], "less than the two"},
		{"cut after the meta pages", f.data[:2*psz], "it was cut short"},
		{"cut to 3 pages", f.data[:3*psz], "it was cut short"},
		{"cut in half", f.data[:end/2/psz*psz], "it was cut short"},
		{"cut by a page", f.data[:end-psz], "it was cut short"},
		{"cut mid-page", f.data[:end-psz/2], "it was cut short"},
		{"cut mid-page in the unused tail", f.data[:end+psz/2], "not a whole number of"},
		// False positives: bbolt grows the file ahead of its pages.
		{"cut the unused tail at a page", f.data[:end], ""},
		{"the good store", f.data, ""},
	}
	r := rand.New(rand.NewPCG(27, 8))
	for range 12 {
		off := r.IntN(len(f.data) - 8)
		b := f.edit(func(b []byte) {
			for i := range 8 {
				b[off+i] = byte(r.Uint32())
			}
		})
		cases = append(cases, damageCase{name: fmt.Sprintf("random bytes at %d", off), data: b, want: "?"})
	}
	return cases
}

// leafKeyAt is where a key is in a leaf page: its offset and length.
type leafKeyAt struct{ off, n int }

// leafKey returns where the key of element i of a leaf page is.
func leafKey(page []byte, i int) leafKeyAt {
	e := 16 + 16*i
	return leafKeyAt{e + int(order.Uint32(page[e+4:])), int(order.Uint32(page[e+8:]))}
}

// TestBoltDamaged opens damaged and truncated copies of a real store: each
// is refused with an error naming the file and saying what is wrong and
// how to recover, never a panic (the open runs in the test), and the file
// is left as it was; a good store, and one whose unused tail is cut at a
// page, open with every task. Random damage (want "?") may also open, but
// then every task is served or said to be corrupt by its id.
func TestBoltDamaged(t *testing.T) {
	dir := t.TempDir()
	good := writeStore(t, filepath.Join(dir, "good.db"), 300)
	for i, tc := range damageCases(t, good) {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, fmt.Sprintf("case%d", i), "tasks.db")
			if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, tc.data, 0o600); err != nil {
				t.Fatal(err)
			}
			s, err := tasks.OpenBolt(path, tasks.BoltOptions{})
			if err == nil {
				defer s.Close()
			} else {
				t.Log(err)
			}
			switch {
			case tc.want == "?" && err == nil:
				servesOrNames(t, s, good.ids)
			case tc.want == "?":
				wantDamaged(t, err, path, "")
			case tc.want == "" && err != nil:
				t.Fatalf("OpenBolt = %v, want the store", err)
			case tc.want == "":
				for _, id := range good.ids {
					if _, err := s.Get(context.Background(), id); err != nil {
						t.Fatalf("Get(%s) = %v", id, err)
					}
				}
			default:
				wantDamaged(t, err, path, tc.want)
			}
			if err != nil {
				if got, _ := os.ReadFile(path); !bytes.Equal(got, tc.data) {
					t.Error("a refused file was changed")
				}
			}
		})
	}
}

// wantDamaged fails the test unless err refuses the run store at path as
// damaged with a problem containing want.
func wantDamaged(t *testing.T, err error, path, want string) {
	t.Helper()
	kvtest.WantDamaged(t, err, path, boltcheck.Kind{Store: "run store", Lost: "its tasks are lost"}, want)
}

// servesOrNames fails the test unless every task of ids is served, gone,
// or refused as corrupt by an error naming it.
func servesOrNames(t *testing.T, s *tasks.Bolt, ids []string) {
	t.Helper()
	for _, id := range ids {
		_, err := s.Get(context.Background(), id)
		switch {
		case err == nil, errors.Is(err, tasks.ErrNotFound):
		case errors.Is(err, tasks.ErrCorrupt) && strings.Contains(err.Error(), id):
		default:
			t.Errorf("Get(%s) = %v, want the task, ErrNotFound or an ErrCorrupt naming it", id, err)
		}
	}
}

// TestBoltFresh checks the only file opened as a new store besides a
// missing one: an empty one.
func TestBoltFresh(t *testing.T) {
	for _, tc := range []struct {
		name   string
		create bool
	}{{"missing", false}, {"empty", true}} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "tasks.db")
			if tc.create {
				if err := os.WriteFile(path, nil, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			s := openBolt(t, path, nil)
			ctx := context.Background()
			task := storetest.Sample(t, time.Now())
			if err := s.Create(ctx, task); err != nil {
				t.Fatalf("Create: %v", err)
			}
			s.Close()
			s = openBolt(t, path, nil)
			got, err := s.Get(ctx, task.ID)
			if err != nil {
				t.Fatalf("Get after a reopen: %v", err)
			}
			storetest.Same(t, "Get after a reopen", got, task)
		})
	}
}

// TestBoltReopenMany checks the check's false positives: a store of many
// tasks (a tree of branch pages, a task spanning pages, a free list with
// pages) reopens with every task, also after some were deleted.
func TestBoltReopenMany(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "tasks.db")
	f := writeStore(t, path, 1500)
	want := map[string]*tasks.Task{}
	s := openBolt(t, path, nil)
	for i, id := range f.ids {
		task, err := s.Get(ctx, id)
		if err != nil {
			t.Fatalf("Get(%s) after a reopen: %v", id, err)
		}
		if i%3 == 0 { // frees pages
			if _, err := s.Update(ctx, id, func(t *tasks.Task) error { t.State = ""; return nil }); err != nil {
				t.Fatalf("Update: %v", err)
			}
			task.State = ""
		}
		want[id] = task
	}
	s.Close()
	s = openBolt(t, path, nil)
	for id, w := range want {
		got, err := s.Get(ctx, id)
		if err != nil {
			t.Fatalf("Get(%s) after a second reopen: %v", id, err)
		}
		storetest.Same(t, "Get after a second reopen", got, w)
	}
}

// TestBoltBadRecord checks a task whose record does not decode, and one
// stored under another task's id: the store opens, Get and Update say
// ErrCorrupt naming the task, and the other tasks are served.
func TestBoltBadRecord(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "tasks.db")
	f := writeStore(t, path, 20)
	garbled, swapped := f.ids[7], f.ids[8]
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		bk := tx.Bucket([]byte("tasks"))
		if err := bk.Put([]byte(garbled), []byte(`{"id":`)); err != nil {
			return err
		}
		return bk.Put([]byte(swapped), bytes.Clone(bk.Get([]byte(f.ids[9]))))
	})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	s := openBolt(t, path, nil)
	for _, id := range []string{garbled, swapped} {
		want := "task " + id + " in the run store " + path + ": stored task is corrupt"
		if _, err := s.Get(ctx, id); !errors.Is(err, tasks.ErrCorrupt) || !strings.Contains(err.Error(), want) {
			t.Errorf("Get(%s) = %v, want ErrCorrupt saying %q", id, err, want)
		}
		_, err := s.Update(ctx, id, func(*tasks.Task) error { return nil })
		if !errors.Is(err, tasks.ErrCorrupt) || !strings.Contains(err.Error(), want) {
			t.Errorf("Update(%s) = %v, want ErrCorrupt saying %q", id, err, want)
		}
	}
	for _, id := range f.ids {
		if id == garbled || id == swapped {
			continue
		}
		if _, err := s.Get(ctx, id); err != nil {
			t.Errorf("Get(%s) of a good task = %v", id, err)
		}
	}
}
