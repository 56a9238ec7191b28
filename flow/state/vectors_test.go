package state

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/chacha20poly1305"
)

var update = flag.Bool("update", false, "rewrite the computed fields of testdata/vectors_v1.json")

// vectorsFile holds the known-answer vectors of format version 1. A state
// sealed by one release must open in the next, so the bytes this package
// writes are pinned here, not only its round trips.
const vectorsFile = "testdata/vectors_v1.json"

// The layout of vectorsFile. Byte strings are lowercase hex, times RFC 3339
// UTC, fingerprints 16 hex digits (the uint64, most significant first).
type vectors struct {
	Comment []string       `json:"comment"`
	Keys    []vectorKey    `json:"keys"`
	Seal    []sealVector   `json:"seal"`
	Reject  []rejectVector `json:"reject"`
}

type vectorKey struct {
	Name   string   `json:"name"`
	ID     string   `json:"id"`
	Secret hexBytes `json:"secret"`
}

// sealVector is a state sealed with Key and Nonce at Now, with a TTL of
// State.Expires − Now. Plaintext and Token are computed (-update rewrites
// them); the rest is input.
type sealVector struct {
	Name      string      `json:"name"`
	Key       string      `json:"key"`
	Nonce     hexBytes    `json:"nonce"`
	Now       time.Time   `json:"now"`
	State     vectorState `json:"state"`
	Plaintext hexBytes    `json:"plaintext"`
	Token     string      `json:"token"`
}

// rejectVector is a token that Open, with the keys of Ring at Now and for
// Binding, must refuse with Error and Reason. The token is one of three:
// the token of the seal vector Of, changed by KeyID (its key id replaced)
// and Flip (the low bit of byte Flip of nonce ‖ ciphertext ‖ tag flipped;
// negative counts from the end); Plaintext sealed with Key and Nonce; or,
// with neither Of nor Plaintext, Token as written. Token is computed in
// the first two cases, and Reason and Error always.
type rejectVector struct {
	Name      string         `json:"name"`
	Of        string         `json:"of,omitempty"`
	KeyID     string         `json:"key_id,omitempty"`
	Flip      *int           `json:"flip,omitempty"`
	Plaintext hexBytes       `json:"plaintext,omitempty"`
	Key       string         `json:"key,omitempty"`
	Nonce     hexBytes       `json:"nonce,omitempty"`
	Token     string         `json:"token"`
	Ring      []string       `json:"ring"`
	Now       time.Time      `json:"now"`
	Binding   *vectorBinding `json:"binding,omitempty"` // default: the binding of Of's state
	Reason    string         `json:"reason"`
	Error     string         `json:"error"`
}

type vectorBinding struct {
	Tool       string   `json:"tool"`
	ArgsDigest hexBytes `json:"args_digest"`
	Principal  string   `json:"principal"`
}

type vectorState struct {
	Tool       string          `json:"tool"`
	ArgsDigest hexBytes        `json:"args_digest"`
	Principal  string          `json:"principal"`
	Expires    time.Time       `json:"expires"`
	FlowHash   hexBytes        `json:"flow_hash"`
	RunID      hexBytes        `json:"run_id"`
	Started    time.Time       `json:"started"`
	Round      int             `json:"round"`
	Journal    []vectorEntry   `json:"journal"`
	Pending    []vectorPending `json:"pending"`
}

type vectorEntry struct {
	Kind        string  `json:"kind"` // "answer", "step", "call" or "return"
	Node        string  `json:"node"`
	Fingerprint hexU64  `json:"fingerprint"`
	Value       *string `json:"value"` // null for a nil Value
	Err         string  `json:"error"`
}

type vectorPending struct {
	Node        string `json:"node"`
	Position    int    `json:"position"`
	Fingerprint hexU64 `json:"fingerprint"`
	Invalid     int    `json:"invalid"`
}

type hexBytes []byte

func (h hexBytes) MarshalText() ([]byte, error) { return []byte(hex.EncodeToString(h)), nil }

func (h *hexBytes) UnmarshalText(b []byte) error {
	d, err := hex.DecodeString(string(b))
	*h = d
	return err
}

type hexU64 uint64

func (h hexU64) MarshalText() ([]byte, error) { return fmt.Appendf(nil, "%016x", uint64(h)), nil }

