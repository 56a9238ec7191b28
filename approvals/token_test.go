package approvals

import (
	"crypto/hkdf"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/chacha20poly1305"
)

// testSecret is the secret of the tests' sealers.
var testSecret = []byte("0123456789abcdef0123456789abcdef")

// countingReader yields the bytes 0, 1, 2, … : a fixed nonce source.
type countingReader struct{ n byte }

func (c *countingReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = c.n
		c.n++
	}
	return len(p), nil
}

// newTestSealer returns a sealer of secret whose nonces are fixed when
// fixed is set.
func newTestSealer(t testing.TB, secret []byte, fixed bool) *Sealer {
	t.Helper()
	s, err := NewSealer(secret)
	if err != nil {
		t.Fatal(err)
	}
	if fixed {
		s.rand = &countingReader{}
	}
	return s
}

// testTicket is the ticket of the tests' links.
var testTicket = Ticket{
	Task:    "0123456789abcdef0123456789abcdef",
	Key:     "approval-3",
	Expires: time.Date(2026, 12, 2, 14, 5, 0, 0, time.UTC),
}

func TestNewSealerSecret(t *testing.T) {
	tests := []struct {
		secret string
		ok     bool
	}{
		{"", false},
		{"short", false},
		{"fifteen bytes!!", false},
		{"sixteen bytes!!!", true},
		{string(testSecret), true},
	}
	for _, tt := range tests {
		_, err := NewSealer([]byte(tt.secret))
		if (err == nil) != tt.ok {
			t.Errorf("NewSealer(%q): error %v, want ok %v", tt.secret, err, tt.ok)
		}
	}
}

func TestSealOpenRoundTrip(t *testing.T) {
	s := newTestSealer(t, testSecret, false)
	exp := time.Date(2027, 1, 31, 23, 59, 58, 0, time.UTC)
	tests := []struct {
		name string
		in   Ticket
	}{
		{"hex task", testTicket},
		{"upper-case hex task", Ticket{Task: "0123456789ABCDEF0123456789ABCDEF", Key: "k", Expires: exp}},
		{"other task id", Ticket{Task: "task-7", Key: "approval-1", Expires: exp}},
		{"long key", Ticket{Task: testTicket.Task, Key: strings.Repeat("k", maxKey), Expires: exp}},
		{"long task", Ticket{Task: strings.Repeat("t", maxTask), Key: strings.Repeat("k", maxKey), Expires: exp}},
		{"unicode key", Ticket{Task: testTicket.Task, Key: "frage-ü", Expires: exp}},
		{"before 1970", Ticket{Task: testTicket.Task, Key: "k", Expires: time.Date(1969, 7, 20, 20, 17, 0, 0, time.UTC)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			token, err := s.Seal(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			got, err := s.Open(token)
			if err != nil {
				t.Fatalf("Open(%q): %v", token, err)
			}
			if got.Task != tt.in.Task || got.Key != tt.in.Key || !got.Expires.Equal(tt.in.Expires) {
				t.Errorf("Open(Seal(%+v)) = %+v", tt.in, got)
			}
		})
	}
}

func TestSealTruncatesToSeconds(t *testing.T) {
	s := newTestSealer(t, testSecret, false)
	in := testTicket
	in.Expires = in.Expires.Add(900 * time.Millisecond)
	token, err := s.Seal(in)
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Open(token)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Expires.Equal(testTicket.Expires) || got.Expires.Location() != time.UTC {
		t.Errorf("Expires = %v, want %v in UTC", got.Expires, testTicket.Expires)
	}
}

func TestSealRefuses(t *testing.T) {
	s := newTestSealer(t, testSecret, false)
	tests := []struct {
		name string
		in   Ticket
	}{
		{"no task", Ticket{Key: "k", Expires: testTicket.Expires}},
		{"no key", Ticket{Task: testTicket.Task, Expires: testTicket.Expires}},
		{"no expiry", Ticket{Task: testTicket.Task, Key: "k"}},
		{"long key", Ticket{Task: testTicket.Task, Key: strings.Repeat("k", maxKey+1), Expires: testTicket.Expires}},
		{"long task", Ticket{Task: strings.Repeat("t", maxTask+1), Key: "k", Expires: testTicket.Expires}},
	}
	for _, tt := range tests {
		if token, err := s.Seal(tt.in); err == nil {
			t.Errorf("%s: Seal = %q, want an error", tt.name, token)
		}
	}
}

func TestOpenBadToken(t *testing.T) {
	s := newTestSealer(t, testSecret, false)
	token, err := s.Seal(testTicket)
	if err != nil {
		t.Fatal(err)
	}
	other := newTestSealer(t, []byte("another secret, sixteen bytes or more"), false)
	otherToken, err := other.Seal(testTicket)
	if err != nil {
		t.Fatal(err)
	}
	flip := func(i int) string {
		b := []byte(token)
		if b[i] == 'A' {
			b[i] = 'B'
		} else {
			b[i] = 'A'
		}
		return string(b)
	}
	tests := []struct {
		name, token string
	}{
		{"empty", ""},
		{"garbage", "not a token at all!"},
		{"base64 garbage", "aGVsbG8gd29ybGQ"},
		{"flipped in the middle", flip(len(token) / 2)},
		{"flipped at the end", flip(len(token) - 1)},
		{"flipped version", flip(0)},
		{"truncated", token[:len(token)-4]},
		{"truncated to the nonce", token[:33]},
		{"extended", token + "AAAA"},
		{"padded", token + "="},
		{"standard base64", strings.NewReplacer("-", "+", "_", "/").Replace(token) + "+/"},
		{"wrong secret", otherToken},
		{"very long", strings.Repeat("A", 10000)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := s.Open(tt.token)
			if !errors.Is(err, ErrBadToken) || err != ErrBadToken {
				t.Errorf("Open = %+v, %v; want ErrBadToken itself", got, err)
			}
		})
	}
}

