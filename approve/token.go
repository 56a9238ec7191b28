package approve

import (
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"time"

	"golang.org/x/crypto/chacha20poly1305"
)

// Ticket is what a link's token carries.
type Ticket struct {
	Task    string    // the task id (32 hex digits)
	Key     string    // the question's key in the task, unique over the task's life, e.g. "approval-3"
	Expires time.Time // the link stops working at this instant (kept to the second)
}

// Errors the handler tells apart. A Backend returns ErrAnswered and
// ErrGone; Open returns ErrBadToken.
var (
	// ErrBadToken means the token is not a link this server made.
	ErrBadToken = errors.New("approve: not a valid approval link")
	// ErrAnswered means the question was answered already.
	ErrAnswered = errors.New("approve: the question was answered already")
	// ErrGone means the request no longer exists or has ended.
	ErrGone = errors.New("approve: the request is no longer open")
)

// The token format, version 1: base64url without padding of
//
//	version (1 byte, 1) | nonce (24 bytes) | XChaCha20-Poly1305 sealed plaintext
//
// with the version byte as additional data, and the plaintext
//
//	expiry (8 bytes, big-endian unix seconds) | task | key (the rest)
//
// where task is a 0 byte and 16 bytes when the task id is 32 lower-case
// hex digits, or its length (1 to maxTask) and its bytes.
const (
	tokenVersion = 1
	maxTask      = 64  // the longest task id a token carries, in bytes
	maxKey       = 200 // the longest key a token carries, in bytes
	hexTask      = 0   // the task byte of a task id carried as 16 bytes
	linkInfo     = "flowserve approval link v1"
	csrfInfo     = "flowserve approval form v1"
	signInInfo   = "flowserve approval sign-in v1"
	atRestInfo   = "flowserve approval at rest v1"
	minSecret    = 16
	// maxToken is the longest token in bytes before its base64: a task id
	// and a key of the longest.
	maxToken = 1 + chacha20poly1305.NonceSizeX + 8 + 1 + maxTask + maxKey + chacha20poly1305.Overhead
)

// encoding is the tokens' base64: URL-safe, unpadded, and strict so that a
// token has one spelling only.
var encoding = base64.RawURLEncoding.Strict()

// Sealer seals tickets into link tokens and opens them.
type Sealer struct {
	aead   cipher.AEAD
	signIn cipher.AEAD // seals the sign-in state and the approver cookie
	atRest cipher.AEAD // seals what a run store keeps of an approval (SealAtRest)
	csrf   []byte      // the key of the forms' CSRF fields
	rand   io.Reader   // the nonces' source; crypto/rand unless a test sets it
}

// NewSealer returns a Sealer whose keys are derived from secret with
// HKDF-SHA256. The secret must be at least 16 bytes long.
func NewSealer(secret []byte) (*Sealer, error) {
	if len(secret) < minSecret {
		return nil, fmt.Errorf("approve: the link secret must be at least %d bytes long, not %d", minSecret, len(secret))
	}
	key, err := hkdf.Key(sha256.New, secret, nil, linkInfo, chacha20poly1305.KeySize)
	if err != nil {
		return nil, fmt.Errorf("approve: deriving the link key: %w", err)
	}
	csrf, err := hkdf.Key(sha256.New, secret, nil, csrfInfo, sha256.Size)
	if err != nil {
		return nil, fmt.Errorf("approve: deriving the form key: %w", err)
	}
	aead, err := chacha20poly1305.NewX(key)
	if err != nil {
		return nil, fmt.Errorf("approve: %w", err)
	}
	signInKey, err := hkdf.Key(sha256.New, secret, nil, signInInfo, chacha20poly1305.KeySize)
	if err != nil {
		return nil, fmt.Errorf("approve: deriving the sign-in key: %w", err)
	}
	signIn, err := chacha20poly1305.NewX(signInKey)
	if err != nil {
		return nil, fmt.Errorf("approve: %w", err)
	}
	restKey, err := hkdf.Key(sha256.New, secret, nil, atRestInfo, chacha20poly1305.KeySize)
	if err != nil {
		return nil, fmt.Errorf("approve: deriving the at-rest key: %w", err)
	}
	atRest, err := chacha20poly1305.NewX(restKey)
	if err != nil {
		return nil, fmt.Errorf("approve: %w", err)
	}
	return &Sealer{aead: aead, signIn: signIn, atRest: atRest, csrf: csrf, rand: rand.Reader}, nil
}

