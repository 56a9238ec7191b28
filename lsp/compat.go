package lsp

import "github.com/flowserve/flowserve/dsl"

// This file is where the server meets the diagnostics' ranges and fixes:
// dsl.Diagnostic carries End and Fixes (project.Load sets the ends of
// those whose makers did not know them), and Range works out an end from
// the source when there is none.

// fix is a mechanical change that resolves a diagnostic: the text from
// Pos to End (exclusive) replaced by NewText.
type fix = dsl.Fix

// diagRange returns where d is in t, from its start to its end
// (exclusive); an unknown end makes an empty range at the start.
func diagRange(d dsl.Diagnostic, t *text) (start, end dsl.Pos) {
	start, end = d.Range(t.src)
	if !end.IsValid() {
		end = start
	}
	return start, end
}

// diagFixes returns the fixes of d.
func diagFixes(d dsl.Diagnostic, _ *text) []fix { return d.Fixes }
