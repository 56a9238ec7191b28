package cli

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"testing/fstest"

	"golang.org/x/tools/txtar"

	"github.com/flowserve/flowserve/actions"
	"github.com/flowserve/flowserve/check/codes"
	"github.com/flowserve/flowserve/dsl"
	"github.com/flowserve/flowserve/internal/golden"
	"github.com/flowserve/flowserve/project"
)

var update = flag.Bool("update", false, "rewrite the goldens: ../testdata/lint/*.txtar and testdata/diff/*.txtar")

// lintGoldenDir holds the lint golden files: each a txtar archive with a
// flow.yaml (and maybe more flow files, linted together) and a
// diagnostics section holding the exact expected output.
const lintGoldenDir = "../testdata/lint"

// extraCodes are the codes lint reports that check/codes/doc.go does not
// list as Parse's or Check's: flow.Compile's and lint's own.
var extraCodes = []string{codes.BadSchema, codes.DuplicateTool, codes.TypeError}

// TestLintGolden lints each golden archive and compares the output; with
// -update it rewrites the diagnostics sections. It also checks that every
// documented code is covered by some golden and every code seen is
// documented.
func TestLintGolden(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(lintGoldenDir, "*.txtar"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden files: %v", err)
	}
	seen := map[string]bool{}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".txtar")
		t.Run(name, func(t *testing.T) {
			a, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var srcs []lintSource
			for _, f := range a.Files {
				if f.Name != golden.Section && project.IsFlowFile(f.Name) {
					srcs = append(srcs, lintSource{path: f.Name, src: f.Data})
				}
			}
			if !slices.ContainsFunc(srcs, func(s lintSource) bool { return s.path == "flow.yaml" }) {
				t.Fatalf("%s has no flow.yaml", file)
			}
			sort.Slice(srcs, func(i, j int) bool { return srcs[i].path < srcs[j].path })
			ds, err := lintSources(srcs, actions.Default())
			if err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			for _, d := range ds {
				b.WriteString(d.String())
				b.WriteByte('\n')
				seen[d.Code] = true
				if d.Pos.Line < 1 || d.Pos.Col < 1 {
					t.Errorf("diagnostic without a position: %v", d)
				}
				if d.Message != strings.TrimSpace(d.Message) || strings.HasSuffix(d.Message, ".") {
					t.Errorf("message with a trailing period or space: %q", d.Message)
				}
			}
			golden.Check(t, file, a, b.String(), *update)
		})
	}
	if t.Failed() || *update {
		return
	}
	golden.Coverage(t, append(documentedCodes(t), extraCodes...), seen, "lint golden", "check/codes/doc.go")
}

// documentedCodes returns every code listed in check/codes/doc.go
// (Parse's and Check's).
func documentedCodes(t testing.TB) []string {
	doc, err := os.ReadFile("../check/codes/doc.go")
	if err != nil {
		t.Fatal(err)
	}
	return golden.DocumentedCodes(t, doc, 40)
}

// exampleSources returns the example flows and the conformance fixtures.
func exampleSources(t testing.TB) []lintSource {
	found, diags := project.Discover([]string{"../flows", "../testdata/conformance"})
	if err := diags.Err(); err != nil {
		t.Fatal(err)
	}
	files := found.Flows
	if len(files) < 10 {
		t.Fatalf("found only %d example flows", len(files))
	}
	var srcs []lintSource
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		srcs = append(srcs, lintSource{path: f, src: src})
	}
	return srcs
}

// TestExampleFlowsLintClean requires every example flow and conformance
// fixture to lint without errors or warnings. The one warning allowed is
// no-unavailable in a conformance fixture: those ask for sampling and
// roots without unavailable on purpose, as their scenarios (a client
// without the capability gets -32021) need.
func TestExampleFlowsLintClean(t *testing.T) {
	_, ds := project.Load([]string{"../flows", "../testdata/conformance"}, project.Options{})
	for _, d := range ds {
		if d.Code == codes.NoUnavailable && strings.Contains(filepath.ToSlash(d.Pos.File), "testdata/conformance/") {
			continue
		}
		t.Errorf("%v", d)
	}
}

// withoutNoUnavailable returns ds without the no-unavailable warnings,
// which the conformance fixtures among the example sources have.
func withoutNoUnavailable(ds dsl.Diagnostics) dsl.Diagnostics {
	var out dsl.Diagnostics
	for _, d := range ds {
		if d.Code != codes.NoUnavailable {
			out = append(out, d)
		}
	}
	return out
}

