package dsl

import (
	"crypto/sha256"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/flowserve/flowserve/check/codes"
)

// mustParse parses src as flow.yaml and fails the test on any diagnostic.
func mustParse(t *testing.T, src string) *File {
	t.Helper()
	f, ds := Parse("flow.yaml", []byte(src))
	if len(ds) > 0 {
		t.Fatalf("unexpected diagnostics:\n%v", ds.Err())
	}
	if f == nil {
		t.Fatal("nil file")
	}
	return f
}

// at is a position in flow.yaml.
func at(line, col int) Pos { return Pos{File: "flow.yaml", Line: line, Col: col} }

// exprsOf returns every expression of f in file order of the nodes.
func exprsOf(f *File) []*Expr {
	var out []*Expr
	tmpl := func(t *Template) {
		if t == nil {
			return
		}
		for _, p := range t.Parts {
			if p.Expr != nil {
				out = append(out, p.Expr)
			}
		}
	}
	var value func(v *Value)
	value = func(v *Value) {
		if v == nil {
			return
		}
		tmpl(v.Template)
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
			tmpl(n.Ask.Message)
			tmpl(n.Ask.URL)
			for _, r := range n.Ask.Validate {
				if r.Rule != nil {
					out = append(out, r.Rule)
				}
				tmpl(r.Message)
			}
		case n.Step != nil:
			value(n.Step.With)
		case n.Branch != nil:
			for _, c := range n.Branch.Cases {
				if c.If != nil {
					out = append(out, c.If)
				}
			}
		case n.Set != nil:
			for _, b := range n.Set.Bindings {
				value(b.Value)
			}
		case n.Return != nil:
			tmpl(n.Return.Text)
			value(n.Return.Structured)
			for _, c := range n.Return.Content {
				value(c)
			}
		case n.Fail != nil:
			tmpl(n.Fail)
		}
	}
	return out
}

func TestParseTop(t *testing.T) {
	src := `title: Greet
description: Says hello.
input:
  type: object
  properties:
    n: {type: integer, minimum: 1, maximum: 2.5, default: null}
    tags: {type: array, items: {enum: [a, "1", 1, true]}}
  required: [n]
nodes:
  - fail: x
`
	f, ds := Parse("flows/greet.yaml", []byte(src))
	if len(ds) > 0 {
		t.Fatal(ds.Err())
	}
	if f.Path != "flows/greet.yaml" || string(f.Source) != src || f.Hash != sha256.Sum256([]byte(src)) {
		t.Errorf("path, source or hash not kept")
	}
	want := String{Value: "greet", Pos: Pos{File: "flows/greet.yaml", Line: 1, Col: 1}}
	if f.Name != want {
		t.Errorf("default name = %+v, want %+v", f.Name, want)
	}
	if f.Title.Value != "Greet" || f.Title.Pos != (Pos{"flows/greet.yaml", 1, 8}) {
		t.Errorf("title = %+v", f.Title)
	}
	if f.Description.Value != "Says hello." {
		t.Errorf("description = %+v", f.Description)
	}
	if f.Expressions.Value != "cel" {
		t.Errorf("expressions = %+v, want cel", f.Expressions)
	}
	if f.Output != nil {
		t.Errorf("output = %+v, want nil", f.Output)
	}
	wantInput := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"n":    map[string]any{"type": "integer", "minimum": int64(1), "maximum": 2.5, "default": nil},
			"tags": map[string]any{"type": "array", "items": map[string]any{"enum": []any{"a", "1", int64(1), true}}},
		},
		"required": []any{"n"},
	}
	if f.Input == nil || !reflect.DeepEqual(f.Input.Value, wantInput) {
		t.Errorf("input = %#v", f.Input)
	}
	if f.Input.Pos != (Pos{"flows/greet.yaml", 4, 3}) {
		t.Errorf("input pos = %v", f.Input.Pos)
	}

	f = mustParse(t, "name: other\nexpressions: cel\noutput: {type: object}\nnodes: [{fail: x}]\n")
	if f.Name.Value != "other" || f.Name.Pos != at(1, 7) {
		t.Errorf("name = %+v", f.Name)
	}
	if f.Expressions.Pos != at(2, 14) {
		t.Errorf("expressions pos = %v", f.Expressions.Pos)
	}
	if f.Output == nil || f.Output.Value["type"] != "object" {
		t.Errorf("output = %+v", f.Output)
	}
}

