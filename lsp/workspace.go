package lsp

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/flowserve/flowserve/dsl"
	"github.com/flowserve/flowserve/project"
	"github.com/flowserve/flowserve/resources"
)

// The scope of a document is the set of files flowserve lint is given
// with it: the flow files and resource declarations of the nearest
// directory named flows that holds it (serve and lint are pointed at a
// flows directory, and take its subdirectories too), or of its own
// directory when there is none, walked as project.Discover walks a
// directory (hidden directories skipped). Its calls find their callees
// there, its name is checked against theirs.

// maxScopeFiles is the most files a scope may have; a bigger one (a
// document in a home directory, say) is cut down to the document's own
// directory, and to the document alone when that is too big as well.
// Checks across those files are then left to flowserve lint.
const maxScopeFiles = 1000

// maxScopeEntries bounds the directory entries a scope's walk reads
// before it gives up, so that a document in a big tree costs little.
const maxScopeEntries = 20 * maxScopeFiles

// scope is the files linted with a document.
type scope struct {
	root  string   // the directory walked; "" for a document alone
	flows []string // flow files, sorted, the document's own among them when it is one
	decls []string // resource declaration files, sorted
}

// isTestFile reports whether path is a flow test file (*_test.yaml):
// no flow, so it gets no diagnostics.
func isTestFile(path string) bool {
	base := filepath.Base(path)
	ext := filepath.Ext(base)
	return (ext == ".yaml" || ext == ".yml") && strings.HasSuffix(strings.TrimSuffix(base, ext), "_test")
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

// scopeOf returns the scope of the document at path, with the open
// documents of overlay that are in it (saved or not). A test file has
// none (nil flows and declarations); a document that is not an absolute
// path, or not a flow file or declaration by its name, is alone.
func scopeOf(path string, overlay overlayFS) scope {
	if isTestFile(path) {
		return scope{}
	}
	base := filepath.Base(path)
	alone := scope{flows: []string{path}}
	if resources.IsDeclarationFile(base) {
		alone = scope{decls: []string{path}}
	}
	if !filepath.IsAbs(path) || !(project.IsFlowFile(base) || resources.IsDeclarationFile(base)) {
		return alone
	}
	root := scopeRoot(path)
	sc, ok := walkScope(root, path, overlay)
	if !ok && root != filepath.Dir(path) {
		sc, ok = walkScope(filepath.Dir(path), path, overlay)
	}
	if !ok {
		return alone
	}
	return sc
}

// walkScope lists the scope of path under root; ok is false when it is
// too big.
func walkScope(root, path string, overlay overlayFS) (scope, bool) {
	sc := scope{root: root}
	entries := 0
	add := func(p string) bool {
		name := filepath.Base(p)
		switch {
		case resources.IsDeclarationFile(name):
			sc.decls = append(sc.decls, p)
		case project.IsFlowFile(name):
			sc.flows = append(sc.flows, p)
		default:
			return true
		}
		return len(sc.flows)+len(sc.decls) <= maxScopeFiles
	}
	tooBig := false
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // what cannot be read, lint reports as unreadable; the document's scope does without it
		}
		if entries++; entries > maxScopeEntries {
			tooBig = true
			return filepath.SkipAll
		}
		if d.IsDir() {
			if p != root && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			return nil
		}
		if !add(p) {
			tooBig = true
			return filepath.SkipAll
		}
		return nil
	})
	if tooBig {
		return scope{}, false
	}
	for p := range overlay {
		if p != path && inScope(root, p) && !add(p) {
			return scope{}, false
		}
	}
	// The document itself, wherever it is: a hidden directory's file is
	// linted with the flows around it too.
	if base := filepath.Base(path); resources.IsDeclarationFile(base) {
		sc.decls = append(sc.decls, path)
	} else {
		sc.flows = append(sc.flows, path)
	}
	slices.Sort(sc.flows)
	slices.Sort(sc.decls)
	sc.flows = slices.Compact(sc.flows)
	sc.decls = slices.Compact(sc.decls)
	return sc, len(sc.flows)+len(sc.decls) <= maxScopeFiles
}

