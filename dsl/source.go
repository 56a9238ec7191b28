package dsl

import (
	"go.yaml.in/yaml/v3"

	"github.com/flowserve/flowserve/internal/yamlx"
)

// source gives rune-indexed access to the lines of a flow file, split the
// way YAML counts lines (see yamlx.Source), so that positions computed
// from it agree with the line and column numbers of yaml.Node.
type source struct {
	*yamlx.Source
	lines [][]rune // line i+1 without its break; a leading BOM removed
}

// newSource splits src into lines.
func newSource(src []byte) *source {
	s := yamlx.NewSource(src)
	return &source{Source: s, lines: s.Lines()}
}

// line returns line n (1-based) and whether it exists.
func (s *source) line(n int) ([]rune, bool) { return s.Line(n) }

// end returns the byte offset just after line n and its break; total, the
// length of the file, is known to the source already.
func (s *source) end(n int, _ int) int { return s.End(n) }

// isBlank reports whether r is a YAML white space character.
func isBlank(r rune) bool { return yamlx.IsBlank(r) }

// scalarPos returns the file position of every rune of the scalar n's
// value: exact, or an approximation when the value cannot be decoded
// again from the source (see yamlx.Source.ScalarPos).
func (p *parser) scalarPos(n *yaml.Node) []Pos {
	ps, _ := p.source().ScalarPos(n)
	return p.positions(ps)
}

// exactScalarPos returns the positions of value's runes, or nil when they
// cannot be worked out exactly. value is n.Value, as runes.
func (p *parser) exactScalarPos(n *yaml.Node, value []rune) []Pos {
	if string(value) != n.Value {
		return nil
	}
	ps, exact := p.source().ScalarPos(n)
	if !exact {
		return nil
	}
	return p.positions(ps)
}

// positions turns positions of the YAML reader into positions in the file.
func (p *parser) positions(ps []yamlx.Pos) []Pos {
	out := make([]Pos, len(ps))
	for i, q := range ps {
		out[i] = p.at(q.Line, q.Col)
	}
	return out
}
