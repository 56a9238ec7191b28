// Package project turns files into what a server serves: it is the one
// way anything (the flowserve commands, `flowserve test`, the language
// server, embedders) loads flows. [Load] runs discovery, dsl.Parse,
// check.File, check.Calls and flow.Compile (check.Partial for a
// file Parse found errors in, so that its type errors are reported with
// its structural ones), the check of names across files and the resource
// declarations, in that order, so no path can serve or test a flow that
// lint would reject; given the values of vars and secrets
// ([ReadValues]), it also rejects a flow whose declared names lack one.
// [Workspace] is the same pipeline run again as files change, over an
// overlay of texts not saved yet, doing again only what a change
// touches: Load is a Workspace loaded once, and an editor's diagnostics
// are lint's by construction. [Reloader] loads the same paths again and
// swaps flows and resources together.
package project

import (
	"bytes"
	"fmt"
	"io/fs"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/flowserve/flowserve/actions"
	"github.com/flowserve/flowserve/check"
	"github.com/flowserve/flowserve/check/codes"
	"github.com/flowserve/flowserve/dsl"
	"github.com/flowserve/flowserve/flow"
	"github.com/flowserve/flowserve/resources"
)

// Options configure Load. The zero value is usable.
type Options struct {
	// Actions resolves step actions; nil means actions.Default().
	Actions *actions.Registry
	// CostLimit bounds the cost of one expression evaluation; zero means
	// the default (see flow.Env).
	CostLimit uint64
	// FS is where paths are read from; nil means the operating system's
	// files. An embed.FS serves flows built into the binary; paths are then
	// slash-separated names in it, like "flows".
	FS fs.FS
	// Values, when set, are the values of vars and secrets the programs
	// will run with (see ReadValues): Load reports each var and secret a
	// flow declares that has no value there as a CodeMissingValue error
	// at its declaration, and gives that flow no program. Load reads no
	// environment for them; lint leaves Values nil.
	Values *Values
	// Callees finds the flows LoadSource's calls name, to type their
	// results; Load finds them among the files it loads and ignores it.
	Callees dsl.Callees
	// CheckOnly makes Load keep no programs: each flow is still compiled,
	// for its diagnostics, but Set.Programs stays empty, so that checking
	// many flows (lint, an editor) does not hold them all in memory.
	CheckOnly bool
}

// fsys returns the file system of opts.
func (o Options) fsys() fs.FS {
	if o.FS == nil {
		return osFS{}
	}
	return o.FS
}

// env is the compile environment of opts.
func (o Options) env() flow.Env {
	return flow.Env{Actions: o.Actions, CostLimit: o.CostLimit, Callees: o.Callees}
}

// Set is what a set of paths holds: the programs of the flows that have no
// errors, and the declared resources.
type Set struct {
	// Files are the files that were read.
	Files Files
	// Programs are the compiled flows, in file order. A flow with errors
	// has none; when the diagnostics of Load have errors, Programs may be
	// fewer than Files.Flows.
	Programs []*flow.Program
	// Parsed are the flows that could be read (with or without errors), in
	// file order, for tools that show a flow that does not compile.
	Parsed []*dsl.File
	// Resources are the declared resources, when their declarations have
	// no errors.
	Resources []*resources.Resource
}

// Program returns the program of the tool or prompt name.
func (s *Set) Program(name string) (*flow.Program, bool) {
	for _, p := range s.Programs {
		if p.Name() == name {
			return p, true
		}
	}
	return nil, false
}

// Load reads every flow and resource declaration that paths stand for
// (see [Discover]) and returns them with the diagnostics of every stage,
// sorted, each reported once; with Options.Values, a value missing for a
// declared var or secret is one of them. The Set is never nil; it is servable when
// the diagnostics have no errors (warnings are allowed). Paths that do
// not exist, or that hold neither flows nor declarations, are errors
// that [IsUsage] tells apart. A file that cannot be read is a
// CodeUnreadable error.
func Load(paths []string, opts Options) (*Set, dsl.Diagnostics) {
	return NewWorkspace(paths, opts).Load()
}

