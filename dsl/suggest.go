package dsl

import (
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/flowserve/flowserve/check/codes"
	"github.com/flowserve/flowserve/lang"
)

// Suggest returns the option that name most likely misspells, or "" when
// no option is close enough; see lang.Suggest, which it is, so parse
// errors, lint and expression errors suggest alike.
func Suggest(name string, options []string) string { return lang.Suggest(name, options) }

// DidYouMean returns "; did you mean "x"?" for the option x closest to
// name, and x; "" and "" when none is close.
func DidYouMean(name string, options []string) (hint, suggestion string) {
	if s := Suggest(name, options); s != "" {
		return `; did you mean "` + s + `"?`, s
	}
	return "", ""
}

// Span is the end of the text a diagnostic is about and the fixes that
// resolve it; the zero Span leaves the end to Diagnostics.SetEnds.
type Span struct {
	End   Pos
	Fixes []Fix
}

// Misspelt returns the span of name as f spells it at pos (a key or a
// scalar, plain or quoted) with the fix replacing it with suggestion (in
// the same quotes), or the zero Span when the file does not hold name
// there. Without a suggestion the span has no fix.
func (f *File) Misspelt(pos Pos, name, suggestion string) Span {
	return newSource(f.Source).misspelt(pos, name, suggestion)
}

// misspelt is File.Misspelt over the source s.
func (s *source) misspelt(pos Pos, name, suggestion string) Span {
	end, quote, ok := s.spelt(pos, name)
	if !ok {
		return Span{}
	}
	sp := Span{End: end}
	if suggestion != "" {
		sp.Fixes = []Fix{{
			Title: fmt.Sprintf("replace %q with %q", name, suggestion),
			Pos:   pos, End: end,
			NewText: quoteAs(suggestion, quote),
		}}
	}
	return sp
}

// quoteAs returns s as a YAML scalar in the given quotes (0: plain, when
// s reads back as the same string plainly, else double quotes).
func quoteAs(s string, quote rune) string {
	switch {
	case quote == '\'':
		return "'" + strings.ReplaceAll(s, "'", "''") + "'"
	case quote == 0 && readsPlain(s):
		return s
	}
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\t", `\t`)
	return `"` + r.Replace(s) + `"`
}

// readsPlain reports whether s, written plain, reads back as the string
// s in a block or a flow context.
func readsPlain(s string) bool {
	if s == "" || strings.ContainsAny(s, ",[]{}#\n\t\"'") || strings.TrimSpace(s) != s {
		return false
	}
	var n yaml.Node
	if err := yaml.Unmarshal([]byte(s), &n); err != nil || len(n.Content) != 1 {
		return false
	}
	c := n.Content[0]
	return c.Kind == yaml.ScalarNode && c.Tag == tagStr && c.Style == 0 && c.Value == s
}

// ExprDiagnostic returns the bad-expression error of le, a problem the
// expression language found in e: at the offset it gives, spanning its
// Length, with the fix replacing that text with its Suggestion when the
// text sits in the file as it is in the expression (no escapes, on one
// line).
func ExprDiagnostic(e *Expr, le lang.Error) Diagnostic {
	d := Diagnostic{Pos: e.PosAt(le.Offset), Severity: Error, Code: codes.BadExpression, Message: le.Message}
	end, ok := e.End(le.Offset, le.Length)
	if !ok {
		return d // not one run of the file's text: Diagnostics.SetEnds decides
	}
	d.End = end
	if le.Suggestion != "" {
		old := string([]rune(e.Src)[le.Offset : le.Offset+le.Length])
		d.Fixes = []Fix{{
			Title: fmt.Sprintf("replace %q with %q", old, le.Suggestion),
			Pos:   d.Pos, End: d.End,
			NewText: le.Suggestion,
		}}
	}
	return d
}

// End returns the end in the file of the n runes at offset off of e's
// source, and whether they are there as they are in the source, one after
// the other on one line (no escapes, no line folding).
func (e *Expr) End(off, n int) (Pos, bool) {
	if n <= 0 || off < 0 || off+n > len([]rune(e.Src)) {
		return Pos{}, false
	}
	first, last := e.PosAt(off), e.PosAt(off+n-1)
	if last.Line != first.Line || last.Col-first.Col != n-1 {
		return Pos{}, false
	}
	return Pos{File: last.File, Line: last.Line, Col: last.Col + 1}, true
}

// exprSpan returns the span of text at offset off of e's source, or the
// zero Span when e does not hold it there, as one run of the file.
func exprSpan(e *Expr, off int, text string) Span {
	rs, n := []rune(e.Src), len([]rune(text))
	if off < 0 || off+n > len(rs) || string(rs[off:off+n]) != text {
		return Span{}
	}
	end, _ := e.End(off, n)
	return Span{End: end}
}