func TestDefaultName(t *testing.T) {
	for path, want := range map[string]string{
		"flows/delete_file.yaml": "delete_file",
		"a.yml":                  "a",
		"/x/y/z.json":            "z.json",
		"noext":                  "noext",
		".yaml":                  ".yaml",
		"":                       "",
	} {
		if got := DefaultName(path); got != want {
			t.Errorf("DefaultName(%q) = %q, want %q", path, got, want)
		}
	}
}

func TestParseAsk(t *testing.T) {
	f := mustParse(t, `nodes:
  - id: confirm
    ask: "Delete {{ input.path }}?"
    form:
      proceed: {type: boolean, default: false}
      reason: {type: string, maxLength: 80}
    required: [proceed]
    validate:
      - rule: confirm.content.reason != ""
        message: "Say why, {{ client.name }}"
    retries: 0
    unavailable: no_client
    next: no_client
  - id: login
    ask: Sign in
    url: "https://example.com/{{ run.id }}"
  - id: no_client
    fail: cannot ask
`)
	n := f.Nodes[0]
	if n.Kind != KindAsk || n.ID != "confirm" || n.IDPos != at(2, 9) || n.Pos != at(2, 5) || n.Index != 0 {
		t.Fatalf("node = %+v", n)
	}
	a := n.Ask
	if a.Message.Src != "Delete {{ input.path }}?" || a.Message.Pos != at(3, 10) {
		t.Errorf("message = %+v", a.Message)
	}
	if a.URL != nil || a.Form == nil {
		t.Fatalf("form mode expected: %+v", a)
	}
	var names []string
	for _, p := range a.Form.Properties {
		names = append(names, p.Name)
	}
	if strings.Join(names, ",") != "proceed,reason" || a.Form.Properties[1].Pos != at(6, 7) {
		t.Errorf("properties = %v", names)
	}
	wantSchema := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"proceed": map[string]any{"type": "boolean", "default": false},
			"reason":  map[string]any{"type": "string", "maxLength": int64(80)},
		},
		"required": []any{"proceed"},
	}
	if !reflect.DeepEqual(a.Form.Schema, wantSchema) {
		t.Errorf("schema = %#v", a.Form.Schema)
	}
	if len(a.Form.Required) != 1 || a.Form.Required[0] != (String{"proceed", at(7, 16)}) {
		t.Errorf("required = %+v", a.Form.Required)
	}
	if len(a.Validate) != 1 {
		t.Fatalf("validate = %+v", a.Validate)
	}
	r := a.Validate[0]
	if r.Pos != at(9, 9) || r.Rule.Src != `confirm.content.reason != ""` || r.Rule.Pos != at(9, 15) {
		t.Errorf("rule = %+v %+v", r, r.Rule)
	}
	if e := r.Message.Parts[1].Expr; e == nil || e.Src != "client.name" || e.Pos != at(10, 31) {
		t.Errorf("rule message = %+v", r.Message.Parts)
	}
	if a.Retries != 0 {
		t.Errorf("retries = %d, want 0", a.Retries)
	}
	if a.Unavailable == nil || a.Unavailable.Target != 2 || a.Unavailable.Pos != at(12, 18) {
		t.Errorf("unavailable = %+v", a.Unavailable)
	}
	if n.Next == nil || n.Next.ID != "no_client" || n.Next.Target != 2 {
		t.Errorf("next = %+v", n.Next)
	}

	u := f.Nodes[1].Ask
	if u.Form != nil || u.URL == nil || u.Retries != DefaultRetries || u.Unavailable != nil {
		t.Fatalf("url ask = %+v", u)
	}
	if e := u.URL.Parts[1].Expr; e.Src != "run.id" || e.Pos != at(16, 34) {
		t.Errorf("url expr = %+v", e)
	}
	if f.ByID["login"] != f.Nodes[1] || len(f.ByID) != 3 {
		t.Errorf("ByID = %v", f.ByID)
	}

	// A form without required omits "required" from the schema.
	f = mustParse(t, "nodes:\n  - id: a\n    ask: Hi\n    form: {x: {type: string}}\n")
	if _, ok := f.Nodes[0].Ask.Form.Schema["required"]; ok {
		t.Errorf("schema has required: %v", f.Nodes[0].Ask.Form.Schema)
	}
}

