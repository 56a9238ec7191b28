package project

import (
	"bytes"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/flowserve/flowserve/check/codes"
	"github.com/flowserve/flowserve/dsl"
	"github.com/flowserve/flowserve/flow"
)

// Workspace is a project loaded again as its files change: what its
// paths stand for, read through an overlay of texts not saved yet (an
// editor's buffers), each [Workspace.Load] running Load's stages in
// Load's order, so that its diagnostics are Load's (flowserve lint's) for
// the same texts. [Load] is a Workspace loaded once. A load reads every
// file again, but parses and checks again only the files whose text
// changed, and checks calls and compiles again only the flows whose file
// changed or that call, directly or not, a flow whose file changed (or a
// name no flow had, or has, since an unknown name's suggestions come
// from every name); [Workspace.Diagnostics] works out one file's alone.
// It is safe for concurrent use; loads take turns.
type Workspace struct {
	paths []string
	opts  Options

	omu   sync.Mutex
	texts map[string][]byte // the overlay, by overlayName

	mu  sync.Mutex // one load at a time
	cmu sync.Mutex // guards the caches, which a load's goroutines share
	// parses are the flow files as last parsed, by path; checks what
	// checkFlow last gave each flow, by path.
	parses map[string]*parse
	checks map[string]*checked
	used   map[string]bool // the paths the running Load read; nil outside Load
	gen    atomic.Uint64
}

// parse is what parsing one flow file gave, for its text, and checking
// it once a load needed that (a flow's own diagnostics need Check's; the
// others' names, calls and schemas do not).
type parse struct {
	src     []byte
	f       *dsl.File
	parsed  dsl.Diagnostics // Parse's
	checks  dsl.Diagnostics // Check's, once checked
	checked bool
	gen     uint64 // tells this parse from every other
}

// checked is what checkFlow gave one flow, and what that depended on
// (see depKey).
type checked struct {
	key   string
	p     *flow.Program
	diags dsl.Diagnostics
}

// NewWorkspace returns a Workspace of paths (see [Discover]) loaded with
// opts, with an empty overlay; nothing is read before the first load.
func NewWorkspace(paths []string, opts Options) *Workspace {
	return &Workspace{paths: slices.Clone(paths), opts: opts, texts: map[string][]byte{},
		parses: map[string]*parse{}, checks: map[string]*checked{}}
}

// Paths returns the paths the Workspace loads.
func (w *Workspace) Paths() []string { return slices.Clone(w.paths) }

// SetOverlay makes src the text of the file at path for the loads that
// follow, in place of the file (whether or not it exists: a directory
// the paths stand for lists it), until ClearOverlay.
func (w *Workspace) SetOverlay(path string, src []byte) {
	w.omu.Lock()
	defer w.omu.Unlock()
	w.texts[overlayName(path)] = bytes.Clone(src)
}

// ClearOverlay lets the loads that follow read the file at path again.
func (w *Workspace) ClearOverlay(path string) {
	w.omu.Lock()
	defer w.omu.Unlock()
	delete(w.texts, overlayName(path))
}

// fsys returns the file system a load reads: Options.FS with the
// overlay's texts of now.
func (w *Workspace) fsys() fs.FS {
	w.omu.Lock()
	defer w.omu.Unlock()
	if len(w.texts) == 0 {
		return w.opts.fsys()
	}
	return overlayFS{base: w.opts.fsys(), texts: maps.Clone(w.texts)}
}

// Files returns the files the paths stand for now, the overlay's texts
// among them, as a load finds them (before the flows pulled in for
// calls). fits is false when there are more than max of them (max > 0),
// found reading more than 20 times as many directory entries, or when
// they cannot all be found (a path missing, a directory unreadable): an
// editor then loads a smaller part of the project.
func (w *Workspace) Files(max int) (files Files, fits bool) {
	files, diags, fits := discover(w.fsys(), w.paths, max)
	return files, fits && !diags.HasErrors()
}

// Load loads the paths as [Load] does, with the overlay's texts in place
// of their files, and returns the same Set and diagnostics as Load of the
// same texts (a Set with Programs only when Options.CheckOnly is false).
func (w *Workspace) Load() (*Set, dsl.Diagnostics) {
	return w.load("")
}

