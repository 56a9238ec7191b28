package check

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/flowserve/flowserve/check/codes"
	"github.com/flowserve/flowserve/dsl"
)

// partialLines returns what Partial reports for src, one diagnostic
// a line as "line:col code", and Parse's diagnostics of src alike.
func partialLines(t *testing.T, src string) (got, parsed []string) {
	t.Helper()
	f, pds := dsl.Parse("flow.yaml", []byte(src))
	if f == nil {
		t.Fatalf("no file: %v", pds)
	}
	for _, d := range Partial(f, pds, Env{}) {
		got = append(got, fmt.Sprintf("%d:%d %s", d.Pos.Line, d.Pos.Col, d.Code))
	}
	for _, d := range pds {
		parsed = append(parsed, fmt.Sprintf("%d:%d %s", d.Pos.Line, d.Pos.Col, d.Code))
	}
	return got, parsed
}

// TestPartial type-checks files Parse found errors in: the type
// errors of what Parse read are reported, and nothing that only repeats
// or follows from Parse's errors.
func TestPartial(t *testing.T) {
	const head = "description: Partial.\ninput: {type: object, properties: {n: {type: integer}, s: {type: string}}}\nnodes:\n"
	tests := []struct {
		name  string
		nodes string
		want  []string // Partial's, besides Parse's
	}{
		{"a misplaced key hides no type error",
			"  - id: u\n    step: uuid.new\n    unavailable: u\n  - return: \"{{ input.n + 's' }} {{ u.nope }}\"\n",
			[]string{"7:25 bad-expression", "7:39 bad-expression"}},
		{"a syntax error is Parse's alone",
			"  - bogus: 1\n    return: \"{{ input.n + }}\"\n",
			nil},
		{"a node of no kind is read as any type",
			"  - id: done\n    retrun: x\n  - return: \"{{ done.text }} {{ done.a.b }} {{ size(input.n) }}\"\n",
			[]string{"6:52 bad-expression"}},
		{"an ask whose form key is misspelt is read as any type",
			"  - id: q\n    ask: Sure?\n    from: {ok: {type: boolean}}\n  - return: \"{{ q.content.ok }} {{ q.content.whatever }}\"\n",
			nil},
		{"an ask with an error in its form is read as any type",
			"  - id: q\n    ask: Sure?\n    form:\n      ok: {type: boolean, minimum: .inf}\n  - return: \"{{ q.content.nope }}\"\n",
			nil},
		{"an ask with a misplaced key keeps its form's type",
			"  - id: q\n    ask: Sure?\n    form: {ok: {type: boolean}}\n    on_error: q\n  - return: \"{{ q.content.nope }}\"\n",
			[]string{"8:27 bad-expression"}},
		{"a reserved set name is not typed again",
			"  - set: {run: 1, x: \"{{ input.s - 1 }}\"}\n  - return: ok\n",
			[]string{"4:34 bad-expression"}},
		{"a set name that is also an id is not typed again",
			"  - id: a\n    step: uuid.new\n  - set: {a: 1}\n    nxt: b\n  - return: ok\n",
			nil},
		{"a schema Parse found an error in is not compiled again",
			"  - return: \"{{ input.n }}\"\n    bogus: 1\noutput: {type: object, properties: {a: {type: string, minimum: 1, minimum: 2}}}\n",
			nil},
		{"a call's with is typed by its callee's input all the same",
			"  - id: c\n    call: nobody\n    with: {a: \"{{ input.n.x }}\"}\n    bogus: 1\n  - return: ok\n",
			[]string{"6:26 bad-expression"}},
		{"an unknown language is reported once",
			"  - return: \"{{ input.n }}\"\nexpressions: python\n",
			nil},
		{"expr: a misplaced key hides no type error",
			"  - id: u\n    step: uuid.new\n    unavailable: u\n  - return: \"{{ len(input.n) }}\"\nexpressions: expr\n",
			[]string{"7:17 bad-expression"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, parsed := partialLines(t, head+tc.nodes)
			if len(parsed) == 0 {
				t.Fatal("the file parses: no partial file to test")
			}
			var typed []string
			for _, g := range got {
				if !strings.HasSuffix(g, " "+codes.BadExpression) && !strings.HasSuffix(g, " "+codes.TypeError) &&
					!strings.HasSuffix(g, " "+codes.BadSchema) && !strings.HasSuffix(g, " "+codes.UnknownLanguage) {
					continue // Check's
				}
				if slices.Contains(parsed, g) {
					t.Errorf("%s reported by Parse and again", g)
				}
				typed = append(typed, g)
			}
			if !slices.Equal(typed, tc.want) {
				t.Errorf("type findings %v, want %v\nParse's: %v", typed, tc.want, parsed)
			}
		})
	}
}

// TestPartialComplete gives Partial files Parse found no
// errors in: it reports what Types does.
func TestPartialComplete(t *testing.T) {
	for _, src := range []string{
		"description: Fine.\nnodes:\n  - return: \"{{ 1 + 1 }}\"\n",
		"description: Wrong.\nnodes:\n  - return: \"{{ 1 + 's' }}\"\n",
	} {
		f, pds := dsl.Parse("flow.yaml", []byte(src))
		_, want := Types(f, Env{})
		if got := Partial(f, pds, Env{}); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%q: Partial %v, Types %v", src, got, want)
		}
	}
}

// TestPartialGoldens runs Partial on every Parse golden, most
// of which have errors: it must not panic on a partial file, nor report a
// finding of Parse's code at Parse's position again.
func TestPartialGoldens(t *testing.T) {
	files, _ := filepath.Glob("../dsl/testdata/parse/*.txtar")
	lint, _ := filepath.Glob("../testdata/lint/*.txtar")
	if len(files) < 10 || len(lint) < 10 {
		t.Fatalf("found %d parse goldens, %d lint goldens", len(files), len(lint))
	}
	for _, file := range append(files, lint...) {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, af := range txtar.Parse(data).Files {
			if !strings.HasSuffix(af.Name, ".yaml") {
				continue
			}
			f, pds := dsl.Parse(af.Name, af.Data)
			if f == nil {
				continue
			}
			seen := map[string]bool{}
			for _, d := range pds {
				seen[fmt.Sprintf("%v %s", d.Pos, d.Code)] = true
			}
			for _, d := range Partial(f, pds, Env{}) {
				if seen[fmt.Sprintf("%v %s", d.Pos, d.Code)] {
					t.Errorf("%s: %s: %v reported by Parse and again", file, af.Name, d)
				}
			}
		}
	}
}

// FuzzPartial parses, checks and type-checks arbitrary flow files,
// complete or partial, as lint does: none may panic, and no finding of
// Parse's is reported again.
func FuzzPartial(f *testing.F) {
	for _, pattern := range []string{"../dsl/testdata/parse/*.txtar", "../testdata/lint/*.txtar"} {
		files, _ := filepath.Glob(pattern)
		for _, file := range files {
			a, err := txtar.ParseFile(file)
			if err != nil {
				f.Fatal(err)
			}
			for _, af := range a.Files {
				if strings.HasSuffix(af.Name, ".yaml") {
					f.Add(af.Data)
				}
			}
		}
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		file, pds := dsl.Parse("flow.yaml", src)
		if file == nil {
			return
		}
		File(file, nil)
		seen := map[string]bool{}
		for _, d := range pds {
			seen[fmt.Sprintf("%v %s", d.Pos, d.Code)] = true
		}
		for _, d := range Partial(file, pds, Env{}) {
			if seen[fmt.Sprintf("%v %s", d.Pos, d.Code)] {
				t.Errorf("%v reported by Parse and again", d)
			}
		}
	})
}
