package state

import (
	"bytes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"

	"golang.org/x/crypto/chacha20poly1305"
)

// keyIDPattern is what a key id looks like. Key ids appear in every sealed
// state, before the dot.
var keyIDPattern = regexp.MustCompile(`^[A-Za-z0-9_-]{1,32}$`)

// adLabel starts the associated data of every sealed state.
const adLabel = "flowserve/requestState"

// Key is one named 256-bit secret.
type Key struct {
	ID     string
	Secret [32]byte
}

// String returns the key in the line format [ParseKeyRing] reads,
// "<id>:<standard base64 of the secret>". It contains the secret: write it
// to a key file, never to a log.
func (k Key) String() string {
	return k.ID + ":" + base64.StdEncoding.EncodeToString(k.Secret[:])
}

// GenerateKey returns a key with the given id and a secret from crypto/rand.
func GenerateKey(id string) (Key, error) {
	if !keyIDPattern.MatchString(id) {
		return Key{}, fmt.Errorf("key id %q is not valid: %s", id, keyIDRule)
	}
	k := Key{ID: id}
	if _, err := rand.Read(k.Secret[:]); err != nil {
		return Key{}, fmt.Errorf("generate key %q: %w", id, err)
	}
	return k, nil
}

const keyIDRule = "use 1 to 32 letters, digits, '_' or '-'"

// ringKey is a key ready to use: its AEAD and its associated data are built
// once.
type ringKey struct {
	id   string
	aead cipher.AEAD
	ad   []byte // adLabel ‖ formatVersion ‖ id
}

// KeyRing is the set of keys a [Codec] uses: the first key seals, every key
// opens. It is immutable and safe for concurrent use.
type KeyRing struct {
	keys    []ringKey
	primary [32]byte // the sealing key's secret, for Derive
}

// NewKeyRing returns a ring of the given keys; the first one seals. It needs
// at least one key, and ids must be unique and match ^[A-Za-z0-9_-]{1,32}$.
// An all-zero secret is refused as a certain mistake.
func NewKeyRing(keys ...Key) (*KeyRing, error) {
	if len(keys) == 0 {
		return nil, errors.New("key ring has no keys")
	}
	r := &KeyRing{keys: make([]ringKey, len(keys))}
	for i, k := range keys {
		if !keyIDPattern.MatchString(k.ID) {
			return nil, fmt.Errorf("key %d: key id %q is not valid: %s", i+1, k.ID, keyIDRule)
		}
		for _, prev := range keys[:i] {
			if prev.ID == k.ID {
				return nil, fmt.Errorf("key %d: key id %q appears twice", i+1, k.ID)
			}
		}
		if k.Secret == ([32]byte{}) {
			return nil, fmt.Errorf("key %q: secret is all zeros", k.ID)
		}
		aead, err := chacha20poly1305.New(k.Secret[:])
		if err != nil {
			return nil, fmt.Errorf("key %q: %w", k.ID, err)
		}
		ad := make([]byte, 0, len(adLabel)+1+len(k.ID))
		ad = append(ad, adLabel...)
		ad = append(ad, formatVersion)
		ad = append(ad, k.ID...)
		r.keys[i] = ringKey{id: k.ID, aead: aead, ad: ad}
	}
	r.primary = keys[0].Secret
	return r, nil
}

// Derive returns a 32-byte secret for purpose, derived from the sealing
// key's secret with HKDF-SHA256 (RFC 5869; no salt, info "flowserve " +
// purpose). Features that need a secret shared by a server's instances
// (the links of approval pages) use it, so that they never use the state
// key itself. It changes when the sealing key does.
func (r *KeyRing) Derive(purpose string) []byte {
	b, err := hkdf.Key(sha256.New, r.primary[:], nil, "flowserve "+purpose, 32)
	if err != nil {
		panic("state: hkdf: " + err.Error()) // only for lengths over 255·32
	}
	return b
}

// EphemeralKeyRing returns a ring of one random key with id "ephemeral".
// States it seals cannot be opened by another process, nor by this one after
// a restart.
func EphemeralKeyRing() (*KeyRing, error) {
	k, err := GenerateKey("ephemeral")
	if err != nil {
		return nil, err
	}
	return NewKeyRing(k)
}

