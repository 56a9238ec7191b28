package approvals

import (
	"bytes"
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

// Ticket is what a link's token carries: which asking of which question
// it answers, and until when.
type Ticket struct {
	Task    string    // the task id (32 hex digits), or the run's outside a server
	Key     string    // the asking's key (Key), unique over the run's life, e.g. "approval-3"
	Expires time.Time // the link stops working at this instant (Expires; kept to the second)
}

// ErrBadToken is Open's error for a token that is not a link this server
// made.
var ErrBadToken = errors.New("approvals: not a valid approval link")

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
	atRestInfo   = "flowserve approval at rest v1"
	minSecret    = 16
	// maxToken is the longest token in bytes before its base64: a task id
	// and a key of the longest.
	maxToken = 1 + chacha20poly1305.NonceSizeX + 8 + 1 + maxTask + maxKey + chacha20poly1305.Overhead
)

// encoding is the tokens' base64: URL-safe, unpadded, and strict so that a
// token has one spelling only.
var encoding = base64.RawURLEncoding.Strict()

// Sealer seals tickets into link tokens and opens them, and seals what
// a run store keeps of an approval (SealAtRest). The page (package
// approve) derives its own keys from the same secret (Derive).
type Sealer struct {
	secret []byte
	aead   cipher.AEAD
	atRest cipher.AEAD // seals what a run store keeps of an approval (SealAtRest)
	rand   io.Reader   // the nonces' source; crypto/rand unless a test sets it
}

// NewSealer returns a Sealer whose keys are derived from secret with
// HKDF-SHA256. The secret must be at least 16 bytes long.
func NewSealer(secret []byte) (*Sealer, error) {
	if len(secret) < minSecret {
		return nil, fmt.Errorf("approvals: the link secret must be at least %d bytes long, not %d", minSecret, len(secret))
	}
	s := &Sealer{secret: bytes.Clone(secret), rand: rand.Reader}
	var err error
	if s.aead, err = chacha20poly1305.NewX(s.Derive(linkInfo)); err != nil {
		return nil, fmt.Errorf("approvals: the link key: %w", err)
	}
	if s.atRest, err = chacha20poly1305.NewX(s.Derive(atRestInfo)); err != nil {
		return nil, fmt.Errorf("approvals: the at-rest key: %w", err)
	}
	return s, nil
}

// Derive returns the 32-byte key of purpose (HKDF-SHA256 of the secret,
// with purpose as its info): the approval page's own keys, for its forms'
// CSRF fields and its sign-in, come from the secret that seals its links.
// Each purpose must be a string of its own, such as "flowserve approval
// form v1".
func (s *Sealer) Derive(purpose string) []byte {
	// hkdf.Key fails only for keys longer than 255 hashes.
	key, _ := hkdf.Key(sha256.New, s.secret, nil, purpose, 32)
	return key
}

// Seal returns the token of t: a string of URL-safe characters, 88 long
// for a 32-hex-digit task id plus 4 for every 3 bytes of the key (102 for
// "approval-3"). The task id must be 1 to 64 bytes long and the key 1 to
// 200; Expires is kept to the second.
func (s *Sealer) Seal(t Ticket) (string, error) {
	switch {
	case t.Task == "" || len(t.Task) > maxTask:
		return "", fmt.Errorf("approvals: a ticket's task id must be 1 to %d bytes long, not %d", maxTask, len(t.Task))
	case t.Key == "" || len(t.Key) > maxKey:
		return "", fmt.Errorf("approvals: a ticket's key must be 1 to %d bytes long, not %d", maxKey, len(t.Key))
	case t.Expires.IsZero():
		return "", errors.New("approvals: a ticket needs an expiry")
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
		return "", fmt.Errorf("approvals: making a nonce: %w", err)
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
