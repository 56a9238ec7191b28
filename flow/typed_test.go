package flow

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/flowserve/flowserve/actions"
	_ "github.com/flowserve/flowserve/actions/std"
	"github.com/flowserve/flowserve/dsl"
	_ "github.com/flowserve/flowserve/examples/custom-actions/tickets"
	"github.com/flowserve/flowserve/lang"
)

// TestShippedFlowsCompile type-checks every expression of the example
// flows and the conformance fixtures.
func TestShippedFlowsCompile(t *testing.T) {
	var files []string
	for _, pattern := range []string{"../flows/*.yaml", "../testdata/conformance/*.yaml", "../examples/*/flows/*.yaml"} {
		m, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range m {
			if !strings.HasSuffix(f, "_test.yaml") { // flowserve test scripts
				files = append(files, f)
			}
		}
	}
	if len(files) < 10 {
		t.Fatalf("found only %d flows", len(files))
	}
	for _, file := range files {
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		f, diags := dsl.Parse(file, src)
		if err := diags.Err(); err != nil {
			t.Errorf("%v", err)
			continue
		}
		if p, diags := Compile(f, Env{}); p == nil || diags.HasErrors() {
			t.Errorf("%s: %v", file, diags.Err())
		}
	}
}

// TestLanguagesAgree runs the flows of testdata/lang, each written in CEL
// (cel.yaml) and in expr (expr.yaml), through the same script: both must
// give the transcript in want.
func TestLanguagesAgree(t *testing.T) {
	files, err := filepath.Glob("testdata/lang/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no flows in testdata/lang (%v)", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			sections := map[string]string{}
			for _, f := range ar.Files {
				sections[f.Name] = string(f.Data)
			}
			cel := runScript(t, map[string]string{"flow.yaml": sections["cel.yaml"], "script": sections["script"]})
			expr := runScript(t, map[string]string{"flow.yaml": sections["expr.yaml"], "script": sections["script"]})
			if cel != expr {
				t.Errorf("the languages disagree\n--- cel\n%s--- expr\n%s", cel, expr)
			}
			if *update {
				for i := range ar.Files {
					if ar.Files[i].Name == "want" {
						ar.Files[i].Data = []byte(cel)
					}
				}
				if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if want := sections["want"]; cel != want {
				t.Errorf("transcript differs (run with -update to accept)\n--- got\n%s--- want\n%s", cel, want)
			}
		})
	}
}

// compileDiags parses and compiles src and returns the compile
// diagnostics as strings, failing the test on parse errors.
func compileDiags(t *testing.T, src string) []string {
	t.Helper()
	f, diags := dsl.Parse("f.yaml", []byte(src))
	if err := diags.Err(); err != nil {
		t.Fatalf("parse:\n%v", err)
	}
	// Compile checks the file first (check.File), so ds holds every finding.
	_, ds := Compile(f, Env{Actions: testRegistry(t, &counters{})})
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
			got := compileDiags(t, tc.src)
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
	reg := testRegistry(t, &counters{})
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
	_ = actions.Default
}

// TestExprSyntaxPositions checks that dsl.Parse reports the syntax errors
// of an expr flow at their place in the file.
func TestExprSyntaxPositions(t *testing.T) {
	src := `name: t
description: T.
expressions: expr
nodes:
  - branch:
      - if: input.a ==
        then: done
  - id: done
    return: "x {{ input.b.? }} y"
`
	_, diags := dsl.Parse("f.yaml", []byte(src))
	var got []string
	for _, d := range diags {
		got = append(got, d.String())
	}
	want := []string{
		"f.yaml:6:23: error: unexpected token EOF [bad-expression]",
		"f.yaml:9:27: error: expected name [bad-expression]",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
