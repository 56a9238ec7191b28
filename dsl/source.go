package dsl

import (
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// source gives rune-indexed access to the lines of a flow file, split the
// way YAML counts lines, so that positions computed from it agree with the
// line and column numbers of yaml.Node.
type source struct {
	lines  [][]rune // line i+1 without its break; a leading BOM removed
	brk    []rune   // the break ending line i+1 as YAML reads it: '\n', LS, PS or 0
	starts []int    // byte offset of the start of line i+1
}

// newSource splits src into lines. Like YAML it treats CR LF, CR, LF,
// NEL, LS and PS as line breaks.
func newSource(src []byte) *source {
	s := &source{}
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

// line returns line n (1-based) and whether it exists.
func (s *source) line(n int) ([]rune, bool) {
	if n < 1 || n > len(s.lines) {
		return nil, false
	}
	return s.lines[n-1], true
}

// end returns the byte offset just after line n and its break.
func (s *source) end(n int, total int) int {
	if n < len(s.starts) {
		return s.starts[n]
	}
	return total
}

// isBlank reports whether r is a YAML white space character.
func isBlank(r rune) bool { return r == ' ' || r == '\t' }

// allBlank reports whether line holds only white space.
func allBlank(line []rune) bool {
	for _, r := range line {
		if !isBlank(r) {
			return false
		}
	}
	return true
}

// runePos pairs a decoded rune with its position in the file.
type runePos struct {
	r   rune
	pos Pos
}

// scalarPos returns the file position of every rune of the scalar n's
// value. It decodes the scalar again from the source, following YAML's
// rules for its style, and uses the result only when it reproduces
// n.Value exactly; otherwise it returns an approximation built from the
// node's own position.
func (p *parser) scalarPos(n *yaml.Node) []Pos {
	value := []rune(n.Value)
	if ps := p.exactScalarPos(n, value); ps != nil {
		return ps
	}
	// Approximation: the runes follow each other from the node's start.
	ps := make([]Pos, len(value))
	line, col := n.Line, n.Column
	if n.Style&(yaml.SingleQuotedStyle|yaml.DoubleQuotedStyle) != 0 {
		col++
	}
	for i, r := range value {
		ps[i] = p.at(line, col)
		col++
		if r == '\n' {
			line++
			col = 1
		}
	}
	return ps
}

// exactScalarPos returns the positions of value's runes, or nil when it
// cannot reproduce the value from the source.
func (p *parser) exactScalarPos(n *yaml.Node, value []rune) []Pos {
	src := p.source()
	line, col, ok := skipProperties(src, n.Line, n.Column-1)
	if !ok {
		return nil
	}
	text, _ := src.line(line)
	if col >= len(text) {
		return nil
	}
	var got []runePos
	switch {
	case n.Style&yaml.DoubleQuotedStyle != 0:
		if text[col] != '"' {
			return nil
		}
		got = p.flowScalar(value, line, col+1, '"')
	case n.Style&yaml.SingleQuotedStyle != 0:
		if text[col] != '\'' {
			return nil
		}
		got = p.flowScalar(value, line, col+1, '\'')
	case n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0:
		if text[col] != '|' && text[col] != '>' {
			return nil
		}
		got = p.blockScalar(value, line, col, text[col] == '|')
	default:
		got = p.flowScalar(value, line, col, 0)
	}
	if len(got) != len(value) {
		return nil
	}
	ps := make([]Pos, len(got))
	for i, rp := range got {
		if rp.r != value[i] {
			return nil
		}
		ps[i] = rp.pos
	}
	return ps
}

// skipProperties moves from a node's start past its anchor and tag, if
// any, to the first rune of its content. col is 0-based.
func skipProperties(src *source, line, col int) (int, int, bool) {
	for range 4 {
		text, ok := src.line(line)
		if !ok || col < 0 || col >= len(text) {
			return 0, 0, false
		}
		if text[col] != '&' && text[col] != '!' {
			return line, col, true
		}
		for col < len(text) && !isBlank(text[col]) {
			col++
		}
		// Skip white space, comments and line breaks up to the content.
		for {
			for col < len(text) && isBlank(text[col]) {
				col++
			}
			if col < len(text) && text[col] != '#' {
				break
			}
			line++
			col = 0
			if text, ok = src.line(line); !ok {
				return 0, 0, false
			}
		}
	}
	return 0, 0, false
}

// flowScalar decodes a plain (quote 0), single-quoted or double-quoted
// scalar starting at line:col (0-based col, after any opening quote),
// matching it against value to know where a plain scalar ends. It returns
// the decoded runes with their positions, or nil on any mismatch.
func (p *parser) flowScalar(value []rune, line, col int, quote rune) []runePos {
	src := p.source()
	var out []runePos
	for first := true; ; first = false {
		text, ok := src.line(line)
		if !ok {
			return nil
		}
		if !first {
			col = 0
			for col < len(text) && isBlank(text[col]) {
				col++
			}
		}
		seg, closed, escBreak, ok := p.flowSegment(text, line, col, quote)
		if !ok {
			return nil
		}
		rest := value[len(out):]
		if closed {
			if len(seg) != len(rest) {
				return nil
			}
			return append(out, seg...)
		}
		if quote == 0 && decodedHasPrefix(seg, rest) {
			return append(out, seg[:len(rest)]...)
		}
		if !valueHasPrefix(rest, seg) {
			return nil
		}
		out = append(out, seg...)
		// Fold the line break and any blank lines after it.
		breakPos := p.at(line, len(text)+1)
		if len(seg) > 0 {
			breakPos = seg[len(seg)-1].pos
			breakPos.Col++
		}
		next := line + 1
		var blanks []runePos
		for {
			t, ok := src.line(next)
			if !ok {
				return nil
			}
			if !allBlank(t) {
				break
			}
			blanks = append(blanks, runePos{src.brk[next-1], p.at(next, len(t)+1)})
			next++
		}
		// As in libyaml: a line feed folds into a space, or disappears
		// before blank lines; LS and PS are kept.
		switch brk := src.brk[line-1]; {
		case escBreak:
		case brk != '\n':
			out = append(out, runePos{brk, breakPos})
		case len(blanks) == 0:
			out = append(out, runePos{' ', breakPos})
		}
		out = append(out, blanks...)
		if len(out) > len(value) {
			return nil
		}
		line = next
	}
}

// decodedHasPrefix reports whether the decoded runes s start with prefix.
func decodedHasPrefix(s []runePos, prefix []rune) bool {
	if len(prefix) > len(s) {
		return false
	}
	for i, r := range prefix {
		if s[i].r != r {
			return false
		}
	}
	return true
}

// valueHasPrefix reports whether value starts with the decoded runes prefix.
func valueHasPrefix(value []rune, prefix []runePos) bool {
	if len(prefix) > len(value) {
		return false
	}
	for i, rp := range prefix {
		if value[i] != rp.r {
			return false
		}
	}
	return true
}

// flowSegment decodes the part of a flow scalar on one line, from col
// (0-based). It reports whether the closing quote was found and whether the
// line ends with an escaped line break (double quotes only).
func (p *parser) flowSegment(text []rune, line, col int, quote rune) (seg []runePos, closed, escBreak, ok bool) {
	var escaped []bool // parallel to seg: produced by an escape
	i := col
	for i < len(text) {
		r := text[i]
		switch {
		case quote == '\'' && r == '\'':
			if i+1 < len(text) && text[i+1] == '\'' {
				seg = append(seg, runePos{'\'', p.at(line, i+1)})
				escaped = append(escaped, true)
				i += 2
				continue
			}
			return seg, true, false, true
		case quote == '"' && r == '"':
			return seg, true, false, true
		case quote == '"' && r == '\\':
			if i+1 >= len(text) {
				return seg, false, true, true
			}
			dec, width, good := unescape(text[i+1:])
			if !good {
				return nil, false, false, false
			}
			seg = append(seg, runePos{dec, p.at(line, i+1)})
			escaped = append(escaped, true)
			i += 1 + width
			continue
		}
		seg = append(seg, runePos{r, p.at(line, i+1)})
		escaped = append(escaped, false)
		i++
	}
	// The line ends inside the scalar: trailing white space is folded away,
	// except white space written as escapes.
	for len(seg) > 0 && isBlank(seg[len(seg)-1].r) && !escaped[len(seg)-1] {
		seg = seg[:len(seg)-1]
		escaped = escaped[:len(escaped)-1]
	}
	return seg, false, false, true
}

// unescape decodes the double-quoted escape sequence that follows a
// backslash. It returns the rune and how many runes of s it used.
func unescape(s []rune) (rune, int, bool) {
	if len(s) == 0 {
		return 0, 0, false
	}
	digits := 0
	switch s[0] {
	case '0':
		return 0, 1, true
	case 'a':
		return '\a', 1, true
	case 'b':
		return '\b', 1, true
	case 't', '\t':
		return '\t', 1, true
	case 'n':
		return '\n', 1, true
	case 'v':
		return '\v', 1, true
	case 'f':
		return '\f', 1, true
	case 'r':
		return '\r', 1, true
	case 'e':
		return 0x1b, 1, true
	case ' ', '"', '\'', '\\':
		return s[0], 1, true
	case 'N':
		return 0x85, 1, true
	case '_':
		return 0xA0, 1, true
	case 'L':
		return 0x2028, 1, true
	case 'P':
		return 0x2029, 1, true
	case 'x':
		digits = 2
	case 'u':
		digits = 4
	case 'U':
		digits = 8
	}
	if digits == 0 || len(s) < 1+digits {
		return 0, 0, false
	}
	var v rune
	for _, d := range s[1 : 1+digits] {
		var n rune
		switch {
		case d >= '0' && d <= '9':
			n = d - '0'
		case d >= 'a' && d <= 'f':
			n = d - 'a' + 10
		case d >= 'A' && d <= 'F':
			n = d - 'A' + 10
		default:
			return 0, 0, false
		}
		v = v<<4 | n
	}
	return v, 1 + digits, true
}

// blockScalar decodes a literal (|) or folded (>) block scalar whose
// indicator is at line:col (0-based col), following libyaml's algorithm.
// With an explicit indentation indicator the parent's indentation is not
// known, so each plausible indentation is tried.
func (p *parser) blockScalar(value []rune, line, col int, literal bool) []runePos {
	header, _ := p.source().line(line)
	chomp := 0 // -1 strip, 0 clip, +1 keep
	explicit := 0
	for i := col + 1; i < len(header) && i <= col+2; i++ {
		switch r := header[i]; {
		case r == '-':
			chomp = -1
		case r == '+':
			chomp = 1
		case r >= '1' && r <= '9':
			explicit = int(r - '0')
		}
	}
	if explicit == 0 {
		return p.blockBody(value, line, 0, chomp, literal)
	}
	for indent := explicit; indent <= explicit+64; indent++ {
		if got := p.blockBody(value, line, indent, chomp, literal); sameRunes(got, value) {
			return got
		}
	}
	return nil
}

// sameRunes reports whether got decodes to exactly value.
func sameRunes(got []runePos, value []rune) bool {
	return len(got) == len(value) && decodedHasPrefix(got, value)
}

// blockBody decodes the content lines of a block scalar after the header
// line, with the given indentation (0: detect it).
func (p *parser) blockBody(value []rune, header, indent, chomp int, literal bool) []runePos {
	src := p.source()
	var out []runePos
	ln := header + 1
	col := 0
	// breaks skips indentation and collects the breaks of blank lines.
	breaks := func() []runePos {
		var bs []runePos
		maxIndent := 0
		for {
			text, ok := src.line(ln)
			if !ok {
				break
			}
			col = 0
			for (indent == 0 || col < indent) && col < len(text) && text[col] == ' ' {
				col++
			}
			maxIndent = max(maxIndent, col)
			if col < len(text) || src.brk[ln-1] == 0 {
				break
			}
			bs = append(bs, runePos{src.brk[ln-1], p.at(ln, len(text)+1)})
			ln++
		}
		if indent == 0 {
			indent = max(maxIndent, 1)
		}
		return bs
	}
	trailing := breaks()
	var leading []runePos
	leadingBlank := false
	for len(out) <= len(value) {
		text, ok := src.line(ln)
		if !ok || col != indent || col >= len(text) {
			break
		}
		trailingBlank := isBlank(text[col])
		if !literal && len(leading) > 0 && leading[0].r == '\n' && !leadingBlank && !trailingBlank {
			if len(trailing) == 0 {
				out = append(out, runePos{' ', leading[0].pos})
			}
		} else {
			out = append(out, leading...)
		}
		leading = nil
		out = append(out, trailing...)
		leadingBlank = trailingBlank
		for ; col < len(text); col++ {
			out = append(out, runePos{text[col], p.at(ln, col+1)})
		}
		if b := src.brk[ln-1]; b != 0 {
			leading = []runePos{{b, p.at(ln, len(text)+1)}}
		}
		ln++
		trailing = breaks()
	}
	if chomp >= 0 {
		out = append(out, leading...)
	}
	if chomp > 0 {
		out = append(out, trailing...)
	}
	return out
}
