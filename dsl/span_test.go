package dsl

import (
	"strings"
	"testing"

	"github.com/flowserve/flowserve/check/codes"
	"github.com/flowserve/flowserve/lang"
)

// spanText returns the text of src from a to b (exclusive), lines joined
// with "\n", or "<bad>" when the positions are not in order in src.
func spanText(src string, a, b Pos) string {
	text, ok := TextBetween([]byte(src), a, b)
	if !ok {
		return "<bad>"
	}
	return text
}

// TestRange checks the end Range works out when a diagnostic has none:
// the scalar at Pos (key or value, plain, quoted or a block, maybe over
// several lines), else the token there.
func TestRange(t *testing.T) {
	const src = `description: Says hello to the world # a comment
nodes:
  - id: "quoted value"
    ask: 'it''s ok'
    form: {name: {type: string}, "x]": [a, "b}"]}
    next: [thn, else]
  - return: >-
      folded over
      two lines
  - fail: "a quoted
      scalar over two lines"
  - set: {x: "{{ input.a > }}"}
  - return: |
      Block
      text
  - fail: tab	separated
  - return: Ünïcödé text
`
	lines := strings.Split(src, "\n")
	tests := []struct {
		line int
		at   string // the diagnostic is at its first occurrence on the line
		want string
	}{
		{1, "description", "description"},                              // a key
		{1, "Says", "Says hello to the world"},                         // a plain value with blanks, without its comment
		{3, `"quoted`, `"quoted value"`},                               // a quoted value, with its quotes
		{4, "'it", `'it''s ok'`},                                       // single quotes with a quote inside
		{5, "{name", `{name: {type: string}, "x]": [a, "b}"]}`},        // a flow mapping: brackets in quotes do not count
		{5, "{type", `{type: string}`},                                 // a nested one
		{5, "string", "string"},                                        // a plain scalar in a flow mapping
		{5, `"x]"`, `"x]"`},                                            // a quoted key
		{6, "thn", "thn"},                                              // in a flow sequence
		{7, ">-", ">-\n      folded over\n      two lines"},            // a folded block, to its last rune
		{10, `"a quoted`, "\"a quoted\n      scalar over two lines\""}, // a quoted scalar over two lines
		{12, "input.a", "input.a"},                                     // inside a scalar: the run of non-blanks
		{12, `}}"`, `}}"`},                                             // a closing quote opens nothing
		{12, " }}", ""},                                                // a blank: empty
		{13, "|", "|\n      Block\n      text"},                        // a literal block
		{16, "tab", "tab\tseparated"},                                  // a plain scalar with a tab
		{17, "Ünïcödé", "Ünïcödé text"},                                // columns count runes
	}
	for _, tc := range tests {
		i := strings.Index(lines[tc.line-1], tc.at)
		if i < 0 {
			t.Fatalf("line %d has no %q", tc.line, tc.at)
		}
		col := len([]rune(lines[tc.line-1][:i])) + 1
		d := Diagnostic{Pos: Pos{File: "f.yaml", Line: tc.line, Col: col}}
		start, end := d.Range([]byte(src))
		if start != d.Pos || end.File != "f.yaml" {
			t.Errorf("%d:%d: range %v-%v", tc.line, col, start, end)
		}
		if got := spanText(src, start, end); got != tc.want {
			t.Errorf("%d:%d: range %v-%v is %q, want %q", tc.line, col, start, end, got, tc.want)
		}
	}
	past := Diagnostic{Pos: Pos{Line: 99, Col: 1}}
	if _, end := past.Range([]byte(src)); end != past.Pos {
		t.Errorf("past the end: end %v, want the start", end)
	}
	set := Diagnostic{Pos: Pos{Line: 1, Col: 1}, End: Pos{Line: 1, Col: 3}}
	if _, end := set.Range([]byte(src)); end != set.End {
		t.Errorf("a set End: Range gives %v", end)
	}
}

// TestTokenEnd checks the token rule on text YAML cannot read as a whole.
func TestTokenEnd(t *testing.T) {
	tests := []struct{ line, want string }{
		{"a: b", "a"},
		{"a:b c", "a:b"},
		{"x,}])", "x"},
		{"key:", "key"},
		{`"esc\"aped" x`, `"esc\"aped"`},
		{`'it''s' x`, `'it''s'`},
		{`{a: "}", b: [c]} x`, `{a: "}", b: [c]}`},
		{"{a: b # }\n  , c: d} x", "{a: b # }\n  , c: d}"},
		{"[unclosed, \"x", "[unclosed"},
		{`"x`, `"x`},
		{":", ":"},
	}
	for _, tc := range tests {
		s := newSource([]byte(tc.line))
		p := Pos{Line: 1, Col: 1}
		if got := spanText(tc.line, p, s.tokenEnd(p)); got != tc.want {
			t.Errorf("%q: token %q, want %q", tc.line, got, tc.want)
		}
	}
}

