// Package kvbolt is the bbolt plumbing of flowserve's stores (see package
// kv): a store's file, opened after internal/boltcheck has checked it,
// with its buckets made, and the store's errors.
package kvbolt

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"

	"github.com/flowserve/flowserve/internal/boltcheck"
)

// LockTimeout bounds how long Open waits for another process to let go
// of the file.
const LockTimeout = time.Second

// Mode is the mode of a file Open creates.
const Mode = 0o600

// Spec says what a store's file is, for Open and the store's errors.
type Spec struct {
	// Name is the store as its errors name it: "task store" in "open the
	// task store PATH: ...".
	Name string
	// Kind names the store in the error of a damaged file.
	Kind boltcheck.Kind
	// Buckets are the buckets Open makes when the file lacks them.
	Buckets [][]byte
	// Closed is what Fail makes of an error once the file is closed: the
	// store's ErrClosed.
	Closed error
	// Pass are the store's own errors (ErrNotFound, ErrCorrupt, …),
	// which Fail returns as they are.
	Pass []error
}

// File is a store's open bbolt file.
type File struct {
	// DB is the file's database.
	DB *bolt.DB
	// Path is where the file is.
	Path string
	spec Spec
}

// Open opens the store's file at path, creating it (mode Mode) if it is
// missing, after checking it (boltcheck.Check): a damaged or truncated
// file is refused with a *boltcheck.DamagedError ("the run store PATH is
// damaged: ..."), never a panic. It fails, after LockTimeout, when
// another process has the file open ("the task store PATH is in use by
// another flowserve process", wrapping bbolt's errors.ErrTimeout). It
// makes the buckets of spec, then runs init (nil: nothing) in the same
// transaction; when either fails, it closes the file.
func Open(path string, spec Spec, init func(tx *bolt.Tx) error) (*File, error) {
	db, err := boltcheck.Open(path, Mode, spec.Kind, bolt.Options{Timeout: LockTimeout})
	var damaged *boltcheck.DamagedError
	switch {
	case errors.Is(err, berrors.ErrTimeout):
		return nil, fmt.Errorf("the %s %s is in use by another flowserve process: %w", spec.Name, path, err)
	case errors.As(err, &damaged):
		return nil, err
	case err != nil:
		return nil, fmt.Errorf("open the %s %s: %w", spec.Name, path, err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		for _, name := range spec.Buckets {
			if _, err := tx.CreateBucketIfNotExists(name); err != nil {
				return err
			}
		}
		if init == nil {
			return nil
		}
		return init(tx)
	})
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("open the %s %s: %w", spec.Name, path, err)
	}
	return &File{DB: db, Path: path, spec: spec}, nil
}

// Fail returns err as the store's error: nil as nil, Spec.Closed once the
// file is closed, the errors of Spec.Pass as they are, and others naming
// the file ("task store PATH: ...").
func (f *File) Fail(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, berrors.ErrDatabaseNotOpen) {
		return f.spec.Closed
	}
	for _, pass := range f.spec.Pass {
		if errors.Is(err, pass) {
			return err
		}
	}
	return fmt.Errorf("%s %s: %w", f.spec.Name, f.Path, err)
}

// View runs fn in a read-only transaction, unless ctx has ended, and
// returns its error as the store's (Fail).
func (f *File) View(ctx context.Context, fn func(tx *bolt.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return f.Fail(f.DB.View(fn))
}

// Update runs fn in a read-write transaction, unless ctx has ended, and
// returns its error as the store's (Fail).
func (f *File) Update(ctx context.Context, fn func(tx *bolt.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return f.Fail(f.DB.Update(fn))
}

// Close closes the file. Calling it again does nothing.
func (f *File) Close() error {
	if err := f.DB.Close(); err != nil {
		return fmt.Errorf("close the %s %s: %w", f.spec.Name, f.Path, err)
	}
	return nil
}

// DeleteIf walks the records of bk in key order and, once the walk is
// done (a bucket must not change under its ForEach), deletes those for
// which drop returned true. k and v are valid only during the call to
// drop.
func DeleteIf(bk *bolt.Bucket, drop func(k, v []byte) bool) error {
	var keys [][]byte
	err := bk.ForEach(func(k, v []byte) error {
		if drop(k, v) {
			keys = append(keys, slices.Clone(k))
		}
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
}
