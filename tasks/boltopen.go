package tasks

import (
	"bytes"
	"context"
	"encoding/binary"
	"slices"

	bolt "go.etcd.io/bbolt"
)

// The index of open tasks of Bolt (Task.Open), by principal, so that
// counting a principal's open tasks reads only theirs: the bucket "open"
// maps the big-endian 4-byte length of the principal, the principal and
// the task id to the big-endian 8-byte unix nanoseconds of the task's
// expiry. Create, Update and drop keep it in step with "tasks", in the
// same transaction; a task dropped otherwise (a sweep of expired tasks)
// leaves an entry whose expiry has passed, which counting skips and
// CreateLimited deletes. A file written before the index existed gets it
// built, from "tasks", by the first transaction that writes a task.
var boltOpen = []byte("open")

// openPrefix returns the prefix of the index keys of principal.
func openPrefix(principal string) []byte {
	return append(binary.BigEndian.AppendUint32(nil, uint32(len(principal))), principal...)
}

// openKey returns the index key of task id of principal.
func openKey(principal, id string) []byte { return append(openPrefix(principal), id...) }

// openIndex returns the index of open tasks in tx, a writable
// transaction, creating it from the tasks stored when the file has none.
func (b *Bolt) openIndex(tx *bolt.Tx) (*bolt.Bucket, error) {
	if bk := tx.Bucket(boltOpen); bk != nil {
		return bk, nil
	}
	bk, err := tx.CreateBucket(boltOpen)
	if err != nil {
		return nil, err
	}
	err = tx.Bucket(boltTasks).ForEach(func(_, v []byte) error {
		t, err := Unmarshal(v)
		if err != nil || b.expired(t) {
			return nil // a corrupt task counts for nobody; an expired one is gone
		}
		return indexOpen(bk, nil, t)
	})
	if err != nil {
		return nil, err
	}
	return bk, nil
}

// indexOpen keeps the entry of t in the index bk in step with t, which
// replaces old (nil when t is new): an entry while t is open, none once
// it has ended.
func indexOpen(bk *bolt.Bucket, old, t *Task) error {
	if old != nil && (old.Principal != t.Principal || !t.Open()) {
		if err := bk.Delete(openKey(old.Principal, old.ID)); err != nil {
			return err
		}
	}
	if !t.Open() {
		return nil
	}
	return bk.Put(openKey(t.Principal, t.ID), binary.BigEndian.AppendUint64(nil, uint64(max(t.Expires().UnixNano(), 0))))
}

// unindexOpen deletes the entry of t, which is dropped, from the index.
func (b *Bolt) unindexOpen(tx *bolt.Tx, t *Task) error {
	bk, err := b.openIndex(tx)
	if err != nil {
		return err
	}
	return bk.Delete(openKey(t.Principal, t.ID))
}

// countOpen counts the entries of principal in the index bk whose expiry
// has not passed, stopping at max (max <= 0: all of them), and returns
// the keys of those that have expired.
func (b *Bolt) countOpen(bk *bolt.Bucket, principal string, max int) (int, [][]byte) {
	prefix := openPrefix(principal)
	now := b.now().UnixNano()
	n := 0
	var stale [][]byte
	c := bk.Cursor()
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		if len(v) != 8 || int64(binary.BigEndian.Uint64(v)) <= now {
			stale = append(stale, slices.Clone(k))
			continue
		}
		if n++; n == max {
			break
		}
	}
	return n, stale
}

// CreateLimited stores t, unless a task that has not expired has its id
// or t's principal has limit open tasks already; the count and the write
// are one transaction.
func (b *Bolt) CreateLimited(ctx context.Context, t *Task, limit int) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	enc, err := Marshal(t)
	if err != nil {
		return err
	}
	return b.f.Fail(b.f.DB.Update(func(tx *bolt.Tx) error {
		bk := tx.Bucket(boltTasks)
		if v := bk.Get([]byte(t.ID)); v != nil {
			old, err := Unmarshal(v)
			if err != nil || !b.expired(old) {
				return ErrExists
			}
			if err := b.unindexOpen(tx, old); err != nil {
				return err
			}
		}
		open, err := b.openIndex(tx)
		if err != nil {
			return err
		}
		if limit > 0 {
			n, stale := b.countOpen(open, t.Principal, limit)
			for _, k := range stale {
				if err := open.Delete(k); err != nil {
					return err
				}
			}
			if n >= limit {
				return ErrTooMany
			}
		}
		if err := bk.Put([]byte(t.ID), enc); err != nil {
			return err
		}
		return indexOpen(open, nil, t)
	}))
}

// OpenTasks counts the open tasks of principal that have not expired, up
// to max.
func (b *Bolt) OpenTasks(ctx context.Context, principal string, max int) (int, error) {
	n, built := 0, false
	err := b.f.View(ctx, func(tx *bolt.Tx) error {
		bk := tx.Bucket(boltOpen)
		if built = bk != nil; built {
			n, _ = b.countOpen(bk, principal, max)
		}
		return nil
	})
	if err == nil && !built {
		// A file from before the index: build it, then count.
		err = b.f.Fail(b.f.DB.Update(func(tx *bolt.Tx) error {
			bk, err := b.openIndex(tx)
			if err == nil {
				n, _ = b.countOpen(bk, principal, max)
			}
			return err
		}))
	}
	if err != nil {
		return 0, err
	}
	return n, nil
}
