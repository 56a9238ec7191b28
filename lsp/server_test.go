package lsp

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// demoFlow is a flow with non-ASCII text (an emoji takes two UTF-16
// units) before a misspelt field, so ranges test the conversion.
const demoFlow = `name: demo
description: Démo 🎉 flow.
input:
  type: object
  properties:
    path: {type: string, description: Where 🎉 it is}
nodes:
  - id: confirm
    ask: "Délété 🎉 {{ input.pathh }}?"
    form:
      plan: {type: string, enum: [free, team], description: The plan}
    required: [plan]
    next: check
  - id: check
    branch:
      - if: confirm.content.plan == "free"
        then: done
      - else: done
  - id: done
    return: "ok {{ confirm.content.plan }}"
`

// TestSession drives the server over a pipe pair with the messages an
// editor sends, in the order it sends them.
func TestSession(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "demo.yaml")
	if err := os.WriteFile(path, []byte("name: other\n"), 0o644); err != nil {
		t.Fatal(err) // the disk's text differs: the open document's counts
	}
	uri := pathURI(path)
	c := startServer(t, Options{Debounce: 20 * time.Millisecond, Version: "test"})

	var init InitializeResult
	if msg := c.call("initialize", map[string]any{"processId": nil, "rootUri": pathURI(dir), "capabilities": map[string]any{}}, &init); msg != "" {
		t.Fatalf("initialize: %s", msg)
	}
	caps := init.Capabilities
	if !caps.HoverProvider || !caps.DefinitionProvider || !caps.RenameProvider.PrepareProvider ||
		caps.TextDocumentSync.Change != 2 || init.ServerInfo.Name != "flowserve" || !slices.Contains(caps.CodeActionProvider.CodeActionKinds, "quickfix") {
		t.Fatalf("initialize result %+v", init)
	}
	c.notify("initialized", map[string]any{})
	c.notify("textDocument/didOpen", map[string]any{"textDocument": TextDocumentItem{URI: uri, LanguageID: "yaml", Version: 1, Text: demoFlow}})

	// Diagnostics: the misspelt field, at its UTF-16 range.
	pub := c.waitDiagnostics(uri)
	d, ok := findDiagnostic(pub.Diagnostics, "bad-expression")
	if !ok {
		t.Fatalf("diagnostics %+v, want bad-expression", pub.Diagnostics)
	}
	want := Range{Start: posOf(t, demoFlow, "pathh", 0, 0), End: posOf(t, demoFlow, "pathh", 0, 5)}
	if d.Range != want || d.Code != "bad-expression" || d.Severity != SeverityError || d.Source != "flowserve" || !strings.Contains(d.Message, "pathh") {
		t.Fatalf("diagnostic %+v, want range %+v", d, want)
	}

	// A code action fixes it.
	var acts []CodeAction
	c.call("textDocument/codeAction", CodeActionParams{TextDocument: TextDocumentIdentifier{URI: uri}, Range: d.Range,
		Context: CodeActionContext{Diagnostics: []Diagnostic{d}}}, &acts)
	if len(acts) != 1 || acts[0].Kind != "quickfix" || acts[0].Edit == nil {
		t.Fatalf("code actions %+v", acts)
	}
	edit := acts[0].Edit.Changes[uri]
	if len(edit) != 1 || edit[0].NewText != "path" || edit[0].Range != want {
		t.Fatalf("quickfix edit %+v", edit)
	}

	// didChange applies the edit incrementally: the diagnostics clear.
	c.notify("textDocument/didChange", map[string]any{"textDocument": VersionedTextDocumentIdentifier{URI: uri, Version: 2},
		"contentChanges": []TextDocumentContentChangeEvent{{Range: &edit[0].Range, Text: "path"}}})
	if pub := c.waitDiagnostics(uri); hasCode(pub.Diagnostics, "bad-expression") || pub.Version == nil || *pub.Version != 2 {
		t.Fatalf("after the fix: %+v", pub)
	}

	sessionFeatures(t, c, uri, strings.Replace(demoFlow, "pathh", "path", 1))

	// Shutdown, then exit: Serve returns nil.
	if msg := c.call("shutdown", nil, nil); msg != "" {
		t.Fatalf("shutdown: %s", msg)
	}
	if msg := c.call("textDocument/hover", TextDocumentPositionParams{TextDocument: TextDocumentIdentifier{URI: uri}}, nil); msg == "" {
		t.Fatal("a request after shutdown was answered")
	}
	c.notify("exit", nil)
	select {
	case err := <-c.done:
		if err != nil {
			t.Fatalf("Serve: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Serve did not return after exit")
	}
}

