package dsl

import (
	"fmt"

	"go.yaml.in/yaml/v3"

	"github.com/flowserve/flowserve/internal/yamlx"
)

// The YAML tags Parse understands.
const (
	tagStr       = yamlx.TagStr
	tagNull      = yamlx.TagNull
	tagBool      = yamlx.TagBool
	tagInt       = yamlx.TagInt
	tagFloat     = yamlx.TagFloat
	tagTimestamp = yamlx.TagTimestamp
	tagBinary    = yamlx.TagBinary
	tagMap       = yamlx.TagMap
	tagSeq       = yamlx.TagSeq
)

// pos returns the position of a YAML node.
func (p *parser) pos(n *yaml.Node) Pos {
	return p.at(n.Line, n.Column)
}

// at returns a position in the file, clamped to 1:1 at least.
func (p *parser) at(line, col int) Pos {
	return Pos{File: p.path, Line: max(line, 1), Col: max(col, 1)}
}

// errorf records an error diagnostic.
func (p *parser) errorf(pos Pos, code, format string, args ...any) {
	p.errorSpan(pos, Span{}, code, format, args...)
}

// errorSpan records an error diagnostic about the text from pos to
// sp.End, with sp's fixes.
func (p *parser) errorSpan(pos Pos, sp Span, code, format string, args ...any) {
	if pos.Line < 1 {
		pos.Line, pos.Col = 1, 1
		sp = Span{}
	}
	if pos.Col < 1 {
		pos.Col = 1
		sp = Span{}
	}
	pos.File = p.path
	p.diags = append(p.diags, Diagnostic{
		Pos:      pos,
		End:      sp.End,
		Severity: Error,
		Code:     code,
		Message:  fmt.Sprintf(format, args...),
		Fixes:    sp.Fixes,
	})
}

// unknownf records an error about name, spelt at pos, that is not one of
// options: format's last verb takes the did-you-mean ("; did you mean
// "x"?" or ""), and the diagnostic spans name, with the fix replacing it
// with the suggestion.
func (p *parser) unknownf(pos Pos, name string, options []string, code, format string, args ...any) {
	hint, sug := DidYouMean(name, options)
	p.errorSpan(pos, p.source().misspelt(pos, name, sug), code, format, append(args, hint)...)
}

// reader returns the shared YAML reader, reporting to p's diagnostics.
func (p *parser) reader() yamlx.Reader {
	return yamlx.Reader{Report: p.problem}
}

// problem records a problem the YAML reader found.
func (p *parser) problem(pr yamlx.Problem) {
	p.errorf(p.at(pr.Pos.Line, pr.Pos.Col), pr.Code, "%s", pr.Message)
}

// checkAliases finds aliases that refer to their own anchor (which would
// make the document infinite) and bounds the size of the document with its
// aliases expanded (see yamlx.Reader.CheckAliases). Aliases that fail
// either check resolve to null.
func (p *parser) checkAliases(root *yaml.Node) {
	p.reader().CheckAliases(root)
}

// resolve follows an alias to the node it refers to. An alias that cannot
// be used resolves to null at the alias's position.
func (p *parser) resolve(n *yaml.Node) *yaml.Node {
	return yamlx.Resolve(n)
}

// pair is one key and value of a mapping. The value is resolved.
type pair struct {
	key  *yaml.Node // a string scalar
	name string
	val  *yaml.Node
}

// pairs returns the entries of the mapping m in file order, as the shared
// reader reads them (see yamlx.Reader.Pairs): keys must be strings and
// appear once; merge keys (<<) are expanded, with the mapping's own keys
// taking precedence and merged keys following them.
func (p *parser) pairs(m *yaml.Node) []pair {
	ps := p.reader().Pairs(m)
	out := make([]pair, len(ps))
	for i, e := range ps {
		out[i] = pair{key: e.Key, name: e.Name, val: e.Value}
	}
	return out
}
