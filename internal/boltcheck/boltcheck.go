// Package boltcheck opens the bbolt files of flowserve's stores after
// checking them, so that a damaged or truncated file is refused with an
// error that says so, and how to recover, instead of panicking inside
// bbolt, crashing on a memory fault, or opening as an empty store.
//
// bbolt trusts its file: it maps it into memory and follows the page ids
// it finds there, so a flipped byte makes it panic ("Page expected to be
// 2", slice bounds out of range) or read past the end of a file cut
// short (a fault no recover catches), and a file cut short can open with
// its buckets gone, which a store then makes again, empty. Check reads
// the file with bounds-checked reads first (walk.go), then runs bbolt's
// own consistency check (Tx.Check) on it, read-only.
package boltcheck

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"time"
	"unicode/utf8"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// Kind names a store in the errors of Check and Open.
type Kind struct {
	// Store is what the file is, as errors say it: "run store".
	Store string
	// Lost says what moving the file aside loses: "its tasks are lost".
	Lost string
}

// DamagedError is the error of a store file that is damaged: Check and
// Open refuse it rather than open it.
type DamagedError struct {
	Kind Kind
	// Path is the file's path.
	Path string
	// Problem says what is wrong with the file: "it was cut short: ...".
	Problem string
}

// Error says which file is damaged, what is wrong with it, and how to
// recover.
func (e *DamagedError) Error() string {
	return fmt.Sprintf("the %s %s is damaged: %s; move it aside to start with an empty store (%s), or restore it from a backup",
		e.Kind.Store, e.Path, e.Problem, e.Kind.Lost)
}

// maxCheckProblems bounds the problems of bbolt's check that an error
// lists.
const maxCheckProblems = 3

// Open checks the file at path (Check) and opens it for reading and
// writing with opts; a missing file is created with mode. A damaged file
// gives a *DamagedError, and a file another process has open an error
// that wraps bbolt's errors.ErrTimeout once opts.Timeout has passed.
// Open never panics: a panic inside bbolt is a *DamagedError too.
func Open(path string, mode os.FileMode, kind Kind, opts bolt.Options) (*bolt.DB, error) {
	if err := Check(path, kind, opts.Timeout); err != nil {
		return nil, err
	}
	return open(path, mode, kind, opts)
}

// open opens the file at path with bbolt under guard. When bbolt panics
// it lets go of the lock bbolt took and closes the file (bbolt's memory
// map of it stays until the process ends).
func open(path string, mode os.FileMode, kind Kind, opts bolt.Options) (*bolt.DB, error) {
	var file *os.File
	openFile := opts.OpenFile
	if openFile == nil {
		openFile = os.OpenFile
	}
	opts.OpenFile = func(name string, flag int, perm os.FileMode) (*os.File, error) {
		f, err := openFile(name, flag, perm)
		file = f
		return f, err
	}
	var db *bolt.DB
	err := guard(path, kind, func() error {
		var err error
		db, err = bolt.Open(path, mode, &opts)
		return err
	})
	var damaged *DamagedError
	if errors.As(err, &damaged) && db == nil && file != nil {
		// bbolt panicked with the file open (it closes it on an error).
		unlock(file)
		file.Close()
	}
	if err != nil {
		return nil, err
	}
	return db, nil
}

// Check checks the bbolt file at path: its meta pages, its size against
// the pages they count, every page reachable from its root and its free
// list, then bbolt's consistency check. A missing or empty (0-byte) file
// passes: bbolt makes a new store there. A damaged file gives a
// *DamagedError; a file another process has open, an error that wraps
// bbolt's errors.ErrTimeout once timeout has passed; a file that cannot
// be read, its *fs.PathError; a path that is no regular file (a
// directory, a pipe), an error saying so. Check never writes to the
// file, and never panics.
func Check(path string, kind Kind, timeout time.Duration) error {
	info, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return err
	case !info.Mode().IsRegular():
		return errors.New("not a regular file")
	case info.Size() == 0:
		return nil
	}
	damaged := func(problem string) error { return &DamagedError{Kind: kind, Path: path, Problem: problem} }
	// Read-only: a shared lock, no write, and no free list loaded before
	// the walk has checked it.
	db, err := open(path, 0o600, kind, bolt.Options{ReadOnly: true, Timeout: timeout})
	var pathErr *fs.PathError
	var damagedErr *DamagedError
	switch {
	case errors.Is(err, berrors.ErrTimeout), errors.As(err, &pathErr), errors.As(err, &damagedErr):
		return err
	case err != nil:
		// bbolt refused the file (no valid meta page, too short): the walk
		// says why in words.
		if problem := walkFile(path); problem != "" {
			return damaged(problem)
		}
		return damaged(err.Error())
	}
	defer db.Close()
	if problem := walkFile(path); problem != "" {
		return damaged(problem)
	}
	var problems []error
	err = guard(path, kind, func() error {
		return db.View(func(tx *bolt.Tx) error {
			for err := range tx.Check(bolt.WithKVStringer(keyStringer{})) {
				problems = append(problems, err)
			}
			return nil
		})
	})
	if err != nil {
		return err
	}
	if len(problems) > 0 {
		return damaged(checkProblem(problems))
	}
	return nil
}

// checkProblem says what bbolt's consistency check found.
func checkProblem(problems []error) string {
	s := "bbolt's consistency check found "
	if len(problems) == 1 {
		return s + "a problem: " + problems[0].Error()
	}
	s += strconv.Itoa(len(problems)) + " problems: "
	for i, p := range problems[:min(len(problems), maxCheckProblems)] {
		if i > 0 {
			s += "; "
		}
		s += p.Error()
	}
	if len(problems) > maxCheckProblems {
		s += "; ..."
	}
	return s
}

// guard runs fn, turning a panic (bbolt's, on a damaged file) into a
// *DamagedError.
func guard(path string, kind Kind, fn func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &DamagedError{Kind: kind, Path: path, Problem: fmt.Sprintf("bbolt failed on it: %v", r)}
		}
	}()
	return fn()
}

// keyStringer shows keys in the problems of bbolt's check as quoted
// strings when they are text (task and version ids), else in hex.
type keyStringer struct{}

// KeyToString returns key quoted, or in hex.
func (keyStringer) KeyToString(key []byte) string { return show(key) }

// ValueToString returns value quoted, or in hex.
func (keyStringer) ValueToString(value []byte) string { return show(value) }

// show returns b quoted when it is printable text, else in hex.
func show(b []byte) string {
	if utf8.Valid(b) {
		s := string(b)
		if q := strconv.Quote(s); len(q) == len(s)+2 {
			return q
		}
	}
	return fmt.Sprintf("%x", b)
}
