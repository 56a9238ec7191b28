package state

import (
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
	"time"

	"golang.org/x/crypto/chacha20poly1305"
)

const (
	// formatVersion is the first plaintext byte and is bound as associated
	// data.
	formatVersion = 1

	nonceSize = chacha20poly1305.NonceSize
	tagSize   = chacha20poly1305.Overhead
)

// The defaults of [Options].
const (
	// DefaultTTL is how long a sealed state stays valid unless
	// [Options].TTL says otherwise.
	DefaultTTL = time.Hour
	// DefaultMaxSize is the longest sealed state, in bytes, a codec accepts
	// unless [Options].MaxSize says otherwise.
	DefaultMaxSize = 256 << 10
)

// Options configures a [Codec]. The zero value means the defaults.
type Options struct {
	// TTL is how long a sealed state can be opened; default 1 hour.
	TTL time.Duration
	// MaxSize is the longest sealed state accepted, in bytes; default
	// 256 KiB. Seal refuses to produce a longer one.
	MaxSize int
	// Now is the clock; default time.Now.
	Now func() time.Time
}

// Codec seals states into request-state strings and opens them. It is
// immutable and safe for concurrent use.
type Codec struct {
	ring     *KeyRing
	ttl      time.Duration
	maxSize  int
	now      func() time.Time
	b64      *base64.Encoding // strict base64url, no padding
	tooLarge error

	// fillNonce, when set, fills the nonce of each seal instead of
	// crypto/rand. Only the known-answer tests set it, so that a sealed
	// state is reproducible; a codec from NewCodec never has it.
	fillNonce func(nonce []byte)
}

// NewCodec returns a codec using ring's first key to seal and all its keys
// to open. It panics if ring is nil.
func NewCodec(ring *KeyRing, opts Options) *Codec {
	if ring == nil || len(ring.keys) == 0 {
		panic("state.NewCodec: nil or empty key ring")
	}
	c := &Codec{
		ring:    ring,
		ttl:     opts.TTL,
		maxSize: opts.MaxSize,
		now:     opts.Now,
		b64:     base64.RawURLEncoding.Strict(),
	}
	if c.ttl <= 0 {
		c.ttl = DefaultTTL
	}
	if c.maxSize <= 0 {
		c.maxSize = DefaultMaxSize
	}
	if c.now == nil {
		c.now = time.Now
	}
	c.tooLarge = &tooLargeError{"requestState is larger than " + strconv.Itoa(c.maxSize) + " bytes"}
	return c
}

// Seal stamps s.Expires with the codec's clock plus its TTL (to the
// millisecond) and returns s sealed with the ring's first key. It leaves s
// unchanged when it fails.
//
// It fails with an error matching [ErrTooLarge] if the result would be longer
// than the codec's MaxSize, and with a plain error if s cannot be encoded: a
// journal entry of unknown kind, or a negative round, position or invalid
// Derive returns a secret for purpose derived from the codec's sealing
// key (see KeyRing.Derive).
func (c *Codec) Derive(purpose string) []byte { return c.ring.Derive(purpose) }

// count.
func (c *Codec) Seal(s *State) (string, error) {
	return c.SealFor(s, 0)
}

// SealFor is Seal with a lifetime of its own: the state expires ttl from
// now instead of after the codec's TTL (ttl <= 0 means the codec's). The
// run store seals the states of tasks, which wait longer than a client
// conversation, for the task's lifetime.
func (c *Codec) SealFor(s *State, ttl time.Duration) (string, error) {
	if err := check(s); err != nil {
		return "", err
	}
	if ttl <= 0 {
		ttl = c.ttl
	}
	prev := s.Expires
	s.Expires = time.UnixMilli(c.now().Add(ttl).UnixMilli()).UTC()
	k := &c.ring.keys[0]

	size := encodedLen(s)
	rawLen := nonceSize + size + tagSize
	tokenLen := len(k.id) + 1 + base64.RawURLEncoding.EncodedLen(rawLen)
	if tokenLen > c.maxSize {
		s.Expires = prev
		return "", c.tooLarge
	}

	raw := make([]byte, rawLen)
	nonce := raw[:nonceSize]
	if c.fillNonce != nil {
		c.fillNonce(nonce)
	} else {
		rand.Read(nonce) // never fails (crypto/rand.Read crashes the program rather than return an error)
	}
	plain := encode(raw[nonceSize:nonceSize], s)
	if len(plain) != size {
		panic("state: encoded length " + strconv.Itoa(len(plain)) + " differs from computed " + strconv.Itoa(size))
	}
	k.aead.Seal(plain[:0], nonce, plain, k.ad)

	// Encode in chunks of 768 raw bytes (1024 characters) through a stack
	// buffer, so the token is built with one allocation.
	var b strings.Builder
	b.Grow(tokenLen)
	b.WriteString(k.id)
	b.WriteByte('.')
	var chunk [1024]byte
	for len(raw) > 0 {
		n := min(len(raw), 768)
		m := base64.RawURLEncoding.EncodedLen(n)
		base64.RawURLEncoding.Encode(chunk[:m], raw[:n])
		b.Write(chunk[:m])
		raw = raw[n:]
	}
	return b.String(), nil
}