// Diagnostics returns the diagnostics Load gives for the file at path (a
// flow or a declaration file), working out no more than they need: every
// flow is parsed, since names and calls cross files, but only the flow at
// path is checked (check.File), has its calls checked and is compiled, and
// no program is linked. An editor lints the document open in it with
// Diagnostics.
func (w *Workspace) Diagnostics(path string) dsl.Diagnostics {
	path = overlayName(path)
	_, diags := w.load(path)
	return slices.DeleteFunc(diags, func(d dsl.Diagnostic) bool { return d.Pos.File != path })
}

// load is Load, checking and compiling only the flow at the path only
// when it is not "".
func (w *Workspace) load(only string) (*Set, dsl.Diagnostics) {
	w.mu.Lock()
	defer w.mu.Unlock()
	fsys := w.fsys()
	files, diags, _ := discover(fsys, w.paths, 0)
	set := &Set{Files: files}
	if diags.HasErrors() {
		diags.Sort()
		return set, diags
	}
	if len(files.Flows)+len(files.Resources) == 0 {
		return set, dsl.Diagnostics{{Severity: dsl.Error, Code: codes.NoFlows,
			Message: fmt.Sprintf("no flow files (*.yaml, *.yml) or resource declarations in %s", strings.Join(w.paths, ", "))}}
	}
	w.used = map[string]bool{}
	defer w.forget()
	for _, r := range w.loadFlows(fsys, files.Flows, only) {
		f, p, ds := r.f, r.p, r.diags
		if r.pulled {
			set.Files.Flows = append(set.Files.Flows, f.Path)
		}
		if f != nil && w.opts.Values != nil {
			if missing := missingValues(f, w.opts.Values); len(missing) > 0 {
				missing.SetEnds(f.Path, f.Source)
				ds, p = append(ds, missing...), nil
			}
		}
		diags = append(diags, ds...)
		if f != nil {
			set.Parsed = append(set.Parsed, f)
		}
		if p != nil {
			set.Programs = append(set.Programs, p)
		}
	}
	if only == "" {
		link(set.Programs) // not a part of them: programs kept for a whole load link to each other
	}
	diags = append(diags, duplicateNames(set.Parsed)...)
	rs, rds := loadResources(fsys, files.Resources)
	diags = append(diags, rds...)
	if !rds.HasErrors() {
		set.Resources = rs
	}
	diags.Sort()
	return set, diags.Compact()
}

// Flows returns the flows a load would read, parsed and checked (the
// flows pulled in for calls among them), in file order, the files that
// cannot be read or whose YAML cannot be read left out: what an editor's
// completion and navigation look flows up in. Nothing is compiled. The
// files are shared with the loads: a caller must not check or compile
// them.
func (w *Workspace) Flows() []*dsl.File {
	w.mu.Lock()
	defer w.mu.Unlock()
	fsys := w.fsys()
	files, _, _ := discover(fsys, w.paths, 0)
	var out []*dsl.File
	for _, l := range w.parseFlows(fsys, files.Flows, func(string) bool { return false }) {
		if l.f != nil {
			out = append(out, l.f)
		}
	}
	return out
}

// forget drops what the load that ends read nothing of (files deleted,
// renamed, or no longer named), and ends it.
func (w *Workspace) forget() {
	w.cmu.Lock()
	defer w.cmu.Unlock()
	maps.DeleteFunc(w.parses, func(p string, _ *parse) bool { return !w.used[p] })
	maps.DeleteFunc(w.checks, func(p string, _ *checked) bool { return !w.used[p] })
	w.used = nil
}

// loaded is what a load made of one flow file.
type loaded struct {
	f      *dsl.File
	p      *flow.Program
	parsed dsl.Diagnostics // Parse's, among diags
	diags  dsl.Diagnostics
	gen    uint64 // the parse's (see parse)
	// pulled is set for a file no path stood for, loaded because a flow
	// that one did calls it (see pullCallees).
	pulled bool
}

