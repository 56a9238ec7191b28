package lsp

import (
	"fmt"
	"path/filepath"
	"slices"

	"github.com/flowserve/flowserve/dsl"
)

// didOpen starts tracking a document and lints it at once.
func (s *Server) didOpen(p *DidOpenTextDocumentParams) error {
	item := p.TextDocument
	if item.URI == "" {
		return fmt.Errorf("didOpen without a document URI")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	doc := s.docs[item.URI]
	if doc == nil {
		doc = &document{uri: item.URI, path: uriPath(item.URI)}
		s.docs[item.URI] = doc
	}
	doc.version = item.Version
	s.setText(doc, []byte(item.Text))
	s.scheduleLint(doc, 0)
	s.lintScopeLocked(doc)
	return nil
}

// didChange applies a document's changes, in order, and lints it again
// once the changes pause.
func (s *Server) didChange(p *DidChangeTextDocumentParams) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	doc := s.docs[p.TextDocument.URI]
	if doc == nil {
		return fmt.Errorf("didChange of %s, which is not open", p.TextDocument.URI)
	}
	src := doc.src
	for _, c := range p.ContentChanges {
		var err error
		if src, err = applyChange(src, c); err != nil {
			return fmt.Errorf("didChange of %s: %w", doc.uri, err)
		}
	}
	doc.version = p.TextDocument.Version
	s.setText(doc, src)
	s.scheduleLint(doc, s.opts.Debounce)
	s.lintScopeLocked(doc)
	return nil
}

// didClose stops tracking a document, cancels its lint runs and clears
// its diagnostics; the open documents of its scope are linted again,
// with the file on disk in its place.
func (s *Server) didClose(p *DidCloseTextDocumentParams) error {
	s.mu.Lock()
	doc := s.docs[p.TextDocument.URI]
	if doc == nil {
		s.mu.Unlock()
		return nil
	}
	doc.lint++
	if doc.timer != nil {
		doc.timer.Stop()
	}
	delete(s.docs, doc.uri)
	s.lintScopeLocked(doc)
	s.dropUnusedLocked()
	s.mu.Unlock()
	s.pubMu.Lock()
	defer s.pubMu.Unlock()
	s.notify("textDocument/publishDiagnostics", PublishDiagnosticsParams{URI: doc.uri, Diagnostics: []Diagnostic{}})
	return nil
}

// relintAll lints every open document again (files on disk changed),
// choosing their scopes again (a directory may have grown or gone).
func (s *Server) relintAll() {
	s.wsMu.Lock()
	clear(s.scopes)
	s.wsMu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, d := range s.docs {
		s.scheduleLint(d, s.opts.Debounce)
	}
}

// setText makes src doc's text. The caller holds s.mu.
func (s *Server) setText(doc *document, src []byte) {
	prev := doc.snap.lastGood()
	doc.src = src
	doc.snap = newSnapshot(doc.path, src, prev, s.opts.Actions)
	path := doc.path
	doc.snap.flows = func(self *dsl.File) dsl.FlowTable { return s.flowTable(path, self) }
}

// flowTable returns the flows of the scope of the document at path, self
// standing for it, read as they are now (the open documents' texts, the
// files on disk).
func (s *Server) flowTable(path string, self *dsl.File) dsl.FlowTable {
	s.mu.Lock()
	texts := s.overlayLocked()
	s.mu.Unlock()
	sp := s.spaceOf(path, texts)
	if sp == nil {
		return dsl.FlowTable{}
	}
	files := sp.flows(texts)
	at := slices.IndexFunc(files, func(f *dsl.File) bool { return f.Path == filepath.ToSlash(path) })
	switch {
	case at >= 0 && self != nil:
		files[at] = self
	case at >= 0:
		files = slices.Delete(files, at, at+1)
	case self != nil:
		files = append(files, self)
	}
	return dsl.NewFlowTable(files)
}

// snapshot returns the snapshot of doc's current text.
func (d *document) snapshot() *snapshot { return d.snap }

// docSnapshot returns the snapshot of the open document uri.
func (s *Server) docSnapshot(uri string) (*snapshot, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	doc := s.docs[uri]
	if doc == nil {
		return nil, errNotOpen(uri)
	}
	return doc.snap, nil
}

// errNotOpen is a request about a document the client has not opened.
func errNotOpen(uri string) error { return fmt.Errorf("%s is not open", uri) }
