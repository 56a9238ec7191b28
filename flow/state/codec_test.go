package state

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

const (
	invalidMsg = "requestState is not valid for this call"
	expiredMsg = "requestState has expired; call the tool again"
)

func TestErrorMessages(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{ErrInvalid, invalidMsg},
		{ErrExpired, expiredMsg},
		{errSyntax, invalidMsg},
		{errUnknownKey, invalidMsg},
		{errAuth, invalidMsg},
		{errDecode, invalidMsg},
		{errTool, invalidMsg},
		{errArgs, invalidMsg},
		{errPrincipal, invalidMsg},
	} {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("%s: Error() = %q, want %q", Reason(tc.err), got, tc.want)
		}
		if tc.want == invalidMsg && !errors.Is(tc.err, ErrInvalid) {
			t.Errorf("%s: errors.Is(err, ErrInvalid) is false", Reason(tc.err))
		}
		if errors.Is(tc.err, ErrExpired) != (tc.err == ErrExpired) {
			t.Errorf("%s: errors.Is(err, ErrExpired) is wrong", Reason(tc.err))
		}
	}
	if Reason(nil) != "" {
		t.Errorf("Reason(nil) = %q", Reason(nil))
	}
	if got := Reason(ErrExpired); got != expiredMsg {
		t.Errorf("Reason(ErrExpired) = %q", got)
	}
}

func TestRoundTrip(t *testing.T) {
	unicode := fullState()
	unicode.Tool = "werkzeug_löschen"
	unicode.Principal = "ユーザー"
	unicode.Journal[0].Node = "größe"
	unicode.Journal[0].Err = "überlauf ✗"

	many := fullState()
	many.Journal = nil
	for i := range 300 {
		many.Journal = append(many.Journal, Entry{Kind: EntryKind(1 + i%2), Node: "n", Fingerprint: uint64(i) * 0x9e3779b97f4a7c15, Value: []byte(strings.Repeat("x", i))})
	}

	extremes := fullState()
	extremes.Round = math.MaxInt
	extremes.Started = time.UnixMilli(-1).UTC()
	extremes.Pending = []Pending{{Node: "", Position: math.MaxInt, Fingerprint: 0, Invalid: math.MaxInt}}

	nilAndEmpty := fullState()
	nilAndEmpty.Journal = []Entry{
		{Kind: EntryAnswer, Node: "a", Value: nil},
		{Kind: EntryAnswer, Node: "b", Value: []byte{}},
		{Kind: EntryStep, Node: "c", Value: []byte("null")},
	}

	for _, tc := range []struct {
		name  string
		state *State
	}{
		{"zero", &State{}},
		{"full", fullState()},
		{"unicode", unicode},
		{"300 entries", many},
		{"extremes", extremes},
		{"nil and empty values", nilAndEmpty},
		{"only pending", &State{Tool: "t", Pending: []Pending{{Node: "q", Position: 0, Fingerprint: 7}}}},
		{"sub-millisecond started", &State{Tool: "t", Started: t0.Add(1500 * time.Microsecond)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := testCodec(t, mustRing(t, testKey("k1", 1)), t0)
			in := tc.state
			token, err := c.Seal(in)
			if err != nil {
				t.Fatal(err)
			}
			if want := t0.Add(DefaultTTL); !in.Expires.Equal(want) {
				t.Errorf("Seal set Expires to %v, want %v", in.Expires, want)
			}
			if !strings.HasPrefix(token, "k1.") {
				t.Errorf("token %q does not start with the key id", token)
			}
			got, err := c.Open(token, bindingOf(in))
			if err != nil {
				t.Fatalf("Open: %v (%s)", err, Reason(err))
			}
			want := *in
			want.Started = in.Started.Truncate(time.Millisecond)
			if d := diffState(got, &want); d != "" {
				t.Error(d)
			}
			if got.Expires.Location() != time.UTC || got.Started.Location() != time.UTC {
				t.Errorf("times are not in UTC: %v, %v", got.Expires, got.Started)
			}
		})
	}
}

