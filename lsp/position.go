package lsp

import (
	"sort"
	"unicode/utf8"

	"github.com/flowserve/flowserve/dsl"
	"github.com/flowserve/flowserve/internal/yamlx"
)

// text indexes a document's bytes for the two ways positions are
// counted: the protocol's (0-based lines split at LF, CR LF and CR;
// 0-based characters in UTF-16 code units) and flowserve's (dsl.Pos:
// 1-based lines split as YAML splits them, which also breaks at NEL, LS
// and PS; 1-based columns in runes, a leading byte order mark not
// counted). Every conversion goes through a byte offset, so the two
// never have to agree on what a line is.
type text struct {
	src   []byte
	lines []int // byte offset of the start of each protocol line
	yaml  []int // byte offset of the start of each YAML line
	bom   int   // 3 when src starts with a byte order mark
}

// newText indexes src.
func newText(src []byte) *text {
	t := &text{src: src, lines: []int{0}}
	for i := 0; i < len(src); i++ {
		switch src[i] {
		case '\n':
			t.lines = append(t.lines, i+1)
		case '\r':
			if i+1 < len(src) && src[i+1] == '\n' {
				i++
			}
			t.lines = append(t.lines, i+1)
		}
	}
	ys := yamlx.NewSource(src)
	n := len(ys.Lines())
	t.yaml = make([]int, n)
	for l := 1; l <= n; l++ {
		t.yaml[l-1] = ys.End(l - 1)
	}
	if len(src) >= 3 && src[0] == 0xEF && src[1] == 0xBB && src[2] == 0xBF {
		t.bom = 3
	}
	return t
}

// isBreak reports whether r ends a YAML line.
func isBreak(r rune) bool {
	return r == '\n' || r == '\r' || r == 0x85 || r == 0x2028 || r == 0x2029
}

// offsetOfPos returns the byte offset of p: its line's start plus Col-1
// runes, stopping at the line's end. A position before the file is 0,
// after it the file's length.
func (t *text) offsetOfPos(p dsl.Pos) int {
	if p.Line < 1 {
		return 0
	}
	if p.Line > len(t.yaml) {
		return len(t.src)
	}
	off := t.yaml[p.Line-1]
	if p.Line == 1 {
		off += t.bom
	}
	for c := 1; c < p.Col && off < len(t.src); c++ {
		r, size := utf8.DecodeRune(t.src[off:])
		if isBreak(r) {
			break
		}
		off += size
	}
	return off
}

// posOfOffset returns the dsl.Pos of the byte offset off.
func (t *text) posOfOffset(off int) dsl.Pos {
	off = min(max(off, 0), len(t.src))
	line := sort.Search(len(t.yaml), func(i int) bool { return t.yaml[i] > off })
	if line == 0 {
		line = 1
	}
	start := t.yaml[line-1]
	if line == 1 {
		start = min(start+t.bom, off)
	}
	return dsl.Pos{Line: line, Col: 1 + utf8.RuneCount(t.src[start:off])}
}

// position returns the protocol position of the byte offset off. An
// offset inside a rune counts from that rune's start.
func (t *text) position(off int) Position {
	off = min(max(off, 0), len(t.src))
	line := sort.Search(len(t.lines), func(i int) bool { return t.lines[i] > off }) - 1
	line = max(line, 0)
	char := 0
	for i := t.lines[line]; i < off; {
		r, size := utf8.DecodeRune(t.src[i:])
		if i+size > off {
			break
		}
		char += utf16Len(r)
		i += size
	}
	return Position{Line: line, Character: char}
}

// offset returns the byte offset of the protocol position p. A character
// past the end of its line is the line's end (before its break), a line
// past the last one the end of the text, and a character inside a
// surrogate pair the rune's start.
func (t *text) offset(p Position) int {
	if p.Line < 0 {
		return 0
	}
	if p.Line >= len(t.lines) {
		return len(t.src)
	}
	off := t.lines[p.Line]
	end := len(t.src)
	if p.Line+1 < len(t.lines) {
		end = t.lines[p.Line+1]
	}
	for char := 0; off < end; {
		r, size := utf8.DecodeRune(t.src[off:])
		if r == '\n' || r == '\r' {
			break
		}
		n := utf16Len(r)
		if char+n > p.Character {
			break
		}
		char += n
		off += size
	}
	return off
}

// utf16Len returns how many UTF-16 code units r takes: invalid bytes
// decode as U+FFFD, one unit.
func utf16Len(r rune) int {
	if r >= 0x10000 && r <= utf8.MaxRune {
		return 2
	}
	return 1
}

// rangeOf returns the protocol range of the byte offsets [start, end).
func (t *text) rangeOf(start, end int) Range {
	return Range{Start: t.position(start), End: t.position(max(start, end))}
}

// posRange returns the protocol range from p to end (dsl positions).
func (t *text) posRange(p, end dsl.Pos) Range {
	return t.rangeOf(t.offsetOfPos(p), t.offsetOfPos(end))
}

// linePrefix returns the protocol line holding off, from its start to off.
func (t *text) linePrefix(off int) string {
	p := t.position(off)
	return string(t.src[t.lines[p.Line]:off])
}

// lineAt returns the protocol line n without its break.
func (t *text) lineAt(n int) string {
	if n < 0 || n >= len(t.lines) {
		return ""
	}
	end := len(t.src)
	if n+1 < len(t.lines) {
		end = t.lines[n+1]
	}
	s := t.src[t.lines[n]:end]
	for len(s) > 0 && (s[len(s)-1] == '\n' || s[len(s)-1] == '\r') {
		s = s[:len(s)-1]
	}
	return string(s)
}