// loadFlows loads the flow files at paths, on as many goroutines as the
// process may run at once: each file is parsed and checked on its own,
// then, once every file is parsed, its calls are checked against the
// flows they name (check.Calls) and it is compiled with them as its
// callees (only the flow at the path only, when it is not ""). The
// results are in the order of paths, the flows pulled in for calls after
// them; with Options.CheckOnly they hold no programs.
func (w *Workspace) loadFlows(fsys fs.FS, paths []string, only string) []loaded {
	out := w.parseFlows(fsys, paths, func(p string) bool { return only == "" || p == only })
	files := make([]*dsl.File, 0, len(out))
	gens := make(map[*dsl.File]uint64, len(out))
	for _, l := range out {
		files = append(files, l.f)
		gens[l.f] = l.gen
	}
	table := dsl.NewFlowTable(files)
	env := w.opts.env()
	env.Callees = table.Callees()
	names := sync.OnceValue(func() string { return strings.Join(table.Names(), "\x00") })
	parallel(len(out), func(i int) {
		l := &out[i]
		if l.f == nil || only != "" && l.f.Path != only {
			return
		}
		p, ds := w.check(l, depKey(l.f, gens, table, names), table, env)
		if l.pulled {
			ds = slices.DeleteFunc(slices.Clone(ds), func(d dsl.Diagnostic) bool { return d.Severity != dsl.Error })
		}
		l.diags = append(l.diags, ds...)
		if !w.opts.CheckOnly {
			l.p = p
		}
	})
	return out
}

// parseFlows parses the flow files at paths, in parallel, and those
// beside them that they call (see pullCallees), after them; it checks
// those whose diagnostics are wanted (see parse).
func (w *Workspace) parseFlows(fsys fs.FS, paths []string, wanted func(path string) bool) []loaded {
	out := make([]loaded, len(paths))
	parallel(len(paths), func(i int) { out[i] = w.parse(fsys, paths[i], wanted(paths[i])) })
	return append(out, pullCallees(fsys, paths, out, func(p string) loaded { return w.parse(fsys, p, wanted(p)) })...)
}

// parse reads and parses the flow file at path, or takes the parse of
// its text kept from an earlier load; with check, it also checks it
// (once for a text), and the diagnostics are Parse's and Check's, else
// Parse's alone.
func (w *Workspace) parse(fsys fs.FS, path string, check bool) loaded {
	src, err := fs.ReadFile(fsys, path)
	if err != nil {
		ds := dsl.Diagnostics{fileError(path, codes.Unreadable, err.Error())}
		return loaded{parsed: ds, diags: ds}
	}
	w.cmu.Lock()
	if w.used != nil {
		w.used[path] = true
	}
	e := w.parses[path]
	w.cmu.Unlock()
	if e == nil || !bytes.Equal(e.src, src) {
		f, parsed := parseText(path, src)
		e = &parse{src: src, f: f, parsed: parsed, gen: w.gen.Add(1)}
		w.cmu.Lock()
		w.parses[path] = e
		w.cmu.Unlock()
	}
	// Only this goroutine of the one load running reads e now: loads take
	// turns, and a load parses each path once.
	if check && !e.checked {
		e.checks, e.checked = checkParsed(e.f, w.opts.env()), true
	}
	l := loaded{f: e.f, parsed: e.parsed, diags: slices.Clip(e.parsed), gen: e.gen}
	if check {
		l.diags = append(l.diags, e.checks...)
	}
	return l
}

// check checks l's calls against table and compiles it (see checkFlow),
// or returns what that gave before for the same key (see depKey). The
// diagnostics are shared: the caller must not change them.
func (w *Workspace) check(l *loaded, key string, table dsl.FlowTable, env flow.Env) (*flow.Program, dsl.Diagnostics) {
	path := l.f.Path
	w.cmu.Lock()
	c := w.checks[path]
	w.cmu.Unlock()
	if c == nil || c.key != key {
		p, ds := checkFlow(l.f, l.parsed, table, env)
		c = &checked{key: key, p: p, diags: ds}
		w.cmu.Lock()
		w.checks[path] = c
		w.cmu.Unlock()
	}
	return c.p, c.diags
}