func TestSealIsRandomized(t *testing.T) {
	c := testCodec(t, mustRing(t, testKey("k1", 1)), t0)
	a, err := c.Seal(fullState())
	if err != nil {
		t.Fatal(err)
	}
	b, _ := c.Seal(fullState())
	if a == b {
		t.Error("two seals of the same state are equal: the nonce is not random")
	}
}

func TestOpenedValuesDoNotOverlap(t *testing.T) {
	c := testCodec(t, mustRing(t, testKey("k1", 1)), t0)
	s := fullState()
	token, _ := c.Seal(s)
	got, err := c.Open(token, bindingOf(s))
	if err != nil {
		t.Fatal(err)
	}
	// Appending to one value must not overwrite what follows it.
	_ = append(got.Journal[0].Value, "XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX"...)
	if d := diffState(got, s); d != "" {
		t.Error(d)
	}
}

// wantInvalid fails unless err is an ErrInvalid with exactly its message.
func wantInvalid(t *testing.T, what string, err error) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: opened", what)
		return
	}
	if !errors.Is(err, ErrInvalid) || err.Error() != invalidMsg {
		t.Errorf("%s: error %q (%s), want %q", what, err, Reason(err), invalidMsg)
	}
}

const (
	b64url  = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	idChars = b64url
)

func TestEveryByteChangeIsRejected(t *testing.T) {
	// "k1" and "k2" are both in the ring: changing one id into the other
	// must fail authentication, not open.
	ring := mustRing(t, testKey("k1", 1), testKey("k2", 2), testKey("kk", 3))
	c := testCodec(t, ring, t0)
	s := fullState()
	token, err := c.Seal(s)
	if err != nil {
		t.Fatal(err)
	}
	b := bindingOf(s)
	if _, err := c.Open(token, b); err != nil {
		t.Fatal(err)
	}
	dot := strings.IndexByte(token, '.')
	changes := 0
	for i := range len(token) {
		alphabet := b64url
		switch {
		case i < dot:
			alphabet = idChars + "."
		case i == dot:
			alphabet = idChars + "=+/ :"
		}
		for j := range len(alphabet) {
			if alphabet[j] == token[i] {
				continue
			}
			changed := token[:i] + alphabet[j:j+1] + token[i+1:]
			_, err := c.Open(changed, b)
			wantInvalid(t, "byte "+strconv.Itoa(i)+" changed to "+alphabet[j:j+1], err)
			changes++
		}
	}
	// Other changes: a line break, padding, a character outside the alphabet.
	for _, changed := range []string{
		token[:dot+5] + "\n" + token[dot+5:],
		token[:dot+5] + "\r\n" + token[dot+5:],
		token + "=",
		token + "==",
		token[:len(token)-1] + "+",
		token[:dot+3] + "/" + token[dot+4:],
		" " + token,
		token + " ",
		token + "A",
		token + "AA",
		token + "AAAA",
		"." + token,
		token[:dot] + ".." + token[dot+1:],
		strings.ToUpper(token[:dot]) + token[dot:],
	} {
		_, err := c.Open(changed, b)
		wantInvalid(t, "changed to "+changed, err)
	}
	t.Logf("%d single-byte changes of a %d-byte token rejected", changes, len(token))
}

func TestTruncationIsRejected(t *testing.T) {
	c := testCodec(t, mustRing(t, testKey("k1", 1)), t0)
	s := fullState()
	token, _ := c.Seal(s)
	for n := range len(token) {
		_, err := c.Open(token[:n], bindingOf(s))
		wantInvalid(t, "truncated to "+strconv.Itoa(n), err)
		// Dropping the start is no better.
		_, err = c.Open(token[n+1:], bindingOf(s))
		wantInvalid(t, "first "+strconv.Itoa(n+1)+" bytes dropped", err)
	}
}

