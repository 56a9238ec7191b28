package state

import (
	"errors"
	"strconv"
	"time"
)

// EntryKind says what a journal entry records.
type EntryKind uint8

const (
	// EntryAnswer records the answer the client gave to an ask.
	EntryAnswer EntryKind = 1
	// EntryStep records the output (or the error) of a step.
	EntryStep EntryKind = 2
	// EntryCall opens the frame of a call or link node whose callee has
	// not finished: Value is the callee's version (64 lowercase hex digits), and the
	// entries after it, to the end of the journal, are the callee's.
	EntryCall EntryKind = 3
	// EntryReturn records a finished call: Value is its result (JSON),
	// Err the callee's failure message when it failed. It replaces the
	// frame the call had while its callee ran.
	EntryReturn EntryKind = 4
)

// Valid reports whether k is one of the kinds above.
func (k EntryKind) Valid() bool { return k >= EntryAnswer && k <= EntryReturn }

// String returns "answer", "step", "call", "return", or "kind(N)" for an
// unknown kind.
func (k EntryKind) String() string {
	switch k {
	case EntryAnswer:
		return "answer"
	case EntryStep:
		return "step"
	case EntryCall:
		return "call"
	case EntryReturn:
		return "return"
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// Entry is one journal position.
type Entry struct {
	Kind        EntryKind
	Node        string // node id
	Fingerprint uint64 // fingerprint of the node's definition
	Value       []byte // JSON: the answer {"action":…,"content":…} or the step's output; may be nil
	Err         string // step error message when the step failed; "" otherwise
}

// Pending is a question the client was asked and has not answered validly.
type Pending struct {
	Node        string
	Position    int
	Fingerprint uint64
	Invalid     int // invalid answers received so far
}

// State is everything one round hands to the next.
//
// Times are kept to the millisecond. A State returned by [Codec.Open] owns
// its memory: its Values share one buffer, and its strings share another, so
// holding any part of it keeps the whole decoded state alive.
type State struct {
	Tool       string
	ArgsDigest [32]byte
	Principal  string
	Expires    time.Time // set by Seal
	FlowHash   [32]byte
	RunID      [16]byte
	Started    time.Time
	Round      int
	Journal    []Entry
	Pending    []Pending
}

// Binding is what a state must match to be opened for a call.
type Binding struct {
	Tool       string
	ArgsDigest [32]byte
	Principal  string
}

// ErrInvalid is returned by [Codec.Open] for a state that is tampered,
// truncated, malformed, sealed with a key not in the ring, or bound to
// another tool, other arguments or another principal. Its message is the one
// to show the client; errors returned by Open match it with [errors.Is] and
// have exactly its message.
var ErrInvalid = errors.New("requestState is not valid for this call")

// ErrExpired is returned by [Codec.Open] for an authentic state whose expiry
// has passed.
var ErrExpired = errors.New("requestState has expired; call the tool again")

// ErrTooLarge is matched (with [errors.Is]) by the error [Codec.Open] returns
// for a state longer than the codec's MaxSize, and by the error [Codec.Seal]
// returns when the sealed state would be. The returned error's message names
// the limit: "requestState is larger than 262144 bytes".
var ErrTooLarge = errors.New("requestState is too large")

// invalidError is an [ErrInvalid] that remembers, for the server's logs only,
// which check failed.
type invalidError struct{ reason string }

func (e *invalidError) Error() string        { return ErrInvalid.Error() }
func (e *invalidError) Is(target error) bool { return target == ErrInvalid }

// The reasons a state is invalid. They are values, so rejecting a state
// allocates nothing.
var (
	errSyntax     = &invalidError{"malformed token"}
	errUnknownKey = &invalidError{"unknown key id"}
	errAuth       = &invalidError{"authentication failed"}
	errDecode     = &invalidError{"malformed plaintext"}
	errTool       = &invalidError{"bound to another tool"}
	errArgs       = &invalidError{"bound to other arguments"}
	errPrincipal  = &invalidError{"bound to another principal"}
)

// tooLargeError is an [ErrTooLarge] naming the limit.
type tooLargeError struct{ msg string }

func (e *tooLargeError) Error() string { return e.msg }
func (e *tooLargeError) Unwrap() error { return ErrTooLarge }

// Reason returns, for the server's own logs, why [Codec.Open] rejected a
// state: "malformed token", "unknown key id", "authentication failed",
// "malformed plaintext", "bound to another tool", "bound to other arguments"
// or "bound to another principal" for an [ErrInvalid], and err's message for
// any other error. It returns "" for a nil error. Never send it to the
// client: telling a caller which check failed helps it forge.
func Reason(err error) string {
	if err == nil {
		return ""
	}
	var ie *invalidError
	if errors.As(err, &ie) {
		return ie.reason
	}
	return err.Error()
}