// writeFlows writes files (name → content) under a new temporary
// directory and returns it.
func writeFlows(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, src := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

const cleanFlow = `description: Says hello.
nodes:
  - return: hello
`

const warningFlow = `description: Says hello, maybe.
nodes:
  - set: {x: 1}
`

const errorFlow = `nodes:
  - id: s
    step: fs.stta
  - return: done
`

// TestLintCommand checks the command's output and exit status.
func TestLintCommand(t *testing.T) {
	dir := writeFlows(t, map[string]string{
		"clean.yaml":          cleanFlow,
		"sub/warn2.yml":       warningFlow,
		"sub/bad.yaml":        errorFlow,
		"sub/bad_test.yaml":   "not: [a flow",
		".hidden/x.yaml":      "not: [a flow",
		"notes.txt":           "not a flow",
		"only_warn/warn.yaml": warningFlow,
	})
	rel := func(p string) string { return filepath.Join(dir, p) }
	tests := []struct {
		name    string
		args    []string
		code    int
		stdout  []string // each must appear
		stderr  string
		exactly int // number of stdout lines, when >= 0
	}{
		{"clean file", []string{rel("clean.yaml")}, 0, nil, "0 errors, 0 warnings in 1 file", 0},
		{"warnings only", []string{rel("only_warn")}, 0,
			[]string{rel("only_warn/warn.yaml") + ":3:5: warning: the flow can run past its last node (#1)"},
			"0 errors, 1 warning in 1 file", 1},
		{"directory", []string{dir}, 1, []string{
			rel("sub/bad.yaml") + `:1:1: warning: the flow needs a description`,
			rel("sub/bad.yaml") + `:3:11: error: unknown action "fs.stta"; did you mean "fs.stat"? [unknown-action]`,
			rel("sub/warn2.yml") + `:3:5: warning:`,
		}, "1 error, 3 warnings in 4 files", 4},
		{"test file named", []string{rel("sub/bad_test.yaml")}, 1, []string{"[bad-yaml]"}, "1 error, 0 warnings in 1 file", 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := run(t, append([]string{"lint"}, tc.args...)...)
			if code != tc.code {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.code, out, errOut)
			}
			for _, want := range tc.stdout {
				if !strings.Contains(out, want) {
					t.Errorf("stdout lacks %q:\n%s", want, out)
				}
			}
			if strings.TrimSpace(errOut) != tc.stderr {
				t.Errorf("stderr = %q, want %q", errOut, tc.stderr)
			}
			if lines := strings.Count(out, "\n"); tc.exactly >= 0 && lines != tc.exactly {
				t.Errorf("%d lines on stdout, want %d:\n%s", lines, tc.exactly, out)
			}
		})
	}
}

// TestLintJSON checks the JSON output.
func TestLintJSON(t *testing.T) {
	dir := writeFlows(t, map[string]string{"bad.yaml": errorFlow, "ok.yaml": cleanFlow})
	out, errOut, code := run(t, "lint", "--format", "json", dir)
	if code != 1 || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	var got []diagnosticJSON
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	want := []diagnosticJSON{
		{File: filepath.Join(dir, "bad.yaml"), Line: 1, Col: 1, Severity: "warning", Code: "missing-description",
			Message: "the flow needs a description: MCP clients show it to the model to decide when to call the tool"},
		{File: filepath.Join(dir, "bad.yaml"), Line: 3, Col: 11, Severity: "error", Code: "unknown-action",
			Message: `unknown action "fs.stta"; did you mean "fs.stat"?`},
	}
	if !slices.Equal(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
	out, _, code = run(t, "lint", "--format=json", filepath.Join(dir, "ok.yaml"))
	if code != 0 || strings.TrimSpace(out) != "[]" {
		t.Errorf("clean file: exit %d, output %q; want 0 and []", code, out)
	}
}

// TestLintUsage checks the usage errors and the default path.
func TestLintUsage(t *testing.T) {
	dir := writeFlows(t, map[string]string{"flows/a.yaml": cleanFlow, "empty/README.md": "no flows"})
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"lint", "--format", "xml", dir}, 2, "--format must be text, json or sarif"},
		{[]string{"lint", "--bogus"}, 2, "flag provided but not defined"},
		{[]string{"lint", filepath.Join(dir, "missing.yaml")}, 2, "missing.yaml: no such file or directory"},
		{[]string{"lint", filepath.Join(dir, "empty")}, 2, "no flow files"},
		{[]string{"lint", "-h"}, 2, "usage: flowserve lint"},
	}
	for _, tc := range tests {
		out, errOut, code := run(t, tc.args...)
		if code != tc.code || !strings.Contains(out+errOut, tc.want) {
			t.Errorf("%q: exit %d, output %q; want exit %d containing %q", tc.args, code, out+errOut, tc.code, tc.want)
		}
	}
	t.Run("default flows dir", func(t *testing.T) {
		t.Chdir(dir)
		_, errOut, code := run(t, "lint")
		if code != 0 || !strings.Contains(errOut, "in 1 file") {
			t.Errorf("exit %d, stderr %q", code, errOut)
		}
	})
	t.Run("no flows dir", func(t *testing.T) {
		t.Chdir(filepath.Join(dir, "empty"))
		_, errOut, code := run(t, "lint")
		if code != 2 || !strings.Contains(errOut, "no flows/ directory") {
			t.Errorf("exit %d, stderr %q", code, errOut)
		}
	})
}