// LoadFile loads one flow file: Load of the file alone, giving its
// program (nil when it has errors).
func LoadFile(path string, opts Options) (*flow.Program, dsl.Diagnostics) {
	set, diags := Load([]string{path}, opts)
	if len(set.Programs) != 1 || diags.HasErrors() {
		return nil, diags
	}
	return set.Programs[0], diags
}

// checkFlow runs the stages of a load that follow dsl.Parse and
// check.File on the flow file f: f's calls are checked against the flows
// of table (check.Calls) and f is compiled with env, whose callees are
// table's (flow.Compile); when Parse found errors in f, the expressions
// it could read are still type-checked (check.Partial), so that its
// structural errors do not hide its type errors. parsed are Parse's
// diagnostics of f. The diagnostics have their ends; the program is nil
// when f or its calls have errors.
func checkFlow(f *dsl.File, parsed dsl.Diagnostics, table dsl.FlowTable, env flow.Env) (*flow.Program, dsl.Diagnostics) {
	calls := check.Calls(f, table)
	calls.SetEnds(f.Path, f.Source)
	p, cds := compileFlow(f, parsed, env)
	if calls.HasErrors() {
		p = nil
	}
	return p, append(calls, cds...)
}

// compileFlow compiles f with env (flow.Compile); when Parse found errors
// in f (parsed are its diagnostics), which Compile refuses, it
// type-checks the expressions Parse could read instead
// (check.Partial) and gives no program. The diagnostics have their
// ends.
func compileFlow(f *dsl.File, parsed dsl.Diagnostics, env flow.Env) (*flow.Program, dsl.Diagnostics) {
	var (
		p   *flow.Program
		cds dsl.Diagnostics
	)
	if f.Partial() {
		cds = check.Partial(f, parsed, env)
	} else {
		p, cds = flow.Compile(f, env)
	}
	cds.SetEnds(f.Path, f.Source)
	return p, cds
}

// link links programs to each other (see flow.Link): a call runs the
// program of the first flow with its name.
func link(progs []*flow.Program) {
	byName := make(map[string]*flow.Program, len(progs))
	for _, p := range progs {
		if _, dup := byName[p.Name()]; !dup {
			byName[p.Name()] = p
		}
	}
	flow.Link(progs, func(name string) *flow.Program { return byName[name] })
}

// parallel runs do(0), …, do(n-1) on as many goroutines as the process
// may run at once.
func parallel(n int, do func(i int)) {
	workers := min(runtime.GOMAXPROCS(0), n)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				do(i)
			}
		})
	}
	wg.Wait()
}

// parseFlow reads, parses and checks one flow file (see parseSource).
func parseFlow(fsys fs.FS, path string, env flow.Env) (f *dsl.File, parsed, diags dsl.Diagnostics) {
	src, err := fs.ReadFile(fsys, path)
	if err != nil {
		ds := dsl.Diagnostics{fileError(path, codes.Unreadable, err.Error())}
		return nil, ds, ds
	}
	return parseSource(path, src, env)
}

// parseSource parses and checks the flow file at path holding src, and
// returns Parse's diagnostics (parsed) and all of them (diags, Check's
// added). The file is nil when its YAML cannot be read at all.
func parseSource(path string, src []byte, env flow.Env) (f *dsl.File, parsed, diags dsl.Diagnostics) {
	f, parsed = parseText(path, src)
	return f, parsed, append(slices.Clip(parsed), checkParsed(f, env)...)
}

// parseText parses the flow file at path holding src (dsl.Parse) and
// returns it, nil when its YAML cannot be read at all, with Parse's
// diagnostics, their ends set.
func parseText(path string, src []byte) (*dsl.File, dsl.Diagnostics) {
	f, parsed := dsl.Parse(path, src)
	parsed.SetEnds(path, src)
	return f, parsed
}

// checkParsed checks the parsed flow file f (check.File, which records its
// findings in f) and returns the diagnostics, their ends set; none when f
// is nil.
func checkParsed(f *dsl.File, env flow.Env) dsl.Diagnostics {
	if f == nil {
		return nil
	}
	checks := check.File(f, env.Actions)
	checks.SetEnds(f.Path, f.Source)
	return checks
}

