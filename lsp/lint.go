package lsp

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/flowserve/flowserve/dsl"
	"github.com/flowserve/flowserve/project"
	"github.com/flowserve/flowserve/resources"
)

// maxSiblings is the most files of a directory linted together with an
// open document; a directory with more is linted one document at a time
// (its cross-file checks, such as duplicate-tool, are then left to
// flowserve lint).
const maxSiblings = 200

// lintPaths returns what flowserve lint is given for the document at
// path: the flow files and resource declarations of its directory
// (project.IsFlowFile, resources.IsDeclarationFile), open ones included,
// so that the checks across files (names defined twice) see its
// neighbours; the file alone when it is not in such a directory. A test
// file (*_test.yaml) is no flow: it gets no paths and no diagnostics.
func lintPaths(path string, overlay overlayFS) []string {
	base := filepath.Base(path)
	ext := filepath.Ext(base)
	if (ext == ".yaml" || ext == ".yml") && strings.HasSuffix(strings.TrimSuffix(base, ext), "_test") {
		return nil
	}
	if !filepath.IsAbs(path) || !(project.IsFlowFile(base) || resources.IsDeclarationFile(base)) {
		return []string{path}
	}
	dir := filepath.Dir(path)
	paths := []string{path}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if !e.IsDir() && (project.IsFlowFile(e.Name()) || resources.IsDeclarationFile(e.Name())) {
			paths = append(paths, filepath.Join(dir, e.Name()))
		}
	}
	for p := range overlay {
		if filepath.Dir(p) == dir && (project.IsFlowFile(filepath.Base(p)) || resources.IsDeclarationFile(filepath.Base(p))) {
			paths = append(paths, p)
		}
	}
	slices.Sort(paths)
	paths = slices.Compact(paths)
	if len(paths) > maxSiblings {
		return []string{path}
	}
	return paths
}

// lint runs flowserve lint's pipeline (project.Load) over paths, reading
// the open documents from overlay, and returns the diagnostics by file.
func (s *Server) lint(paths []string, overlay overlayFS) map[string]dsl.Diagnostics {
	out := map[string]dsl.Diagnostics{}
	if len(paths) == 0 {
		return out
	}
	_, diags := project.Load(paths, project.Options{Actions: s.opts.Actions, FS: overlay})
	for _, d := range diags {
		out[d.Pos.File] = append(out[d.Pos.File], d)
	}
	return out
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
// meanwhile, and publishes the diagnostics of it and of the other open
// documents the run covered. Runs take turns; a run that finds itself
// stale when its turn comes, or once it is done, publishes nothing.
func (s *Server) lintNow(uri string, gen int) {
	s.lintTurn <- struct{}{}
	defer func() { <-s.lintTurn }()
	s.mu.Lock()
	doc, ok := s.docs[uri]
	if !ok || doc.lint != gen {
		s.mu.Unlock()
		return
	}
	overlay, versions := s.overlayLocked()
	path := doc.path
	s.mu.Unlock()

	paths := lintPaths(path, overlay)
	byFile := s.lint(paths, overlay)

	s.pubMu.Lock()
	defer s.pubMu.Unlock()
	s.mu.Lock()
	var notes []PublishDiagnosticsParams
	for _, d := range s.docs {
		covered := d.uri == uri || slices.Contains(paths, d.path)
		if !covered || d.version != versions[d.uri] || (d.uri == uri && d.lint != gen) {
			continue
		}
		notes = append(notes, s.setPublishedLocked(d, byFile[d.path]))
	}
	s.mu.Unlock()
	for _, n := range notes {
		s.notify("textDocument/publishDiagnostics", n)
	}
	if s.opts.onLint != nil {
		s.opts.onLint(uri)
	}
}

// overlayLocked returns the texts of the open documents by path, and
// their versions by URI. The caller holds s.mu.
func (s *Server) overlayLocked() (overlayFS, map[string]int) {
	overlay := overlayFS{}
	versions := map[string]int{}
	for _, d := range s.docs {
		overlay[d.path] = d.src
		versions[d.uri] = d.version
	}
	return overlay, versions
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
	overlay, _ := s.overlayLocked()
	path, version, t := doc.path, doc.version, doc.snapshot().text
	s.mu.Unlock()
	byFile := s.lint(lintPaths(path, overlay), overlay)
	s.mu.Lock()
	if doc.version != version {
		return nil
	}
	return toProtocol(byFile[path], t)
}
