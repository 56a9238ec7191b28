package lsp

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/flowserve/flowserve/dsl"
)

// TestPositions converts flowserve positions (1-based lines as YAML
// splits them, 1-based rune columns) to protocol ones (0-based lines
// split at LF, CR LF and CR; UTF-16 units) and back.
func TestPositions(t *testing.T) {
	tests := []struct {
		name string
		src  string
		pos  dsl.Pos  // a position in src
		want Position // its protocol position
	}{
		{"ASCII", "a: 1\nbb: x\n", dsl.Pos{Line: 2, Col: 5}, Position{Line: 1, Character: 4}},
		{"accents are one unit", "é: ü\nx: é\n", dsl.Pos{Line: 1, Col: 4}, Position{Line: 0, Character: 3}},
		{"an emoji is two units", "a: 🎉 x\n", dsl.Pos{Line: 1, Col: 6}, Position{Line: 0, Character: 6}},
		{"CJK is one unit each", "日本: 語x\n", dsl.Pos{Line: 1, Col: 6}, Position{Line: 0, Character: 5}},
		{"CR LF", "a: 1\r\nb: 🎉x\r\n", dsl.Pos{Line: 2, Col: 5}, Position{Line: 1, Character: 5}},
		{"CR alone", "a: 1\rb: x\r", dsl.Pos{Line: 2, Col: 4}, Position{Line: 1, Character: 3}},
		{"a byte order mark", "\ufeffa: x\n", dsl.Pos{Line: 1, Col: 4}, Position{Line: 0, Character: 4}},
		{"LS breaks YAML lines, not LSP ones", "a: x\u2028y: 🎉z\n", dsl.Pos{Line: 2, Col: 5}, Position{Line: 0, Character: 10}},
		{"NEL likewise", "a: x\u0085y: z\n", dsl.Pos{Line: 2, Col: 4}, Position{Line: 0, Character: 8}},
		{"invalid UTF-8 is one unit a byte", "a: \xff\xfex\n", dsl.Pos{Line: 1, Col: 6}, Position{Line: 0, Character: 5}},
		{"a column past the line's end", "ab\ncd\n", dsl.Pos{Line: 1, Col: 9}, Position{Line: 0, Character: 2}},
		{"a line past the end", "ab\n", dsl.Pos{Line: 7, Col: 1}, Position{Line: 1, Character: 0}},
		{"no position", "ab\n", dsl.Pos{}, Position{Line: 0, Character: 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tx := newText([]byte(tt.src))
			off := tx.offsetOfPos(tt.pos)
			if got := tx.position(off); got != tt.want {
				t.Fatalf("position of %v = %+v, want %+v", tt.pos, got, tt.want)
			}
			if back := tx.offset(tt.want); back != off {
				t.Fatalf("offset of %+v = %d, want %d", tt.want, back, off)
			}
			if tt.pos.Line >= 1 && tt.pos.Line <= len(tx.yaml) && tx.offsetOfPos(tx.posOfOffset(off)) != off {
				t.Fatalf("posOfOffset(%d) = %v, which is not back at %d", off, tx.posOfOffset(off), off)
			}
		})
	}
}

// TestOffsetClamps reads protocol positions outside the text, or inside a
// surrogate pair, as the nearest offset, and never panics.
func TestOffsetClamps(t *testing.T) {
	tx := newText([]byte("a🎉b\r\nc"))
	tests := []struct {
		p    Position
		want int
	}{
		{Position{Line: 0, Character: 0}, 0},
		{Position{Line: 0, Character: 2}, 1}, // inside 🎉: its start
		{Position{Line: 0, Character: 3}, 5},
		{Position{Line: 0, Character: 99}, 6}, // before the CR LF
		{Position{Line: 1, Character: 1}, 9},
		{Position{Line: 5, Character: 0}, 9},
		{Position{Line: -1, Character: -1}, 0},
	}
	for _, tt := range tests {
		if got := tx.offset(tt.p); got != tt.want {
			t.Errorf("offset(%+v) = %d, want %d", tt.p, got, tt.want)
		}
	}
}

// TestApplyChange applies incremental changes with UTF-16 ranges.
func TestApplyChange(t *testing.T) {
	tests := []struct {
		name, src string
		change    TextDocumentContentChangeEvent
		want      string
		err       bool
	}{
		{"whole text", "abc", TextDocumentContentChangeEvent{Text: "xyz"}, "xyz", false},
		{"after an emoji", "🎉ab\n", TextDocumentContentChangeEvent{Range: &Range{Position{0, 2}, Position{0, 3}}, Text: "X"}, "🎉Xb\n", false},
		{"an insertion on the next line", "a\r\nb", TextDocumentContentChangeEvent{Range: &Range{Position{1, 0}, Position{1, 0}}, Text: "é"}, "a\r\néb", false},
		{"across lines", "ab\ncd\n", TextDocumentContentChangeEvent{Range: &Range{Position{0, 1}, Position{1, 1}}, Text: ""}, "ad\n", false},
		{"a range that ends before it starts", "abc", TextDocumentContentChangeEvent{Range: &Range{Position{0, 2}, Position{0, 1}}}, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := applyChange([]byte(tt.src), tt.change)
			if (err != nil) != tt.err || (err == nil && string(got) != tt.want) {
				t.Fatalf("got %q, %v; want %q (error %v)", got, err, tt.want, tt.err)
			}
		})
	}
}

