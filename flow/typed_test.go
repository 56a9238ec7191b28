package flow

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	_ "github.com/flowserve/flowserve/actions/std"
	"github.com/flowserve/flowserve/check"
	"github.com/flowserve/flowserve/check/codes"
	"github.com/flowserve/flowserve/dsl"
	_ "github.com/flowserve/flowserve/examples/custom-actions/tickets"
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

// compileDiags parses and compiles src and returns the compile
// diagnostics as strings, failing the test on parse errors.
func compileDiags(t *testing.T, src string) []string {
	t.Helper()
	f, diags := dsl.Parse("f.yaml", []byte(src))
	if err := diags.Err(); err != nil {
		t.Fatalf("parse:\n%v", err)
	}
	// Compile checks the file first (check.Types runs check.File), so ds
	// holds every finding.
	_, ds := Compile(f, Env{Actions: testRegistry(t, &counters{})})
	var out []string
	for _, d := range ds {
		out = append(out, d.String())
	}
	return out
}

// TestCompileNeedsEveryExpressionTyped checks that Compile builds a
// Program only on what check.Types worked out: an expression (or a form)
// it did not (a place of the file Types does not walk) makes a compile
// error there instead of a program that would fail when the node runs.
func TestCompileNeedsEveryExpressionTyped(t *testing.T) {
	f, diags := dsl.Parse("f.yaml", []byte("name: t\ndescription: T.\nnodes:\n  - return: \"n = {{ 1 + 1 }}\"\n"))
	if diags.HasErrors() {
		t.Fatal(diags.Err())
	}
	info, diags := check.Types(f, Env{})
	if info == nil || diags.HasErrors() {
		t.Fatalf("types: %v", diags.Err())
	}
	if p, untyped := build(f, info, Env{}); p == nil || untyped != nil {
		t.Fatalf("build = %v, untyped %v", p, untyped)
	}
	e := f.Nodes[0].Return.Text.Exprs()[0]
	delete(info.Programs, e)
	_, untyped := build(f, info, Env{})
	if untyped == nil || untyped.Pos != e.Pos || untyped.Code != codes.Compile || !strings.Contains(untyped.Message, `"1 + 1" was not type-checked`) {
		t.Errorf("untyped = %v, want a compile error at %v", untyped, e.Pos)
	}

	// A form Types did not work out is one too.
	f, diags = dsl.Parse("f.yaml", []byte("name: t\ndescription: T.\nnodes:\n  - id: q\n    ask: Sure?\n    form: {ok: {type: boolean}}\n  - return: done\n"))
	if diags.HasErrors() {
		t.Fatal(diags.Err())
	}
	if info, diags = check.Types(f, Env{}); info == nil {
		t.Fatalf("types: %v", diags.Err())
	}
	form := f.Nodes[0].Ask.Form
	delete(info.Forms, form)
	if _, untyped := build(f, info, Env{}); untyped == nil || untyped.Pos != form.Pos || untyped.Code != codes.Compile {
		t.Errorf("untyped = %v, want a compile error at the form %v", untyped, form.Pos)
	}
}