func (h *hexU64) UnmarshalText(b []byte) error {
	if len(b) != 16 {
		return fmt.Errorf("fingerprint %q: want 16 hex digits", b)
	}
	var v [8]byte
	if _, err := hex.Decode(v[:], b); err != nil {
		return fmt.Errorf("fingerprint %q: %w", b, err)
	}
	*h = 0
	for _, c := range v {
		*h = *h<<8 | hexU64(c)
	}
	return nil
}

// fixed copies b into dst, failing unless the lengths agree.
func fixed(t *testing.T, what string, dst []byte, b hexBytes) {
	t.Helper()
	if len(b) != len(dst) {
		t.Fatalf("%s has %d bytes, want %d", what, len(b), len(dst))
	}
	copy(dst, b)
}

func (v *vectorState) state(t *testing.T) *State {
	t.Helper()
	s := &State{
		Tool:      v.Tool,
		Principal: v.Principal,
		Expires:   v.Expires,
		Started:   v.Started,
		Round:     v.Round,
	}
	fixed(t, "args_digest", s.ArgsDigest[:], v.ArgsDigest)
	fixed(t, "flow_hash", s.FlowHash[:], v.FlowHash)
	fixed(t, "run_id", s.RunID[:], v.RunID)
	for _, e := range v.Journal {
		var kind EntryKind
		switch e.Kind {
		case "answer":
			kind = EntryAnswer
		case "step":
			kind = EntryStep
		case "call":
			kind = EntryCall
		case "return":
			kind = EntryReturn
		default:
			t.Fatalf("journal entry %s: kind %q, want answer, step, call or return", e.Node, e.Kind)
		}
		var value []byte
		if e.Value != nil {
			value = []byte(*e.Value)
		}
		s.Journal = append(s.Journal, Entry{Kind: kind, Node: e.Node, Fingerprint: uint64(e.Fingerprint), Value: value, Err: e.Err})
	}
	for _, p := range v.Pending {
		s.Pending = append(s.Pending, Pending{Node: p.Node, Position: p.Position, Fingerprint: uint64(p.Fingerprint), Invalid: p.Invalid})
	}
	return s
}

func (v *vectorBinding) binding(t *testing.T) Binding {
	t.Helper()
	b := Binding{Tool: v.Tool, Principal: v.Principal}
	fixed(t, "binding args_digest", b.ArgsDigest[:], v.ArgsDigest)
	return b
}

func readVectors(t *testing.T) *vectors {
	t.Helper()
	b, err := os.ReadFile(vectorsFile)
	if err != nil {
		t.Fatal(err)
	}
	var v vectors
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(&v); err != nil {
		t.Fatalf("%s: %v", vectorsFile, err)
	}
	return &v
}