// Seal returns the token of t: a string of URL-safe characters, 88 long
// for a 32-hex-digit task id plus 4 for every 3 bytes of the key (102 for
// "approval-3"). The task id must be 1 to 64 bytes long and the key 1 to
// 200; Expires is kept to the second.
func (s *Sealer) Seal(t Ticket) (string, error) {
	switch {
	case t.Task == "" || len(t.Task) > maxTask:
		return "", fmt.Errorf("approve: a ticket's task id must be 1 to %d bytes long, not %d", maxTask, len(t.Task))
	case t.Key == "" || len(t.Key) > maxKey:
		return "", fmt.Errorf("approve: a ticket's key must be 1 to %d bytes long, not %d", maxKey, len(t.Key))
	case t.Expires.IsZero():
		return "", errors.New("approve: a ticket needs an expiry")
	}
	plain := make([]byte, 8, 8+1+maxTask+len(t.Key))
	binary.BigEndian.PutUint64(plain, uint64(t.Expires.Unix()))
	if id, ok := hexID(t.Task); ok {
		plain = append(plain, hexTask)
		plain = append(plain, id...)
	} else {
		plain = append(plain, byte(len(t.Task)))
		plain = append(plain, t.Task...)
	}
	plain = append(plain, t.Key...)

	out := make([]byte, 1+chacha20poly1305.NonceSizeX, 1+chacha20poly1305.NonceSizeX+len(plain)+s.aead.Overhead())
	out[0] = tokenVersion
	if _, err := io.ReadFull(s.rand, out[1:]); err != nil {
		return "", fmt.Errorf("approve: making a nonce: %w", err)
	}
	out = s.aead.Seal(out, out[1:], plain, out[:1])
	return encoding.EncodeToString(out), nil
}

// Open returns the ticket token carries, or ErrBadToken when it is
// malformed, tampered with or sealed with another secret. Open does not
// check the expiry.
func (s *Sealer) Open(token string) (Ticket, error) {
	if len(token) > encoding.EncodedLen(maxToken) {
		return Ticket{}, ErrBadToken
	}
	raw, err := encoding.DecodeString(token)
	if err != nil || len(raw) < 1+chacha20poly1305.NonceSizeX+s.aead.Overhead() || raw[0] != tokenVersion {
		return Ticket{}, ErrBadToken
	}
	nonce, sealed := raw[1:1+chacha20poly1305.NonceSizeX], raw[1+chacha20poly1305.NonceSizeX:]
	plain, err := s.aead.Open(nil, nonce, sealed, raw[:1])
	if err != nil {
		return Ticket{}, ErrBadToken
	}
	t, ok := decodeTicket(plain)
	if !ok {
		return Ticket{}, ErrBadToken
	}
	return t, nil
}

// decodeTicket decodes a token's plaintext.
func decodeTicket(plain []byte) (Ticket, bool) {
	if len(plain) < 8+1 {
		return Ticket{}, false
	}
	t := Ticket{Expires: time.Unix(int64(binary.BigEndian.Uint64(plain)), 0).UTC()}
	rest := plain[8:]
	n := int(rest[0])
	rest = rest[1:]
	switch {
	case n == hexTask && len(rest) >= 16:
		t.Task = hex.EncodeToString(rest[:16])
		rest = rest[16:]
	case n > hexTask && n <= maxTask && len(rest) >= n:
		t.Task = string(rest[:n])
		rest = rest[n:]
	default:
		return Ticket{}, false
	}
	if len(rest) == 0 || len(rest) > maxKey {
		return Ticket{}, false
	}
	t.Key = string(rest)
	return t, true
}

// hexID returns the 16 bytes a task id of 32 lower-case hex digits spells.
func hexID(task string) ([]byte, bool) {
	if len(task) != 32 {
		return nil, false
	}
	id, err := hex.DecodeString(task)
	if err != nil || hex.EncodeToString(id) != task {
		return nil, false
	}
	return id, true
}
