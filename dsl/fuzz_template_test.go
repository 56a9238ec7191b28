package dsl

import (
	"strings"
	"testing"
	"unicode"

	"go.yaml.in/yaml/v3"

	"github.com/flowserve/flowserve/check/codes"
)

// templateStyles are the YAML scalar styles FuzzTemplate writes its
// template in: the encoder's choice, quoted, and block scalars.
var templateStyles = []yaml.Style{0, yaml.DoubleQuotedStyle, yaml.SingleQuotedStyle, yaml.LiteralStyle, yaml.FoldedStyle}

// templateFlow returns the source of a flow in which every template is s,
// written in the given scalar style: an ask message, a validate message,
// the values of a step's `with` (at the top and nested in a list), a set
// value, a return text and a fail message.
func templateFlow(s string, style yaml.Style) ([]byte, error) {
	str := func(v string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v} }
	tmpl := func() *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s, Style: style} }
	mapping := func(kv ...*yaml.Node) *yaml.Node { return &yaml.Node{Kind: yaml.MappingNode, Content: kv} }
	seq := func(items ...*yaml.Node) *yaml.Node { return &yaml.Node{Kind: yaml.SequenceNode, Content: items} }
	doc := mapping(
		str("name"), str("fuzz"),
		str("description"), str("Every template is the fuzzed string."),
		str("nodes"), seq(
			mapping(
				str("id"), str("q"),
				str("ask"), tmpl(),
				str("form"), mapping(str("x"), mapping(str("type"), str("string"))),
				str("validate"), seq(mapping(str("rule"), str("q.accepted"), str("message"), tmpl())),
			),
			mapping(
				str("id"), str("s"),
				str("step"), str("test.echo"),
				str("with"), mapping(str("v"), tmpl(), str("list"), seq(tmpl())),
			),
			mapping(str("set"), mapping(str("v"), tmpl())),
			mapping(str("return"), tmpl()),
			mapping(str("id"), str("f"), str("fail"), tmpl()),
		),
	)
	return yaml.Marshal(doc)
}

// templatesOf returns every template of a parsed flow.
func templatesOf(f *File) []*Template {
	var out []*Template
	add := func(t *Template) {
		if t != nil {
			out = append(out, t)
		}
	}
	var value func(v *Value)
	value = func(v *Value) {
		if v == nil {
			return
		}
		add(v.Template)
		for _, c := range v.Map {
			value(c)
		}
		for _, c := range v.List {
			value(c)
		}
	}
	if f == nil {
		return nil
	}
	for _, n := range f.Nodes {
		switch {
		case n.Ask != nil:
			add(n.Ask.Message)
			add(n.Ask.URL)
			for _, r := range n.Ask.Validate {
				add(r.Message)
			}
		case n.Step != nil:
			value(n.Step.With)
		case n.Set != nil:
			for _, b := range n.Set.Bindings {
				value(b.Value)
			}
		case n.Return != nil:
			add(n.Return.Text)
			value(n.Return.Structured)
			for _, c := range n.Return.Content {
				value(c)
			}
		}
		add(n.Fail)
	}
	return out
}

// checkSplit checks that a template's parts put back together give its
// source: literal text as is, each expression as "{{", optional space, the
// expression, optional space, "}}". It returns "" or what is wrong.
func checkSplit(t *Template) string {
	src := []rune(t.Src)
	if !strings.Contains(t.Src, "{{") {
		switch {
		case t.Src == "" && len(t.Parts) == 0:
			return ""
		case len(t.Parts) == 1 && t.Parts[0].Expr == nil && t.Parts[0].Text == t.Src:
			return ""
		}
		return "a template without {{ is not one literal part"
	}
	i := 0
	skipSpace := func() {
		for i < len(src) && unicode.IsSpace(src[i]) {
			i++
		}
	}
	has := func(s string) bool {
		r := []rune(s)
		if i+len(r) > len(src) || string(src[i:i+len(r)]) != s {
			return false
		}
		i += len(r)
		return true
	}
	for k, p := range t.Parts {
		if p.Expr == nil {
			if p.Text == "" {
				return "an empty literal part"
			}
			if k > 0 && t.Parts[k-1].Expr == nil {
				return "two literal parts in a row"
			}
			if !has(p.Text) {
				return "literal part " + p.Text + " is not in the source there"
			}
			continue
		}
		if !has("{{") {
			return "an expression part without {{"
		}
		skipSpace()
		if p.Expr.Src == "" || !has(p.Expr.Src) {
			return "expression " + p.Expr.Src + " is not in the source there"
		}
		if strings.TrimSpace(p.Expr.Src) != p.Expr.Src {
			return "expression " + p.Expr.Src + " keeps surrounding space"
		}
		skipSpace()
		if !has("}}") {
			return "an expression part without }}"
		}
	}
	if i != len(src) {
		return "the parts stop before the end of the source"
	}
	return ""
}

// probeOffsets returns the rune offsets of src FuzzTemplate checks
// positions at: both ends, around each line break, and 32 spread over the
// rest (PosAt is linear in the offset, so checking every one is quadratic).
func probeOffsets(src string) []int {
	rs := []rune(src)
	out := []int{0, len(rs)}
	for i, r := range rs {
		if r == '\n' && len(out) < 200 {
			out = append(out, i, i+1)
		}
	}
	for k := 1; k < 32 && len(rs) > 32; k++ {
		out = append(out, k*len(rs)/32)
	}
	return out
}