// inScope reports whether the file p is one a walk of root finds: below
// it, in no hidden directory.
func inScope(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	if err != nil || rel == "." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || rel == ".." {
		return false
	}
	dir := filepath.Dir(rel)
	if dir == "." {
		return true
	}
	for _, d := range strings.Split(dir, string(filepath.Separator)) {
		if strings.HasPrefix(d, ".") {
			return false
		}
	}
	return true
}

// workspace keeps the parsed flow files of the documents' scopes, so that
// a lint run or a completion parses again only what changed: an open
// document whose text is that of the last parse, or a file on disk whose
// size and modification time are those it had then, keeps that parse.
type workspace struct {
	mu     sync.Mutex
	parsed map[string]*parsedFile
}

// parsedFile is one file as last parsed.
type parsedFile struct {
	src  []byte
	f    *dsl.File // nil when its YAML cannot be read
	disk fs.FileInfo
}

// newWorkspace returns an empty workspace.
func newWorkspace() *workspace { return &workspace{parsed: map[string]*parsedFile{}} }

// read returns the text of path: the open document's, else the file's;
// ok is false when it cannot be read.
func read(path string, overlay overlayFS) ([]byte, bool) {
	if src, ok := overlay[path]; ok {
		return src, true
	}
	src, err := os.ReadFile(path)
	return src, err == nil
}

// file returns the parse of the flow file at path, the open document's
// text when it is one; nil when it cannot be read or its YAML cannot. The
// file is shared: callers read it and never check or compile it
// (dsl.Check records what it found in the file).
func (w *workspace) file(path string, overlay overlayFS) *dsl.File {
	w.mu.Lock()
	p := w.parsed[path]
	w.mu.Unlock()
	src, open := overlay[path]
	var info fs.FileInfo
	if !open {
		var err error
		if info, err = os.Stat(path); err != nil {
			return nil
		}
		if p != nil && p.disk != nil && sameFile(p.disk, info) {
			return p.f
		}
		if src, err = os.ReadFile(path); err != nil {
			return nil
		}
	}
	if p != nil && bytes.Equal(p.src, src) {
		w.store(path, &parsedFile{src: p.src, f: p.f, disk: info})
		return p.f
	}
	f, _ := dsl.Parse(path, src)
	w.store(path, &parsedFile{src: bytes.Clone(src), f: f, disk: info})
	return f
}

// store records the parse of path.
func (w *workspace) store(path string, p *parsedFile) {
	w.mu.Lock()
	w.parsed[path] = p
	w.mu.Unlock()
}

// sameFile reports whether a and b describe the same version of a file.
func sameFile(a, b fs.FileInfo) bool {
	return a.Size() == b.Size() && a.ModTime().Equal(b.ModTime())
}

// files returns the parsed flows of sc in order, the files that cannot be
// read or parsed left out, with self standing for the file at selfPath
// (the document's own parse, never the shared one).
func (w *workspace) files(sc scope, overlay overlayFS, selfPath string, self *dsl.File) []*dsl.File {
	out := make([]*dsl.File, 0, len(sc.flows))
	for _, p := range sc.flows {
		if p == selfPath {
			if self != nil {
				out = append(out, self)
			}
			continue
		}
		if f := w.file(p, overlay); f != nil {
			out = append(out, f)
		}
	}
	w.forget(sc)
	return out
}

// forget drops the parses of files under sc's root that sc no longer
// holds (deleted or renamed files).
func (w *workspace) forget(sc scope) {
	if sc.root == "" {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for p := range w.parsed {
		if _, found := slices.BinarySearch(sc.flows, p); !found && inScope(sc.root, p) {
			delete(w.parsed, p)
		}
	}
}

// reset drops every parse (files on disk changed).
func (w *workspace) reset() {
	w.mu.Lock()
	defer w.mu.Unlock()
	clear(w.parsed)
}
