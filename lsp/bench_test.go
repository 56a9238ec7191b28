package lsp

import (
	"fmt"
	"strings"
	"testing"

	"github.com/flowserve/flowserve/actions"
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
	overlay := overlayFS{path: src}
	for b.Loop() {
		byFile := s.lint(lintPaths(path, overlay), overlay)
		if got := toProtocol(byFile[path], newText(src)); len(got) == 0 {
			b.Fatal("no diagnostics") // the return reads a field the form lacks
		}
	}
}
