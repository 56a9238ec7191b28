package jsonx

import (
	"encoding/binary"
	"encoding/json"
	"strings"
	"testing"
)

// TestWordTests checks the word tests against byte-by-byte checks on
// words made of every interesting byte value in every position.
func TestWordTests(t *testing.T) {
	interesting := []byte{0, 1, 0x1f, 0x20, 0x21, '"', '\\', '<', '>', '&', 'a', 0x7f, 0x80, 0x81, 0xdc, 0xfe, 0xff}
	fill := []byte{'a', 0x20, 0xff, 0x80, '"' + 1, '\\' - 1}
	for _, f := range fill {
		for _, b := range interesting {
			for pos := 0; pos < 8; pos++ {
				var w [8]byte
				for i := range w {
					w[i] = f
				}
				w[pos] = b
				x := binary.LittleEndian.Uint64(w[:])
				if x != load64(w[:], 0) || x != load64(string(w[:]), 0) {
					t.Fatalf("load64(% x) = %x, want %x", w, load64(w[:], 0), x)
				}
				var wantEnd, wantLess, wantQuote bool
				for _, c := range w {
					wantEnd = wantEnd || c < 0x20 || c == '"' || c == '\\'
					wantLess = wantLess || c < 0x20
					wantQuote = wantQuote || c == '"'
				}
				if (stringEnd(x) != 0) != wantEnd || (less(x, 0x20) != 0) != wantLess || (has(x, '"') != 0) != wantQuote {
					t.Errorf("% x: stringEnd %v, less %v, has %v; want %v, %v, %v", w,
						stringEnd(x) != 0, less(x, 0x20) != 0, has(x, '"') != 0, wantEnd, wantLess, wantQuote)
				}
			}
		}
	}
}

func TestPlainRun(t *testing.T) {
	for _, tc := range []struct {
		s    string
		html bool
		want int
	}{
		{"", false, 0}, {"abcdefg", false, 0}, {"abcdefgh", false, 8}, {"abcdefgh<", true, 8},
		{"abcdefgh12345<78", true, 8}, {"abcdefgh12345<78", false, 16}, {"abcdefgh1234567\x80", false, 8},
		{"ab\"defgh12345678", false, 0}, {strings.Repeat("x", 100), false, 96},
	} {
		if got := plainRun(tc.s, 0, tc.html); got != tc.want {
			t.Errorf("plainRun(%q, %v) = %d, want %d", tc.s, tc.html, got, tc.want)
		}
	}
}

// A request state: long, and nothing in it needs escaping.
var benchState = `"k1.` + strings.Repeat("QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVotXw", 32) + `"`

func BenchmarkSkipString(b *testing.B) {
	b.SetBytes(int64(len(benchState)))
	raw := []byte(benchState)
	for b.Loop() {
		p := jsonParser{b: raw}
		if err := p.skipString(); err != nil || p.i != len(raw) {
			b.Fatal(err)
		}
	}
}

func BenchmarkAppendString(b *testing.B) {
	s := benchState[1 : len(benchState)-1]
	b.SetBytes(int64(len(s)))
	buf := make([]byte, 0, 2*len(s))
	for b.Loop() {
		buf = AppendString(buf[:0], s, true)
	}
}

// TestStringsOfEveryLength checks the string loops at every length
// around the word size, ended and unterminated, with an escape or a
// control character at every position.
func TestStringsOfEveryLength(t *testing.T) {
	for n := 0; n <= 34; n++ {
		body := strings.Repeat("a", n)
		for _, raw := range []string{`"` + body + `"`, `"` + body, `"` + body + `\`} {
			v, err := Parse([]byte(raw))
			if ok := raw == `"`+body+`"`; (err == nil) != ok || ok && v != body {
				t.Errorf("Parse(%q) = %q, %v", raw, v, err)
			}
			if err := Members([]byte(`{"k":`+raw+`}`), func(string, []byte) error { return nil }); (err == nil) != (raw == `"`+body+`"`) {
				t.Errorf("Members of %q: %v", raw, err)
			}
		}
		for i := 0; i < n; i++ {
			for _, c := range []string{`\n`, "\x01", `"`, "é", "\u2028", "<"} {
				s := body[:i] + c + body[i:]
				checkCanonical(t, []byte(`"`+s+`"`))
				if got, want := AppendString(nil, s, true), []byte(mustStd(t, s)); string(got) != string(want) {
					t.Errorf("AppendString(%q) = %s, want %s", s, got, want)
				}
			}
		}
	}
}

func mustStd(t *testing.T, s string) string {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
