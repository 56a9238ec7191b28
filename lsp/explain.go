package lsp

import (
	"slices"
	"strings"

	"github.com/flowserve/flowserve/check/explain"
)

// diagnosticsAt returns the diagnostics of the current version of the
// open document uri whose range holds pos (its ends included), as
// codeAction finds them; nil when the document is not open.
func (s *Server) diagnosticsAt(uri string, pos Position) []Diagnostic {
	s.mu.Lock()
	defer s.mu.Unlock()
	doc := s.docs[uri]
	if doc == nil {
		return nil
	}
	var out []Diagnostic
	for _, p := range s.currentDiagnostics(doc) {
		if overlaps(p.diag.Range, Range{Start: pos, End: pos}) {
			out = append(out, p.diag)
		}
	}
	return out
}

// withExplanations returns h with the explanation of the code of each of
// diags after what it says (the text flowserve lint --explain prints),
// each code once, separated by rules; the hover's range is the first
// diagnostic's when h has none. h may be nil, and is returned as it is
// when no diagnostic has an explanation.
func withExplanations(h *Hover, diags []Diagnostic) *Hover {
	var parts, seen []string
	for _, d := range diags {
		if slices.Contains(seen, d.Code) {
			continue
		}
		seen = append(seen, d.Code)
		if e, ok := explain.Lookup(d.Code); ok {
			parts = append(parts, strings.TrimRight(e.Text, "\n"))
		}
	}
	if len(parts) == 0 {
		return h
	}
	text := strings.Join(parts, "\n\n---\n\n")
	if h == nil {
		r := diags[0].Range
		return &Hover{Contents: markdown(text), Range: &r}
	}
	out := *h
	out.Contents = markdown(h.Contents.Value + "\n\n---\n\n" + text)
	return &out
}