func TestParseStep(t *testing.T) {
	f := mustParse(t, `nodes:
  - id: s
    step: fs.stat
    with:
      path: "{{ input.path }}"
      count: 3
      ratio: 0.5
      big: 1e3
      flag: true
      none: null
      quoted: "3"
      tagged: !!str 4
      list: [a, 1]
      nested: {k: "{{ x }}"}
    timeout: 1m30s
    retry: {attempts: 3, backoff: 250ms}
    on_error: oops
  - id: plain
    step: fs.remove
  - id: oops
    fail: "failed: {{ error }}"
`)
	s := f.Nodes[0].Step
	if s.Action != (String{"fs.stat", at(3, 11)}) {
		t.Errorf("action = %+v", s.Action)
	}
	if s.Timeout != 90*time.Second {
		t.Errorf("timeout = %v", s.Timeout)
	}
	if s.Retry == nil || s.Retry.Attempts != 3 || s.Retry.Backoff != 250*time.Millisecond || s.Retry.Pos != at(16, 12) {
		t.Errorf("retry = %+v", s.Retry)
	}
	if s.OnError == nil || s.OnError.Target != 2 {
		t.Errorf("on_error = %+v", s.OnError)
	}
	w := s.With
	if w.Kind != ValueMap || strings.Join(w.Keys, ",") != "path,count,ratio,big,flag,none,quoted,tagged,list,nested" {
		t.Fatalf("with = %+v", w)
	}
	wantLit := map[string]any{"count": int64(3), "ratio": 0.5, "big": 1000.0, "flag": true, "none": nil}
	for i, k := range w.Keys {
		v := w.Map[i]
		if want, ok := wantLit[k]; ok {
			if v.Kind != ValueLiteral || v.Literal != want {
				t.Errorf("%s = %v (%T), kind %v, want %v", k, v.Literal, v.Literal, v.Kind, want)
			}
		}
	}
	if v := w.Map[0]; v.Kind != ValueTemplate || v.Template.Whole() == nil || v.Template.Whole().Src != "input.path" || v.Pos != at(5, 13) {
		t.Errorf("path = %+v", v)
	}
	for _, i := range []int{6, 7} {
		if v := w.Map[i]; v.Kind != ValueTemplate || v.Template.Src != string(rune('3'+i-6)) || v.Template.Whole() != nil {
			t.Errorf("%s = %+v", w.Keys[i], v)
		}
	}
	if l := w.Map[8]; l.Kind != ValueList || len(l.List) != 2 || l.List[0].Kind != ValueTemplate || l.List[1].Literal != int64(1) {
		t.Errorf("list = %+v", l)
	}
	if m := w.Map[9]; m.Kind != ValueMap || m.Keys[0] != "k" || m.Map[0].Template.Whole().Src != "x" {
		t.Errorf("nested = %+v", m)
	}

	p := f.Nodes[1].Step
	if p.Timeout != DefaultStepTimeout || p.Retry != nil || p.With != nil || p.OnError != nil {
		t.Errorf("defaults = %+v", p)
	}
}

func TestParseBranch(t *testing.T) {
	f := mustParse(t, `nodes:
  - id: b
    branch:
      - if: input.n > 1
        then: big
      - if: |
          input.n == 1
        then: one
      - else: small
  - id: big
    return: big
  - id: one
    return: one
  - id: small
    return: small
`)
	b := f.Nodes[0].Branch
	if len(b.Cases) != 2 || b.Else == nil || b.Else.Target != 3 || b.Else.Pos != at(9, 15) {
		t.Fatalf("branch = %+v", b)
	}
	c := b.Cases[0]
	if c.Pos != at(4, 9) || c.If.Src != "input.n > 1" || c.If.Pos != at(4, 13) || c.Then.Target != 1 || c.Then.Pos != at(5, 15) {
		t.Errorf("case 0 = %+v %+v %+v", c, c.If, c.Then)
	}
	if c := b.Cases[1]; c.If.Src != "input.n == 1" || c.If.Pos != at(7, 11) || c.Then.Target != 2 {
		t.Errorf("case 1 = %+v %+v", c.If, c.Then)
	}
	if f.Nodes[0].Next != nil {
		t.Errorf("branch has next")
	}
}

