package lsp

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/tools/txtar"

	"github.com/flowserve/flowserve/project"
)

// open starts a session and opens the document at path with src.
func open(t *testing.T, c *testClient, path, src string) string {
	t.Helper()
	uri := pathURI(path)
	c.notify("textDocument/didOpen", map[string]any{"textDocument": TextDocumentItem{URI: uri, LanguageID: "yaml", Version: 1, Text: src}})
	return uri
}

// initialized returns a client of a server that has been initialized.
func initialized(t *testing.T, debounce time.Duration) *testClient {
	t.Helper()
	c := startServer(t, Options{Debounce: debounce})
	if msg := c.call("initialize", map[string]any{"capabilities": map[string]any{}}, nil); msg != "" {
		t.Fatal(msg)
	}
	c.notify("initialized", map[string]any{})
	return c
}

// TestDiagnosticsAreLints opens every example flow and gets exactly the
// diagnostics flowserve lint gives for it (project.Load of the
// directory), at the same positions.
func TestDiagnosticsAreLints(t *testing.T) {
	dir, err := filepath.Abs("../flows")
	if err != nil {
		t.Fatal(err)
	}
	c := initialized(t, time.Millisecond)
	files, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
	for _, path := range files {
		if strings.HasSuffix(path, "_test.yaml") {
			continue
		}
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		// A warning or two makes the comparison bite: an unreachable node.
		text := string(src) + "  - id: lsp_extra_unreachable\n    fail: never\n"
		uri := open(t, c, path, text)
		got := c.waitDiagnostics(uri).Diagnostics
		want := loadWith([]string{dir}, project.Options{}, path, text)
		tx := newText([]byte(text))
		var wantLines, gotLines []string
		for _, d := range want {
			if d.Pos.File == path {
				wantLines = append(wantLines, fmt.Sprintf("%+v %s %s", tx.position(tx.offsetOfPos(d.Pos)), d.Code, d.Message))
			}
		}
		for _, d := range got {
			gotLines = append(gotLines, fmt.Sprintf("%+v %s %s", d.Range.Start, d.Code, d.Message))
		}
		if !slices.Equal(gotLines, wantLines) || len(gotLines) == 0 {
			t.Errorf("%s: diagnostics\n%s\nwant lint's\n%s", filepath.Base(path), strings.Join(gotLines, "\n"), strings.Join(wantLines, "\n"))
		}
		c.notify("textDocument/didClose", map[string]any{"textDocument": TextDocumentIdentifier{URI: uri}})
		if cleared := c.waitDiagnostics(uri); len(cleared.Diagnostics) != 0 {
			t.Errorf("%s: didClose published %+v", filepath.Base(path), cleared.Diagnostics)
		}
	}
}

// TestDiagnosticsDebounced sends changes faster than the debounce delay:
// only the last version is linted and published.
func TestDiagnosticsDebounced(t *testing.T) {
	c := initialized(t, 150*time.Millisecond)
	path := filepath.Join(t.TempDir(), "typing.yaml")
	uri := open(t, c, path, "name: typing\n")
	if pub := c.waitDiagnostics(uri); pub.Version == nil || *pub.Version != 1 {
		t.Fatalf("didOpen published %+v", pub) // at once, without the debounce
	}
	text := "name: typing\ndescription: Types.\ninput: {type: object, properties: {a: {type: string}}}\nnodes:\n  - return: \"{{ input.x"
	for v := 2; v <= 8; v++ {
		text += "x"
		c.notify("textDocument/didChange", map[string]any{"textDocument": VersionedTextDocumentIdentifier{URI: uri, Version: v},
			"contentChanges": []TextDocumentContentChangeEvent{{Text: text + " }}\"\n"}}})
	}
	pub := c.waitDiagnostics(uri)
	if pub.Version == nil || *pub.Version != 8 {
		t.Fatalf("published version %v, want only 8", pub.Version)
	}
	select {
	case more := <-c.diags:
		t.Fatalf("published again: %+v", more)
	case <-time.After(400 * time.Millisecond):
	}
	if !slices.ContainsFunc(pub.Diagnostics, func(d Diagnostic) bool { return strings.Contains(d.Message, "'xxxxxxxx'") }) {
		t.Fatalf("diagnostics of the last text: %+v", pub.Diagnostics)
	}
}

// TestDiagnosticsAcrossFiles lints a document with the flows beside it:
// a name another file of the directory defines is lint's duplicate-tool;
// a test file is no flow and gets no diagnostics.
func TestDiagnosticsAcrossFiles(t *testing.T) {
	dir := t.TempDir()
	flow := "name: same\ndescription: The same name.\nnodes:\n  - return: ok\n"
	if err := os.WriteFile(filepath.Join(dir, "a.yaml"), []byte(flow), 0o644); err != nil {
		t.Fatal(err)
	}
	c := initialized(t, time.Millisecond)
	uri := open(t, c, filepath.Join(dir, "b.yaml"), flow)
	pub := c.waitDiagnostics(uri)
	if !hasCode(pub.Diagnostics, "duplicate-tool") {
		t.Fatalf("diagnostics %+v, want duplicate-tool", pub.Diagnostics)
	}
	tuse := open(t, c, filepath.Join(dir, "a_test.yaml"), "tests: [what: ever]\n")
	if pub := c.waitDiagnostics(tuse); len(pub.Diagnostics) != 0 {
		t.Fatalf("a test file got %+v", pub.Diagnostics)
	}
}

// TestDiagnosticsAllAtOnce opens the flows of the all_at_once lint
// goldens, which have structural errors and expression errors, and gets
// all of them published at once, exactly the diagnostics lint gives
// (project.Load of their directory).
func TestDiagnosticsAllAtOnce(t *testing.T) {
	goldens, _ := filepath.Glob("../testdata/lint/all_at_once*.txtar")
	if len(goldens) < 2 {
		t.Fatalf("all_at_once goldens: %v", goldens)
	}
	c := initialized(t, time.Millisecond)
	for _, file := range goldens {
		a, err := txtar.ParseFile(file)
		if err != nil {
			t.Fatal(err)
		}
		files := map[string]string{}
		for _, f := range a.Files {
			if project.IsFlowFile(f.Name) {
				files[f.Name] = string(f.Data)
			}
		}
		dir := writeFlows(t, t.TempDir(), files)
		path := filepath.Join(dir, "flow.yaml")
		uri := open(t, c, path, files["flow.yaml"])
		got := diagLines(c.waitDiagnostics(uri).Diagnostics)
		want := loadLines(t, dir, path, files["flow.yaml"])
		if !slices.Equal(got, want) {
			t.Errorf("%s: published\n%s\nwant lint's\n%s", filepath.Base(file), strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		lines := strings.Join(want, "\n")
		mixed := strings.Contains(lines, " unknown-key ") && strings.Contains(lines, " bad-expression ")
		if ok := strings.HasSuffix(file, "_ok.txtar"); ok && len(want) > 0 || !ok && !mixed {
			t.Errorf("%s: lint gives\n%s\nwant unknown-key and bad-expression errors (none for _ok)", filepath.Base(file), lines)
		}
		c.notify("textDocument/didClose", map[string]any{"textDocument": TextDocumentIdentifier{URI: uri}})
		c.waitDiagnostics(uri)
	}
}
