package flowtest

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/flowserve/flowserve/actions"
	"github.com/flowserve/flowserve/check/codes"
	"github.com/flowserve/flowserve/dsl"
	"github.com/flowserve/flowserve/flow"
	"github.com/flowserve/flowserve/project"
	"github.com/flowserve/flowserve/schemas"
)

// flows is a flow under test and the flows its call and link nodes run,
// directly or not.
type flows struct {
	root *flow.Program
	// byName holds root and every flow it reaches, by name, as
	// project.Load linked them.
	byName map[string]*flow.Program
	// outputs are the compiled output schemas of called flows, by name,
	// for the mocks of calls; nil for a flow that declares none.
	outputs map[string]*schemas.Schema
}

// loader loads flow files with the flows beside them: a flow file is
// loaded by project.Load together with the other flow files of its
// directory, so that its calls run the flows they name, as a server
// that serves the directory runs them. Each directory is loaded once.
type loader struct {
	reg  *actions.Registry
	dirs map[string]*dirLoad
}

// dirLoad is what project.Load made of a directory's flow files.
type dirLoad struct {
	set   *project.Set
	diags dsl.Diagnostics
	files map[string]bool // the flow files loaded
}

func newLoader(reg *actions.Registry) *loader {
	return &loader{reg: reg, dirs: map[string]*dirLoad{}}
}

// load loads the flow file at path with the flow files beside it, and
// returns it with the flows it calls; missing reports that the file does
// not exist. The diagnostics are the file's own and, when a flow it
// calls (directly or not) has errors, that flow's: then there are no
// flows, as a server serves none of them.
func (l *loader) load(path string) (fl *flows, missing bool, diags dsl.Diagnostics) {
	info, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, true, nil
	case err != nil || info.IsDir():
		// Not a file that loads with others: project.LoadFile says why.
		p, diags := project.LoadFile(path, project.Options{Actions: l.reg})
		if p == nil {
			return nil, false, diags
		}
		return &flows{root: p, byName: map[string]*flow.Program{p.Name(): p}}, false, diags
	}
	dl := l.dir(filepath.Dir(path))
	if !dl.files[path] {
		// Not a name a directory's flows have (the flow: key of a test
		// file may name any file): loaded with them on its own.
		dl = l.loadFiles(append(slices.Sorted(maps.Keys(dl.files)), path))
	}
	for _, d := range dl.diags {
		if d.Pos.File == path {
			diags = append(diags, d)
		}
	}
	var root *flow.Program
	for _, p := range dl.set.Programs {
		if p.File().Path == path {
			root = p
			break
		}
	}
	if root == nil || diags.HasErrors() {
		return nil, false, diags
	}
	fl, broken := reach(root, dl)
	if len(broken) > 0 {
		diags = append(diags, broken...)
		diags.Sort()
		return nil, false, diags.Compact()
	}
	return fl, false, diags
}

// dir loads the flow files of directory dir (project.IsFlowFile; not
// those of its subdirectories), once.
func (l *loader) dir(dir string) *dirLoad {
	if dl := l.dirs[dir]; dl != nil {
		return dl
	}
	var paths []string
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if !e.IsDir() && project.IsFlowFile(e.Name()) {
			paths = append(paths, filepath.Join(dir, e.Name()))
		}
	}
	dl := l.loadFiles(paths)
	l.dirs[dir] = dl
	return dl
}

// loadFiles loads the flow files paths together.
func (l *loader) loadFiles(paths []string) *dirLoad {
	dl := &dirLoad{files: map[string]bool{}}
	for _, p := range paths {
		dl.files[p] = true
	}
	if len(paths) == 0 {
		dl.set = &project.Set{}
		return dl
	}
	dl.set, dl.diags = project.Load(paths, project.Options{Actions: l.reg})
	return dl
}