// TestServeRefusesWhatLintRejects checks that project.Load (serve's loader)
// runs Check: a flow that parses and compiles but fails a Check is not
// served.
func TestServeRefusesWhatLintRejects(t *testing.T) {
	dir := writeFlows(t, map[string]string{
		"ok.yaml": cleanFlow,
		"secret.yaml": `description: Asks for a password in a form.
nodes:
  - id: login
    ask: Sign in
    form:
      password: {type: string}
  - return: ok
`,
		"dup.yaml": "name: ok\n" + cleanFlow,
	})
	set, diags := project.Load([]string{dir}, project.Options{})
	progs := set.Programs
	var codes []string
	for _, d := range diags {
		codes = append(codes, d.Code)
	}
	if want := []string{"duplicate-tool", "sensitive-form"}; !slices.Equal(codes, want) {
		t.Errorf("codes %v, want %v\n%v", codes, want, diags)
	}
	var names []string
	for _, p := range progs {
		names = append(names, p.Name())
	}
	sort.Strings(names)
	if want := []string{"ok", "ok"}; !slices.Equal(names, want) {
		t.Errorf("programs %v, want %v", names, want)
	}
}

// TestSummary checks the summary line's wording.
func TestSummary(t *testing.T) {
	e := dsl.Diagnostic{Severity: dsl.Error}
	w := dsl.Diagnostic{Severity: dsl.Warning}
	for _, tc := range []struct {
		ds    dsl.Diagnostics
		files int
		want  string
	}{
		{nil, 1, "0 errors, 0 warnings in 1 file"},
		{dsl.Diagnostics{e, e, w}, 3, "2 errors, 1 warning in 3 files"},
		{dsl.Diagnostics{e, w, w}, 2, "1 error, 2 warnings in 2 files"},
	} {
		if got := summary(tc.ds, tc.files); got != tc.want {
			t.Errorf("summary = %q, want %q", got, tc.want)
		}
	}
}

// BenchmarkLint100 lints 100 flows: the example flows and conformance
// fixtures, repeated under different tool names.
func BenchmarkLint100(b *testing.B) {
	base := exampleSources(b)
	nameLine := regexp.MustCompile(`(?m)^name: (\S+)`)
	var srcs []lintSource
	for i := 0; len(srcs) < 100; i++ {
		s := base[i%len(base)]
		src := nameLine.ReplaceAll(s.src, []byte(fmt.Sprintf("name: ${1}_%d", i)))
		srcs = append(srcs, lintSource{path: fmt.Sprintf("flows/%d_%s", i, filepath.Base(s.path)), src: src})
	}
	for b.Loop() {
		ds, err := lintSources(srcs, actions.Default())
		if ds = withoutNoUnavailable(ds); err != nil || len(ds) > 0 {
			b.Fatal(err, ds)
		}
	}
}

// lintSource is a flow file's path and content.
type lintSource struct {
	path string
	src  []byte
}

// lintSources lints files held in memory the way lint lints files on
// disk: with project.Load, over an fs.FS holding just them.
func lintSources(srcs []lintSource, reg *actions.Registry) (dsl.Diagnostics, error) {
	fsys := fstest.MapFS{}
	var paths []string
	for _, s := range srcs {
		fsys[s.path] = &fstest.MapFile{Data: s.src}
		paths = append(paths, s.path)
	}
	_, diags := project.Load(paths, project.Options{Actions: reg, FS: fsys})
	if project.IsUsage(diags) {
		return nil, diags.Err()
	}
	return diags, nil
}
