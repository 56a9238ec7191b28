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

// didYouMean returns "; did you mean "x"?" for the option x closest to
// name, and x; "" and "" when none is close.
func didYouMean(name string, options []string) (hint, suggestion string) {
	if s := Suggest(name, options); s != "" {
		return `; did you mean "` + s + `"?`, s
	}
	return "", ""
}

// span is the end of the text a diagnostic is about and the fixes that
// resolve it; the zero span leaves the end to Diagnostics.SetEnds.
type span struct {
	end   Pos
	fixes []Fix
}

// misspelt returns the span of name as the file spells it at pos (a key
// or a scalar, plain or quoted) with the fix replacing it with suggestion
// (in the same quotes), or the zero span when the file does not hold name
// there. Without a suggestion the span has no fix.
func (s *source) misspelt(pos Pos, name, suggestion string) span {
	end, quote, ok := s.spelt(pos, name)
	if !ok {
		return span{}
	}
	sp := span{end: end}
	if suggestion != "" {
		sp.fixes = []Fix{{
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
	end, ok := exprEnd(e, le.Offset, le.Length)
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

// errorSpan records an error about the text from pos to sp.end, with sp's
// fixes.
func (c *checker) errorSpan(pos Pos, sp span, code, format string, args ...any) {
	n := len(c.diags)
	c.errorf(pos, code, format, args...)
	if d := &c.diags[n]; d.Pos.Line == pos.Line && d.Pos.Col == pos.Col {
		d.End, d.Fixes = sp.end, sp.fixes
	}
}

// misspelt returns the span of name as the file spells it at pos, with
// the fix replacing it with suggestion (see source.misspelt).
func (c *checker) misspelt(pos Pos, name, suggestion string) span {
	return newSource(c.f.Source).misspelt(pos, name, suggestion)
}

// unknownf records an error about name, spelt at pos, that is not one of
// options, as parser.unknownf does.
func (c *checker) unknownf(pos Pos, name string, options []string, code, format string, args ...any) {
	hint, sug := didYouMean(name, options)
	c.errorSpan(pos, c.misspelt(pos, name, sug), code, format, append(args, hint)...)
}

// issue records the error of a value issue (code is its problem's), which
// spans the name it is about, if it is about one, with the fix replacing
// it with its suggestion.
func (c *checker) issue(is valueIssue, code string) {
	var sp span
	if is.name != "" {
		sp = c.misspelt(is.pos, is.name, is.suggestion)
	}
	c.errorSpan(is.pos, sp, code, "%s", is.msg)
}

// exprEnd returns the end in the file of the n runes at offset off of e's
// source, and whether they are there as they are in the source, one after
// the other on one line (no escapes, no line folding).
func exprEnd(e *Expr, off, n int) (Pos, bool) {
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
// zero span when e does not hold it there, as one run of the file.
func exprSpan(e *Expr, off int, text string) span {
	rs, n := []rune(e.Src), len([]rune(text))
	if off < 0 || off+n > len(rs) || string(rs[off:off+n]) != text {
		return span{}
	}
	end, _ := exprEnd(e, off, n)
	return span{end: end}
}
