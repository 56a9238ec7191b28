// Package versions is the version store: every version of a flow a server
// has served, kept so that a run that began on version V goes on on V
// after reloads, restarts and rolling deploys, on any instance (DESIGN
// §13).
//
// A version is a program's version hash in hex (64 digits), which states
// and tasks carry; a Version records what any instance needs to compile
// that program again: the tool it serves, the flow file's bytes and where
// they were loaded from. A round whose state names a version this
// instance is not serving finds it in the store, compiles it and runs on
// it; new calls run on the current version. A version the store does not
// know (ErrNotFound) is a named, retryable error for the caller, never a
// mismatch deep in the journal.
//
// A Store keeps versions: Memory in this process, Bolt in a file on this
// machine (the server puts it at <--data>/versions.db; it survives
// restarts), and package versions/redis on Redis, shared by many
// instances.
//
// # Lifetimes
//
// Each version is kept until its Until. A server puts each version it
// serves with Until = now + the state TTL, and puts it again (which only
// extends Until) while it is current, so that every state sealed on it can
// be answered until that state expires. Once a reload or a deploy has
// replaced it, the version is no longer put, but it is extended with Keep
// while rounds or tasks still run on it: a task's version is kept at least
// as long as the task. A version is dropped only when it has drained:
// Retire removes the versions whose Until has passed and returns them, so
// that the caller logs each once (on a store shared by instances, one
// instance logs it).
//
// A version whose Until has passed is gone for Get and Keep even before
// Retire removes it, and a Put of it stores it anew. Times are by the
// store's clock (the Now of its options), except Retire's, which is the
// caller's.
package versions

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/flowserve/flowserve/internal/kv"
)

// Version is one version of a flow as a server served it: enough for any
// instance to compile it again. It is stored as JSON; the field names
// below are the stored format, shared by every instance on one store.
type Version struct {
	ID     string    `json:"id"`     // 64 hex digits
	Tool   string    `json:"tool"`   // the tool's (or prompt's) name
	Path   string    `json:"path"`   // the flow file's path where it was loaded, for messages
	Source []byte    `json:"source"` // the flow file's bytes
	Served time.Time `json:"served"` // when it was first put
	Until  time.Time `json:"until"`  // kept at least until then
}

// The errors of a Store.
var (
	// ErrNotFound: no version has the id (or its Until has passed, or it
	// was retired).
	ErrNotFound = errors.New("no such version")
	// ErrClosed: the store was closed.
	ErrClosed = errors.New("version store is closed")
	// ErrCorrupt: a stored version could not be decoded.
	ErrCorrupt = errors.New("stored version is corrupt")
	// ErrInvalid: Put was given a version whose ID is not 64 lowercase
	// hex digits.
	ErrInvalid = errors.New("version id is not 64 lowercase hex digits")
)

// Store keeps versions. Implementations are safe for concurrent use.
type Store interface {
	// Put stores v, or, when a version with its ID is stored, keeps the
	// stored one (its Served) and extends its Until to the later of the two.
	// A zero Served is the store's clock now. A version whose Until has
	// passed already is not stored. ErrInvalid when v.ID is not ValidID.
	Put(ctx context.Context, v *Version) error
	// Get returns a copy of the version, or ErrNotFound (also once its Until has passed).
	Get(ctx context.Context, id string) (*Version, error)
	// Keep extends a stored version's Until to until when that is later (ErrNotFound when none).
	Keep(ctx context.Context, id string, until time.Time) error
	// Retire removes the versions whose Until is before now and returns them
	// (IDs, tools and Until; Source may be nil), so that the caller logs each once.
	// On a store shared by instances each retired version is returned to one caller only.
	Retire(ctx context.Context, now time.Time) ([]*Version, error)
	// Close releases the store; later calls fail with ErrClosed. Calling
	// Close again does nothing.
	Close() error
}

// IDLen is the length of a version id: a 256-bit hash in hex.
const IDLen = 64

// ValidID reports whether id is a version id: 64 lowercase hex digits.
// (Lowercase only, so that one version has one id.)
func ValidID(id string) bool {
	if len(id) != IDLen {
		return false
	}
	for i := range len(id) {
		c := id[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// Check returns an error wrapping ErrInvalid unless v.ID is valid. Store
// implementations call it in Put.
func Check(v *Version) error {
	if !ValidID(v.ID) {
		return fmt.Errorf("%w: %q", ErrInvalid, v.ID)
	}
	return nil
}

// Expired reports whether v's Until is before now.
func (v *Version) Expired(now time.Time) bool { return v.Until.Before(now) }

// Clone returns a deep copy of v.
func (v *Version) Clone() *Version {
	c := *v
	if v.Source != nil {
		c.Source = append([]byte(nil), v.Source...)
	}
	return &c
}

// Marshal encodes v in the stored format.
func Marshal(v *Version) ([]byte, error) { return json.Marshal(v) }

// Unmarshal decodes a version in the stored format; ErrCorrupt when b is
// not one.
func Unmarshal(b []byte) (*Version, error) {
	return kv.Decode(b, ErrCorrupt, func(v *Version) bool { return ValidID(v.ID) })
}