// TestSetEnds checks that SetEnds fills the ends of the diagnostics of
// one file that have none, and leaves the others alone.
func TestSetEnds(t *testing.T) {
	src := []byte("name: some_tool\n")
	set := Pos{File: "a.yaml", Line: 1, Col: 3}
	ds := Diagnostics{
		{Pos: Pos{File: "a.yaml", Line: 1, Col: 7}},
		{Pos: Pos{File: "a.yaml", Line: 1, Col: 1}, End: set},
		{Pos: Pos{File: "b.yaml", Line: 1, Col: 1}},
		{},
	}
	ds.SetEnds("a.yaml", src)
	want := []Pos{{File: "a.yaml", Line: 1, Col: 16}, set, {}, {}}
	for i, d := range ds {
		if d.End != want[i] {
			t.Errorf("diagnostic %d: end %v, want %v", i, d.End, want[i])
		}
	}
}

// TestQuoteAs checks how a suggestion is written in place of a name.
func TestQuoteAs(t *testing.T) {
	tests := []struct {
		s     string
		quote rune
		want  string
	}{
		{"then", 0, "then"},
		{"date-time", 0, "date-time"},
		{"New York", 0, "New York"},
		{"true", 0, `"true"`}, // plain, it would be a boolean
		{"1", 0, `"1"`},
		{"null", 0, `"null"`},
		{"a: b", 0, `"a: b"`},
		{"a, b", 0, `"a, b"`}, // a comma ends a flow scalar
		{"#x", 0, `"#x"`},
		{"", 0, `""`},
		{`say "hi"`, '"', `"say \"hi\""`},
		{"it's", '\'', "'it''s'"},
	}
	for _, tc := range tests {
		if got := quoteAs(tc.s, tc.quote); got != tc.want {
			t.Errorf("quoteAs(%q, %q) = %s, want %s", tc.s, tc.quote, got, tc.want)
		}
	}
}

// TestSpelt checks that a fix replaces a name only where the file spells
// it whole.
func TestSpelt(t *testing.T) {
	tests := []struct {
		line, name string
		want       string // the text replaced, "" when no fix is safe
		quote      rune
	}{
		{"thn: x", "thn", "thn", 0},
		{"thn", "thn", "thn", 0},
		{"[thn, x]", "", "", 0},
		{`"thn": x`, "thn", `"thn"`, '"'},
		{`'thn': x`, "thn", `'thn'`, '\''},
		{"thnx: y", "thn", "", 0}, // only the start of the text
		{`"th\n"`, `th\n`, "", 0}, // escapes: not spelt as is
		{`"thn`, "thn", "", 0},    // no closing quote
		{"New Yrok}", "New Yrok", "New Yrok", 0},
	}
	for _, tc := range tests {
		s := newSource([]byte(tc.line))
		p := Pos{Line: 1, Col: 1}
		if tc.name == "" {
			continue
		}
		end, quote, ok := s.spelt(p, tc.name)
		got := ""
		if ok {
			got = spanText(tc.line, p, end)
		}
		if got != tc.want || quote != tc.quote {
			t.Errorf("%q spelling %q: replaces %q in %q, want %q in %q", tc.line, tc.name, got, quote, tc.want, tc.quote)
		}
	}
}

// TestExprDiagnostic checks the diagnostic of an expression error: its
// span and fix, and none when the text is not in the file as it is in the
// expression.
func TestExprDiagnostic(t *testing.T) {
	src := "description: d\nnodes:\n  - return: \"{{ confrm.x }} {{ \\x63onfrm.x }}\"\n"
	f, ds := Parse("f.yaml", []byte(src))
	if len(ds) > 0 {
		t.Fatal(ds)
	}
	parts := f.Nodes[0].Return.Text.Parts
	plain, escaped := parts[0].Expr, parts[2].Expr
	d := ExprDiagnostic(plain, lang.Error{Offset: 0, Length: 6, Message: "undefined name 'confrm'", Suggestion: "confirm"})
	if got := spanText(src, d.Pos, d.End); got != "confrm" || d.Code != codes.BadExpression {
		t.Errorf("plain: spans %q, code %s", got, d.Code)
	}
	if len(d.Fixes) != 1 || d.Fixes[0].NewText != "confirm" || d.Fixes[0].Pos != d.Pos || d.Fixes[0].End != d.End ||
		d.Fixes[0].Title != `replace "confrm" with "confirm"` {
		t.Errorf("plain: fixes %+v", d.Fixes)
	}
	d = ExprDiagnostic(escaped, lang.Error{Offset: 0, Length: 6, Message: "undefined name 'confrm'", Suggestion: "confirm"})
	if d.End.IsValid() || d.Fixes != nil {
		t.Errorf("escaped: end %v, fixes %+v; want neither", d.End, d.Fixes)
	}
	d = ExprDiagnostic(plain, lang.Error{Offset: 7, Message: "syntax error"})
	if d.End.IsValid() || d.Fixes != nil || d.Pos.Col != 24 {
		t.Errorf("no length: %+v", d)
	}
}