// depKey returns what checkFlow's result for f depends on: f's parse and
// the parses of the flows it calls, directly or not, by name (gens tells
// parses apart); and, when a name no flow has is among them, the names of
// every tool flow (names), from which an unknown name's suggestions come.
// Two keys are equal only when checkFlow would give the same.
func depKey(f *dsl.File, gens map[*dsl.File]uint64, table dsl.FlowTable, names func() string) string {
	var deps []string
	missing := false
	seen := map[string]bool{}
	queue := callNames(f)
	for len(queue) > 0 {
		name := queue[0]
		queue = queue[1:]
		if seen[name] {
			continue
		}
		seen[name] = true
		callee := table[name]
		if callee == nil {
			missing = true
			deps = append(deps, strconv.Quote(name))
			continue
		}
		deps = append(deps, strconv.Quote(name)+"="+strconv.FormatUint(gens[callee], 10))
		queue = append(queue, callNames(callee)...)
	}
	slices.Sort(deps)
	key := strconv.FormatUint(gens[f], 10) + " " + strings.Join(deps, " ")
	if missing {
		key += "\x00" + names()
	}
	return key
}

// callNames returns the names of the flows f's call and link nodes run,
// nested ones too.
func callNames(f *dsl.File) []string {
	var out []string
	for n := range f.Walk() {
		if n.Kind.IsCall() && n.Call != nil {
			out = append(out, n.Call.Flow.Value)
		}
	}
	return out
}

// pullCallees parses (with parse) the flow files beside paths (in their
// directories) that the flows loaded (got) call, directly or not, when
// no path stands for them: `flowserve lint flows/a.yaml` checks a's calls
// against the flows of flows/, and `flowserve serve flows/a.yaml` serves
// a with them. Of the files pulled in, only the errors are reported: they
// are not what was asked for, but a flow calling a broken one cannot be
// served.
func pullCallees(fsys fs.FS, paths []string, got []loaded, parse func(path string) loaded) []loaded {
	have := map[string]bool{}
	read := map[string]bool{}
	var wanted []string // called names no file loaded has
	for _, l := range got {
		if l.f != nil {
			have[l.f.Name.Value] = true
		}
	}
	for _, p := range paths {
		read[p] = true
	}
	need := func(f *dsl.File) {
		for _, n := range f.Nodes {
			if n.Kind.IsCall() && n.Call != nil && !have[n.Call.Flow.Value] {
				wanted = append(wanted, n.Call.Flow.Value)
			}
		}
	}
	for _, l := range got {
		if l.f != nil {
			need(l.f)
		}
	}
	if len(wanted) == 0 {
		return nil
	}
	// The files beside the paths, by the name each flow has (all of them:
	// two files of a name wanted are both pulled in, so that the load
	// reports duplicate-tool as it would for the directory).
	byName := map[string][]loaded{}
	dirs := map[string]bool{}
	for _, p := range paths {
		dir := path.Dir(p)
		if dirs[dir] {
			continue
		}
		dirs[dir] = true
		entries, err := fs.ReadDir(fsys, dir)
		if err != nil {
			continue // the callees stay unknown: CheckCalls says so
		}
		for _, e := range entries {
			name := path.Join(dir, e.Name())
			if e.IsDir() || !IsFlowFile(e.Name()) || read[name] {
				continue
			}
			read[name] = true
			l := parse(name)
			if l.f == nil || have[l.f.Name.Value] {
				continue
			}
			l.diags = slices.DeleteFunc(slices.Clone(l.diags), func(d dsl.Diagnostic) bool { return d.Severity != dsl.Error })
			l.pulled = true
			byName[l.f.Name.Value] = append(byName[l.f.Name.Value], l)
		}
	}
	var out []loaded
	for len(wanted) > 0 {
		name := wanted[0]
		wanted = wanted[1:]
		ls, ok := byName[name]
		if !ok || have[name] {
			continue
		}
		have[name] = true
		out = append(out, ls...)
		need(ls[0].f)
	}
	return out
}
