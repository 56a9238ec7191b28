package lsp

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/flowserve/flowserve/project"
)

// The flows of the edit test: caller calls mid, which calls leaf. All
// three are correct.
var editFlows = map[string]string{
	"caller.yaml": `name: caller
description: Calls mid.
nodes:
  - id: m
    call: mid
  - return: "{{ m.total + 1 }}"
`,
	"mid.yaml": `name: mid
description: Calls leaf.
expose: false
output: {type: object, properties: {total: {type: integer}}, required: [total]}
nodes:
  - id: l
    call: leaf
  - return:
      text: done
      structured: {total: "{{ l.n + 1 }}"}
`,
	"leaf.yaml": `name: leaf
description: Counts.
expose: false
output: {type: object, properties: {n: {type: integer}}, required: [n]}
nodes:
  - return:
      text: one
      structured: {n: 1}
`,
}

// savedLint returns what flowserve lint prints for the file name of the
// flows directory dir if the texts of the editor (by name) were saved:
// project.Load of a copy of the directory with them written to disk, its
// paths put back to dir's.
func savedLint(t *testing.T, dir string, texts map[string]string, name string) []string {
	t.Helper()
	files := map[string]string{}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		src, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		files[e.Name()] = string(src)
	}
	for n, src := range texts {
		files[n] = src
	}
	copyDir := writeFlows(t, filepath.Join(t.TempDir(), "flows"), files)
	_, diags := project.Load([]string{copyDir}, project.Options{CheckOnly: true})
	for i := range diags {
		diags[i].Pos.File = strings.Replace(diags[i].Pos.File, copyDir, dir, 1)
		diags[i].Message = strings.ReplaceAll(diags[i].Message, copyDir, dir)
	}
	return lintLines(diags, filepath.Join(dir, name), files[name])
}

// TestDiagnosticsFollowEdits edits documents without saving them: an
// error typed into a buffer is published, and cleared once fixed; a
// change to a flow the document calls, directly or through another,
// lints the document again with it; closing a buffer puts the file on
// disk back; a buffer of a file not saved yet is linted with the others.
// At every step the document's diagnostics are what flowserve lint
// prints once the buffers are saved; the correct project has none.
func TestDiagnosticsFollowEdits(t *testing.T) {
	dir := writeFlows(t, filepath.Join(t.TempDir(), "flows"), editFlows)
	c := initialized(t, time.Millisecond)
	texts := map[string]string{}
	versions := map[string]int{}
	uris := map[string]string{}
	edit := func(name, src string) {
		t.Helper()
		texts[name] = src
		if uris[name] == "" {
			uris[name] = open(t, c, filepath.Join(dir, name), src)
			versions[name] = 1
			return
		}
		versions[name]++
		c.notify("textDocument/didChange", map[string]any{"textDocument": VersionedTextDocumentIdentifier{URI: uris[name], Version: versions[name]},
			"contentChanges": []TextDocumentContentChangeEvent{{Text: src}}})
	}
	expect := func(when, name string, codes ...string) {
		t.Helper()
		got := wireLines(c.waitDiagnostics(uris[name]).Diagnostics)
		if want := savedLint(t, dir, texts, name); !slices.Equal(got, want) {
			t.Fatalf("%s: %s published\n%s\nwant lint's\n%s", when, name, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		var gotCodes []string
		for _, line := range got {
			gotCodes = append(gotCodes, strings.Fields(line)[2])
		}
		if !slices.Equal(gotCodes, codes) {
			t.Fatalf("%s: %s published %q, want the codes %v", when, name, got, codes)
		}
	}
	caller := editFlows["caller.yaml"]
	edit("caller.yaml", caller)
	expect("opened", "caller.yaml")

	edit("caller.yaml", strings.Replace(caller, "m.total", "m.totl", 1))
	expect("a field the callee lacks typed", "caller.yaml", "bad-expression")
	edit("caller.yaml", caller)
	expect("fixed", "caller.yaml")

	// The callee's output changes in its buffer: the caller is linted
	// again, its reading of the output now wrong.
	mid := editFlows["mid.yaml"]
	edit("mid.yaml", mid)
	expect("the callee opened", "caller.yaml")
	edit("mid.yaml", strings.Replace(mid, "total: {type: integer}", "total: {type: string}", 1))
	expect("the callee's output a string", "caller.yaml", "bad-expression")
	edit("mid.yaml", mid)
	expect("the callee back", "caller.yaml")

	// The flow the callee calls changes: it calls the caller, a cycle.
	leaf := editFlows["leaf.yaml"]
	edit("leaf.yaml", strings.Replace(leaf, "nodes:\n", "nodes:\n  - id: again\n    call: caller\n", 1))
	expect("the callee's callee calls the caller", "caller.yaml", "call-cycle")
	c.notify("textDocument/didClose", map[string]any{"textDocument": TextDocumentIdentifier{URI: uris["leaf.yaml"]}})
	delete(texts, "leaf.yaml")
	expect("its buffer closed: the file on disk", "caller.yaml")

	// A file not saved yet, of the caller's name: lint reports the second
	// of the name, in file order.
	edit("zz_copy.yaml", caller)
	expect("a buffer of a new file", "zz_copy.yaml", "duplicate-tool")
	c.notify("textDocument/didClose", map[string]any{"textDocument": TextDocumentIdentifier{URI: uris["zz_copy.yaml"]}})
	c.waitCleared(uris["zz_copy.yaml"])
	delete(texts, "zz_copy.yaml")
	edit("caller.yaml", caller+"\n")
	expect("the new file gone", "caller.yaml")
}