// reach returns root with the flows it calls, directly or not. broken
// holds, for each call of a flow that has errors (so that Load gave it
// no program), a diagnostic at the call and the errors of that flow.
func reach(root *flow.Program, dl *dirLoad) (fl *flows, broken dsl.Diagnostics) {
	progs := map[string]*flow.Program{}
	for _, p := range dl.set.Programs {
		if _, dup := progs[p.Name()]; !dup {
			progs[p.Name()] = p
		}
	}
	parsed := dsl.NewFlowTable(dl.set.Parsed)
	fl = &flows{root: root, byName: map[string]*flow.Program{root.Name(): root}, outputs: map[string]*schemas.Schema{}}
	reported := map[string]bool{}
	var walk func(p *flow.Program)
	walk = func(p *flow.Program) {
		for _, n := range p.File().Nodes {
			if !n.Kind.IsCall() || n.Call == nil {
				continue
			}
			name := n.Call.Flow.Value
			if _, seen := fl.byName[name]; seen {
				continue
			}
			callee := progs[name]
			if callee == nil {
				path := name
				if f := parsed[name]; f != nil {
					path = f.Path
					if !reported[path] {
						reported[path] = true
						for _, d := range dl.diags {
							if d.Pos.File == path && d.Severity == dsl.Error {
								broken = append(broken, d)
							}
						}
					}
				}
				broken = append(broken, dsl.Diagnostic{Pos: n.Call.Flow.Pos, Severity: dsl.Error, Code: codes.Compile,
					Message: fmt.Sprintf("%s node %s runs flow %s (%s), which has errors, so no case of %s can run", n.Kind, n.ID, name, path, p.Name())})
				continue
			}
			fl.byName[name] = callee
			if doc := callee.OutputSchema(); doc != nil {
				if s, err := schemas.Compile(doc); err == nil {
					fl.outputs[name] = s
				}
			}
			walk(callee)
		}
	}
	walk(root)
	return fl, broken
}

// settings returns the vars and secrets that root and the flows it calls
// declare, each name once: they share the server's values.
func (fl *flows) settings() (vars, secrets []*dsl.Setting) {
	seenVar, seenSecret := map[string]bool{}, map[string]bool{}
	for _, p := range fl.programs() {
		for _, d := range p.File().Vars {
			if !seenVar[d.Name] {
				seenVar[d.Name] = true
				vars = append(vars, d)
			}
		}
		for _, d := range p.File().Secrets {
			if !seenSecret[d.Name] {
				seenSecret[d.Name] = true
				secrets = append(secrets, d)
			}
		}
	}
	return vars, secrets
}

// programs returns root, then the flows it calls, by name.
func (fl *flows) programs() []*flow.Program {
	out := []*flow.Program{fl.root}
	for _, name := range slices.Sorted(maps.Keys(fl.byName)) {
		if p := fl.byName[name]; p != fl.root {
			out = append(out, p)
		}
	}
	return out
}

// callee returns the flow call or link node n runs.
func (fl *flows) callee(n *dsl.Node) *flow.Program {
	if n == nil || !n.Kind.IsCall() || n.Call == nil {
		return nil
	}
	return fl.byName[n.Call.Flow.Value]
}

// maxKeyDepth bounds the call paths keys lists: calls nest at most
// flow.DefaultCallDepth deep at run time.
const maxKeyDepth = flow.DefaultCallDepth

// lookup finds the node key names, as the engine names nodes in input
// requests, traces and mocks: an id (or #N, with anon) of the flow under
// test, or, after a call path (confirm/ok; a/b/ok), a node of the flow
// those call nodes run. It returns the flow the node is in and the node,
// or nil and why there is none, a message for what (answers, mocks…).
func (fl *flows) lookup(key string, what string, anon bool) (*flow.Program, *dsl.Node, string) {
	p := fl.root
	segs := strings.Split(key, "/")
	var path []string // the call path so far
	var via dsl.Kind  // the kind of its last node
	for i, seg := range segs {
		f := p.File()
		last := i == len(segs)-1
		var n *dsl.Node
		if j, ok := anonIndex(seg); ok && anon && last {
			if j < len(f.Nodes) {
				n = f.Nodes[j]
			}
		} else {
			n = f.ByID[seg]
		}
		if n == nil {
			return nil, nil, fl.unknown(key, what, anon, p, path, via, seg, last)
		}
		if last {
			return p, n, ""
		}
		callee := fl.callee(n)
		if callee == nil {
			return nil, nil, fmt.Sprintf("%s: in %q, %s is %s node, not a call or link: only the id of a node that runs another flow goes before a /",
				what, key, strings.Join(append(path, seg), "/"), withArticle(n.Kind))
		}
		p, path, via = callee, append(path, seg), n.Kind
	}
	return nil, nil, "" // not reached: Split returns at least one segment
}

