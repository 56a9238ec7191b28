package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/flowserve/flowserve/check/codes"
	"github.com/flowserve/flowserve/dsl"
)

// diffGoldenDir holds the diff goldens: each a txtar archive with the
// old version's flows under old/ and the new version's under new/, and
// the exact output of
//   - text: flowserve diff old new (stdout);
//   - exit: its exit status;
//   - json: flowserve diff --format json old new, when the archive has
//     the section;
//   - lint: flowserve lint --against old new (stdout, then the summary
//     stderr has).
//
// -update rewrites the sections.
const diffGoldenDir = "testdata/diff"

// TestDiffGolden runs diff and lint --against on each golden archive
// and compares their output with its sections.
func TestDiffGolden(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(diffGoldenDir, "*.txtar"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden files: %v", err)
	}
	verdicts := map[string]bool{}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".txtar")
		file, err := filepath.Abs(file)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(name, func(t *testing.T) {
			a, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			for _, f := range a.Files {
				if !strings.HasPrefix(f.Name, "old/") && !strings.HasPrefix(f.Name, "new/") {
					continue
				}
				p := filepath.Join(dir, filepath.FromSlash(f.Name))
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, f.Data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			t.Chdir(dir)
			got := map[string]string{}
			out, errOut, code := run(t, "diff", "old", "new")
			if errOut != "" {
				t.Errorf("diff wrote to stderr:\n%s", errOut)
			}
			got["text"], got["exit"] = out, strconv.Itoa(code)+"\n"
			if hasSection(a, "json") {
				js, errOut, jcode := run(t, "diff", "--format", "json", "old", "new")
				if jcode != code || errOut != "" {
					t.Errorf("diff --format json: exit %d (text: %d), stderr %q", jcode, code, errOut)
				}
				checkDiffJSON(t, js, out)
				got["json"] = js
			}
			lout, lerr, lcode := run(t, "lint", "--against", "old", "new")
			if lcode != 0 {
				t.Errorf("lint --against: exit %d\n%s%s", lcode, lout, lerr)
			}
			got["lint"] = lout + lerr
			for _, line := range strings.Split(strings.TrimSpace(lout), "\n") {
				if line != "" && !strings.HasSuffix(line, "["+codes.BreaksRuns+"]") {
					t.Errorf("lint --against reports more than the old version's changes: %s", line)
				}
			}
			for _, line := range strings.Split(out, "\n") {
				if _, v, ok := strings.Cut(line, ": "); ok && !strings.HasPrefix(line, " ") && !strings.ContainsAny(line[:1], "0123456789") {
					verdicts[v] = true
				}
			}
			checkSections(t, file, a, got)
		})
	}
	if t.Failed() || *update {
		return
	}
	for _, v := range []string{"compatible", "new-calls-only", "breaking", "removed", "added"} {
		if !verdicts[v] {
			t.Errorf("no diff golden has a tool that is %s", v)
		}
	}
}

// hasSection reports whether a has a section called name.
func hasSection(a *txtar.Archive, name string) bool {
	return slices.ContainsFunc(a.Files, func(f txtar.File) bool { return f.Name == name })
}

