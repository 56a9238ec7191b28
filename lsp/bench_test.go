package lsp

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flowserve/flowserve/actions"
	"github.com/flowserve/flowserve/project"
)

// bigFlow returns a flow of about lines lines: blocks of a question, a
// step and a branch, each reading the answers before it.
func bigFlow(lines int) string {
	var b strings.Builder
	b.WriteString("name: big\ndescription: A long flow.\ninput:\n  type: object\n  properties:\n    path: {type: string}\nnodes:\n")
	for i := 0; strings.Count(b.String(), "\n") < lines-12; i++ {
		fmt.Fprintf(&b, `  - id: ask_%d
    ask: "Question %d about {{ input.path }}?"
    form:
      plan: {type: string, enum: [free, team]}
      seats: {type: integer, minimum: 1}
    required: [plan]
  - id: stat_%d
    step: fs.stat
    with: {path: "{{ input.path }}"}
  - branch:
      - if: ask_%d.content.plan == "team" && stat_%d.bytes > 0
        then: ask_%d
`, i, i, i, i, i, i+1)
	}
	b.WriteString("  - id: ask_last\n    ask: \"Done?\"\n    form: {ok: {type: boolean}}\n  - return: \"{{ ask_0.content. }}\"\n")
	return b.String()
}

// BenchmarkCompletion completes the fields of a form's answer at the end
// of a 500-line flow. cold: the text just changed, so each completion
// parses it and builds its scope first (what a keystroke costs); warm:
// the same text again.
func BenchmarkCompletion(b *testing.B) {
	src := bigFlow(500)
	pos := posOf(b, src, "ask_0.content. }}", 0, len("ask_0.content."))
	b.Logf("%d lines", strings.Count(src, "\n"))
	b.Run("cold", func(b *testing.B) {
		for b.Loop() {
			s := newSnapshot("/flows/big.yaml", []byte(src), nil, actions.Default())
			if items := complete(s, pos); len(items) != 2 {
				b.Fatalf("items %v", labelsOf(items))
			}
		}
	})
	b.Run("warm", func(b *testing.B) {
		s := newSnapshot("/flows/big.yaml", []byte(src), nil, actions.Default())
		for b.Loop() {
			if items := complete(s, pos); len(items) != 2 {
				b.Fatalf("items %v", labelsOf(items))
			}
		}
	})
}

// BenchmarkDiagnostics lints a 500-line flow as a change does: lint's
// pipeline over the open text, then the conversion to protocol ranges.
func BenchmarkDiagnostics(b *testing.B) {
	src := []byte(strings.Replace(bigFlow(500), "ask_0.content. }}", "ask_0.content.plann }}", 1))
	s := New(Options{})
	path := "/nonexistent/flows/big.yaml"
	texts := overlay{path: src}
	for b.Loop() {
		if got := toProtocol(s.lintDoc(path, texts), newText(src)); len(got) == 0 {
			b.Fatal("no diagnostics") // the return reads a field the form lacks
		}
	}
}

// benchProject writes a flows directory of 200 flows of about 100 lines
// and returns the path of a flow beside them, caller.yaml (not written),
// that calls one of them and reads a field its string result lacks.
func benchProject(b *testing.B) (path string, src []byte) {
	dir := filepath.Join(b.TempDir(), "flows")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	for i := range 200 {
		flow := strings.Replace(bigFlow(100), "name: big\n", fmt.Sprintf("name: flow_%d\n", i), 1)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("flow_%03d.yaml", i)), []byte(flow), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return filepath.Join(dir, "caller.yaml"), []byte(`name: caller
description: Calls a flow.
nodes:
  - id: sub
    call: flow_7
    with: {path: x}
  - return: "{{ sub.nope }}"
`)
}

// BenchmarkDiagnosticsInProject lints a flow that calls another, in a
// flows directory of 200 flows, as a change does. server: the language
// server, whose workspace parses and compiles the other flows once and
// then only lists and reads them; load: project.Load of the directory,
// what flowserve lint runs.
func BenchmarkDiagnosticsInProject(b *testing.B) {
	path, src := benchProject(b)
	texts := overlay{path: src}
	b.Run("server", func(b *testing.B) {
		s := New(Options{})
		for b.Loop() {
			got := toProtocol(s.lintDoc(path, texts), newText(src))
			if len(got) == 0 || got[0].diag.Code != "bad-expression" {
				b.Fatalf("diagnostics %+v, want bad-expression", got) // the callee's result is a string
			}
		}
	})
	b.Run("load", func(b *testing.B) {
		for b.Loop() {
			loadWith([]string{filepath.Dir(path)}, project.Options{CheckOnly: true}, path, string(src))
		}
	})
}

// BenchmarkCompletionInProject completes the flows after call: in a
// flows directory of 200 flows, the parses of the others kept: each
// request lists and reads the directory.
func BenchmarkCompletionInProject(b *testing.B) {
	path, src := benchProject(b)
	s := New(Options{})
	doc := &document{uri: pathURI(path), path: path}
	s.docs[doc.uri] = doc
	text := strings.Replace(string(src), "call: flow_7", "call: flow_1", 1)
	s.setText(doc, []byte(text))
	pos := posOf(b, text, "flow_1", 0, len("flow_1"))
	for b.Loop() {
		if items := complete(doc.snap, pos); len(items) != 200 {
			b.Fatalf("%d items", len(items))
		}
	}
}