// unknown is the message of a key whose segment seg is no node of p
// (reached through path): with a did-you-mean, and for an id of a
// called flow written without its call path, the key with it.
func (fl *flows) unknown(key, what string, anon bool, p *flow.Program, path []string, via dsl.Kind, seg string, last bool) string {
	where := p.File().Path
	prefix := ""
	if len(path) > 0 {
		prefix = strings.Join(path, "/") + "/"
		where = fmt.Sprintf("flow %s (%s), which %s node %s runs,", p.Name(), p.File().Path, via, strings.Join(path, "/"))
	}
	msg := fmt.Sprintf("%s: %s has no node %q", what, where, seg)
	if !last {
		msg += fmt.Sprintf(" (in %q)", key)
	}
	if len(path) == 0 && last {
		// The id of a node in a called flow, without its call path.
		var full []string
		for _, k := range fl.keys(p, "", maxKeyDepth) {
			if strings.Contains(k, "/") && lastKey(k) == seg {
				full = append(full, k)
			}
		}
		switch len(full) {
		case 0:
		case 1:
			calls := full[0][:strings.LastIndex(full[0], "/")]
			in, _, _ := fl.lookup(full[0], what, false)
			_, call, _ := fl.lookup(calls, what, false)
			return msg + fmt.Sprintf("; did you mean %q? A node of a flow that a call runs is named by its call path: %s is %s of flow %s, which %s node %s runs",
				full[0], full[0], seg, in.Name(), call.Kind, calls)
		default:
			return msg + fmt.Sprintf("; did you mean %s? A node of a flow that a call runs is named by its call path", quotedList(full))
		}
	}
	if s := dsl.Suggest(seg, fl.keys(p, "", 0)); s != "" {
		return msg + fmt.Sprintf("; did you mean %q?", prefix+s)
	}
	if _, isAnon := anonIndex(seg); isAnon && !anon {
		msg += " (nodes without an id are left out of path; use visits)"
	}
	return msg
}

// keys returns the keys of p's nodes that have ids, after prefix, and,
// while depth > 0, those of the flows its calls run, after the call's
// key and /.
func (fl *flows) keys(p *flow.Program, prefix string, depth int) []string {
	var out []string
	for _, n := range p.File().Nodes {
		if n.ID == "" {
			continue
		}
		out = append(out, prefix+n.ID)
		if callee := fl.callee(n); callee != nil && depth > 0 {
			out = append(out, fl.keys(callee, prefix+n.ID+"/", depth-1)...)
		}
	}
	return out
}

// quotedList returns "a", "b" or "c".
func quotedList(l []string) string {
	q := make([]string, len(l))
	for i, s := range l {
		q[i] = fmt.Sprintf("%q", s)
	}
	if len(q) > 1 {
		return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
	}
	return strings.Join(q, "")
}

// lastKey returns the last segment of a key: its node's own id or #N.
func lastKey(key string) string {
	return key[strings.LastIndex(key, "/")+1:]
}

// covers is the coverage of the flows a run's cases reach, by flow file:
// a called flow's nodes are covered in its own file when a caller's case
// visits them.
type covers map[string]*Coverage

// of returns the coverage of f, creating it.
func (cs covers) of(f *dsl.File) *Coverage {
	c := cs[f.Path]
	if c == nil {
		c = newCoverage(f)
		cs[f.Path] = c
	}
	return c
}

// visit marks the node key names (as traces name it: an id or #N, after
// the call path inside a called flow) as covered in its flow's file.
func (cs covers) visit(fl *flows, key string) {
	if !strings.Contains(key, "/") {
		cs.of(fl.root.File()).visit(key)
		return
	}
	if p, n, _ := fl.lookup(key, "", true); n != nil {
		cs.of(p.File()).seen[n.Index] = true
	}
}