func TestParseSet(t *testing.T) {
	f := mustParse(t, `nodes:
  - set:
      count: "{{ count + 1 }}"
      label: "n={{ count }}"
      items: [1, 2]
    next: again
  - id: again
    fail: x
`)
	s := f.Nodes[0].Set
	if len(s.Bindings) != 3 {
		t.Fatalf("bindings = %+v", s.Bindings)
	}
	b := s.Bindings[0]
	if b.Name != "count" || b.Pos != at(3, 7) || b.Value.Template.Whole().Src != "count + 1" {
		t.Errorf("binding 0 = %+v", b)
	}
	if b := s.Bindings[1]; b.Name != "label" || b.Value.Template.Whole() != nil || len(b.Value.Template.Parts) != 2 {
		t.Errorf("binding 1 = %+v", b)
	}
	if b := s.Bindings[2]; b.Value.Kind != ValueList {
		t.Errorf("binding 2 = %+v", b)
	}
	if f.Nodes[0].Next.Target != 1 || f.Nodes[0].Name() != "#1" {
		t.Errorf("next = %+v, name %s", f.Nodes[0].Next, f.Nodes[0].Name())
	}
}

func TestParseReturn(t *testing.T) {
	f := mustParse(t, `nodes:
  - return: "Done {{ input.x }}"
  - return:
      text: hi
      structured: {count: "{{ n }}", ok: true}
      content:
        - {type: text, text: "{{ msg }}"}
        - type: image
          data: "{{ img }}"
          mimeType: image/png
  - return:
      structured: "{{ result }}"
`)
	r := f.Nodes[0].Return
	if r.Text == nil || r.Text.Pos != at(2, 13) || r.Structured != nil || r.Content != nil || r.Pos != at(2, 13) {
		t.Errorf("text return = %+v", r)
	}
	r = f.Nodes[1].Return
	if r.Text.Src != "hi" || r.Structured.Kind != ValueMap || len(r.Content) != 2 {
		t.Fatalf("mapping return = %+v", r)
	}
	if c := r.Content[1]; c.Kind != ValueMap || c.Keys[0] != "type" || c.Map[0].Template.Src != "image" || c.Pos != at(8, 11) {
		t.Errorf("content block = %+v", c)
	}
	if s := f.Nodes[2].Return.Structured; s.Kind != ValueTemplate || s.Template.Whole().Src != "result" {
		t.Errorf("structured template = %+v", s)
	}
}

func TestParseFail(t *testing.T) {
	f := mustParse(t, "nodes:\n  - id: oops\n    fail: \"{{ error }}\"\n")
	n := f.Nodes[0]
	if n.Kind != KindFail || n.Fail.Whole() == nil || n.Fail.Whole().Pos != at(3, 15) {
		t.Errorf("fail = %+v", n.Fail)
	}
}

func TestTemplateParts(t *testing.T) {
	for _, tc := range []struct {
		src   string // a double-quoted YAML scalar's content
		parts []string
		whole bool
	}{
		{"", nil, false},
		{"plain", []string{"plain"}, false},
		{"{{ a }}", []string{"{a}"}, true},
		{" {{ a }}", []string{" ", "{a}"}, false},
		{"{{a}}{{ b }}", []string{"{a}", "{b}"}, false},
		{"x {{ {'k': 1}['k'] }} y", []string{"x ", "{{'k': 1}['k']}", " y"}, false},
		{"{{ {'a': {'b': 1}} }}", []string{"{{'a': {'b': 1}}}"}, true},
		{`{{ '}}' + a }}`, []string{`{'}}' + a}`}, true},
		{"a }} b", []string{"a }} b"}, false},
		{"{{  spaced\t}}", []string{"{spaced}"}, true},
	} {
		f := mustParse(t, "nodes:\n  - fail: '"+strings.ReplaceAll(tc.src, "'", "''")+"'\n")
		tm := f.Nodes[0].Fail
		var got []string
		for _, p := range tm.Parts {
			if p.Expr != nil {
				got = append(got, "{"+p.Expr.Src+"}")
			} else {
				got = append(got, p.Text)
			}
		}
		if !reflect.DeepEqual(got, tc.parts) || (tm.Whole() != nil) != tc.whole {
			t.Errorf("%q: parts %q whole %v, want %q %v", tc.src, got, tm.Whole() != nil, tc.parts, tc.whole)
		}
	}
}

