package check

import "github.com/flowserve/flowserve/dsl"

// errorSpan records an error about the text from pos to sp.End, with sp's
// fixes.
func (c *checker) errorSpan(pos dsl.Pos, sp dsl.Span, code, format string, args ...any) {
	n := len(c.diags)
	c.errorf(pos, code, format, args...)
	if d := &c.diags[n]; d.Pos.Line == pos.Line && d.Pos.Col == pos.Col {
		d.End, d.Fixes = sp.End, sp.Fixes
	}
}

// misspelt returns the Span of name as the file spells it at pos, with
// the fix replacing it with suggestion (see source.misspelt).
func (c *checker) misspelt(pos dsl.Pos, name, suggestion string) dsl.Span {
	return c.f.Misspelt(pos, name, suggestion)
}

// unknownf records an error about name, spelt at pos, that is not one of
// options, as parser.unknownf does.
func (c *checker) unknownf(pos dsl.Pos, name string, options []string, code, format string, args ...any) {
	hint, sug := dsl.DidYouMean(name, options)
	c.errorSpan(pos, c.misspelt(pos, name, sug), code, format, append(args, hint)...)
}

// issue records the error of a value issue (code is its problem's), which
// spans the name it is about, if it is about one, with the fix replacing
// it with its suggestion.
func (c *checker) issue(is valueIssue, code string) {
	var sp dsl.Span
	if is.name != "" {
		sp = c.misspelt(is.pos, is.name, is.suggestion)
	}
	c.errorSpan(is.pos, sp, code, "%s", is.msg)
}
