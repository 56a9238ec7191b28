package yamlx

import "go.yaml.in/yaml/v3"

// runePos pairs a decoded rune with its position in the file.
type runePos struct {
	r   rune
	pos Pos
}

// exactScalarPos returns the positions of value's runes, or nil when it
// cannot reproduce the value from the source.
func (s *Source) exactScalarPos(n *yaml.Node, value []rune) []Pos {
	src := s
	line, col, ok := skipProperties(src, n.Line, n.Column-1)
	if !ok {
		return nil
	}
	text, _ := src.Line(line)
	if col >= len(text) {
		return nil
	}
	var got []runePos
	switch {
	case n.Style&yaml.DoubleQuotedStyle != 0:
		if text[col] != '"' {
			return nil
		}
		got = s.flowScalar(value, line, col+1, '"')
	case n.Style&yaml.SingleQuotedStyle != 0:
		if text[col] != '\'' {
			return nil
		}
		got = s.flowScalar(value, line, col+1, '\'')
	case n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0:
		if text[col] != '|' && text[col] != '>' {
			return nil
		}
		got = s.blockScalar(value, line, col, text[col] == '|')
	default:
		got = s.flowScalar(value, line, col, 0)
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
func skipProperties(src *Source, line, col int) (int, int, bool) {
	for range 4 {
		text, ok := src.Line(line)
		if !ok || col < 0 || col >= len(text) {
			return 0, 0, false
		}
		if text[col] != '&' && text[col] != '!' {
			return line, col, true
		}
		for col < len(text) && !IsBlank(text[col]) {
			col++
		}
		// Skip white space, comments and line breaks up to the content.
		for {
			for col < len(text) && IsBlank(text[col]) {
				col++
			}
			if col < len(text) && text[col] != '#' {
				break
			}
			line++
			col = 0
			if text, ok = src.Line(line); !ok {
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
func (s *Source) flowScalar(value []rune, line, col int, quote rune) []runePos {
	src := s
	var out []runePos
	for first := true; ; first = false {
		text, ok := src.Line(line)
		if !ok {
			return nil
		}
		if !first {
			col = 0
			for col < len(text) && IsBlank(text[col]) {
				col++
			}
		}
		seg, closed, escBreak, ok := s.flowSegment(text, line, col, quote)
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
		breakPos := at(line, len(text)+1)
		if len(seg) > 0 {
			breakPos = seg[len(seg)-1].pos
			breakPos.Col++
		}
		next := line + 1
		var blanks []runePos
		for {
			t, ok := src.Line(next)
			if !ok {
				return nil
			}
			if !allBlank(t) {
				break
			}
			blanks = append(blanks, runePos{src.brk[next-1], at(next, len(t)+1)})
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
func (s *Source) flowSegment(text []rune, line, col int, quote rune) (seg []runePos, closed, escBreak, ok bool) {
	var escaped []bool // parallel to seg: produced by an escape
	i := col
	for i < len(text) {
		r := text[i]
		switch {
		case quote == '\'' && r == '\'':
			if i+1 < len(text) && text[i+1] == '\'' {
				seg = append(seg, runePos{'\'', at(line, i+1)})
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
			seg = append(seg, runePos{dec, at(line, i+1)})
			escaped = append(escaped, true)
			i += 1 + width
			continue
		}
		seg = append(seg, runePos{r, at(line, i+1)})
		escaped = append(escaped, false)
		i++
	}
	// The line ends inside the scalar: trailing white space is folded away,
	// except white space written as escapes.
	for len(seg) > 0 && IsBlank(seg[len(seg)-1].r) && !escaped[len(seg)-1] {
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
func (s *Source) blockScalar(value []rune, line, col int, literal bool) []runePos {
	header, _ := s.Line(line)
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
		return s.blockBody(value, line, 0, chomp, literal)
	}
	for indent := explicit; indent <= explicit+64; indent++ {
		if got := s.blockBody(value, line, indent, chomp, literal); sameRunes(got, value) {
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
func (s *Source) blockBody(value []rune, header, indent, chomp int, literal bool) []runePos {
	src := s
	var out []runePos
	ln := header + 1
	col := 0
	// breaks skips indentation and collects the breaks of blank lines.
	breaks := func() []runePos {
		var bs []runePos
		maxIndent := 0
		for {
			text, ok := src.Line(ln)
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
			bs = append(bs, runePos{src.brk[ln-1], at(ln, len(text)+1)})
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
		text, ok := src.Line(ln)
		if !ok || col != indent || col >= len(text) {
			break
		}
		trailingBlank := IsBlank(text[col])
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
			out = append(out, runePos{text[col], at(ln, col+1)})
		}
		if b := src.brk[ln-1]; b != 0 {
			leading = []runePos{{b, at(ln, len(text)+1)}}
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