// TestExprPositions checks the position of expressions in every scalar
// style against positions worked out by hand.
func TestExprPositions(t *testing.T) {
	for _, tc := range []struct {
		name  string
		value string // the YAML after "  - fail: " on line 2
		want  []Pos  // positions of the expressions
	}{
		{"plain", "a {{ x }} b {{ y.z }}", []Pos{at(2, 16), at(2, 26)}},
		{"single", "'it''s {{ x }}'", []Pos{at(2, 21)}},
		{"double", `"{{ x }}"`, []Pos{at(2, 15)}},
		{"double escapes", `"\"q\" \u00e9 {{ x }}"`, []Pos{at(2, 28)}},
		{"anchored", `&a "{{ x }}"`, []Pos{at(2, 18)}},
		{"tagged", `!!str x {{ x }}`, []Pos{at(2, 22)}},
		{"literal", "|\n      line\n        {{ x }}\n      {{ y }}", []Pos{at(4, 12), at(5, 10)}},
		{"literal strip", "|-\n      {{ x }}", []Pos{at(3, 10)}},
		{"literal explicit indent", "|2\n       {{ x }}", []Pos{at(3, 11)}},
		{"folded", ">\n      one\n      {{ x }}\n\n      {{ y }}", []Pos{at(4, 10), at(6, 10)}},
		{"folded more indented", ">\n      a\n        {{ x }}\n      b", []Pos{at(4, 12)}},
		{"plain multi-line", "one {{ x\n      + 1 }}\n      {{ y }}", []Pos{at(2, 18), at(4, 10)}},
		{"double multi-line", "\"one\n\n      {{ x }}\"", []Pos{at(4, 10)}},
		{"double escaped break", "\"one \\\n      {{ x }}\"", []Pos{at(3, 10)}},
		{"single multi-line", "'a\n      b {{ x }}'", []Pos{at(3, 12)}},
		{"crlf", "|\n      {{ x }}", []Pos{at(3, 10)}},
		{"unicode", `"é ü {{ x }}"`, []Pos{at(2, 19)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := "nodes:\n  - fail: " + tc.value + "\n"
			if tc.name == "crlf" {
				src = strings.ReplaceAll(src, "\n", "\r\n")
			}
			f := mustParse(t, src)
			es := exprsOf(f)
			if len(es) != len(tc.want) {
				t.Fatalf("%d expressions, want %d", len(es), len(tc.want))
			}
			for i, e := range es {
				if e.Pos != tc.want[i] || e.PosAt(0) != tc.want[i] {
					t.Errorf("expression %q at %v, want %v", e.Src, e.Pos, tc.want[i])
				}
			}
			checkRunePositions(t, src, f)
		})
	}
}

// checkRunePositions checks that every non-space rune of every expression
// of f maps (through PosAt) to the same rune in src, or to the backslash
// or quote of an escape.
func checkRunePositions(t *testing.T, src string, f *File) {
	t.Helper()
	lines := newSource([]byte(src)).lines
	for _, e := range exprsOf(f) {
		for i, r := range []rune(e.Src) {
			if r == ' ' || r == '\n' {
				continue // folded line breaks map to the end of the line
			}
			p := e.PosAt(i)
			var got rune
			if p.Line >= 1 && p.Line <= len(lines) && p.Col >= 1 && p.Col <= len(lines[p.Line-1]) {
				got = lines[p.Line-1][p.Col-1]
			}
			if got != r && got != '\\' && !(r == '\'' && got == '\'') {
				t.Errorf("%q: rune %d %q maps to %v, which holds %q", e.Src, i, r, p, got)
			}
		}
	}
}

// TestPosAt checks offsets inside multi-line expressions, as a language
// would report them.
func TestPosAt(t *testing.T) {
	src := `nodes:
  - branch:
      - if: >-
          a &&
          b ||
            c
        then: x
      - if: "p &&
          \tq"
        then: x
  - id: x
    fail: |
      {{ one +
         two }}
`
	f := mustParse(t, src)
	es := exprsOf(f)
	if len(es) != 3 {
		t.Fatalf("expressions: %d", len(es))
	}
	for _, tc := range []struct {
		e      *Expr
		src    string
		offset int
		want   Pos
	}{
		{es[0], "a && b ||\n  c", 0, at(4, 11)},
		{es[0], "a && b ||\n  c", 5, at(5, 11)},
		{es[0], "a && b ||\n  c", 12, at(6, 13)},
		{es[1], "p && \tq", 5, at(9, 11)},
		{es[1], "p && \tq", 6, at(9, 13)},
		{es[2], "one +\n   two", 9, at(14, 10)},
		{es[2], "one +\n   two", 12, at(14, 13)},
	} {
		if tc.e.Src != tc.src {
			t.Errorf("src = %q, want %q", tc.e.Src, tc.src)
			continue
		}
		if got := tc.e.PosAt(tc.offset); got != tc.want {
			t.Errorf("%q PosAt(%d) = %v, want %v", tc.src, tc.offset, got, tc.want)
		}
	}
	checkRunePositions(t, src, f)
}