func TestSealNonceAndLength(t *testing.T) {
	s := newTestSealer(t, testSecret, false)
	seen := map[string]bool{}
	for range 50 {
		token, err := s.Seal(testTicket)
		if err != nil {
			t.Fatal(err)
		}
		if seen[token] {
			t.Fatalf("Seal made %q twice", token)
		}
		seen[token] = true
		if len(token) > 110 {
			t.Errorf("a token is %d characters long, want at most 110: %q", len(token), token)
		}
		if strings.Trim(token, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_") != "" {
			t.Errorf("token %q has characters that are not URL-safe", token)
		}
	}
	// The length is 88 for a hex task id, plus 4 for every 3 key bytes.
	for _, n := range []int{1, 3, 10, 40, 60, maxKey} {
		token, err := s.Seal(Ticket{Task: testTicket.Task, Key: strings.Repeat("k", n), Expires: testTicket.Expires})
		if err != nil {
			t.Fatal(err)
		}
		if want := encoding.EncodedLen(66 + n); len(token) != want {
			t.Errorf("a token with a key of %d bytes is %d characters long, want %d", n, len(token), want)
		}
		if n <= 60 && len(token) >= 170 {
			t.Errorf("a token with a key of %d bytes is %d characters long, want under 170", n, len(token))
		}
	}
}

// TestTokenKnownAnswer pins the token format: with a fixed secret and
// nonce the token is a fixed string. A change here breaks every link in
// flight; make it only with a new version byte.
func TestTokenKnownAnswer(t *testing.T) {
	const want = "AQABAgMEBQYHCAkKCwwNDg8QERITFBUWF3TQGJmJLwVKWTEJQi5f9DOOC-yu6DsWK3wKq9pslBWTsom7KmyEun6Ax_6ImYCiwkZCtw"
	s := newTestSealer(t, testSecret, true)
	got, err := s.Seal(testTicket)
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Errorf("Seal(%+v) = %q, want %q", testTicket, got, want)
	}
	back, err := s.Open(want)
	if err != nil || back != testTicket {
		t.Errorf("Open(%q) = %+v, %v; want %+v", want, back, err, testTicket)
	}

	// The layout, read without the package: version, nonce, and the
	// sealed expiry, hex task id and key.
	raw, err := base64.RawURLEncoding.DecodeString(want)
	if err != nil {
		t.Fatal(err)
	}
	key, err := hkdf.Key(sha256.New, testSecret, nil, "flowserve approval link v1", chacha20poly1305.KeySize)
	if err != nil {
		t.Fatal(err)
	}
	aead, err := chacha20poly1305.NewX(key)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := aead.Open(nil, raw[1:25], raw[25:], raw[:1])
	if err != nil {
		t.Fatalf("opening the pinned token by hand: %v", err)
	}
	const wantPlain = "000000006b10258c" + "00" + "0123456789abcdef0123456789abcdef" + "617070726f76616c2d33"
	if raw[0] != 1 || hex.EncodeToString(raw[1:25]) != "000102030405060708090a0b0c0d0e0f1011121314151617" || hex.EncodeToString(plain) != wantPlain {
		t.Errorf("the pinned token is version %d, nonce %x, plaintext %x; want 1, 00…17, %s", raw[0], raw[1:25], plain, wantPlain)
	}
}

// FuzzOpen checks that Open refuses what Seal did not make, and opens
// what it did as it was sealed.
func FuzzOpen(f *testing.F) {
	s := newTestSealer(f, testSecret, false)
	token, err := s.Seal(testTicket)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(token)
	f.Add("")
	f.Add("AQ")
	f.Fuzz(func(t *testing.T, token string) {
		tk, err := s.Open(token)
		if err != nil {
			if err != ErrBadToken {
				t.Fatalf("Open: %v, want ErrBadToken", err)
			}
			return
		}
		if tk.Task == "" || tk.Key == "" || tk.Expires.IsZero() {
			t.Fatalf("Open = %+v", tk)
		}
	})
}
