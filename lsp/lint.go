package lsp

import (
	"time"

	"github.com/flowserve/flowserve/dsl"
)

// lintDoc returns flowserve lint's diagnostics of the document at path:
// those the workspace of its scope (see scopeOf) gives it
// (project.Workspace.Diagnostics), with the open documents' texts (texts)
// in place of their files. A test file (*_test.yaml) gets none.
func (s *Server) lintDoc(path string, texts overlay) dsl.Diagnostics {
	sp := s.spaceOf(path, texts)
	if sp == nil {
		return nil
	}
	return sp.lint(texts, path)
}

// toProtocol converts the diagnostics of one document.
func toProtocol(diags dsl.Diagnostics, t *text) []published {
	out := make([]published, 0, len(diags))
	for _, d := range diags {
		start, end := diagRange(d, t)
		sev := SeverityError
		if d.Severity == dsl.Warning {
			sev = SeverityWarning
		}
		out = append(out, published{
			diag: Diagnostic{
				Range:    t.posRange(start, end),
				Severity: sev,
				Code:     d.Code,
				Source:   "flowserve",
				Message:  d.Message,
			},
			fixes: diagFixes(d, t),
		})
	}
	return out
}

// scheduleLint asks for a lint run of doc after delay (the debounce
// delay after a change, none on open); a change before then asks again,
// and the earlier run never starts. The caller holds s.mu.
func (s *Server) scheduleLint(doc *document, delay time.Duration) {
	doc.lint++
	gen, uri := doc.lint, doc.uri
	if doc.timer != nil {
		doc.timer.Stop()
	}
	doc.timer = time.AfterFunc(delay, func() { s.lintNow(uri, gen) })
}

// lintNow lints the document uri, unless a newer run was asked for
// meanwhile, and publishes its diagnostics. Runs take turns; a run that
// finds itself stale when its turn comes, or once it is done, publishes
// nothing.
func (s *Server) lintNow(uri string, gen int) {
	s.lintTurn <- struct{}{}
	defer func() { <-s.lintTurn }()
	s.mu.Lock()
	doc, ok := s.docs[uri]
	if !ok || doc.lint != gen {
		s.mu.Unlock()
		return
	}
	overlay := s.overlayLocked()
	path, version := doc.path, doc.version
	s.mu.Unlock()

	diags := s.lintDoc(path, overlay)

	s.pubMu.Lock()
	defer s.pubMu.Unlock()
	s.mu.Lock()
	if s.docs[uri] != doc || doc.lint != gen || doc.version != version {
		s.mu.Unlock()
		return
	}
	note := s.setPublishedLocked(doc, diags)
	s.mu.Unlock()
	s.notify("textDocument/publishDiagnostics", note)
	if s.opts.onLint != nil {
		s.opts.onLint(uri)
	}
}

// lintScopeLocked asks for a lint run, after the debounce delay, of each
// open document other than doc whose scope may hold doc: what doc says
// (its name, its input and output) is part of their diagnostics. The
// caller holds s.mu.
func (s *Server) lintScopeLocked(doc *document) {
	s.wsMu.Lock()
	defer s.wsMu.Unlock()
	for _, d := range s.docs {
		if paths, chosen := s.scopes[d.path]; d != doc && (!chosen || mayHold(paths, doc.path)) {
			s.scheduleLint(d, s.opts.Debounce)
		}
	}
}

// overlayLocked returns the texts of the open documents by path. The
// caller holds s.mu.
func (s *Server) overlayLocked() overlay {
	texts := overlay{}
	for _, d := range s.docs {
		texts[d.path] = d.src
	}
	return texts
}

// setPublishedLocked records diags as doc's published diagnostics and
// returns the notification that publishes them. The caller holds s.mu.
func (s *Server) setPublishedLocked(doc *document, diags dsl.Diagnostics) PublishDiagnosticsParams {
	doc.published = toProtocol(diags, doc.snapshot().text)
	doc.publishedVersion = doc.version
	v := doc.version
	list := make([]Diagnostic, len(doc.published))
	for i, p := range doc.published {
		list[i] = p.diag
	}
	return PublishDiagnosticsParams{URI: doc.uri, Version: &v, Diagnostics: list}
}

// currentDiagnostics returns doc's diagnostics for its current version:
// the published ones, or those of a lint run made now when the document
// changed since. The caller holds s.mu, which it releases during the run.
func (s *Server) currentDiagnostics(doc *document) []published {
	if doc.publishedVersion == doc.version && doc.published != nil {
		return doc.published
	}
	overlay := s.overlayLocked()
	path, version, t := doc.path, doc.version, doc.snapshot().text
	s.mu.Unlock()
	diags := s.lintDoc(path, overlay)
	s.mu.Lock()
	if doc.version != version {
		return nil
	}
	return toProtocol(diags, t)
}
