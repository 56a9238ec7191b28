package lsp

import (
	"slices"
	"unicode"
	"unicode/utf8"

	"github.com/flowserve/flowserve/dsl"
)

// fileExprs returns every expression of f: templates' expressions,
// conditions, validate rules, with values (of steps, calls and links),
// set values, results, form defaults that are templates, an approval's
// to and webhook. Each comes once, in file order.
func fileExprs(f *dsl.File) []*dsl.Expr {
	var out []*dsl.Expr
	for n := range f.Walk() {
		out = nodeExprs(out, f, n)
	}
	return out
}

// nodeExprs appends the expressions of n to out.
func nodeExprs(out []*dsl.Expr, f *dsl.File, n *dsl.Node) []*dsl.Expr {
	if a := n.Ask; a != nil {
		out = templateExprs(out, a.Message, a.URL, a.To)
		if a.Notify != nil {
			out = templateExprs(out, a.Notify.Webhook)
		}
		for _, r := range a.Validate {
			out = exprs(out, r.Rule)
			out = templateExprs(out, r.Message)
		}
		if a.Form != nil {
			for _, p := range a.Form.Properties {
				out = templateExprs(out, f.DefaultTemplate(p))
			}
		}
		if s := a.Sample; s != nil {
			out = messageExprs(out, s.Messages)
			out = templateExprs(out, s.System)
		}
	}
	if s := n.Step; s != nil {
		out = valueExprs(out, s.With)
	}
	if c := n.Call; c != nil {
		out = valueExprs(out, c.With)
	}
	if b := n.Branch; b != nil {
		for _, c := range b.Cases {
			out = exprs(out, c.If)
		}
	}
	if s := n.Set; s != nil {
		for _, b := range s.Bindings {
			out = valueExprs(out, b.Value)
		}
	}
	if r := n.Return; r != nil {
		out = templateExprs(out, r.Text, r.Description)
		out = valueExprs(out, r.Structured)
		out = valueExprs(out, r.Content...)
		out = messageExprs(out, r.Messages)
	}
	return templateExprs(out, n.Fail)
}

func exprs(out []*dsl.Expr, es ...*dsl.Expr) []*dsl.Expr {
	for _, e := range es {
		if e != nil {
			out = append(out, e)
		}
	}
	return out
}

func templateExprs(out []*dsl.Expr, ts ...*dsl.Template) []*dsl.Expr {
	for _, t := range ts {
		if t == nil {
			continue
		}
		for _, p := range t.Parts {
			out = exprs(out, p.Expr)
		}
	}
	return out
}

func valueExprs(out []*dsl.Expr, vs ...*dsl.Value) []*dsl.Expr {
	for _, v := range vs {
		if v == nil {
			continue
		}
		out = templateExprs(out, v.Template)
		out = valueExprs(out, slices.Concat(v.Map, v.List)...)
	}
	return out
}

func messageExprs(out []*dsl.Expr, ms []*dsl.Message) []*dsl.Expr {
	for _, m := range ms {
		out = templateExprs(out, m.Text)
		out = valueExprs(out, m.Content)
	}
	return out
}

// ident is an identifier in an expression's source: runes [Start, End)
// of Src. Root reports that it starts a path (no dot before it), so it
// names a variable rather than a field.
type ident struct {
	Name       string
	Start, End int
	Root       bool
}

// idents returns the identifiers of an expression's source, outside
// string literals, in order. It reads both languages well enough for
// the editor: CEL and expr strings in ' " and ` quotes (escapes and
// triple quotes included), fields after . and ?. .
func idents(src string) []ident {
	rs := []rune(src)
	var out []ident
	afterDot := false
	for i := 0; i < len(rs); {
		r := rs[i]
		switch {
		case r == '"' || r == '\'' || r == '`':
			i = skipString(rs, i)
			afterDot = false
		case isIdentStart(r):
			j := i + 1
			for j < len(rs) && isIdentRune(rs[j]) {
				j++
			}
			// r"..." and b'...' are CEL strings with a prefix.
			if j < len(rs) && (rs[j] == '"' || rs[j] == '\'') && isStringPrefix(string(rs[i:j])) {
				i = skipString(rs, j)
				afterDot = false
				continue
			}
			out = append(out, ident{Name: string(rs[i:j]), Start: i, End: j, Root: !afterDot})
			afterDot = false
			i = j
		case r == '.':
			afterDot = true
			i++
		case r == '?' && i+1 < len(rs) && rs[i+1] == '.':
			i++
		case unicode.IsSpace(r):
			i++
		default:
			afterDot = false
			i++
		}
	}
	return out
}

// skipString returns the index after the string literal opened at i.
func skipString(rs []rune, i int) int {
	q := rs[i]
	if i+2 < len(rs) && rs[i+1] == q && rs[i+2] == q && q != '`' {
		for j := i + 3; j+2 < len(rs); j++ {
			if rs[j] == q && rs[j+1] == q && rs[j+2] == q {
				return j + 3
			}
		}
		return len(rs)
	}
	for j := i + 1; j < len(rs); j++ {
		switch {
		case rs[j] == '\\' && q != '`':
			j++
		case rs[j] == q:
			return j + 1
		}
	}
	return len(rs)
}

func isStringPrefix(s string) bool {
	switch s {
	case "r", "R", "b", "B", "rb", "br", "RB", "BR", "Rb", "bR", "rB", "Br":
		return true
	}
	return false
}

func isIdentStart(r rune) bool { return r == '_' || r == '$' || unicode.IsLetter(r) }
func isIdentRune(r rune) bool  { return isIdentStart(r) || unicode.IsDigit(r) }

// exprOffsets returns the byte offset in t of every rune of e's source,
// and one more for the offset just after its last rune.
func exprOffsets(e *dsl.Expr, t *text) []int {
	n := utf8.RuneCountInString(e.Src)
	out := make([]int, n+1)
	for i := 0; i < n; i++ {
		out[i] = t.offsetOfPos(e.PosAt(i))
	}
	if n == 0 {
		out[0] = t.offsetOfPos(e.Pos)
		return out
	}
	last, size := out[n-1], 1
	if last < len(t.src) {
		_, size = utf8.DecodeRune(t.src[last:])
	}
	out[n] = last + size
	return out
}
