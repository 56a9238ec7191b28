package state

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"testing"
	"time"
)

// t0 is the fixed clock of most tests.
var t0 = time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC)

// testKey returns a key whose secret is derived from seed.
func testKey(id string, seed byte) Key {
	k := Key{ID: id}
	for i := range k.Secret {
		k.Secret[i] = seed + byte(i)*7 + 1
	}
	return k
}

func mustRing(t testing.TB, keys ...Key) *KeyRing {
	t.Helper()
	r, err := NewKeyRing(keys...)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// clock is a settable clock for Options.Now.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func testCodec(t testing.TB, ring *KeyRing, now time.Time) *Codec {
	t.Helper()
	c := &clock{now}
	return NewCodec(ring, Options{Now: c.now})
}

func digest(s string) (d [32]byte) {
	copy(d[:], s)
	return d
}

// fullState sets every field to something other than its zero value.
func fullState() *State {
	return &State{
		Tool:       "delete_file",
		ArgsDigest: digest("args: report.pdf"),
		Principal:  "user:alice@example.com",
		FlowHash:   digest("flow hash of delete_file.yaml..."),
		RunID:      [16]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16},
		Started:    t0.Add(-90 * time.Second),
		Round:      3,
		Journal: []Entry{
			{Kind: EntryStep, Node: "size", Fingerprint: 0x0123456789abcdef, Value: []byte(`{"bytes":2097152}`)},
			{Kind: EntryAnswer, Node: "confirm", Fingerprint: 0xfedcba9876543210, Value: []byte(`{"action":"accept","content":{"proceed":true}}`)},
			{Kind: EntryStep, Node: "delete", Fingerprint: 1, Err: "permission denied"},
		},
		Pending: []Pending{
			{Node: "reason", Position: 3, Fingerprint: 0xffffffffffffffff, Invalid: 2},
			{Node: "env", Position: 4, Fingerprint: 42},
		},
	}
}

func bindingOf(s *State) Binding {
	return Binding{Tool: s.Tool, ArgsDigest: s.ArgsDigest, Principal: s.Principal}
}

// diffState describes how got differs from want, or returns "". Times are
// compared with Equal, and a nil Value differs from an empty one.
func diffState(got, want *State) string {
	var d []string
	add := func(format string, args ...any) { d = append(d, fmt.Sprintf(format, args...)) }
	if got.Tool != want.Tool {
		add("Tool %q, want %q", got.Tool, want.Tool)
	}
	if got.ArgsDigest != want.ArgsDigest {
		add("ArgsDigest %x, want %x", got.ArgsDigest, want.ArgsDigest)
	}
	if got.Principal != want.Principal {
		add("Principal %q, want %q", got.Principal, want.Principal)
	}
	if !got.Expires.Equal(want.Expires) {
		add("Expires %v, want %v", got.Expires, want.Expires)
	}
	if got.FlowHash != want.FlowHash {
		add("FlowHash %x, want %x", got.FlowHash, want.FlowHash)
	}
	if got.RunID != want.RunID {
		add("RunID %x, want %x", got.RunID, want.RunID)
	}
	if !got.Started.Equal(want.Started) {
		add("Started %v, want %v", got.Started, want.Started)
	}
	if got.Round != want.Round {
		add("Round %d, want %d", got.Round, want.Round)
	}
	if len(got.Journal) != len(want.Journal) {
		add("%d journal entries, want %d", len(got.Journal), len(want.Journal))
	} else {
		for i, g := range got.Journal {
			w := want.Journal[i]
			if g.Kind != w.Kind || g.Node != w.Node || g.Fingerprint != w.Fingerprint || g.Err != w.Err ||
				!bytes.Equal(g.Value, w.Value) || (g.Value == nil) != (w.Value == nil) {
				add("journal[%d] %+v (value %q), want %+v (value %q)", i, g, g.Value, w, w.Value)
			}
		}
	}
	if len(got.Pending) != len(want.Pending) {
		add("%d pending, want %d", len(got.Pending), len(want.Pending))
	} else {
		for i, g := range got.Pending {
			if g != want.Pending[i] {
				add("pending[%d] %+v, want %+v", i, g, want.Pending[i])
			}
		}
	}
	if d == nil {
		return ""
	}
	return fmt.Sprint(d)
}

// sealRaw seals an arbitrary plaintext the way Seal does, to reach the
// decoder through Open with authentic but malformed states.
func sealRaw(r *KeyRing, plain []byte) string {
	k := &r.keys[0]
	raw := make([]byte, nonceSize, nonceSize+len(plain)+tagSize)
	raw = k.aead.Seal(raw, raw[:nonceSize], plain, k.ad)
	return k.id + "." + base64.RawURLEncoding.EncodeToString(raw)
}

// encodeState returns the plaintext encoding of s.
func encodeState(s *State) []byte {
	return encode(make([]byte, 0, encodedLen(s)), s)
}
