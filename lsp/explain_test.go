package lsp

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/flowserve/flowserve/check/explain"
)

// misspeltFlow has an unknown key (line 5, from 0) and a type error in an
// expression (line 4, on nme), and nothing wrong on line 0.
const misspeltFlow = `description: Greets.
input: {type: object, properties: {name: {type: string}}}
nodes:
  - id: q
    ask: "Hello {{ input.nme }}"
    from: {ok: {type: boolean}}
  - return: "{{ input.name }}"
`

// unboundFlow reads q where it may not have run (line 10, on q).
const unboundFlow = `description: Greets.
input: {type: object, properties: {quick: {type: boolean}}, required: [quick]}
nodes:
  - branch:
      - if: input.quick
        then: done
  - id: q
    ask: Hello?
    form: {ok: {type: boolean}}
  - id: done
    return: "{{ q.action }}"
`

// TestHoverExplainsDiagnostics hovers over diagnostics: the hover holds
// the explanation of each code there, as flowserve lint --explain prints
// it, after what the hover says of the spot (a read's type); off every
// diagnostic it holds none.
func TestHoverExplainsDiagnostics(t *testing.T) {
	c := initialized(t, time.Millisecond)
	dir := t.TempDir()
	text := func(code string) string {
		e, ok := explain.Lookup(code)
		if !ok {
			t.Fatalf("no explanation of %s", code)
		}
		return strings.TrimRight(e.Text, "\n")
	}
	tests := []struct {
		name      string
		src       string
		line, col int
		want      []string // each must appear, in this order
		dont      []string
	}{
		{"on an unknown key", misspeltFlow, 5, 5, []string{text("unknown-key")}, []string{"# bad-expression"}},
		{"on a type error", misspeltFlow, 4, 26, []string{text("bad-expression")}, []string{"# unknown-key"}},
		{"after the type of a read", unboundFlow, 10, 19, []string{"q.action: string", "---", text("maybe-unbound")}, nil},
		{"off the diagnostics", misspeltFlow, 0, 2, nil, []string{"## Why"}},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			uri := open(t, c, filepath.Join(dir, fmt.Sprintf("f%d.yaml", i)), tc.src)
			c.waitDiagnostics(uri)
			var h *Hover
			params := TextDocumentPositionParams{TextDocument: TextDocumentIdentifier{URI: uri}, Position: Position{Line: tc.line, Character: tc.col}}
			if msg := c.call("textDocument/hover", params, &h); msg != "" {
				t.Fatal(msg)
			}
			got := ""
			if h != nil {
				got = h.Contents.Value
			}
			at := 0
			for _, w := range tc.want {
				i := strings.Index(got[at:], w)
				if i < 0 {
					t.Fatalf("hover lacks (in order) %q:\n%s", w, got)
				}
				at += i + len(w)
			}
			for _, d := range tc.dont {
				if strings.Contains(got, d) {
					t.Errorf("hover has %q:\n%s", d, got)
				}
			}
			if len(tc.want) > 0 && (h.Range == nil || h.Range.Start.Line != tc.line) {
				t.Errorf("hover range %+v, want on line %d", h.Range, tc.line)
			}
		})
	}
}

// TestWithExplanations adds explanations to hovers: each code once, none
// for a code without one, the hover kept as it is when there is none.
func TestWithExplanations(t *testing.T) {
	r := Range{Start: Position{Line: 2, Character: 4}, End: Position{Line: 2, Character: 8}}
	typeHover := &Hover{Contents: markdown("```\nx: string\n```"), Range: &Range{}}
	d := func(code string) Diagnostic { return Diagnostic{Range: r, Code: code} }
	tests := []struct {
		name   string
		h      *Hover
		diags  []Diagnostic
		titles int // "# " explanations in the hover; -1: the hover is h itself
	}{
		{"no diagnostics", typeHover, nil, -1},
		{"nothing at all", nil, nil, -1},
		{"a code without an explanation", typeHover, []Diagnostic{d("wrong-answer")}, -1},
		{"two of a code", nil, []Diagnostic{d("unknown-key"), d("unknown-key")}, 1},
		{"two codes, after the type", typeHover, []Diagnostic{d("unknown-key"), d("bad-expression")}, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := withExplanations(tc.h, tc.diags)
			if tc.titles < 0 {
				if got != tc.h {
					t.Fatalf("hover %+v, want %+v", got, tc.h)
				}
				return
			}
			text := got.Contents.Value
			if n := strings.Count(text, "\n## Why\n"); n != tc.titles {
				t.Errorf("%d explanations, want %d:\n%s", n, tc.titles, text)
			}
			if tc.h != nil && !strings.HasPrefix(text, tc.h.Contents.Value+"\n\n---\n\n# ") {
				t.Errorf("the hover's own text is not first:\n%s", text)
			}
			if tc.h == nil && (got.Range == nil || *got.Range != r) {
				t.Errorf("range %+v, want the diagnostic's %+v", got.Range, r)
			}
		})
	}
}