// FuzzTemplate parses flows whose every template is the fuzzed string,
// in each YAML scalar style. Parse must not panic; every diagnostic has a
// position in the file; and a template without template errors splits
// into parts that give back its source, each expression with positions
// inside the file.
func FuzzTemplate(f *testing.F) {
	for _, s := range []string{
		"", "plain text", "{{ x }}", "Hello {{ input.name }}!", "{{x}}{{y}}", "{{ a }} and {{ b }}",
		"{{", "}}", "{{ }}", "{{ x", "x }}", "{{ {'a': 1} }}", `{{ {"a": "}}"} }}`, "{{ '}}' }}",
		"{{ \"\\\"}}\" }}", "{{ `}}` }}", "{{ a\n  + b }}", "line one\nline two {{ x }}\n",
		"{{ 'é' + \"ü\" }} ✓", "{{{{ x }}}}", "{ {{ x }} }", "{{ x }} }}", "{{ x ? {'a': 1} : {} }}",
		"\t{{\tx\t}}\t", "{{ x }}\r\n{{ y }}", "{{ \"unterminated }}", "{{ 1 +}}", "{{ x.y[0].z() }}",
		"trailing space {{ x }}   ", "  leading", "#{{ x }}", "- {{ x }}", ": {{ x }}", "{{ x }}: y",
	} {
		for i := range templateStyles {
			f.Add(s, uint8(i))
		}
	}
	f.Fuzz(func(t *testing.T, s string, style uint8) {
		src, err := templateFlow(s, templateStyles[int(style)%len(templateStyles)])
		if err != nil {
			return // the YAML encoder cannot write s in this style
		}
		file, ds := Parse("flow.yaml", src)
		lines := strings.Split(string(src), "\n")
		inFile := func(p Pos) bool {
			return p.File == "flow.yaml" && p.Line >= 1 && p.Col >= 1 && p.Line <= len(lines)+1
		}
		badTemplate := false
		for _, d := range ds {
			if !inFile(d.Pos) || d.Code == "" || d.Message == "" {
				t.Errorf("diagnostic without position, code or message: %#v", d)
			}
			if d.Code == codes.BadTemplate {
				badTemplate = true
			}
		}
		if file == nil {
			if !ds.HasErrors() {
				t.Fatal("nil file without errors")
			}
			return
		}
		for _, tm := range templatesOf(file) {
			if !inFile(tm.Pos) {
				t.Errorf("template %q at %v", tm.Src, tm.Pos)
			}
			for _, p := range tm.Parts {
				if p.Expr == nil {
					continue
				}
				for _, i := range probeOffsets(p.Expr.Src) {
					if pos := p.Expr.PosAt(i); !inFile(pos) {
						t.Errorf("expression %q: PosAt(%d) = %v, outside the file", p.Expr.Src, i, pos)
					}
				}
			}
			if tm.Src != s || badTemplate {
				continue // the YAML round trip changed s, or the split stopped at an error
			}
			if msg := checkSplit(tm); msg != "" {
				t.Errorf("template %q split into %+v: %s", s, tm.Parts, msg)
			}
			if w := tm.Whole(); w != nil && strings.TrimSpace(s) != s {
				// A whole-value template is exactly "{{ expr }}".
				t.Errorf("template %q with surrounding space is a whole expression", s)
			}
		}
	})
}

// TestTemplateFlow checks FuzzTemplate's harness: in each style, every
// template of the flow is the given string, split as expected.
func TestTemplateFlow(t *testing.T) {
	cases := []struct {
		src   string
		parts []string // literal text as is, expressions as "{{expr}}"
	}{
		{"", nil},
		{"plain", []string{"plain"}},
		{"{{ x }}", []string{"{{x}}"}},
		{"Hi {{ input.name }}, {{a}}!", []string{"Hi ", "{{input.name}}", ", ", "{{a}}", "!"}},
		{`{{ {"a": "}}"} }}`, []string{`{{{"a": "}}"}}}`}},
		{"a\n{{ b }}\nc", []string{"a\n", "{{b}}", "\nc"}},
	}
	for _, tc := range cases {
		for _, style := range templateStyles {
			src, err := templateFlow(tc.src, style)
			if err != nil {
				t.Fatal(err)
			}
			file, ds := Parse("flow.yaml", src)
			if ds.HasErrors() {
				t.Fatalf("%q in style %v:\n%s\n%v", tc.src, style, src, ds)
			}
			tms := templatesOf(file)
			if len(tms) != 7 {
				t.Fatalf("%q in style %v: %d templates, want 7", tc.src, style, len(tms))
			}
			for _, tm := range tms {
				var got []string
				for _, p := range tm.Parts {
					if p.Expr != nil {
						got = append(got, "{{"+p.Expr.Src+"}}")
					} else {
						got = append(got, p.Text)
					}
				}
				if tm.Src != tc.src || strings.Join(got, "|") != strings.Join(tc.parts, "|") || checkSplit(tm) != "" {
					t.Errorf("%q in style %v at %v: source %q, parts %q (%s), want %q", tc.src, style, tm.Pos, tm.Src, got, checkSplit(tm), tc.parts)
				}
			}
		}
	}
}