// checkSections compares got (section name → content) with a's
// sections, or with -update writes them into a and rewrites file.
func checkSections(t *testing.T, file string, a *txtar.Archive, got map[string]string) {
	t.Helper()
	for _, name := range []string{"text", "exit", "json", "lint"} {
		content, ok := got[name]
		if !ok {
			continue
		}
		i := slices.IndexFunc(a.Files, func(f txtar.File) bool { return f.Name == name })
		if *update {
			if i < 0 {
				a.Files = append(a.Files, txtar.File{Name: name})
				i = len(a.Files) - 1
			}
			a.Files[i].Data = []byte(content)
			continue
		}
		if i < 0 {
			t.Errorf("%s has no %s section; run go test ./cli/ -run TestDiffGolden -update", file, name)
			continue
		}
		if want := string(a.Files[i].Data); content != want {
			t.Errorf("%s differs\n--- got\n%s--- want\n%s", name, content, want)
		}
	}
	if *update {
		if err := os.WriteFile(file, txtar.Format(a), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// checkDiffJSON checks that the JSON output parses and says what the
// text output says.
func checkDiffJSON(t *testing.T, js, text string) {
	t.Helper()
	var doc struct {
		Tools []struct {
			Name, Verdict, Status string
			Reasons               []struct {
				Node, Change, Verdict, Message string
				Pos                            struct {
					File      string
					Line, Col int
				}
			}
		}
		Verdict string
		Summary map[string]int
	}
	if err := json.Unmarshal([]byte(js), &doc); err != nil {
		t.Fatalf("diff --format json: not JSON: %v\n%s", err, js)
	}
	var lines []string
	for _, tool := range doc.Tools {
		shown := tool.Verdict
		if tool.Status == "removed" || tool.Status == "added" {
			shown = tool.Status
		}
		lines = append(lines, tool.Name+": "+shown)
		for _, r := range tool.Reasons {
			lines = append(lines, "  "+dsl.Pos{File: r.Pos.File, Line: r.Pos.Line, Col: r.Pos.Col}.String()+": "+r.Message)
		}
	}
	textLines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if want := textLines[:len(textLines)-1]; !slices.Equal(lines, want) {
		t.Errorf("the JSON output says\n%s\nthe text output\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	if doc.Summary["tools"] != len(doc.Tools) {
		t.Errorf("summary counts %d tools, the document has %d", doc.Summary["tools"], len(doc.Tools))
	}
}

// TestDiffUsage checks diff's usage errors and help.
func TestDiffUsage(t *testing.T) {
	dir := writeFlows(t, map[string]string{
		"ok.yaml":        cleanFlow,
		"bad/bad.yaml":   errorFlow,
		"empty/notes.md": "no flows",
	})
	rel := func(p string) string { return filepath.Join(dir, p) }
	tests := []struct {
		args []string
		code int
		want []string
	}{
		{[]string{"diff"}, 2, []string{"give the old and the new version", "usage: flowserve diff"}},
		{[]string{"diff", rel("ok.yaml")}, 2, []string{"give the old and the new version"}},
		{[]string{"diff", rel("ok.yaml"), rel("ok.yaml"), rel("ok.yaml")}, 2, []string{"give the old and the new version"}},
		{[]string{"diff", "--format", "xml", rel("ok.yaml"), rel("ok.yaml")}, 2, []string{"--format must be text or json"}},
		{[]string{"diff", rel("missing.yaml"), rel("ok.yaml")}, 2, []string{"missing.yaml: no such file or directory"}},
		{[]string{"diff", rel("ok.yaml"), rel("empty")}, 2, []string{"no flow files"}},
		{[]string{"diff", rel("bad"), rel("ok.yaml")}, 2, []string{
			rel("bad/bad.yaml") + `:3:11: error: unknown action "fs.stta"`, rel("bad") + ": the flows have errors"}},
		{[]string{"diff", "-h"}, 0, []string{"usage: flowserve diff", "new-calls-only", "breaking"}},
		{[]string{"diff", rel("ok.yaml"), rel("ok.yaml")}, 0, []string{"ok: compatible\n1 tool: 0 breaking, 0 new-calls-only, 1 compatible\n"}},
		{[]string{"diff", rel("ok.yaml"), rel("ok.yaml"), "--format=json"}, 0, []string{`"verdict": "compatible"`, `"status": "unchanged"`}},
	}
	for _, tc := range tests {
		out, errOut, code := run(t, tc.args...)
		if code != tc.code {
			t.Errorf("%q: exit %d, want %d\n%s%s", tc.args, code, tc.code, out, errOut)
		}
		for _, w := range tc.want {
			if !strings.Contains(out+errOut, w) {
				t.Errorf("%q: output lacks %q:\n%s%s", tc.args, w, out, errOut)
			}
		}
	}
}

// TestLintAgainst checks lint --against: its warnings join lint's own in
// both formats, and an old version that does not load is a usage error.
func TestLintAgainst(t *testing.T) {
	dir := writeFlows(t, map[string]string{
		"old/greet.yaml": `description: Greets.
nodes:
  - id: who
    ask: Who are you?
    form: {name: {type: string}}
  - return: "Hello {{ who.content.name }}"
`,
		"new/greet.yaml": `description: Greets.
nodes:
  - id: person
    ask: Who are you?
    form: {name: {type: string}}
  - return: "Hello {{ person.content.name }}"
`,
		"bad/greet.yaml": errorFlow,
	})
	t.Chdir(dir)
	out, errOut, code := run(t, "lint", "--against", "old", "new")
	want := "new/greet.yaml:3:9: warning: ask \"who\" was renamed \"person\": runs in flight on the old version finish on it (servers pin runs to the version they began on) but cannot move to this one [breaks-runs]\n"
	if code != 0 || !strings.HasPrefix(out, want) || strings.TrimSpace(errOut) != "0 errors, 1 warning in 1 file" {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s\nwant stdout starting\n%s", code, out, errOut, want)
	}
	out, _, code = run(t, "lint", "--format", "json", "--against", "old", "new")
	var got []diagnosticJSON
	if err := json.Unmarshal([]byte(out), &got); err != nil || code != 0 {
		t.Fatalf("exit %d, not JSON: %v\n%s", code, err, out)
	}
	if len(got) != 1 || got[0].Code != codes.BreaksRuns || got[0].Severity != "warning" || got[0].Line != 3 || got[0].Col != 9 {
		t.Errorf("JSON diagnostics %+v", got)
	}
	out, errOut, code = run(t, "lint", "--against", "bad", "new")
	if code != 2 || !strings.Contains(errOut, "--against bad: the flows have errors") || !strings.Contains(errOut, "unknown action") {
		t.Errorf("old version with errors: exit %d\n%s%s", code, out, errOut)
	}
	_, errOut, code = run(t, "lint", "--against", "nope", "new")
	if code != 2 || !strings.Contains(errOut, "nope: no such file or directory") {
		t.Errorf("old version missing: exit %d, stderr %q", code, errOut)
	}
}
