package lsp

import (
	"bytes"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/flowserve/flowserve/dsl"
	"github.com/flowserve/flowserve/project"
	"github.com/flowserve/flowserve/resources"
)

// The scope of a document is the paths flowserve lint is given with it:
// the nearest directory named flows that holds it (serve and lint are
// pointed at a flows directory, and take its subdirectories too), or its
// own directory when there is none, and the document itself when that
// directory's walk does not find it (it is in a hidden directory). A
// project.Workspace of those paths lints it, with the open documents'
// texts in its overlay: what the server publishes is what lint prints,
// by construction. Its calls find their callees there, its name is
// checked against theirs.

// maxScopeFiles is the most files a scope's directory may hold; a bigger
// one (a document in a home directory, say) is cut down to the
// document's own directory, and to the document alone when that is too
// big as well. Checks across those files are then left to flowserve lint.
const maxScopeFiles = 1000

// overlay is the texts of the open documents, by path.
type overlay map[string][]byte

// space is the workspace of a scope, with the texts the server last put
// in its overlay.
type space struct {
	mu    sync.Mutex // one use at a time: the overlay synced, then read
	ws    *project.Workspace
	texts overlay
}

// isTestFile reports whether path is a flow test file (*_test.yaml):
// no flow, so it gets no diagnostics. It is a YAML file that a directory
// holds as neither a flow nor a declaration (see project.IsFlowFile).
func isTestFile(path string) bool {
	base := filepath.Base(path)
	ext := filepath.Ext(base)
	return (ext == ".yaml" || ext == ".yml") && !project.IsFlowFile(base) && !resources.IsDeclarationFile(base)
}

// scopeRoot returns the directory whose files are linted with the
// document at path: the nearest ancestor named flows, else its own
// directory.
func scopeRoot(path string) string {
	dir := filepath.Dir(path)
	for d := dir; ; {
		if filepath.Base(d) == "flows" {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return dir
		}
		d = parent
	}
}

// scopeOf returns the scope of the document at path, the open documents
// of texts among the files (saved or not). A test file has none (nil); a
// document that is not an absolute path, or not a flow file or
// declaration by its name, is alone, and so is one whose directories
// are too big (see maxScopeFiles) or cannot be walked.
func scopeOf(path string, texts overlay) []string {
	if isTestFile(path) {
		return nil
	}
	base := filepath.Base(path)
	alone := []string{path}
	if !filepath.IsAbs(path) || !(project.IsFlowFile(base) || resources.IsDeclarationFile(base)) {
		return alone
	}
	for _, dir := range slices.Compact([]string{scopeRoot(path), filepath.Dir(path)}) {
		ws := project.NewWorkspace([]string{dir}, project.Options{})
		for p, src := range texts {
			ws.SetOverlay(p, src)
		}
		files, fits := ws.Files(maxScopeFiles)
		if !fits {
			continue
		}
		if slices.Contains(files.Flows, filepath.ToSlash(path)) || slices.Contains(files.Resources, filepath.ToSlash(path)) {
			return []string{dir}
		}
		return []string{dir, path} // a hidden directory's file is linted with the flows around it too
	}
	return alone
}

// mayHold reports whether a change to the file p may change the
// diagnostics of a document whose scope is paths: p is one of them, or
// below one, or beside one (where the flows a file calls are pulled in
// from).
func mayHold(paths []string, p string) bool {
	for _, q := range paths {
		if p == q || strings.HasPrefix(p, q+string(filepath.Separator)) || filepath.Dir(p) == filepath.Dir(q) {
			return true
		}
	}
	return false
}

// spaceOf returns the space of the document at path, choosing its scope
// (with the open documents texts) the first time; nil for a test file.
func (s *Server) spaceOf(path string, texts overlay) *space {
	s.wsMu.Lock()
	paths, chosen := s.scopes[path]
	s.wsMu.Unlock()
	if !chosen {
		paths = scopeOf(path, texts) // walks: outside the lock
	}
	if paths == nil {
		return nil
	}
	key := strings.Join(paths, "\x00")
	s.wsMu.Lock()
	defer s.wsMu.Unlock()
	s.scopes[path] = paths
	sp := s.spaces[key]
	if sp == nil {
		sp = &space{ws: project.NewWorkspace(paths, project.Options{Actions: s.opts.Actions, CheckOnly: true}), texts: overlay{}}
		s.spaces[key] = sp
	}
	return sp
}

// dropUnusedLocked forgets the scopes of the documents no longer open
// and the spaces no open document's scope is. The caller holds s.mu.
func (s *Server) dropUnusedLocked() {
	s.wsMu.Lock()
	defer s.wsMu.Unlock()
	open := map[string]bool{}
	for _, d := range s.docs {
		open[d.path] = true
	}
	used := map[string]bool{}
	for path, paths := range s.scopes {
		if !open[path] {
			delete(s.scopes, path)
			continue
		}
		used[strings.Join(paths, "\x00")] = true
	}
	for key := range s.spaces {
		if !used[key] {
			delete(s.spaces, key)
		}
	}
}

// sync makes texts the overlay of sp's workspace. The caller holds sp.mu.
func (sp *space) sync(texts overlay) {
	for p := range sp.texts {
		if _, open := texts[p]; !open {
			sp.ws.ClearOverlay(p)
			delete(sp.texts, p)
		}
	}
	for p, src := range texts {
		if old, ok := sp.texts[p]; !ok || !bytes.Equal(old, src) {
			sp.ws.SetOverlay(p, src)
			sp.texts[p] = src
		}
	}
}

// lint returns the diagnostics of the file path that loading sp's scope
// with texts in place of their files gives.
func (sp *space) lint(texts overlay, path string) dsl.Diagnostics {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	sp.sync(texts)
	return sp.ws.Diagnostics(path)
}

// flows returns the parsed flows of sp's scope, with texts in place of
// their files, in file order.
func (sp *space) flows(texts overlay) []*dsl.File {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	sp.sync(texts)
	return sp.ws.Flows()
}