// TestURIs maps document URIs to paths and back.
func TestURIs(t *testing.T) {
	tests := []struct{ uri, path string }{
		{"file:///work/flows/a.yaml", "/work/flows/a.yaml"},
		{"file:///work/my%20flows/%C3%A9.yaml", "/work/my flows/é.yaml"},
		{"untitled:Untitled-1", "untitled:Untitled-1"},
	}
	for _, tt := range tests {
		if got := uriPath(tt.uri); got != tt.path {
			t.Errorf("uriPath(%q) = %q, want %q", tt.uri, got, tt.path)
		}
		if tt.uri[:5] == "file:" && uriPath(pathURI(tt.path)) != tt.path {
			t.Errorf("pathURI(%q) = %q does not map back", tt.path, pathURI(tt.path))
		}
	}
}

// TestApplyChangeSequence applies random incremental changes to a text of
// accents, CJK, emoji and mixed line breaks, and compares each result with
// the same edit made on the text as UTF-16 units split into lines: the
// way a client sees its buffer.
func TestApplyChangeSequence(t *testing.T) {
	pieces := []string{"a", "é", "日", "🎉", " ", "\n", "\r\n", "{{", "x."}
	r := rand.New(rand.NewPCG(1, 2))
	src := []byte("start 🎉\nline é\r\nend")
	for i := 0; i < 500; i++ {
		lines := utf16Lines(string(src))
		pos := func() Position {
			l := r.IntN(len(lines))
			c := r.IntN(len(lines[l]) + 1)
			if c > 0 && c < len(lines[l]) && utf16.IsSurrogate(rune(lines[l][c])) && !isHighSurrogate(lines[l][c]) {
				c-- // not inside a pair: clients never send such a position
			}
			return Position{Line: l, Character: c}
		}
		a, b := pos(), pos()
		if before(b, a) {
			a, b = b, a
		}
		var ins strings.Builder
		for range r.IntN(4) {
			ins.WriteString(pieces[r.IntN(len(pieces))])
		}
		got, err := applyChange(src, TextDocumentContentChangeEvent{Range: &Range{a, b}, Text: ins.String()})
		if err != nil {
			t.Fatal(err)
		}
		want := utf16Edit(string(src), a, b, ins.String())
		if string(got) != want {
			t.Fatalf("edit %d, %+v-%+v with %q of %q:\ngot  %q\nwant %q", i, a, b, ins.String(), src, got, want)
		}
		src = got
	}
}

func isHighSurrogate(u uint16) bool { return u >= 0xD800 && u < 0xDC00 }

// utf16Lines splits s into lines at LF, CR LF and CR, each as UTF-16 units
// without its break.
func utf16Lines(s string) [][]uint16 {
	var out [][]uint16
	for {
		i := strings.IndexAny(s, "\r\n")
		if i < 0 {
			return append(out, utf16.Encode([]rune(s)))
		}
		out = append(out, utf16.Encode([]rune(s[:i])))
		if strings.HasPrefix(s[i:], "\r\n") {
			i++
		}
		s = s[i+1:]
	}
}

// utf16Edit replaces the range [a, b) of s, in UTF-16 positions, with
// ins, working on units rather than bytes.
func utf16Edit(s string, a, b Position, ins string) string {
	offset := func(p Position) int { // in units of the whole text
		units, line := 0, 0
		rs := []rune(s)
		for i := 0; i < len(rs); i++ {
			if line == p.Line {
				col := 0
				for ; i < len(rs) && rs[i] != '\n' && rs[i] != '\r' && col < p.Character; i++ {
					col += len(utf16.Encode([]rune{rs[i]}))
				}
				return units + col
			}
			units += len(utf16.Encode([]rune{rs[i]}))
			if rs[i] == '\r' && i+1 < len(rs) && rs[i+1] == '\n' {
				i++
				units++
			}
			if rs[i] == '\n' || rs[i] == '\r' {
				line++
			}
		}
		return units
	}
	all := utf16.Encode([]rune(s))
	i, j := offset(a), offset(b)
	out := append(append(slices.Clone(all[:i]), utf16.Encode([]rune(ins))...), all[j:]...)
	return string(utf16.Decode(out))
}