func TestKeys(t *testing.T) {
	old, cur, other := testKey("old", 1), testKey("cur", 2), testKey("other", 3)
	s := fullState()
	b := bindingOf(s)

	sealedWithOld, err := testCodec(t, mustRing(t, old), t0).Seal(s)
	if err != nil {
		t.Fatal(err)
	}
	// Same id, different secret.
	impostor := testKey("old", 9)

	for _, tc := range []struct {
		name   string
		ring   *KeyRing
		reason string // "" if the state opens
	}{
		{"the sealing key", mustRing(t, old), ""},
		{"rotated out of first place", mustRing(t, cur, old), ""},
		{"third of three", mustRing(t, cur, other, old), ""},
		{"retired", mustRing(t, cur), "unknown key id"},
		{"unknown ids only", mustRing(t, cur, other), "unknown key id"},
		{"same id, other secret", mustRing(t, impostor), "authentication failed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := testCodec(t, tc.ring, t0).Open(sealedWithOld, b)
			if tc.reason == "" {
				if err != nil {
					t.Fatalf("Open: %v (%s)", err, Reason(err))
				}
				return
			}
			wantInvalid(t, tc.name, err)
			if got := Reason(err); got != tc.reason {
				t.Errorf("Reason = %q, want %q", got, tc.reason)
			}
		})
	}

	// A rotated ring seals with its first key, and the old ring cannot
	// open that.
	rotated := testCodec(t, mustRing(t, cur, old), t0)
	token, _ := rotated.Seal(s)
	if !strings.HasPrefix(token, "cur.") {
		t.Errorf("rotated ring sealed %q, want the key id cur", token[:8])
	}
	_, err = testCodec(t, mustRing(t, old), t0).Open(token, b)
	wantInvalid(t, "old ring opening a state sealed with the new key", err)
}

func TestExpiry(t *testing.T) {
	clk := &clock{t0}
	ring := mustRing(t, testKey("k1", 1))
	c := NewCodec(ring, Options{TTL: 10 * time.Minute, Now: clk.now})
	s := fullState()
	token, _ := c.Seal(s)
	if want := t0.Add(10 * time.Minute); !s.Expires.Equal(want) {
		t.Fatalf("Expires = %v, want %v", s.Expires, want)
	}
	for _, tc := range []struct {
		name    string
		now     time.Time
		binding Binding
		want    error // nil, ErrExpired or ErrInvalid
	}{
		{"just sealed", t0, bindingOf(s), nil},
		{"1ms before expiry", t0.Add(10*time.Minute - time.Millisecond), bindingOf(s), nil},
		{"at expiry", t0.Add(10 * time.Minute), bindingOf(s), ErrExpired},
		{"a day later", t0.Add(24 * time.Hour), bindingOf(s), ErrExpired},
		// Expiry is checked before the binding.
		{"expired, other tool", t0.Add(time.Hour), Binding{Tool: "other"}, ErrExpired},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clk.t = tc.now
			_, err := c.Open(token, tc.binding)
			switch {
			case tc.want == nil && err != nil:
				t.Errorf("Open: %v", err)
			case tc.want == ErrExpired && (!errors.Is(err, ErrExpired) || err.Error() != expiredMsg):
				t.Errorf("Open: %v, want %q", err, expiredMsg)
			}
		})
	}
	// A tampered expired state is invalid, not expired: authenticity comes
	// first.
	clk.t = t0.Add(time.Hour)
	tail := "AA"
	if strings.HasSuffix(token, tail) { // a random nonce can end a token so: tamper for real
		tail = "BB"
	}
	_, err := c.Open(token[:len(token)-2]+tail, bindingOf(s))
	wantInvalid(t, "tampered and expired", err)
}

