package lsp

// codeAction answers textDocument/codeAction: each fix of each diagnostic
// of the document's current version that touches the range, as a
// quickfix that edits the document.
func (s *Server) codeAction(p *CodeActionParams) ([]CodeAction, error) {
	out := []CodeAction{}
	if len(p.Context.Only) > 0 && !wantsQuickfix(p.Context.Only) {
		return out, nil
	}
	s.mu.Lock()
	doc := s.docs[p.TextDocument.URI]
	if doc == nil {
		s.mu.Unlock()
		return nil, errNotOpen(p.TextDocument.URI)
	}
	diags := s.currentDiagnostics(doc)
	t := doc.snap.text
	s.mu.Unlock()
	for _, d := range diags {
		if !overlaps(d.diag.Range, p.Range) {
			continue
		}
		for _, f := range d.fixes {
			out = append(out, CodeAction{
				Title:       f.Title,
				Kind:        "quickfix",
				Diagnostics: []Diagnostic{d.diag},
				IsPreferred: len(d.fixes) == 1,
				Edit: &WorkspaceEdit{Changes: map[string][]TextEdit{
					p.TextDocument.URI: {{Range: t.posRange(f.Pos, f.End), NewText: f.NewText}},
				}},
			})
		}
	}
	return out, nil
}

// wantsQuickfix reports whether kinds asks for quickfixes.
func wantsQuickfix(kinds []string) bool {
	for _, k := range kinds {
		if k == "quickfix" || k == "" {
			return true
		}
	}
	return false
}

// overlaps reports whether a and b share a position (ranges that touch
// count: a cursor at a diagnostic's end is on it).
func overlaps(a, b Range) bool {
	return !before(a.End, b.Start) && !before(b.End, a.Start)
}

// before reports whether p is before q.
func before(p, q Position) bool {
	return p.Line < q.Line || (p.Line == q.Line && p.Character < q.Character)
}
