package versions

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"

	"github.com/flowserve/flowserve/internal/boltcheck"
)

// Bolt is a Store in a bbolt file on this machine: versions survive
// restarts. It is what a server with --data uses, in
// <--data>/versions.db. The file holds one bucket, "versions", keyed by
// version id, each value the version in the stored format (Marshal).
// Only one process may have the file open at a time.
type Bolt struct {
	db   *bolt.DB
	path string
	now  func() time.Time
}

// BoltOptions configure OpenBolt.
type BoltOptions struct {
	// Now is the store's clock, which decides when versions expire and
	// what a zero Served becomes; nil means time.Now.
	Now func() time.Time
}

// boltLockTimeout bounds how long OpenBolt waits for another process to
// let go of the file.
const boltLockTimeout = time.Second

var boltVersions = []byte("versions")

// boltKind names the file of a Bolt in the errors of a damaged file.
var boltKind = boltcheck.Kind{Store: "version store",
	Lost: "its flow versions are lost: runs in flight on a version no longer served may fail"}

// OpenBolt opens the version store in the file at path, creating it (mode
// 0600) if it is missing. It fails, after a second, when another process
// has the file open. It checks the file first (boltcheck.Check) and
// refuses one that is damaged or cut short with a
// *boltcheck.DamagedError ("the version store PATH is damaged: ..."),
// rather than panic or open it empty. Close the store when done with it.
func OpenBolt(path string, opts BoltOptions) (*Bolt, error) {
	db, err := boltcheck.Open(path, 0o600, boltKind, bolt.Options{Timeout: boltLockTimeout})
	var damaged *boltcheck.DamagedError
	switch {
	case errors.Is(err, berrors.ErrTimeout):
		return nil, fmt.Errorf("the version store %s is in use by another flowserve process: %w", path, err)
	case errors.As(err, &damaged):
		return nil, err
	case err != nil:
		return nil, fmt.Errorf("open the version store %s: %w", path, err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		_, err := tx.CreateBucketIfNotExists(boltVersions)
		return err
	})
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("open the version store %s: %w", path, err)
	}
	b := &Bolt{db: db, path: path, now: opts.Now}
	if b.now == nil {
		b.now = time.Now
	}
	return b, nil
}

// fail returns err as the store's error: ErrClosed once the file is
// closed, the Store errors as they are, others naming the file.
func (b *Bolt) fail(err error) error {
	switch {
	case errors.Is(err, berrors.ErrDatabaseNotOpen):
		return ErrClosed
	case errors.Is(err, ErrNotFound), errors.Is(err, ErrCorrupt):
		return err
	}
	return fmt.Errorf("version store %s: %w", b.path, err)
}

// Put stores v, or extends the Until of the version stored under its ID,
// in one transaction. A stored value that does not decode is replaced.
func (b *Bolt) Put(ctx context.Context, v *Version) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := Check(v); err != nil {
		return err
	}
	now := b.now()
	err := b.db.Update(func(tx *bolt.Tx) error {
		bk := tx.Bucket(boltVersions)
		key := []byte(v.ID)
		if old, err := Unmarshal(bk.Get(key)); err == nil && !old.Expired(now) {
			if !v.Until.After(old.Until) {
				return nil
			}
			old.Until = v.Until
			return put(bk, old)
		}
		if v.Expired(now) {
			return nil
		}
		c := *v
		if c.Served.IsZero() {
			c.Served = now
		}
		return put(bk, &c)
	})
	if err != nil {
		return b.fail(err)
	}
	return nil
}

// put writes v into bk under its id.
func put(bk *bolt.Bucket, v *Version) error {
	enc, err := Marshal(v)
	if err != nil {
		return err
	}
	return bk.Put([]byte(v.ID), enc)
}

// Get returns the version.
func (b *Bolt) Get(ctx context.Context, id string) (*Version, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var v *Version
	err := b.db.View(func(tx *bolt.Tx) error {
		var err error
		v, err = b.live(tx.Bucket(boltVersions), id) // copies out of the transaction's memory
		return err
	})
	if err != nil {
		return nil, b.fail(err)
	}
	return v, nil
}

// live returns the version stored in bk under id unless its Until has
// passed.
func (b *Bolt) live(bk *bolt.Bucket, id string) (*Version, error) {
	if !ValidID(id) {
		return nil, ErrNotFound
	}
	val := bk.Get([]byte(id))
	if val == nil {
		return nil, ErrNotFound
	}
	v, err := Unmarshal(val)
	if err != nil {
		return nil, err
	}
	if v.ID != id {
		return nil, ErrCorrupt
	}
	if v.Expired(b.now()) {
		return nil, ErrNotFound
	}
	return v, nil
}

// Keep extends the version's Until to until when that is later, in one
// transaction.
func (b *Bolt) Keep(ctx context.Context, id string, until time.Time) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	err := b.db.Update(func(tx *bolt.Tx) error {
		bk := tx.Bucket(boltVersions)
		v, err := b.live(bk, id)
		if err != nil {
			return err
		}
		if !until.After(v.Until) {
			return nil
		}
		v.Until = until
		return put(bk, v)
	})
	if err != nil {
		return b.fail(err)
	}
	return nil
}

// Retire removes, in one transaction, the versions whose Until is before
// now and returns them without their Source, earliest Until first. A
// value that does not decode stays, for Get to report as ErrCorrupt.
func (b *Bolt) Retire(ctx context.Context, now time.Time) ([]*Version, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var retired []*Version
	err := b.db.Update(func(tx *bolt.Tx) error {
		retired = nil
		bk := tx.Bucket(boltVersions)
		var keys [][]byte
		err := bk.ForEach(func(k, val []byte) error {
			// Decoding into a Version without Source skips the bytes of
			// the flow file.
			var v struct {
				Version
				Source json.RawMessage `json:"source"`
			}
			if json.Unmarshal(val, &v) != nil || !v.Until.Before(now) {
				return nil
			}
			r := v.Version
			r.ID = string(k)
			retired = append(retired, &r)
			keys = append(keys, slices.Clone(k))
			return nil
		})
		if err != nil {
			return err
		}
		for _, k := range keys {
			if err := bk.Delete(k); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, b.fail(err)
	}
	SortRetired(retired)
	return retired, nil
}

// Close closes the file. Calling it again does nothing.
func (b *Bolt) Close() error {
	if err := b.db.Close(); err != nil {
		return fmt.Errorf("close the version store %s: %w", b.path, err)
	}
	return nil
}
