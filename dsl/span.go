package dsl

import (
	"strings"

	"go.yaml.in/yaml/v3"
)

// This file works out where the text a diagnostic is about ends, from the
// file's source: the YAML scalar that starts at a position (a key or a
// value, plain, quoted or a block, to the end of its text), else the
// token there (a quoted scalar to its closing quote, a flow mapping or
// sequence to its closing bracket, else a run of non-blank runes), or a
// given name spelt at a position. Positions count runes, like Pos; ends
// are exclusive.

// ender works out the ends of diagnostics in one file.
type ender struct {
	s       *source
	src     []byte
	scalars map[lc]Pos // the end of each scalar by its start; built on first use
}

// newEnder returns an ender for src.
func newEnder(src []byte) *ender { return &ender{s: newSource(src), src: src} }

// end returns the end of the text at p: of the scalar that starts there,
// else of the token (see tokenEnd).
func (e *ender) end(p Pos) Pos {
	if e.scalars == nil {
		e.scalars = scalarEnds(e.s, e.src)
	}
	if end, ok := e.scalars[lc{p.Line, p.Col}]; ok {
		end.File = p.File
		return end
	}
	return e.s.tokenEnd(p)
}

// scalarEnds returns the end of the text of each scalar of src (keys and
// values) whose text can be told exactly, by the scalar's position. A
// file that is not valid YAML has none.
func scalarEnds(s *source, src []byte) map[lc]Pos {
	ends := map[lc]Pos{}
	var root yaml.Node
	if yaml.Unmarshal(src, &root) != nil {
		return ends
	}
	var walk func(n *yaml.Node, depth int)
	walk = func(n *yaml.Node, depth int) {
		if depth > 1000 {
			return
		}
		if n.Kind == yaml.ScalarNode {
			if end, ok := scalarEnd(s, n); ok {
				ends[lc{n.Line, n.Column}] = end
			}
		}
		for _, c := range n.Content {
			walk(c, depth+1)
		}
	}
	walk(&root, 0)
	return ends
}

// scalarEnd returns the end of the scalar n's text in the file: after the
// closing quote of a quoted scalar, else after the last rune of its value
// that is not a line break; ok is false when it cannot be told exactly.
func scalarEnd(s *source, n *yaml.Node) (Pos, bool) {
	p := Pos{Line: n.Line, Col: n.Column}
	if n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0 {
		q := '"'
		if n.Style&yaml.SingleQuotedStyle != 0 {
			q = '\''
		}
		if line, ok := s.line(p.Line); !ok || p.Col < 1 || p.Col > len(line) || line[p.Col-1] != q {
			return Pos{}, false // an anchor or a tag first
		}
		return s.quotedEnd(p, q)
	}
	ps, exact := s.ScalarPos(n)
	value := []rune(n.Value)
	last := len(value) - 1
	for last >= 0 && value[last] == '\n' {
		last--
	}
	if !exact || last < 0 {
		return Pos{}, false
	}
	return Pos{Line: ps[last].Line, Col: ps[last].Col + 1}, true
}

// tokenEnd returns the end of the token at p: a quoted scalar up to and
// including its closing quote, a flow collection ({...} or [...]) up to
// and including its closing bracket, both maybe on later lines (a quote or
// bracket opens one only at the start of a line, after a blank or after
// one of "[{,"); else the run of non-blank runes at p, stopping before ": "
// (or a colon ending the line) and without trailing ",}])". At the end of
// a line, or on a blank, the token is empty: the end is p.
func (s *source) tokenEnd(p Pos) Pos {
	line, ok := s.line(p.Line)
	i := p.Col - 1
	if !ok || i < 0 || i >= len(line) || isBlank(line[i]) {
		return p
	}
	opens := i == 0 || isBlank(line[i-1]) || strings.ContainsRune("[{,", line[i-1])
	switch {
	case opens && (line[i] == '"' || line[i] == '\''):
		if end, ok := s.quotedEnd(p, line[i]); ok {
			return end
		}
	case opens && (line[i] == '{' || line[i] == '['):
		if end, ok := s.flowEnd(p); ok {
			return end
		}
	}
	j := i
	for j < len(line) && !isBlank(line[j]) {
		if j > i && line[j] == ':' && (j+1 == len(line) || isBlank(line[j+1])) {
			break
		}
		j++
	}
	for j > i+1 && strings.ContainsRune(",}])", line[j-1]) {
		j--
	}
	return Pos{File: p.File, Line: p.Line, Col: j + 1}
}

// scanner walks the runes of a source from a position, across lines.
type scanner struct {
	s    *source
	line int    // 1-based
	text []rune // the line
	i    int    // 0-based index into text
}

