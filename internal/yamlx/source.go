package yamlx

import (
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// Pos is a position in a YAML file: a 1-based line and a 1-based column
// counted in runes, as yaml.v3 counts them.
type Pos struct {
	Line, Col int
}

// at returns the position line:col, clamped to 1:1 at least.
func at(line, col int) Pos { return Pos{Line: max(line, 1), Col: max(col, 1)} }

// NodePos returns the position of n, clamped to 1:1 at least.
func NodePos(n *yaml.Node) Pos { return at(n.Line, n.Column) }

// Source gives rune-indexed access to the lines of a YAML file, split the
// way YAML counts lines, so that positions computed from it agree with the
// line and column numbers of yaml.Node.
type Source struct {
	lines  [][]rune // line i+1 without its break; a leading BOM removed
	brk    []rune   // the break ending line i+1 as YAML reads it: '\n', LS, PS or 0
	starts []int    // byte offset of the start of line i+1
	size   int      // the length of the file in bytes
}

// NewSource splits src into lines. Like YAML it treats CR LF, CR, LF,
// NEL, LS and PS as line breaks.
func NewSource(src []byte) *Source {
	s := &Source{size: len(src)}
	var cur []rune
	start := 0
	i := 0
	if len(src) >= 3 && src[0] == 0xEF && src[1] == 0xBB && src[2] == 0xBF {
		i = 3 // YAML skips a byte order mark without counting a column
	}
	for i < len(src) {
		r, size := utf8.DecodeRune(src[i:])
		brk, as := 0, '\n'
		switch {
		case r == '\n':
			brk = 1
		case r == '\r':
			brk = 1
			if i+1 < len(src) && src[i+1] == '\n' {
				brk = 2
			}
		case r == 0x85:
			brk = size
		case r == 0x2028 || r == 0x2029:
			brk, as = size, r // kept as they are in scalars
		}
		if brk > 0 {
			s.lines = append(s.lines, cur)
			s.brk = append(s.brk, as)
			s.starts = append(s.starts, start)
			cur = nil
			i += brk
			start = i
			continue
		}
		cur = append(cur, r)
		i += size
	}
	if len(cur) > 0 || len(s.lines) == 0 {
		s.lines = append(s.lines, cur)
		s.brk = append(s.brk, 0)
		s.starts = append(s.starts, start)
	}
	return s
}

// Lines returns every line of the file, without its break.
func (s *Source) Lines() [][]rune { return s.lines }

// Line returns line n (1-based) and whether it exists.
func (s *Source) Line(n int) ([]rune, bool) {
	if n < 1 || n > len(s.lines) {
		return nil, false
	}
	return s.lines[n-1], true
}

// End returns the byte offset just after line n and its break.
func (s *Source) End(n int) int {
	if n >= 0 && n < len(s.starts) {
		return s.starts[n]
	}
	return s.size
}

// IsBlank reports whether r is a YAML white space character.
func IsBlank(r rune) bool { return r == ' ' || r == '\t' }

// allBlank reports whether line holds only white space.
func allBlank(line []rune) bool {
	for _, r := range line {
		if !IsBlank(r) {
			return false
		}
	}
	return true
}

// ScalarPos returns the file position of every rune of the scalar n's
// value, and whether they are exact. It decodes the scalar again from the
// source, following YAML's rules for its style, and uses the result only
// when it reproduces n.Value exactly; otherwise the positions are an
// approximation built from the node's own position.
func (s *Source) ScalarPos(n *yaml.Node) ([]Pos, bool) {
	value := []rune(n.Value)
	if ps := s.exactScalarPos(n, value); ps != nil {
		return ps, true
	}
	// Approximation: the runes follow each other from the node's start.
	ps := make([]Pos, len(value))
	line, col := n.Line, n.Column
	if n.Style&(yaml.SingleQuotedStyle|yaml.DoubleQuotedStyle) != 0 {
		col++
	}
	for i, r := range value {
		ps[i] = at(line, col)
		col++
		if r == '\n' {
			line++
			col = 1
		}
	}
	return ps, false
}

// PosAt returns the position of rune i of the scalar n's value; for i at
// the end of the value, the position just after its last rune.
func (s *Source) PosAt(n *yaml.Node, i int) Pos {
	ps, _ := s.ScalarPos(n)
	switch {
	case i >= 0 && i < len(ps):
		return ps[i]
	case len(ps) > 0:
		last := ps[len(ps)-1]
		return at(last.Line, last.Col+1)
	}
	p := NodePos(n)
	if n.Style&(yaml.SingleQuotedStyle|yaml.DoubleQuotedStyle) != 0 {
		p.Col++
	}
	return p
}