func TestBinding(t *testing.T) {
	c := testCodec(t, mustRing(t, testKey("k1", 1)), t0)
	s := fullState()
	token, _ := c.Seal(s)
	good := bindingOf(s)
	for _, tc := range []struct {
		name   string
		change func(*Binding)
		reason string
	}{
		{"other tool", func(b *Binding) { b.Tool = "delete_files" }, "bound to another tool"},
		{"empty tool", func(b *Binding) { b.Tool = "" }, "bound to another tool"},
		{"other arguments", func(b *Binding) { b.ArgsDigest[31] ^= 1 }, "bound to other arguments"},
		{"other principal", func(b *Binding) { b.Principal = "user:mallory@example.com" }, "bound to another principal"},
		{"no principal", func(b *Binding) { b.Principal = "" }, "bound to another principal"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := good
			tc.change(&b)
			st, err := c.Open(token, b)
			if st != nil {
				t.Error("Open returned a state with its error")
			}
			wantInvalid(t, tc.name, err)
			if got := Reason(err); got != tc.reason {
				t.Errorf("Reason = %q, want %q", got, tc.reason)
			}
		})
	}
}

func TestSizeLimit(t *testing.T) {
	ring := mustRing(t, testKey("k1", 1))
	s := fullState()
	token, _ := testCodec(t, ring, t0).Seal(s)

	limited := NewCodec(ring, Options{MaxSize: len(token), Now: (&clock{t0}).now})
	if _, err := limited.Open(token, bindingOf(s)); err != nil {
		t.Fatalf("a state of exactly MaxSize bytes: %v", err)
	}
	wantMsg := "requestState is larger than " + strconv.Itoa(len(token)-1) + " bytes"
	tight := NewCodec(ring, Options{MaxSize: len(token) - 1, Now: (&clock{t0}).now})
	_, err := tight.Open(token, bindingOf(s))
	if !errors.Is(err, ErrTooLarge) || err.Error() != wantMsg || errors.Is(err, ErrInvalid) {
		t.Errorf("Open over the limit: %v, want %q", err, wantMsg)
	}
	// Seal refuses to make what Open would refuse.
	unsealed := fullState()
	if _, err := tight.Seal(unsealed); !errors.Is(err, ErrTooLarge) || err.Error() != wantMsg {
		t.Errorf("Seal over the limit: %v, want %q", err, wantMsg)
	}
	if !unsealed.Expires.IsZero() {
		t.Error("a Seal over the limit stamped Expires")
	}
	if _, err := limited.Seal(fullState()); err != nil {
		t.Errorf("Seal at the limit: %v", err)
	}

	// The default is 256 KiB, for Open and Seal alike.
	c := testCodec(t, ring, t0)
	_, err = c.Open(strings.Repeat("A", DefaultMaxSize+1), Binding{})
	if !errors.Is(err, ErrTooLarge) || err.Error() != "requestState is larger than 262144 bytes" {
		t.Errorf("default limit: %v", err)
	}
	_, err = c.Open("k1."+strings.Repeat("A", DefaultMaxSize-3), Binding{})
	wantInvalid(t, "at the default limit", err)
	big := &State{Journal: []Entry{{Kind: EntryStep, Node: "n", Value: make([]byte, 200<<10)}}}
	if _, err := c.Seal(big); !errors.Is(err, ErrTooLarge) {
		t.Errorf("Seal of 200 KiB value (267 KiB sealed): %v", err)
	}
}