// check reports why s cannot be encoded, if it cannot.
func check(s *State) error {
	if s.Round < 0 {
		return fmt.Errorf("state: round is %d, want ≥ 0", s.Round)
	}
	for i := range s.Journal {
		if k := s.Journal[i].Kind; !k.Valid() {
			return fmt.Errorf("state: journal entry %d (%s) has kind %d, want %d (answer), %d (step), %d (call) or %d (return)",
				i, s.Journal[i].Node, k, EntryAnswer, EntryStep, EntryCall, EntryReturn)
		}
	}
	for i := range s.Pending {
		p := &s.Pending[i]
		if p.Position < 0 || p.Invalid < 0 {
			return fmt.Errorf("state: pending question %d (%s) has position %d and %d invalid answers, want both ≥ 0",
				i, p.Node, p.Position, p.Invalid)
		}
	}
	return nil
}

// Open checks a sealed state and returns it if it is valid for the call
// bound by b. The checks run in this order: size limit ([ErrTooLarge]),
// syntax, key id in the ring, authentication, decoding, expiry
// ([ErrExpired]), then tool, arguments' digest and principal. Any failure
// other than size and expiry is an error matching [ErrInvalid] with exactly
// its message; [Reason] tells which check failed.
func (c *Codec) Open(token string, b Binding) (*State, error) {
	s, err := c.OpenUnbound(token)
	if err != nil {
		return nil, err
	}
	if err := s.Check(b); err != nil {
		return nil, err
	}
	return s, nil
}

// Check is the last of Open's checks: that s is bound to the call b
// (tool, arguments' digest, principal, in this order). Its errors are
// Open's.
func (s *State) Check(b Binding) error {
	switch {
	case s.Tool != b.Tool:
		return errTool
	case s.ArgsDigest != b.ArgsDigest:
		return errArgs
	case s.Principal != b.Principal:
		return errPrincipal
	}
	return nil
}

// OpenUnbound is Open without its last check (Check): for a caller that
// needs what the state says (its flow's version) to know the binding.
// Callers must Check the state before they use it.
func (c *Codec) OpenUnbound(token string) (*State, error) {
	if len(token) > c.maxSize {
		return nil, c.tooLarge
	}

	// Syntax: <key id>.<base64url, no padding, no line breaks>.
	dot := strings.IndexByte(token, '.')
	if dot < 1 {
		return nil, errSyntax
	}
	id, payload := token[:dot], token[dot+1:]
	// The base64 decoder skips line breaks; a token has none.
	if len(payload)%4 == 1 || c.b64.DecodedLen(len(payload)) < nonceSize+tagSize+1 ||
		strings.IndexByte(payload, '\n') >= 0 || strings.IndexByte(payload, '\r') >= 0 {
		return nil, errSyntax
	}
	raw := make([]byte, c.b64.DecodedLen(len(payload)))
	if n, err := c.b64.Decode(raw, []byte(payload)); err != nil || n != len(raw) {
		return nil, errSyntax
	}

	k := c.ring.lookup(id)
	if k == nil {
		return nil, errUnknownKey
	}

	plain, err := k.aead.Open(raw[nonceSize:nonceSize], raw[:nonceSize], raw[nonceSize:], k.ad)
	if err != nil {
		return nil, errAuth
	}

	s := new(State)
	if !decode(s, plain) {
		return nil, errDecode
	}

	if !c.now().Before(s.Expires) {
		return nil, ErrExpired
	}
	return s, nil
}
