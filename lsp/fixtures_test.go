package lsp

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf16"

	"golang.org/x/tools/txtar"

	"github.com/flowserve/flowserve/check/codes"
	"github.com/flowserve/flowserve/dsl"
	"github.com/flowserve/flowserve/project"
	"github.com/flowserve/flowserve/resources"
)

// fixtureDirs writes every lint fixture under root, each in a flows
// directory of its own (so that it is one document's scope), and returns
// them by name: the lint goldens (testdata/lint/*.txtar), the call
// goldens of project (project/testdata/calls/*.txtar), with their flow
// files and resource declarations, and the precision corpus
// (testdata/precision, its pending flows left out).
func fixtureDirs(t *testing.T, root string) map[string]string {
	t.Helper()
	dirs := map[string]string{}
	archives, _ := filepath.Glob("../testdata/lint/*.txtar")
	calls, _ := filepath.Glob("../project/testdata/calls/*.txtar")
	if len(archives) < 50 || len(calls) < 3 {
		t.Fatalf("%d lint goldens, %d call goldens", len(archives), len(calls))
	}
	for _, file := range append(archives, calls...) {
		a, err := txtar.ParseFile(file)
		if err != nil {
			t.Fatal(err)
		}
		files := map[string]string{}
		for _, f := range a.Files {
			if project.IsFlowFile(f.Name) || resources.IsDeclarationFile(f.Name) {
				files[f.Name] = string(f.Data)
			}
		}
		name := strings.TrimPrefix(strings.TrimSuffix(file, ".txtar"), "../")
		dirs[name] = writeFlows(t, filepath.Join(root, strings.ReplaceAll(name, "/", "_"), "flows"), files)
	}
	precision := map[string]string{}
	entries, err := os.ReadDir("../testdata/precision")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !e.IsDir() && project.IsFlowFile(e.Name()) {
			src, err := os.ReadFile(filepath.Join("../testdata/precision", e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			precision[e.Name()] = string(src)
		}
	}
	if len(precision) < 20 {
		t.Fatalf("only %d flows in the precision corpus", len(precision))
	}
	dirs["testdata/precision"] = writeFlows(t, filepath.Join(root, "precision", "flows"), precision)
	return dirs
}

// protocolPos converts a flowserve position (1-based line, 1-based
// column in runes) in src to the protocol's (0-based line, UTF-16 code
// units), on its own, as an oracle for the server's conversion.
func protocolPos(src string, p dsl.Pos) Position {
	lines := strings.Split(src, "\n")
	line := min(max(p.Line, 1), len(lines)) - 1
	runes := []rune(strings.TrimSuffix(lines[line], "\r"))
	col := min(max(p.Col, 1)-1, len(runes))
	return Position{Line: line, Character: len(utf16.Encode(runes[:col]))}
}

// lintLines returns the diagnostics of diags in the file path, whose
// text is src, one to a line: range (an unknown end worked out from the
// text, as Diagnostic.Range does, else empty), severity, code, message.
func lintLines(diags dsl.Diagnostics, path, src string) []string {
	var out []string
	for _, d := range diags {
		if d.Pos.File != path {
			continue
		}
		start, end := d.Range([]byte(src))
		if !end.IsValid() {
			end = start
		}
		s, e := protocolPos(src, start), protocolPos(src, end)
		out = append(out, fmt.Sprintf("%d:%d-%d:%d %s %s %s", s.Line, s.Character, e.Line, e.Character, d.Severity, d.Code, d.Message))
	}
	return out
}

// wireLines returns published diagnostics in the form lintLines gives.
func wireLines(ds []Diagnostic) []string {
	var out []string
	for _, d := range ds {
		sev := map[DiagnosticSeverity]string{SeverityError: "error", SeverityWarning: "warning"}[d.Severity]
		out = append(out, fmt.Sprintf("%d:%d-%d:%d %s %s %s", d.Range.Start.Line, d.Range.Start.Character,
			d.Range.End.Line, d.Range.End.Character, sev, d.Code, d.Message))
	}
	return out
}

// waitCleared waits for the diagnostics didClose clears uri's with (they
// have no version), past what was published before it.
func (c *testClient) waitCleared(uri string) {
	c.t.Helper()
	for {
		if pub := c.waitDiagnostics(uri); pub.Version == nil {
			if len(pub.Diagnostics) != 0 {
				c.t.Errorf("didClose of %s published %+v", uri, pub.Diagnostics)
			}
			return
		}
	}
}

// lintExpect is a precision flow's line saying which warning it draws.
var lintExpect = regexp.MustCompile(`(?m)^\s*#\s*lint-expect:\s*warning\s+(\S+)\s*$`)

// TestDiagnosticsEveryFixture opens every file of every lint fixture in
// one server, over the protocol, keeping the files of a fixture open
// together (each open lints the others again, through the same
// workspace): what the server publishes for each is what flowserve lint
// of the fixture's directory prints for it (project.Load), range,
// severity, code and message. The precision corpus, correct flows,
// gets no error and no warning but those it expects.
func TestDiagnosticsEveryFixture(t *testing.T) {
	dirs := fixtureDirs(t, t.TempDir())
	c := initialized(t, time.Millisecond)
	seen := map[string]bool{}
	for _, name := range slices.Sorted(maps.Keys(dirs)) {
		dir := dirs[name]
		_, lint := project.Load([]string{dir}, project.Options{CheckOnly: true})
		files, ds := project.Discover([]string{dir})
		if ds.HasErrors() {
			t.Fatal(ds)
		}
		var uris []string
		for _, path := range slices.Concat(files.Flows, files.Resources) {
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			uri := open(t, c, path, string(src))
			uris = append(uris, uri)
			got, want := wireLines(c.waitDiagnostics(uri).Diagnostics), lintLines(lint, path, string(src))
			if !slices.Equal(got, want) {
				t.Errorf("%s: %s: published\n%s\nwant lint's\n%s", name, filepath.Base(path), strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			for _, d := range lint {
				seen[d.Code] = true
			}
			if name == "testdata/precision" {
				expected := lintExpect.FindAllStringSubmatch(string(src), -1)
				if len(got) != len(expected) {
					t.Errorf("precision %s: published %q, a correct flow expecting %d warnings", filepath.Base(path), got, len(expected))
				}
				for i := range min(len(got), len(expected)) {
					if !strings.Contains(got[i], " warning "+expected[i][1]+" ") {
						t.Errorf("precision %s: %s, want a %s warning", filepath.Base(path), got[i], expected[i][1])
					}
				}
			}
		}
		for _, uri := range uris {
			c.notify("textDocument/didClose", map[string]any{"textDocument": TextDocumentIdentifier{URI: uri}})
			c.waitCleared(uri)
		}
	}
	for _, code := range []string{codes.UnknownKey, codes.BadExpression, codes.DuplicateTool, codes.CallCycle,
		codes.WithMissing, codes.UnknownFlow, codes.RoundBudget, codes.MaybeUnbound, codes.BadYAML} {
		if !seen[code] {
			t.Errorf("no fixture gives %s", code)
		}
	}
}