// LoadKeyRing reads a key ring file in the format [ParseKeyRing] reads.
func LoadKeyRing(path string) (*KeyRing, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read key ring: %w", err)
	}
	r, err := parseKeyRing(data)
	if err != nil {
		return nil, fmt.Errorf("key ring %s: %w", path, err)
	}
	return r, nil
}

// ParseKeyRing reads a key ring from the text of a key file or of an
// environment variable. Each key is "<id>:<base64 of 32 bytes>", in standard
// or URL base64, padded or not; keys are on separate lines or separated by
// commas on one line. Blank lines are ignored, and so is everything from a
// '#' to the end of its line. The first key seals.
//
// Errors name the line and what is wrong, and never include key material.
func ParseKeyRing(data []byte) (*KeyRing, error) {
	r, err := parseKeyRing(data)
	if err != nil {
		return nil, fmt.Errorf("key ring: %w", err)
	}
	return r, nil
}

func parseKeyRing(data []byte) (*KeyRing, error) {
	var keys []Key
	data = bytes.TrimPrefix(data, []byte("\ufeff")) // a byte order mark some editors write
	seen := make(map[string]int)                    // key id → line
	for n, line := range bytes.Split(data, []byte{'\n'}) {
		lineNo := n + 1
		if i := bytes.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		for item := range strings.SplitSeq(string(line), ",") {
			item = strings.TrimSpace(item)
			if item == "" {
				continue
			}
			k, err := parseKey(item)
			if err != nil {
				return nil, fmt.Errorf("line %d: %w", lineNo, err)
			}
			if first, ok := seen[k.ID]; ok {
				return nil, fmt.Errorf("line %d: key id %q is already used on line %d", lineNo, k.ID, first)
			}
			seen[k.ID] = lineNo
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return nil, errors.New("no keys (want lines of <id>:<base64 of 32 bytes>)")
	}
	return NewKeyRing(keys...)
}

// parseKey reads "<id>:<base64 secret>". Its errors quote the id only when
// it is a valid id, which a secret cannot be (it is 43 or 44 characters).
func parseKey(item string) (Key, error) {
	id, secret, ok := strings.Cut(item, ":")
	if !ok {
		return Key{}, errors.New("want <id>:<base64 of 32 bytes>, found no ':'")
	}
	id, secret = strings.TrimSpace(id), strings.TrimSpace(secret)
	if id == "" {
		return Key{}, errors.New("the key id before ':' is empty")
	}
	if !keyIDPattern.MatchString(id) {
		return Key{}, errors.New("the key id before ':' is not valid: " + keyIDRule)
	}
	if secret == "" {
		return Key{}, fmt.Errorf("key %q: the secret after ':' is empty", id)
	}
	enc := base64.RawStdEncoding
	if strings.ContainsAny(secret, "-_") {
		enc = base64.RawURLEncoding
	}
	raw, err := enc.DecodeString(strings.TrimRight(secret, "="))
	if err != nil {
		return Key{}, fmt.Errorf("key %q: the secret is not valid base64", id)
	}
	if len(raw) != 32 {
		return Key{}, fmt.Errorf("key %q: the secret is %d bytes, want 32", id, len(raw))
	}
	k := Key{ID: id}
	copy(k.Secret[:], raw)
	if k.Secret == ([32]byte{}) {
		return Key{}, fmt.Errorf("key %q: the secret is all zeros", id)
	}
	return k, nil
}

// IDs returns the ids of the ring's keys, the sealing key first.
func (r *KeyRing) IDs() []string {
	ids := make([]string, len(r.keys))
	for i, k := range r.keys {
		ids[i] = k.id
	}
	return ids
}

// String describes the ring by its key ids; it never shows a secret.
func (r *KeyRing) String() string {
	if r == nil || len(r.keys) == 0 {
		return "key ring []"
	}
	return "key ring [" + strings.Join(r.IDs(), " ") + "] sealing with " + strconv.Quote(r.keys[0].id)
}

// lookup returns the key with the given id, or nil. Rings hold a handful of
// keys, so a scan beats a map.
func (r *KeyRing) lookup(id string) *ringKey {
	for i := range r.keys {
		if r.keys[i].id == id {
			return &r.keys[i]
		}
	}
	return nil
}