// next moves to the next rune, on a later line when the line ends, and
// reports whether there is one. A line break reads as '\n'.
func (sc *scanner) next() (rune, bool) {
	sc.i++
	if sc.i < len(sc.text) {
		return sc.text[sc.i], true
	}
	if sc.i == len(sc.text) {
		return '\n', true
	}
	text, ok := sc.s.line(sc.line + 1)
	if !ok {
		return 0, false
	}
	sc.line, sc.text, sc.i = sc.line+1, text, -1
	return sc.next()
}

// after returns the position just after the current rune.
func (sc *scanner) after(file string) Pos {
	return Pos{File: file, Line: sc.line, Col: sc.i + 2}
}

// peek returns the rune after the current one on its line, or 0.
func (sc *scanner) peek() rune {
	if sc.i+1 < len(sc.text) {
		return sc.text[sc.i+1]
	}
	return 0
}

// scan returns a scanner at p, whose line exists.
func (s *source) scan(p Pos) *scanner {
	text, _ := s.line(p.Line)
	return &scanner{s: s, line: p.Line, text: text, i: p.Col - 1}
}

// quotedEnd returns the end of the scalar quoted with q that starts at p,
// just after its closing quote, and whether it has one.
func (s *source) quotedEnd(p Pos, q rune) (Pos, bool) {
	sc := s.scan(p)
	for {
		r, ok := sc.next()
		switch {
		case !ok:
			return Pos{}, false
		case q == '"' && r == '\\':
			if _, ok := sc.next(); !ok {
				return Pos{}, false
			}
		case r == q && q == '\'' && sc.peek() == '\'':
			sc.next() // '' is a quote inside single quotes
		case r == q:
			return sc.after(p.File), true
		}
	}
}

// flowEnd returns the end of the flow collection that starts at p, just
// after its closing bracket, and whether it has one. Brackets in quoted
// scalars and comments do not count.
func (s *source) flowEnd(p Pos) (Pos, bool) {
	sc := s.scan(p)
	depth, quote, prev := 1, rune(0), rune(0)
	for {
		r, ok := sc.next()
		if !ok {
			return Pos{}, false
		}
		switch {
		case quote == '"' && r == '\\':
			if _, ok := sc.next(); !ok {
				return Pos{}, false
			}
		case quote != 0 && r == quote && quote == '\'' && sc.peek() == '\'':
			sc.next() // '' is a quote inside single quotes
		case quote != 0:
			if r == quote {
				quote = 0
			}
		case r == '"' || r == '\'':
			quote = r
		case r == '#' && (isBlank(prev) || prev == '\n'):
			sc.i = len(sc.text) // a comment, to the end of the line
			r = '\n'
		case r == '{' || r == '[':
			depth++
		case r == '}' || r == ']':
			if depth--; depth == 0 {
				return sc.after(p.File), true
			}
		}
		prev = r
	}
}

// spelt returns the end of name as it is spelt at p: plain, or in single
// or double quotes (then the end is after the closing quote), and the
// quote (0 for plain); ok is false when the file does not hold name there,
// whole, so no fix can safely replace it.
func (s *source) spelt(p Pos, name string) (end Pos, quote rune, ok bool) {
	line, found := s.line(p.Line)
	i := p.Col - 1
	if !found || i < 0 || i >= len(line) || name == "" {
		return Pos{}, 0, false
	}
	rs := []rune(name)
	if q := line[i]; q == '"' || q == '\'' {
		j := i + 1 + len(rs)
		if j < len(line) && string(line[i+1:j]) == name && line[j] == q && !strings.ContainsAny(name, `\'"`) {
			return Pos{File: p.File, Line: p.Line, Col: j + 2}, q, true
		}
		return Pos{}, 0, false
	}
	j := i + len(rs)
	if j > len(line) || string(line[i:j]) != name {
		return Pos{}, 0, false
	}
	if j < len(line) && !isBlank(line[j]) && !strings.ContainsRune(":,]}#", line[j]) {
		return Pos{}, 0, false // name is only the start of the text there
	}
	return Pos{File: p.File, Line: p.Line, Col: j + 1}, 0, true
}

// TextBetween returns the text of src from start to end (exclusive), its
// lines joined with "\n", and false when the positions are not in order
// or not in src. Columns count runes, as Pos does.
func TextBetween(src []byte, start, end Pos) (string, bool) {
	lines := strings.Split(string(src), "\n")
	if start.Line < 1 || end.Line < start.Line || end.Line > len(lines) {
		return "", false
	}
	var out []string
	for l := start.Line; l <= end.Line; l++ {
		rs := []rune(lines[l-1])
		from, to := 0, len(rs)
		if l == start.Line {
			from = start.Col - 1
		}
		if l == end.Line {
			to = end.Col - 1
		}
		if from < 0 || to > len(rs) || from > to {
			return "", false
		}
		out = append(out, string(rs[from:to]))
	}
	return strings.Join(out, "\n"), true
}
