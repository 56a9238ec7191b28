package versions_test

import (
	"context"
	"errors"
	"io"
	"path/filepath"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/flowserve/flowserve/internal/kv/kvtest"
	"github.com/flowserve/flowserve/versions"
	"github.com/flowserve/flowserve/versions/storetest"
)

// openBolt opens the store at path and closes it when the test ends.
func openBolt(t *testing.T, path string, now func() time.Time) *versions.Bolt {
	t.Helper()
	s, err := versions.OpenBolt(path, versions.BoltOptions{Now: now})
	if err != nil {
		t.Fatalf("OpenBolt: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestBoltFile checks what the file holds: the bucket "versions", each
// version under its id in the stored format, with the Until Keep set, and
// nothing of a retired version.
func TestBoltFile(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "versions.db")
	clock := kvtest.NewClock(time.Now().UTC().Truncate(time.Millisecond))
	s := openBolt(t, path, clock.Now)
	kept, dropped := storetest.Sample(t, clock.Now()), storetest.Sample(t, clock.Now().Add(-30*time.Minute))
	for _, v := range []*versions.Version{kept, dropped} {
		if err := s.Put(ctx, v); err != nil {
			t.Fatalf("Put: %v", err)
		}
	}
	kept.Until = kept.Until.Add(time.Hour)
	if err := s.Keep(ctx, kept.ID, kept.Until); err != nil {
		t.Fatalf("Keep: %v", err)
	}
	clock.Advance(45 * time.Minute)
	if r, err := s.Retire(ctx, clock.Now()); err != nil || len(r) != 1 || r[0].ID != dropped.ID {
		t.Fatalf("Retire = %v, %v; want the dropped version", r, err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}

	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true, Timeout: time.Second})
	if err != nil {
		t.Fatalf("open the file: %v", err)
	}
	defer db.Close()
	db.View(func(tx *bolt.Tx) error {
		bk := tx.Bucket([]byte("versions"))
		if bk == nil {
			t.Fatal(`no bucket "versions"`)
		}
		want, _ := versions.Marshal(kept)
		if got := bk.Get([]byte(kept.ID)); string(got) != string(want) {
			t.Errorf("the kept version's value:\n got %s\nwant %s", got, want)
		}
		if bk.Get([]byte(dropped.ID)) != nil {
			t.Errorf("the retired version is still in the file")
		}
		if n := bk.Stats().KeyN; n != 1 {
			t.Errorf("the bucket holds %d values, want 1", n)
		}
		return nil
	})
}

// TestBoltCorrupt checks a value that does not decode: Get and Keep say
// ErrCorrupt, Retire leaves it (and retires the others), and Put replaces
// it.
func TestBoltCorrupt(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "versions.db")
	s := openBolt(t, path, nil)
	v := storetest.Sample(t, time.Now())
	other := storetest.Sample(t, time.Now().Add(-2*time.Hour))
	other.Until = time.Now().Add(time.Minute)
	for _, x := range []*versions.Version{v, other} {
		if err := s.Put(ctx, x); err != nil {
			t.Fatalf("Put: %v", err)
		}
	}
	s.Close()
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Update(func(tx *bolt.Tx) error {
		return tx.Bucket([]byte("versions")).Put([]byte(v.ID), []byte("{not json"))
	}); err != nil {
		t.Fatal(err)
	}
	db.Close()

	s = openBolt(t, path, nil)
	if _, err := s.Get(ctx, v.ID); !errors.Is(err, versions.ErrCorrupt) {
		t.Errorf("Get of a corrupt value = %v, want ErrCorrupt", err)
	}
	if err := s.Keep(ctx, v.ID, time.Now().Add(time.Hour)); !errors.Is(err, versions.ErrCorrupt) {
		t.Errorf("Keep of a corrupt value = %v, want ErrCorrupt", err)
	}
	r, err := s.Retire(ctx, time.Now().Add(24*time.Hour))
	if err != nil || len(r) != 1 || r[0].ID != other.ID {
		t.Errorf("Retire = %v, %v; want only the other version", r, err)
	}
	if _, err := s.Get(ctx, v.ID); !errors.Is(err, versions.ErrCorrupt) {
		t.Errorf("Get of a corrupt value after Retire = %v, want ErrCorrupt", err)
	}
	if err := s.Put(ctx, v); err != nil {
		t.Fatalf("Put over a corrupt value: %v", err)
	}
	storetest.Same(t, "Get after a Put over a corrupt value", mustGet(t, s, v.ID), v)
}

func mustGet(t *testing.T, s versions.Store, id string) *versions.Version {
	t.Helper()
	v, err := s.Get(context.Background(), id)
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	return v
}

// boltOpener opens a store on the file at path, for kvtest's checks.
func boltOpener(path string) (io.Closer, error) {
	return versions.OpenBolt(path, versions.BoltOptions{})
}

// TestBoltInUse checks that a second store on the same file fails with a
// clear error instead of waiting for the first to close.
func TestBoltInUse(t *testing.T) {
	path := filepath.Join(t.TempDir(), "versions.db")
	kvtest.BoltInUse(t, path, boltOpener, "the version store "+path+" is in use by another flowserve process")
}

// TestBoltNotADatabase checks that a file that is not a store is refused.
func TestBoltNotADatabase(t *testing.T) {
	kvtest.BoltNotADatabase(t, filepath.Join(t.TempDir(), "versions.db"), boltOpener)
}