func TestSealRejectsUnencodableStates(t *testing.T) {
	c := testCodec(t, mustRing(t, testKey("k1", 1)), t0)
	for _, tc := range []struct {
		name  string
		state State
		want  string
	}{
		{"negative round", State{Round: -1}, "state: round is -1, want ≥ 0"},
		{"kind 0", State{Journal: []Entry{{Node: "a"}}}, "state: journal entry 0 (a) has kind 0, want 1 (answer), 2 (step), 3 (call) or 4 (return)"},
		{"kind 5", State{Journal: []Entry{{Kind: EntryAnswer}, {Kind: 5, Node: "b"}}}, "state: journal entry 1 (b) has kind 5, want 1 (answer), 2 (step), 3 (call) or 4 (return)"},
		{"negative position", State{Pending: []Pending{{Node: "q", Position: -1}}}, "state: pending question 0 (q) has position -1 and 0 invalid answers, want both ≥ 0"},
		{"negative invalid", State{Pending: []Pending{{Node: "q", Invalid: -2}}}, "state: pending question 0 (q) has position 0 and -2 invalid answers, want both ≥ 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := c.Seal(&tc.state)
			if err == nil || err.Error() != tc.want {
				t.Errorf("Seal: %v, want %q", err, tc.want)
			}
			if !tc.state.Expires.IsZero() {
				t.Error("a failed Seal stamped Expires")
			}
		})
	}
}

func TestMalformedPlaintextIsRejected(t *testing.T) {
	ring := mustRing(t, testKey("k1", 1))
	c := testCodec(t, ring, t0)
	s := fullState()
	s.Expires = t0.Add(time.Hour)
	good := encodeState(s)
	if _, err := c.Open(sealRaw(ring, good), bindingOf(s)); err != nil {
		t.Fatalf("sealRaw of a good plaintext: %v (%s)", err, Reason(err))
	}
	if decode(new(State), nil) {
		t.Error("decode accepted an empty plaintext")
	}
	// Offsets into good, for surgery.
	afterDigest := 1 + 1 + len(s.Tool) + 32
	journalCount := len(encodeState(&State{Tool: s.Tool, Principal: s.Principal, Expires: s.Expires, Started: s.Started, Round: s.Round})) - 2
	firstKind := journalCount + 1

	with := func(i int, b ...byte) []byte {
		p := append([]byte(nil), good[:i]...)
		p = append(p, b...)
		return append(p, good[i+1:]...)
	}
	for _, tc := range []struct {
		name  string
		plain []byte
	}{
		{"version 0", with(0, 0)},
		{"version 2", with(0, 2)},
		{"trailing byte", append(append([]byte(nil), good...), 0)},
		{"missing last byte", good[:len(good)-1]},
		{"only the version", []byte{formatVersion}},
		{"tool length beyond the data", with(1, 0x7f)},
		{"non-canonical tool length", with(1, 0x80|byte(len(s.Tool)), 0)},
		{"principal length 2^63", with(afterDigest, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01)},
		{"varint over 64 bits", with(afterDigest, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f)},
		{"journal count 2^62", with(journalCount, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x40)},
		{"journal count one more", with(journalCount, byte(len(s.Journal)+1))},
		{"journal count one less", with(journalCount, byte(len(s.Journal)-1))},
		{"entry kind 0", with(firstKind, 0)},
		{"entry kind 5", with(firstKind, 5)},
		{"round beyond int", func() []byte {
			z := &State{Round: 1}
			p := encodeState(z)
			i := len(p) - 3 // round, journal count, pending count
			return append(append(p[:i:i], 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01), 0, 0)
		}()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var st State
			if decode(&st, tc.plain) {
				t.Error("decode accepted it")
			}
			_, err := c.Open(sealRaw(ring, tc.plain), bindingOf(s))
			wantInvalid(t, tc.name, err)
			if got := Reason(err); got != "malformed plaintext" {
				t.Errorf("Reason = %q, want malformed plaintext", got)
			}
		})
	}
}

func TestForgedCountsAllocateLittle(t *testing.T) {
	// A plaintext claiming 2^62 journal entries after a 40-byte prefix must
	// be refused before allocating for them.
	p := encodeState(&State{})
	p = append(p[:len(p)-2], 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x40, 0)
	allocs := testing.AllocsPerRun(100, func() {
		var st State
		if decode(&st, p) {
			t.Fatal("decoded")
		}
	})
	if allocs > 1 {
		t.Errorf("decode of a forged count allocates %v times", allocs)
	}
}