// sessionFeatures asks the server of c for completion, hover,
// definition, prepareRename and rename on the document uri, whose text is
// fixed.
func sessionFeatures(t *testing.T, c *testClient, uri, fixed string) {
	t.Helper()
	// Completion of a form's fields inside an expression.
	var list CompletionList
	c.call("textDocument/completion", CompletionParams{TextDocumentPositionParams: TextDocumentPositionParams{TextDocument: TextDocumentIdentifier{URI: uri},
		Position: posOf(t, fixed, "content.plan ==", 0, len("content."))}}, &list)
	if labels := labelsOf(list.Items); !slices.Contains(labels, "plan") {
		t.Fatalf("completion after confirm.content.: %v", labels)
	}
	// A typed space asks for completion after a key, not in indentation.
	space := &CompletionContext{TriggerKind: 2, TriggerCharacter: " "}
	for _, tt := range []struct {
		marker string
		shift  int
		want   bool
	}{{"next: check", len("next: "), true}, {"    required", 4, false}} {
		c.call("textDocument/completion", CompletionParams{TextDocumentPositionParams: TextDocumentPositionParams{TextDocument: TextDocumentIdentifier{URI: uri},
			Position: posOf(t, fixed, tt.marker, 0, tt.shift)}, Context: space}, &list)
		if got := slices.Contains(labelsOf(list.Items), "check") || slices.Contains(labelsOf(list.Items), "form"); got != tt.want {
			t.Fatalf("completion on a space at %q: %v", tt.marker, labelsOf(list.Items))
		}
	}

	// Hover on the field.
	var h Hover
	c.call("textDocument/hover", TextDocumentPositionParams{TextDocument: TextDocumentIdentifier{URI: uri},
		Position: posOf(t, fixed, "plan ==", 0, 1)}, &h)
	if !strings.Contains(h.Contents.Value, "confirm.content.plan: string, one of free, team") {
		t.Fatalf("hover %q", h.Contents.Value)
	}

	// Definition of a reference.
	var locs []Location
	c.call("textDocument/definition", TextDocumentPositionParams{TextDocument: TextDocumentIdentifier{URI: uri},
		Position: posOf(t, fixed, "then: done", 0, len("then: "))}, &locs)
	if len(locs) != 1 || locs[0].Range.Start != posOf(t, fixed, "done\n    return", 0, 0) {
		t.Fatalf("definition %+v", locs)
	}

	// Rename an id used in references and expressions.
	var prep PrepareRenameResult
	c.call("textDocument/prepareRename", TextDocumentPositionParams{TextDocument: TextDocumentIdentifier{URI: uri},
		Position: posOf(t, fixed, "confirm", 0, 2)}, &prep)
	if prep.Placeholder != "confirm" {
		t.Fatalf("prepareRename %+v", prep)
	}
	var we WorkspaceEdit
	if msg := c.call("textDocument/rename", RenameParams{TextDocumentPositionParams{TextDocument: TextDocumentIdentifier{URI: uri},
		Position: posOf(t, fixed, "confirm", 0, 2)}, "approve"}, &we); msg != "" {
		t.Fatalf("rename: %s", msg)
	}
	if got := applyEdits(t, fixed, we.Changes[uri]); got != strings.ReplaceAll(fixed, "confirm", "approve") {
		t.Fatalf("renamed text:\n%s", got)
	}
}

// findDiagnostic returns the first diagnostic with code.
func findDiagnostic(ds []Diagnostic, code string) (Diagnostic, bool) {
	for _, d := range ds {
		if d.Code == code {
			return d, true
		}
	}
	return Diagnostic{}, false
}

// hasCode reports whether a diagnostic of ds has code.
func hasCode(ds []Diagnostic, code string) bool {
	_, ok := findDiagnostic(ds, code)
	return ok
}

// labelsOf returns the labels of items.
func labelsOf(items []CompletionItem) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = it.Label
	}
	return out
}

// applyEdits applies non-overlapping edits to src, as an editor does.
func applyEdits(t testing.TB, src string, edits []TextEdit) string {
	t.Helper()
	sorted := slices.Clone(edits)
	slices.SortFunc(sorted, func(a, b TextEdit) int {
		if before(a.Range.Start, b.Range.Start) {
			return 1
		}
		return -1
	})
	out := []byte(src)
	for _, e := range sorted {
		tx := newText(out)
		start, end := tx.offset(e.Range.Start), tx.offset(e.Range.End)
		out = append(out[:start:start], append([]byte(e.NewText), out[end:]...)...)
	}
	return string(out)
}
