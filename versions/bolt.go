package versions

import (
	"context"
	"encoding/json"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/flowserve/flowserve/internal/boltcheck"
	"github.com/flowserve/flowserve/internal/kv"
	"github.com/flowserve/flowserve/internal/kv/kvbolt"
)

// Bolt is a Store in a bbolt file on this machine: versions survive
// restarts. It is what a server with --data uses, in
// <--data>/versions.db. The file holds one bucket, "versions", keyed by
// version id, each value the version in the stored format (Marshal).
// Only one process may have the file open at a time.
type Bolt struct {
	f   *kvbolt.File
	now func() time.Time
}

// BoltOptions configure OpenBolt.
type BoltOptions struct {
	// Now is the store's clock, which decides when versions expire and
	// what a zero Served becomes; nil means time.Now.
	Now func() time.Time
}

var boltVersions = []byte("versions")

// boltSpec is the file of a Bolt: its buckets, and its names in errors.
var boltSpec = kvbolt.Spec{
	Name: "version store",
	Kind: boltcheck.Kind{Store: "version store",
		Lost: "its flow versions are lost: runs in flight on a version no longer served may fail"},
	Buckets: [][]byte{boltVersions},
	Closed:  ErrClosed,
	Pass:    []error{ErrNotFound, ErrCorrupt},
}

// OpenBolt opens the version store in the file at path, creating it (mode
// 0600) if it is missing. It fails, after a second, when another process
// has the file open. It checks the file first (boltcheck.Check) and
// refuses one that is damaged or cut short with a
// *boltcheck.DamagedError ("the version store PATH is damaged: ..."),
// rather than panic or open it empty. Close the store when done with it.
func OpenBolt(path string, opts BoltOptions) (*Bolt, error) {
	f, err := kvbolt.Open(path, boltSpec, nil)
	if err != nil {
		return nil, err
	}
	return &Bolt{f: f, now: kv.Clock(opts.Now)}, nil
}

// Put stores v, or extends the Until of the version stored under its ID,
// in one transaction. A stored value that does not decode is replaced.
func (b *Bolt) Put(ctx context.Context, v *Version) error {
	if err := Check(v); err != nil {
		return err
	}
	now := b.now()
	return b.f.Update(ctx, func(tx *bolt.Tx) error {
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
	var v *Version
	err := b.f.View(ctx, func(tx *bolt.Tx) error {
		var err error
		v, err = b.live(tx.Bucket(boltVersions), id) // copies out of the transaction's memory
		return err
	})
	if err != nil {
		return nil, err
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
	return b.f.Update(ctx, func(tx *bolt.Tx) error {
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
}

// Retire removes, in one transaction, the versions whose Until is before
// now and returns them without their Source, earliest Until first. A
// value that does not decode stays, for Get to report as ErrCorrupt.
func (b *Bolt) Retire(ctx context.Context, now time.Time) ([]*Version, error) {
	var retired []*Version
	err := b.f.Update(ctx, func(tx *bolt.Tx) error {
		retired = nil
		return kvbolt.DeleteIf(tx.Bucket(boltVersions), func(k, val []byte) bool {
			// Decoding into a Version without Source skips the bytes of
			// the flow file.
			var v struct {
				Version
				Source json.RawMessage `json:"source"`
			}
			if json.Unmarshal(val, &v) != nil || !v.Until.Before(now) {
				return false
			}
			r := v.Version
			r.ID = string(k)
			retired = append(retired, &r)
			return true
		})
	})
	if err != nil {
		return nil, err
	}
	SortRetired(retired)
	return retired, nil
}

// Close closes the file. Calling it again does nothing.
func (b *Bolt) Close() error { return b.f.Close() }