func TestOpenGarbage(t *testing.T) {
	c := testCodec(t, mustRing(t, testKey("k1", 1)), t0)
	for _, token := range []string{
		"", ".", "k1", "k1.", ".AAAA", "k1.A", "k1.AA", "k1.AAA",
		"k1." + strings.Repeat("A", 37), // 27 bytes: too short for nonce, tag and version
		"k1." + strings.Repeat("A", 38),
		"k1." + strings.Repeat("A", 200),
		"nokey." + strings.Repeat("A", 200),
		"k1." + strings.Repeat("A", 199) + "=",
		"k1.!!!!" + strings.Repeat("A", 100),
		strings.Repeat("k", 100) + "." + strings.Repeat("A", 100),
		"k1.\x00\xff" + strings.Repeat("A", 100),
	} {
		_, err := c.Open(token, Binding{})
		wantInvalid(t, "garbage "+token, err)
	}
}

func TestOptionsDefaults(t *testing.T) {
	ring := mustRing(t, testKey("k1", 1))
	c := NewCodec(ring, Options{})
	if c.ttl != DefaultTTL || c.maxSize != DefaultMaxSize || c.now == nil {
		t.Errorf("defaults: ttl %v, maxSize %d", c.ttl, c.maxSize)
	}
	s := &State{Tool: "t"}
	before := time.Now()
	token, err := c.Seal(s)
	if err != nil {
		t.Fatal(err)
	}
	if d := s.Expires.Sub(before); d < DefaultTTL-time.Second || d > DefaultTTL+time.Second {
		t.Errorf("Expires is %v after now, want about %v", d, DefaultTTL)
	}
	if _, err := c.Open(token, Binding{Tool: "t"}); err != nil {
		t.Error(err)
	}
	defer func() {
		if recover() == nil {
			t.Error("NewCodec(nil) did not panic")
		}
	}()
	NewCodec(nil, Options{})
}

func TestConcurrentUse(t *testing.T) {
	c := testCodec(t, mustRing(t, testKey("k1", 1), testKey("k0", 0)), t0)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 200 {
				s := fullState()
				s.Round = g*1000 + i
				token, err := c.Seal(s)
				if err != nil {
					t.Error(err)
					return
				}
				got, err := c.Open(token, bindingOf(s))
				if err != nil {
					t.Error(err)
					return
				}
				if d := diffState(got, s); d != "" {
					t.Error(d)
					return
				}
			}
		})
	}
	wg.Wait()
}

func TestEntryKindString(t *testing.T) {
	for k, want := range map[EntryKind]string{EntryAnswer: "answer", EntryStep: "step", 0: "kind(0)", 200: "kind(200)"} {
		if got := k.String(); got != want {
			t.Errorf("%d.String() = %q, want %q", k, got, want)
		}
	}
}

func TestSealedSize(t *testing.T) {
	// The target: each journal entry costs at most 100 bytes plus its
	// value's.
	c := testCodec(t, mustRing(t, testKey("k1", 1)), t0)
	s := fullState()
	s.Journal = nil
	base, _ := c.Seal(s)
	for i := range 100 {
		s.Journal = append(s.Journal, Entry{Kind: EntryAnswer, Node: "question_" + strconv.Itoa(i%10), Fingerprint: uint64(i) * 0x9e3779b97f4a7c15,
			Value: []byte(`{"action":"accept","content":{}}`)})
	}
	full, _ := c.Seal(s)
	perEntry := float64(len(full)-len(base)) / 100
	if limit := 100.0 + 32; perEntry > limit {
		t.Errorf("%.1f bytes per entry, want ≤ %.0f", perEntry, limit)
	}
	t.Logf("empty journal: %d bytes; 100 entries: %d bytes (%.1f per entry of 32-byte value)", len(base), len(full), perEntry)
}