// loadFlow parses, checks and compiles one flow file with the callees
// env finds (its calls are not checked: see LoadSource). The file is nil
// when its YAML cannot be read at all, the program nil when there are
// errors.
func loadFlow(fsys fs.FS, path string, env flow.Env) (*dsl.File, *flow.Program, dsl.Diagnostics) {
	f, parsed, diags := parseFlow(fsys, path, env)
	if f == nil {
		return f, nil, diags
	}
	p, cds := compileFlow(f, parsed, env)
	return f, p, append(diags, cds...)
}

// loadResources parses resource declaration files and checks them
// together.
func loadResources(fsys fs.FS, files []string) ([]*resources.Resource, dsl.Diagnostics) {
	var (
		all   []*resources.Resource
		diags dsl.Diagnostics
		srcs  = map[string][]byte{}
	)
	for _, path := range files {
		src, err := fs.ReadFile(fsys, path)
		if err != nil {
			diags = append(diags, fileError(path, codes.Unreadable, err.Error()))
			continue
		}
		srcs[path] = src
		rs, ds := resources.Parse(path, src)
		all = append(all, rs...)
		diags = append(diags, ds...)
	}
	diags = append(diags, resources.Check(all)...)
	for path, src := range srcs {
		diags.SetEnds(path, src)
	}
	return all, diags
}

// duplicateNames reports each file whose name an earlier file (in file
// order) already uses: names are unique across tool and prompt flows.
func duplicateNames(files []*dsl.File) dsl.Diagnostics {
	var out dsl.Diagnostics
	first := map[string]string{}
	for _, f := range files {
		if f.Name.Value == "" {
			continue
		}
		if prev, dup := first[f.Name.Value]; dup {
			kind := dsl.FlowTool
			if f.IsPrompt() {
				kind = dsl.FlowPrompt
			}
			out = append(out, dsl.Diagnostic{Pos: f.Name.Pos, Severity: dsl.Error, Code: codes.DuplicateTool,
				Message: fmt.Sprintf("%s %q is also defined in %s", kind, f.Name.Value, prev)})
			out[len(out)-1:].SetEnds(f.Path, f.Source)
			continue
		}
		first[f.Name.Value] = f.Path
	}
	return out
}

// IsUsage reports whether diags hold an error about the paths themselves
// (one that does not exist, or paths with nothing to load) rather than
// about what the files say: a command reports those as usage errors.
func IsUsage(diags dsl.Diagnostics) bool {
	for _, d := range diags {
		if d.Code == codes.NoSuchPath || d.Code == codes.NoFlows {
			return true
		}
	}
	return false
}

// LoadSource loads a flow from its bytes, as LoadFile loads the file at
// path holding src: the same parsing, checks, values and compilation.
// Servers compile the versions of flows they did not load themselves (a
// run that began on another instance, or before a restart) with it. Its
// calls are typed by the callees Options.Callees finds but not checked
// against them, and its program is not linked: the caller links it (a
// server, to the programs it serves).
func LoadSource(path string, src []byte, opts Options) (*flow.Program, dsl.Diagnostics) {
	f, p, diags := loadFlow(sourceFS{path: path, src: src}, path, opts.env())
	if f != nil && opts.Values != nil {
		if missing := missingValues(f, opts.Values); len(missing) > 0 {
			diags, p = append(diags, missing...), nil
		}
		diags.SetEnds(path, f.Source)
	}
	diags.Sort()
	if diags.HasErrors() {
		return nil, diags
	}
	return p, diags
}

// sourceFS is a file system of one file, path, holding src.
type sourceFS struct {
	path string
	src  []byte
}

func (s sourceFS) Open(name string) (fs.File, error) {
	return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
}

func (s sourceFS) ReadFile(name string) ([]byte, error) {
	if name != s.path {
		return nil, &fs.PathError{Op: "read", Path: name, Err: fs.ErrNotExist}
	}
	return bytes.Clone(s.src), nil
}
