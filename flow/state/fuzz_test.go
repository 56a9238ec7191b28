package state

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"
)

// fuzzRing is the ring FuzzOpen opens with: the fuzzer cannot forge its
// tags, but it reaches every check before them, and through the seeds every
// check after.
func fuzzRing(t testing.TB) *KeyRing {
	return mustRing(t, testKey("k1", 1), testKey("old", 2))
}

// fuzzBinding is what the seeds are bound to.
func fuzzBinding() Binding { return bindingOf(fullState()) }

func FuzzOpen(f *testing.F) {
	ring := fuzzRing(f)
	c := testCodec(f, ring, t0)
	old := testCodec(f, mustRing(f, testKey("old", 2)), t0)
	seeds := []*State{fullState(), {Tool: fullState().Tool, ArgsDigest: fullState().ArgsDigest, Principal: fullState().Principal}}
	for _, s := range seeds {
		for _, codec := range []*Codec{c, old} {
			token, err := codec.Seal(s)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(token)
			f.Add(token[:len(token)/2])
			f.Add(token + "A")
		}
	}
	p := encodeState(fullState())
	f.Add(sealRaw(ring, p[:len(p)-1]))
	f.Add(sealRaw(ring, append(p, 0)))
	for _, g := range []string{"", ".", "k1.", "k1.AAAA", "k1." + strings.Repeat("A", 60), "nokey." + strings.Repeat("_", 80), "\x00.\xff", "k1.k1.k1"} {
		f.Add(g)
	}

	f.Fuzz(func(t *testing.T, token string) {
		s, err := c.Open(token, fuzzBinding())
		if err != nil {
			if s != nil {
				t.Fatal("Open returned a state with an error")
			}
			switch {
			case errors.Is(err, ErrInvalid):
				if err.Error() != invalidMsg {
					t.Fatalf("invalid with message %q", err)
				}
			case errors.Is(err, ErrExpired), errors.Is(err, ErrTooLarge):
			default:
				t.Fatalf("unexpected error %v", err)
			}
			return
		}
		// What opens re-seals and re-opens equal.
		want := *s
		token2, err := c.Seal(s)
		if err != nil {
			t.Fatalf("re-seal: %v", err)
		}
		s2, err := c.Open(token2, fuzzBinding())
		if err != nil {
			t.Fatalf("re-open: %v", err)
		}
		want.Expires = s.Expires // stamped again by Seal
		if d := diffState(s2, &want); d != "" {
			t.Fatal(d)
		}
	})
}

// FuzzDecode drives the plaintext decoder directly, past the AEAD: it must
// never panic, and whatever it accepts must encode back to the same bytes
// (the encoding is canonical), and survive Seal and Open.
func FuzzDecode(f *testing.F) {
	full := fullState()
	full.Expires = t0.Add(time.Hour)
	f.Add(encodeState(full))
	f.Add(encodeState(&State{}))
	f.Add(encodeState(&State{Journal: []Entry{{Kind: EntryAnswer, Value: []byte{}}}, Pending: []Pending{{}}}))
	f.Add([]byte{})
	f.Add([]byte{formatVersion})
	f.Add([]byte{formatVersion, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01})
	ring := fuzzRing(f)
	c := testCodec(f, ring, t0)

	f.Fuzz(func(t *testing.T, p []byte) {
		var s State
		if !decode(&s, p) {
			return
		}
		if n := encodedLen(&s); n != len(p) {
			t.Fatalf("encodedLen %d, decoded %d bytes", n, len(p))
		}
		if err := check(&s); err != nil {
			t.Fatalf("decoded a state Seal would refuse: %v", err)
		}
		if q := encodeState(&s); !bytes.Equal(q, p) {
			t.Fatalf("re-encoding differs:\n %x\n %x", p, q)
		}
		if !s.Expires.After(t0) {
			return
		}
		_, err := c.Open(sealRaw(ring, p), bindingOf(&s))
		if err != nil {
			t.Fatalf("open: %v (%s)", err, Reason(err))
		}
	})
}