// TestExprWithoutSegs checks PosAt on expressions built by hand.
func TestExprWithoutSegs(t *testing.T) {
	e := &Expr{Src: "a +\nb", Pos: at(3, 5), lines: []Pos{at(4, 7)}}
	if got := e.PosAt(2); got != at(3, 7) {
		t.Errorf("PosAt(2) = %v", got)
	}
	if got := e.PosAt(4); got != at(4, 7) {
		t.Errorf("PosAt(4) = %v", got)
	}
}

func TestSyntaxErrorPosition(t *testing.T) {
	_, ds := Parse("flow.yaml", []byte("nodes:\n  - fail: |\n      {{ a &&\n         && b }}\n"))
	if len(ds) == 0 || ds[0].Code != codes.BadExpression || ds[0].Pos != at(4, 10) {
		t.Fatalf("diagnostics = %v", ds)
	}
}

func TestSuggest(t *testing.T) {
	opts := []string{"name", "title", "description", "nodes", "if", "then", "else"}
	for name, want := range map[string]string{
		"nmae":        "name",
		"Name":        "name",
		"descripton":  "description",
		"nodse":       "nodes",
		"iff":         "if",
		"x":           "",
		"colour":      "",
		"name":        "",
		"thn":         "then",
		"elsewhere":   "",
		"desctiption": "description",
	} {
		if got := Suggest(name, opts); got != want {
			t.Errorf("Suggest(%q) = %q, want %q", name, got, want)
		}
	}
	if got := Suggest("a", nil); got != "" {
		t.Errorf("Suggest with no options = %q", got)
	}
}

func TestParseNeverNilOnStructuralErrors(t *testing.T) {
	for _, src := range []string{"", "# c\n", "---\n", "[1]\n", "nodes: 3\n", "nodes:\n  - 1\n  - {}\n"} {
		f, ds := Parse("x.yaml", []byte(src))
		if f == nil {
			t.Errorf("%q: nil file", src)
		}
		if !ds.HasErrors() {
			t.Errorf("%q: no errors", src)
		}
	}
	f, ds := Parse("x.yaml", []byte("a: [\n"))
	if f != nil || len(ds) != 1 || ds[0].Code != codes.BadYAML || ds[0].Pos.Line != 1 {
		t.Errorf("bad yaml: %v %v", f, ds)
	}
}

func TestYAMLErrorLines(t *testing.T) {
	for _, tc := range []struct {
		src  string
		line int
	}{
		{"a: 1\nb: 2\nc 2\nd: 3\n", 3},
		{"nodes:\n  - fail: x\n  -b: 1\n  c", 3},
		{"a: \"unclosed\n", 1},
		{"a: 1\n\tb: 2\n", 2},
		{"a: 1\nb: \xff\n", 2},
		{"a: 1\nb: [1, 2\nc: 3\n", 2},
	} {
		_, ds := Parse("flow.yaml", []byte(tc.src))
		if len(ds) != 1 || ds[0].Code != codes.BadYAML || ds[0].Pos.Line != tc.line {
			t.Errorf("%q: %v, want bad-yaml on line %d", tc.src, ds, tc.line)
		}
	}
}

func TestParseAliases(t *testing.T) {
	f := mustParse(t, `nodes:
  - id: a
    step: fs.stat
    with: &args
      path: "{{ input.path }}"
    retry: &retry {attempts: 3, backoff: 1s}
  - id: b
    step: fs.remove
    with: *args
    retry:
      <<: *retry
      attempts: 5
  - fail: done
`)
	a, b := f.Nodes[0].Step, f.Nodes[1].Step
	if b.Retry.Attempts != 5 || b.Retry.Backoff != time.Second || a.Retry.Attempts != 3 {
		t.Errorf("merged retry = %+v, anchored %+v", b.Retry, a.Retry)
	}
	if b.With.Keys[0] != "path" || b.With.Map[0].Template.Whole().Pos != at(5, 17) {
		t.Errorf("aliased with = %+v", b.With)
	}
}
