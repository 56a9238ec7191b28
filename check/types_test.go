package check

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/flowserve/flowserve/actions"
	// The partial and value typing tests step through the standard actions.
	_ "github.com/flowserve/flowserve/actions/std"
	"github.com/flowserve/flowserve/dsl"
	_ "github.com/flowserve/flowserve/examples/custom-actions/tickets"
	"github.com/flowserve/flowserve/lang"
)

// typesRegistry returns a registry of the actions the engine's tests
// register (package flow), by the same names and schemas, for typing:
// their functions do nothing.
func typesRegistry(t testing.TB) *actions.Registry {
	t.Helper()
	reg := actions.NewRegistry()
	object := map[string]any{"type": "object"}
	str := map[string]any{"type": "string"}
	nop := func(context.Context, map[string]any) (any, error) { return map[string]any{}, nil }
	for _, s := range []actions.Spec{
		{Name: "test.echo", Summary: "returns its input", Input: object, Output: object},
		{Name: "test.count", Summary: "counts calls by key",
			Input:  map[string]any{"type": "object", "properties": map[string]any{"key": str}},
			Output: map[string]any{"type": "object", "properties": map[string]any{"n": map[string]any{"type": "integer"}}}},
		{Name: "test.fail", Summary: "fails", Input: object, Output: object},
		{Name: "test.flaky", Summary: "fails until its n-th call",
			Input:  map[string]any{"type": "object", "properties": map[string]any{"key": str, "succeed_on": map[string]any{"type": "integer"}}},
			Output: object},
		{Name: "test.slow", Summary: "waits for its deadline", Input: object, Output: object},
		{Name: "test.panic", Summary: "panics", Input: object, Output: object},
		{Name: "test.bad_output", Summary: "returns output that breaks its schema", Input: object,
			Output: map[string]any{"type": "object", "required": []any{"id"}, "properties": map[string]any{"id": str}}},
	} {
		s.Func = nop
		if err := reg.Register(s); err != nil {
			t.Fatal(err)
		}
	}
	return reg
}

// typeDiags parses and types src and returns the diagnostics as
// strings, failing the test on parse errors.
func typeDiags(t *testing.T, src string) []string {
	t.Helper()
	f, diags := dsl.Parse("f.yaml", []byte(src))
	if err := diags.Err(); err != nil {
		t.Fatalf("parse:\n%v", err)
	}
	// Types checks the file first (File), so ds holds every finding.
	_, ds := Types(f, Env{Actions: typesRegistry(t)})
	var out []string
	for _, d := range ds {
		out = append(out, d.String())
	}
	return out
}