func writeVectors(t *testing.T, v *vectors) {
	t.Helper()
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	e.SetIndent("", "  ")
	if err := e.Encode(v); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(vectorsFile, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// vectorKeys returns the keys of v by name.
func vectorKeys(t *testing.T, v *vectors) map[string]Key {
	t.Helper()
	keys := map[string]Key{}
	for _, k := range v.Keys {
		key := Key{ID: k.ID}
		fixed(t, "secret of key "+k.Name, key.Secret[:], k.Secret)
		if _, dup := keys[k.Name]; dup {
			t.Fatalf("key %s appears twice", k.Name)
		}
		keys[k.Name] = key
	}
	return keys
}

func ringOf(t *testing.T, keys map[string]Key, names ...string) *KeyRing {
	t.Helper()
	var ks []Key
	for _, n := range names {
		k, ok := keys[n]
		if !ok {
			t.Fatalf("no key %q", n)
		}
		ks = append(ks, k)
	}
	return mustRing(t, ks...)
}

// vectorCodec returns a codec of ring whose clock stands at now and whose
// seals use nonce (crypto/rand when nonce is nil).
func vectorCodec(t *testing.T, ring *KeyRing, now time.Time, ttl time.Duration, nonce []byte) *Codec {
	t.Helper()
	c := NewCodec(ring, Options{TTL: ttl, Now: func() time.Time { return now }})
	if nonce != nil {
		if len(nonce) != nonceSize {
			t.Fatalf("nonce has %d bytes, want %d", len(nonce), nonceSize)
		}
		c.fillNonce = func(b []byte) { copy(b, nonce) }
	}
	return c
}

// formatNote is why a changed plaintext or token is a failure.
const formatNote = "a state sealed before the change would not open after it; if format v1 must change, make it version 2, and rewrite the vectors with -update only then"

// checkField compares a computed field with the vector's, or with -update
// sets it.
func checkField[T comparable](t *testing.T, what string, field *T, got T, note string) {
	t.Helper()
	if *update {
		*field = got
		return
	}
	if got != *field {
		t.Errorf("%s changed (%s):\n got  %v\n want %v", what, note, got, *field)
	}
}

// TestVectors checks the known-answer vectors: each state encodes to its
// plaintext and seals to its token, each token opens to its state, and
// each rejected token fails for its reason. With -update it rewrites the
// computed fields instead.
func TestVectors(t *testing.T) {
	v := readVectors(t)
	keys := vectorKeys(t, v)
	states := map[string]*State{}
	seals := map[string]*sealVector{}
	for i := range v.Seal {
		sv := &v.Seal[i]
		if _, dup := seals[sv.Name]; dup {
			t.Fatalf("seal vector %s appears twice", sv.Name)
		}
		seals[sv.Name], states[sv.Name] = sv, sv.State.state(t)
	}

	for i := range v.Seal {
		sv := &v.Seal[i]
		t.Run("seal/"+sv.Name, func(t *testing.T) {
			want := states[sv.Name]
			key, ok := keys[sv.Key]
			if !ok {
				t.Fatalf("no key %q", sv.Key)
			}

			// (a) The plaintext.
			plain := encodeState(want)
			if n := encodedLen(want); n != len(plain) {
				t.Errorf("encodedLen %d, encoded %d bytes", n, len(plain))
			}
			gotPlain, wantPlain := hex.EncodeToString(plain), hex.EncodeToString(sv.Plaintext)
			if *update {
				sv.Plaintext = plain
			} else if gotPlain != wantPlain {
				t.Errorf("plaintext changed (%s):\n got  %s\n want %s", formatNote, gotPlain, wantPlain)
			}

			// (a) The token: Seal stamps the expiry itself.
			c := vectorCodec(t, ringOf(t, keys, sv.Key), sv.Now, want.Expires.Sub(sv.Now), sv.Nonce)
			in := *want
			in.Expires = time.Time{}
			token, err := c.Seal(&in)
			if err != nil {
				t.Fatal(err)
			}
			if !in.Expires.Equal(want.Expires) {
				t.Errorf("Seal stamped Expires %v, want %v", in.Expires, want.Expires)
			}
			checkField(t, "token", &sv.Token, token, formatNote)

			// The token is what doc.go says, checked without the codec:
			// key id, ".", base64url(nonce ‖ ChaCha20-Poly1305 sealing of
			// the plaintext), with associated data "flowserve/requestState"
			// ‖ 0x01 ‖ key id.
			id, payload, ok := strings.Cut(sv.Token, ".")
			if !ok || id != key.ID {
				t.Fatalf("token %q does not start with %q.", sv.Token, key.ID)
			}
			raw, err := base64.RawURLEncoding.Strict().DecodeString(payload)
			if err != nil || len(raw) < nonceSize+tagSize {
				t.Fatalf("token payload of %d bytes: %v", len(raw), err)
			}
			if !bytes.Equal(raw[:nonceSize], sv.Nonce) {
				t.Errorf("token nonce %x, want %x", raw[:nonceSize], sv.Nonce)
			}
			aead, err := chacha20poly1305.New(key.Secret[:])
			if err != nil {
				t.Fatal(err)
			}
			opened, err := aead.Open(nil, raw[:nonceSize], raw[nonceSize:], []byte("flowserve/requestState\x01"+key.ID))
			if err != nil {
				t.Fatalf("the token does not open as doc.go describes: %v", err)
			}
			if !bytes.Equal(opened, sv.Plaintext) {
				t.Errorf("the token holds plaintext %x, want %x", opened, []byte(sv.Plaintext))
			}

			// (b) The token opens to the state, with a ring of every key id
			// the vectors have (the sealing key for its id), at the moment
			// of sealing and one millisecond before expiry.
			for _, now := range []time.Time{sv.Now, want.Expires.Add(-time.Millisecond)} {
				oc := vectorCodec(t, ringOf(t, keys, openRing(v, sv.Key)...), now, 0, nil)
				got, err := oc.Open(sv.Token, bindingOf(want))
				if err != nil {
					t.Fatalf("open at %v: %v (%s)", now, err, Reason(err))
				}
				if d := diffState(got, want); d != "" {
					t.Errorf("open at %v: %s", now, d)
				}
			}
			var decoded State
			if !decode(&decoded, sv.Plaintext) {
				t.Error("the plaintext does not decode")
			} else if d := diffState(&decoded, want); d != "" {
				t.Errorf("decoded plaintext: %s", d)
			}
		})
	}

	for i := range v.Reject {
		rv := &v.Reject[i]
		t.Run("reject/"+rv.Name, func(t *testing.T) {
			var b Binding
			switch {
			case rv.Of != "" && rv.Plaintext != nil:
				t.Fatal("both of and plaintext are set")
			case rv.Of != "":
				sv, ok := seals[rv.Of]
				if !ok {
					t.Fatalf("no seal vector %q", rv.Of)
				}
				b = bindingOf(states[rv.Of])
				checkField(t, "token", &rv.Token, alter(t, sv.Token, rv.KeyID, rv.Flip), "it is derived from the vector: see the fields beside it")
			case rv.Plaintext != nil:
				key, ok := keys[rv.Key]
				if !ok {
					t.Fatalf("no key %q", rv.Key)
				}
				c := vectorCodec(t, ringOf(t, keys, rv.Key), rv.Now, 0, rv.Nonce)
				k := &c.ring.keys[0]
				raw := append([]byte(nil), rv.Nonce...)
				raw = k.aead.Seal(raw, rv.Nonce, rv.Plaintext, k.ad)
				checkField(t, "token", &rv.Token, key.ID+"."+base64.RawURLEncoding.EncodeToString(raw), formatNote)
			}
			if rv.Binding != nil {
				b = rv.Binding.binding(t)
			}
			c := vectorCodec(t, ringOf(t, keys, rv.Ring...), rv.Now, 0, nil)
			s, err := c.Open(rv.Token, b)
			if err == nil {
				t.Fatalf("opened: %+v", s)
			}
			if s != nil {
				t.Error("Open returned a state with its error")
			}
			checkField(t, "reason", &rv.Reason, Reason(err), "operators' logs name it")
			checkField(t, "error", &rv.Error, err.Error(), "clients see it")
		})
	}

	if *update && !t.Failed() {
		writeVectors(t, v)
	}
}

// openRing returns the names of the keys that open the seal vector sealed
// with sealer: every key whose id differs from the others', sealer first
// among those sharing its id.
func openRing(v *vectors, sealer string) []string {
	var sealerID string
	for _, k := range v.Keys {
		if k.Name == sealer {
			sealerID = k.ID
		}
	}
	names := []string{sealer}
	seen := map[string]bool{sealerID: true}
	for _, k := range v.Keys {
		if !seen[k.ID] {
			seen[k.ID] = true
			names = append(names, k.Name)
		}
	}
	return names
}

// alter returns token with its key id replaced by id (unless "") and the
// low bit of raw byte flip flipped (unless nil; negative counts from the
// end).
func alter(t *testing.T, token, id string, flip *int) string {
	t.Helper()
	kid, payload, ok := strings.Cut(token, ".")
	if !ok {
		t.Fatalf("token %q has no dot", token)
	}
	if id != "" {
		kid = id
	}
	if flip != nil {
		raw, err := base64.RawURLEncoding.DecodeString(payload)
		if err != nil {
			t.Fatal(err)
		}
		i := *flip
		if i < 0 {
			i += len(raw)
		}
		if i < 0 || i >= len(raw) {
			t.Fatalf("flip %d is outside the %d raw bytes", *flip, len(raw))
		}
		raw[i] ^= 1
		payload = base64.RawURLEncoding.EncodeToString(raw)
	}
	return kid + "." + payload
}

// TestVectorsCoverTheFormat keeps the vectors complete: between them the
// seal vectors use every field, record kind and varint width of format v1,
// and the reject vectors every reason Open gives.
func TestVectorsCoverTheFormat(t *testing.T) {
	v := readVectors(t)
	var states []*State
	for i := range v.Seal {
		states = append(states, v.Seal[i].State.state(t))
	}
	anyEntry := func(f func(Entry) bool) bool {
		for _, s := range states {
			if slices.ContainsFunc(s.Journal, f) {
				return true
			}
		}
		return false
	}
	anyPending := func(f func(Pending) bool) bool {
		for _, s := range states {
			if slices.ContainsFunc(s.Pending, f) {
				return true
			}
		}
		return false
	}
	anyState := func(f func(*State) bool) bool { return slices.ContainsFunc(states, f) }
	nonASCII := func(s string) bool { return strings.ContainsFunc(s, func(r rune) bool { return r > 127 }) }
	keyIDs := map[string]bool{}
	for _, sv := range v.Seal {
		for _, k := range v.Keys {
			if k.Name == sv.Key {
				keyIDs[k.ID] = true
			}
		}
	}
	reasons := map[string]bool{}
	for _, rv := range v.Reject {
		reasons[rv.Reason] = true
	}

	for _, tc := range []struct {
		what string
		ok   bool
	}{
		{"two sealing key ids", len(keyIDs) >= 2},
		{"an empty and a non-empty principal", anyState(func(s *State) bool { return s.Principal == "" }) && anyState(func(s *State) bool { return s.Principal != "" })},
		{"a non-ASCII tool and principal", anyState(func(s *State) bool { return nonASCII(s.Tool) && nonASCII(s.Principal) })},
		{"a time before 1970", anyState(func(s *State) bool { return s.Started.Before(time.UnixMilli(0)) })},
		{"a round of two varint bytes", anyState(func(s *State) bool { return s.Round >= 1<<7 })},
		{"an empty journal and no pending questions", anyState(func(s *State) bool { return len(s.Journal) == 0 && len(s.Pending) == 0 })},
		{"two pending questions", anyState(func(s *State) bool { return len(s.Pending) >= 2 })},
		{"an answer entry", anyEntry(func(e Entry) bool { return e.Kind == EntryAnswer })},
		{"a step entry", anyEntry(func(e Entry) bool { return e.Kind == EntryStep })},
		{"a nil value", anyEntry(func(e Entry) bool { return e.Value == nil })},
		{"an empty value", anyEntry(func(e Entry) bool { return e.Value != nil && len(e.Value) == 0 })},
		{"a value of two length bytes", anyEntry(func(e Entry) bool { return len(e.Value)+1 >= 1<<7 })},
		{"a step error", anyEntry(func(e Entry) bool { return e.Kind == EntryStep && e.Err != "" })},
		{"a non-ASCII node id", anyEntry(func(e Entry) bool { return nonASCII(e.Node) })},
		{"a zero fingerprint", anyEntry(func(e Entry) bool { return e.Fingerprint == 0 })},
		{"an all-ones fingerprint", anyEntry(func(e Entry) bool { return e.Fingerprint == ^uint64(0) })},
		{"a pending question with invalid answers", anyPending(func(p Pending) bool { return p.Invalid > 0 })},
		{"a position of two varint bytes", anyPending(func(p Pending) bool { return p.Position >= 1<<7 })},
		{"an invalid count of three varint bytes", anyPending(func(p Pending) bool { return p.Invalid >= 1<<14 })},
		{"an empty pending node id", anyPending(func(p Pending) bool { return p.Node == "" })},
		{"reason malformed token", reasons["malformed token"]},
		{"reason unknown key id", reasons["unknown key id"]},
		{"reason authentication failed", reasons["authentication failed"]},
		{"reason malformed plaintext", reasons["malformed plaintext"]},
		{"reason expired", reasons[ErrExpired.Error()]},
		{"reason bound to another tool", reasons["bound to another tool"]},
		{"reason bound to other arguments", reasons["bound to other arguments"]},
		{"reason bound to another principal", reasons["bound to another principal"]},
	} {
		if !tc.ok {
			t.Errorf("no vector has %s", tc.what)
		}
	}
}