func TestTypeErrors(t *testing.T) {
	const head = "name: t\ndescription: T.\n"
	tests := []struct {
		name string
		src  string
		want []string
	}{
		{
			name: "unknown field in a condition",
			src: head + `nodes:
  - id: confirm
    ask: Sure?
    form: {proceed: {type: boolean}}
  - branch:
      - if: confirm.accepted && confirm.content.procede
        then: done
  - id: done
    return: ok
`,
			want: []string{`f.yaml:8:49: error: undefined field 'procede' (did you mean "proceed"?) [bad-expression]`},
		},
		{
			name: "unknown field in expr",
			src: head + `expressions: expr
nodes:
  - id: confirm
    ask: Sure?
    form: {proceed: {type: boolean}}
  - branch:
      - if: confirm.accepted && confirm.content.procede
        then: done
  - id: done
    return: ok
`,
			want: []string{`f.yaml:9:49: error: undefined field 'procede' (did you mean "proceed"?) [bad-expression]`},
		},
		{
			name: "mismatch in a block scalar",
			src: head + `input:
  type: object
  properties:
    count: {type: integer}
nodes:
  - branch:
      - if: >-
          input.count > 1 &&
          input.count > "3"
        then: done
  - id: done
    return: ok
`,
			want: []string{`f.yaml:11:23: error: cannot compare an integer (input.count) with a string ("3"): convert one side, like string(input.count) or int("3") [bad-expression]`},
		},
		{
			name: "non-bool condition and template",
			src: head + `input:
  type: object
  properties:
    name: {type: string}
nodes:
  - branch:
      - if: input.name
        then: done
  - id: done
    return: "Hi {{ input.nmae }}"
`,
			want: []string{
				`f.yaml:9:13: error: a condition must be a boolean, not a string: compare it, like input.name != "" [bad-expression]`,
				`f.yaml:12:26: error: undefined field 'nmae' (did you mean "name"?) [bad-expression]`,
			},
		},
		{
			name: "unknown variable",
			src: head + `nodes:
  - id: confirm
    ask: Sure?
    form: {ok: {type: boolean}}
  - return: "{{ confrim.accepted }}"
`,
			want: []string{`f.yaml:7:17: error: undefined name 'confrim' (did you mean "confirm"?) [bad-expression]`},
		},
		{
			name: "step outputs are typed by the action",
			src: head + `nodes:
  - id: c
    step: test.count
    with: {key: k}
  - return: "{{ c.n + 1 }} {{ c.m }} {{ c.nn }}"
`,
			want: []string{
				`f.yaml:7:33: error: undefined field 'm' [bad-expression]`,
				`f.yaml:7:43: error: undefined field 'nn' (did you mean "n"?) [bad-expression]`,
			},
		},
		{
			name: "validate rules see the answer typed",
			src: head + `nodes:
  - id: q
    ask: How many?
    form: {n: {type: integer}}
    validate:
      - rule: q.content.n > "1"
        message: too few
  - return: ok
`,
			want: []string{`f.yaml:8:27: error: cannot compare an integer (q.content.n) with a string ("1"): convert one side, like string(q.content.n) or int("1") [bad-expression]`},
		},
		{
			name: "set names keep the type of their first binding",
			src: head + `input:
  type: object
  properties:
    amount: {type: number}
nodes:
  - set:
      n: 0
      total: "{{ input.amount }}"
      label: "total {{ input.amount }}"
  - set:
      n: "{{ n + 1 }}"
      total: "{{ n }}"
      label: "{{ total > 3.0 }}"
  - return: "{{ n * 2 }} {{ label.size() }}"
`,
			want: []string{
				`f.yaml:14:18: error: total is an integer here, but its first binding (line 10) made it a number; a set name keeps the type of its first binding [type-error]`,
				`f.yaml:15:18: error: label is a boolean here, but its first binding (line 11) made it a string; a set name keeps the type of its first binding [type-error]`,
			},
		},
		{
			name: "int and double do not mix in CEL arithmetic",
			src: head + `input:
  type: object
  properties:
    amount: {type: number}
    count: {type: integer}
nodes:
  - return: "{{ input.amount * input.count }}"
`,
			want: []string{`f.yaml:9:30: error: cannot multiply a number (input.amount) by an integer (input.count): integers and numbers do not mix in arithmetic; convert one side, like int(input.amount) or double(input.count) [bad-expression]`},
		},
		{
			name: "url asks have dynamic content; unknown actions are dyn",
			src: head + `nodes:
  - id: s
    ask: Sign in
    url: https://example.com
  - id: x
    step: no.such
  - return: "{{ s.content.anything }} {{ x.whatever }} {{ s.nope }}"
`,
			want: []string{
				`f.yaml:8:11: error: unknown action "no.such" [unknown-action]`,
				`f.yaml:9:61: error: undefined field 'nope' [bad-expression]`,
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := typeDiags(t, tc.src)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

func TestScope(t *testing.T) {
	src := `name: t
description: T.
input:
  type: object
  properties:
    n: {type: integer}
nodes:
  - set:
      later: "{{ total }}"
      total: "{{ input.n * 2 }}"
      items: ["{{ input.n }}", 2]
      mixed: ["{{ input.n }}", "x"]
      cfg: {a: 1, b: "{{ 1.5 }}", c: null}
  - id: q
    ask: Hi
    form: {ok: {type: boolean}}
  - id: c
    step: test.count
    with: {key: k}
  - id: q
    ask: Again
    url: https://example.com
`
	f, diags := dsl.Parse("t.yaml", []byte(src))
	if diags.HasErrors() {
		// A duplicate id is the parser's error; Scope still works.
		t.Logf("%v", diags.Err())
	}
	reg := typesRegistry(t)
	vars := Scope(f, Env{Actions: reg})
	got := map[string]string{}
	var names []string
	for _, v := range vars {
		names = append(names, v.Name)
		got[v.Name] = lang.TypeName(v.Schema)
	}
	wantNames := []string{"input", "run", "client", "principal", "error", "later", "total", "items", "mixed", "cfg", "q", "c"}
	if !reflect.DeepEqual(names, wantNames) {
		t.Errorf("names %v, want %v", names, wantNames)
	}
	want := map[string]string{
		"input":     "an object with field n",
		"run":       "an object with fields id, round, started",
		"client":    "an object with fields form, name, protocol, roots, sampling, url, version",
		"principal": "an object with fields claims, scopes, sub",
		"error":     "a string",
		"later":     "any value", // total is not typed yet where later is bound
		"total":     "an integer",
		"items":     "a list of integers",
		"mixed":     "a list",
		"cfg":       "an object with fields a, b, c",
		"q":         "an object with fields accepted, action, content",
		"c":         "an object with field n",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v\nwant %v", got, want)
	}
	if Scope(f, Env{}) == nil {
		t.Error("Scope with the default registry returned nothing")
	}
}

// TestTypesCompilesEveryExpression checks that Types compiles every
// expression of the shipped flows, at every place one can be (the engine
// builds its programs on them): those File.Exprs lists, a call's with,
// an approval's to and notify webhook; and every form.
func TestTypesCompilesEveryExpression(t *testing.T) {
	var files []*dsl.File
	for _, pattern := range []string{"../flows/*.yaml", "../testdata/conformance/*.yaml", "../examples/*/flows/*.yaml"} {
		paths, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		for _, path := range paths {
			if strings.HasSuffix(path, "_test.yaml") {
				continue // flowserve test scripts
			}
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			f, diags := dsl.Parse(path, src)
			if diags.HasErrors() {
				t.Fatalf("%s: %v", path, diags.Err())
			}
			files = append(files, f)
		}
	}
	table := dsl.NewFlowTable(files)
	n := 0
	for _, f := range files {
		info, diags := Types(f, Env{Callees: table.Callees()})
		if info == nil {
			t.Errorf("%s: %v", f.Path, diags.Err())
			continue
		}
		var exprs []*dsl.Expr
		for _, u := range f.Exprs() {
			exprs = append(exprs, u.Expr)
		}
		for node := range f.Walk() {
			if node.Call != nil {
				exprs = append(exprs, node.Call.With.Exprs()...)
			}
			if a := node.Ask; a != nil && a.Form != nil && info.Forms[a.Form] == nil {
				t.Errorf("%s: the form at %s has no Form", f.Path, a.Form.Pos)
			}
			if a := node.Ask; a != nil && a.Approval() {
				exprs = append(exprs, a.To.Exprs()...)
				if a.Notify != nil {
					exprs = append(exprs, a.Notify.Webhook.Exprs()...)
				}
			}
		}
		for _, e := range exprs {
			n++
			if info.Programs[e] == nil {
				t.Errorf("%s: %s: %q has no program", f.Path, e.Pos, e.Src)
			}
		}
	}
	if n < 100 {
		t.Errorf("only %d expressions in %d flows", n, len(files))
	}
}
