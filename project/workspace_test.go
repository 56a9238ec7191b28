package project

import (
	"fmt"
	"io/fs"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/flowserve/flowserve/check/codes"
	"github.com/flowserve/flowserve/dsl"
	"github.com/flowserve/flowserve/flow"
)

// The project of the workspace tests: main calls mid, which calls leaf;
// other stands alone.
var (
	wsMain = `name: main
description: Calls mid.
nodes:
  - id: m
    call: mid
  - return: "{{ m.total + 1 }}"
`
	wsMid = `name: mid
description: Calls leaf.
expose: false
output: {type: object, properties: {total: {type: integer}}, required: [total]}
nodes:
  - id: l
    call: leaf
  - return:
      text: done
      structured: {total: "{{ l.n + 1 }}"}
`
	wsLeaf = `name: leaf
description: Counts.
expose: false
output: {type: object, properties: {n: {type: integer}}, required: [n]}
nodes:
  - return:
      text: one
      structured: {n: 1}
`
	wsOther = `name: other
description: Stands alone.
nodes:
  - return: alone
`
	wsResources = "resources: [{uri: \"docs://a\", name: a, description: A., text: hi}]\n"
)

// wsStep is one change to a workspace's files, saved (disk) or not
// (overlay), and the flows whose checks it must redo (recheck; nil: not
// asserted).
type wsStep struct {
	name    string
	disk    map[string]string // path → text; "" deletes the file
	overlay map[string]string // path → text; "" clears the path's text
	recheck []string          // the flows checked again, by file name
	want    []string          // codes lint of the directory must report
}

var wsSteps = []wsStep{
	{name: "first load", recheck: []string{"leaf.yaml", "main.yaml", "mid.yaml", "other.yaml"}},
	{name: "nothing changed", recheck: []string{}},
	{name: "the caller reads a field the callee lacks, unsaved", overlay: map[string]string{
		"flows/main.yaml": strings.Replace(wsMain, "m.total", "m.totl", 1)},
		recheck: []string{"main.yaml"}, want: []string{codes.BadExpression}},
	{name: "fixed", overlay: map[string]string{"flows/main.yaml": wsMain}, recheck: []string{"main.yaml"}},
	{name: "the leaf's output changes: its callers, direct or not, are checked again", overlay: map[string]string{
		"flows/leaf.yaml": strings.ReplaceAll(wsLeaf, "integer", "string")},
		recheck: []string{"leaf.yaml", "main.yaml", "mid.yaml"}, want: []string{codes.BadExpression}},
	{name: "the leaf calls main: a cycle through all three", overlay: map[string]string{
		"flows/leaf.yaml": strings.Replace(wsLeaf, "nodes:\n", "nodes:\n  - id: again\n    call: main\n", 1)},
		recheck: []string{"leaf.yaml", "main.yaml", "mid.yaml"}, want: []string{codes.CallCycle}},
	{name: "the leaf's text cleared: the file again", overlay: map[string]string{"flows/leaf.yaml": ""},
		recheck: []string{"leaf.yaml", "main.yaml", "mid.yaml"}},
	{name: "a buffer not saved, of a name taken", overlay: map[string]string{"flows/zz_new.yaml": wsOther},
		recheck: []string{"zz_new.yaml"}, want: []string{codes.DuplicateTool}},
	{name: "the first of the name deleted on disk", disk: map[string]string{"flows/other.yaml": ""}, recheck: []string{}},
	{name: "a call of a name no flow has", overlay: map[string]string{"flows/main.yaml": strings.Replace(wsMain, "call: mid", "call: mdi", 1)},
		recheck: []string{"main.yaml"}, want: []string{codes.UnknownFlow}},
	{name: "a flow of that name saved: the unknown name's callers are checked again", disk: map[string]string{
		"flows/mdi.yaml": strings.Replace(wsMid, "name: mid", "name: mdi", 1)}, recheck: []string{"main.yaml", "mdi.yaml"}},
	{name: "a call of another name no flow has", overlay: map[string]string{
		"flows/main.yaml": strings.Replace(wsMain, "call: mid", "call: mdyy", 1)}, recheck: []string{"main.yaml"}},
	{name: "a flow of a closer name saved: the suggestion changes", disk: map[string]string{"flows/mdy.yaml": strings.Replace(wsOther, "name: other", "name: mdy", 1)},
		recheck: []string{"main.yaml", "mdy.yaml"}, want: []string{codes.UnknownFlow}},
	{name: "a declaration with a mistake", overlay: map[string]string{"flows/resources.yaml": "resources: [{name: x}]\n"}, recheck: []string{}},
	{name: "a caller whose YAML cannot be read", overlay: map[string]string{"flows/main.yaml": "name: main\ndescription: [\n"},
		want: []string{codes.BadYAML}},
	{name: "a file Parse finds errors in", overlay: map[string]string{"flows/main.yaml": wsMain + "    nxt: m\n"},
		want: []string{codes.UnknownKey}},
	{name: "every text cleared", overlay: map[string]string{"flows/main.yaml": "", "flows/zz_new.yaml": "", "flows/resources.yaml": ""}},
}

// TestWorkspaceIsLoad changes a project's files step by step, saved and
// not, and loads it with one Workspace at each step: the diagnostics,
// programs and files are those of Load of the same texts, so are each
// file's diagnostics worked out alone (Diagnostics), and only the
// flows a change touches are checked again (the callers of a changed
// flow, directly or not, and the callers of a name no flow had).
func TestWorkspaceIsLoad(t *testing.T) {
	for _, paths := range [][]string{{"flows"}, {"flows/main.yaml"}, {"flows/mid.yaml", "flows"}} {
		t.Run(strings.Join(paths, ","), func(t *testing.T) {
			disk := fstest.MapFS{}
			for name, src := range map[string]string{"main.yaml": wsMain, "mid.yaml": wsMid, "leaf.yaml": wsLeaf,
				"other.yaml": wsOther, "resources.yaml": wsResources, "main_test.yaml": "cases: []\n"} {
				disk["flows/"+name] = &fstest.MapFile{Data: []byte(src)}
			}
			texts := map[string]string{}
			ws := NewWorkspace(paths, Options{FS: disk})
			for _, step := range wsSteps {
				for p, src := range step.disk {
					if src == "" {
						delete(disk, p)
					} else {
						disk[p] = &fstest.MapFile{Data: []byte(src)}
					}
				}
				for p, src := range step.overlay {
					if src == "" {
						ws.ClearOverlay(p)
						delete(texts, p)
					} else {
						ws.SetOverlay(p, []byte(src))
						texts[p] = src
					}
				}
				before := maps.Clone(ws.checks)
				set, diags := ws.Load()
				saved := maps.Clone(disk)
				for p, src := range texts {
					saved[p] = &fstest.MapFile{Data: []byte(src)}
				}
				wantSet, want := Load(paths, Options{FS: saved})
				if !reflect.DeepEqual(diags, want) {
					t.Fatalf("%s: the workspace gives\n%v\nLoad gives\n%v", step.name, diags, want)
				}
				for _, code := range step.want {
					if slices.Contains(paths, "flows") && !slices.ContainsFunc(want, func(d dsl.Diagnostic) bool { return d.Code == code }) {
						t.Errorf("%s: no %s among %v", step.name, code, want)
					}
				}
				if got, want := loadedNames(set), loadedNames(wantSet); got != want {
					t.Errorf("%s: the workspace loads %s, Load %s", step.name, got, want)
				}
				if step.recheck != nil && slices.Equal(paths, []string{"flows"}) {
					if got := rechecked(before, ws.checks); !slices.Equal(got, step.recheck) {
						t.Errorf("%s: checked again %v, want %v", step.name, got, step.recheck)
					}
				}
				// Each file's own, worked out alone, are Load's of it.
				for _, file := range slices.Concat(wantSet.Files.Flows, wantSet.Files.Resources) {
					got := ws.Diagnostics(file)
					own := slices.DeleteFunc(slices.Clone(want), func(d dsl.Diagnostic) bool { return d.Pos.File != file })
					if len(got)+len(own) > 0 && !reflect.DeepEqual(got, own) {
						t.Errorf("%s: %s: Diagnostics gives\n%v\nLoad gives\n%v", step.name, file, got, own)
					}
				}
			}
		})
	}
}

// loadedNames describes what a Set holds: its files, its parsed flows,
// its programs and what they call, and its resources.
func loadedNames(set *Set) string {
	var progs []string
	for _, p := range set.Programs {
		var calls []string
		for _, c := range p.Callees() {
			calls = append(calls, c.Name()+"@"+c.File().Path)
		}
		progs = append(progs, p.Name()+"→"+strings.Join(calls, "+"))
	}
	var parsed []string
	for _, f := range set.Parsed {
		parsed = append(parsed, f.Path)
	}
	return fmt.Sprintf("files %v, parsed %v, programs %v, %d resources", set.Files, parsed, progs, len(set.Resources))
}

// rechecked returns the base names of the flows whose checks after holds
// anew, sorted.
func rechecked(before, after map[string]*checked) []string {
	out := []string{}
	for p, c := range after {
		if before[p] != c {
			out = append(out, p[strings.LastIndex(p, "/")+1:])
		}
	}
	slices.Sort(out)
	return out
}

// TestWorkspaceKeepsParses: a load parses again only the files whose text
// changed (an unchanged file is the same *dsl.File), Diagnostics compiles
// only the file it is asked about, and a file deleted is forgotten.
func TestWorkspaceKeepsParses(t *testing.T) {
	disk := fstest.MapFS{"flows/main.yaml": {Data: []byte(wsMain)}, "flows/mid.yaml": {Data: []byte(wsMid)}, "flows/leaf.yaml": {Data: []byte(wsLeaf)}}
	ws := NewWorkspace([]string{"flows"}, Options{FS: disk, CheckOnly: true})
	first, _ := ws.Load()
	ws.SetOverlay("flows/mid.yaml", []byte(wsMid+"# a comment\n"))
	second, _ := ws.Load()
	if len(first.Parsed) != 3 || len(second.Parsed) != 3 {
		t.Fatalf("parsed %d, then %d", len(first.Parsed), len(second.Parsed))
	}
	for i, f := range second.Parsed {
		if changed := f.Path == "flows/mid.yaml"; (f != first.Parsed[i]) != changed {
			t.Errorf("%s: parsed again %v, want %v", f.Path, f != first.Parsed[i], changed)
		}
	}
	if flows := ws.Flows(); len(flows) != 3 || !slices.Equal(flows, second.Parsed) {
		t.Errorf("Flows %v, want the parses of the last load", flows)
	}
	// One file's diagnostics compile that file alone; the others' checks
	// are kept.
	one := NewWorkspace([]string{"flows"}, Options{FS: disk, CheckOnly: true})
	one.Diagnostics("flows/mid.yaml")
	one.Diagnostics("flows/leaf.yaml")
	if _, ok := one.checks["flows/main.yaml"]; ok || len(one.checks) != 2 || len(one.parses) != 3 {
		t.Errorf("after the diagnostics of two files: %d checks (main's %v), %d parses", len(one.checks), ok, len(one.parses))
	}
	// A file gone is forgotten.
	delete(disk, "flows/leaf.yaml")
	ws.Load()
	if _, kept := ws.parses["flows/leaf.yaml"]; kept || len(ws.parses) != 2 || len(ws.checks) != 2 {
		t.Errorf("after a file was deleted: %d parses (leaf kept %v), %d checks", len(ws.parses), kept, len(ws.checks))
	}
}

// TestOverlayFS lists a buffer not saved with the files of its directory,
// in name order, and reads a buffer in place of its file.
func TestOverlayFS(t *testing.T) {
	base := fstest.MapFS{"flows/b.yaml": {Data: []byte("disk")}, "flows/sub/c.yaml": {Data: []byte("c")}}
	o := overlayFS{base: base, texts: map[string][]byte{"flows/a.yaml": []byte("new"), "flows/b.yaml": []byte("buffer"), "flows/sub/d.yaml": nil}}
	var names []string
	fs.WalkDir(o, "flows", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, p)
		return nil
	})
	if want := []string{"flows", "flows/a.yaml", "flows/b.yaml", "flows/sub", "flows/sub/c.yaml", "flows/sub/d.yaml"}; !slices.Equal(names, want) {
		t.Errorf("walked %v, want %v", names, want)
	}
	for name, want := range map[string]string{"flows/a.yaml": "new", "flows/b.yaml": "buffer", "flows/sub/c.yaml": "c", "flows/sub/d.yaml": ""} {
		if src, err := fs.ReadFile(o, name); err != nil || string(src) != want {
			t.Errorf("%s: %q, %v; want %q", name, src, err, want)
		}
		f, err := o.Open(name)
		if err != nil {
			t.Fatalf("open %s: %v", name, err)
		}
		info, _ := f.Stat()
		if info.Size() != int64(len(want)) || info.IsDir() {
			t.Errorf("%s: size %d, dir %v", name, info.Size(), info.IsDir())
		}
		f.Close()
	}
	if _, err := fs.ReadDir(o, "nowhere"); err == nil {
		t.Error("a directory that does not exist was listed")
	}
}

// TestWorkspaceFiles: Files gives what a load finds, the buffers not
// saved among them, and says when there are more than a bound or when a
// path cannot be found.
func TestWorkspaceFiles(t *testing.T) {
	disk := fstest.MapFS{"flows/a.yaml": {}, "flows/b.yaml": {}, "flows/.hidden/c.yaml": {}, "flows/resources.yaml": {}}
	ws := NewWorkspace([]string{"flows"}, Options{FS: disk})
	ws.SetOverlay("flows/new.yaml", nil)
	files, fits := ws.Files(0)
	if want := []string{"flows/a.yaml", "flows/b.yaml", "flows/new.yaml"}; !fits || !slices.Equal(files.Flows, want) || !slices.Equal(files.Resources, []string{"flows/resources.yaml"}) {
		t.Errorf("files %+v, fits %v; want flows %v and the declarations", files, fits, want)
	}
	for _, tt := range []struct {
		max  int
		fits bool
	}{{4, true}, {3, false}, {1, false}} {
		if _, fits := ws.Files(tt.max); fits != tt.fits {
			t.Errorf("at most %d: fits %v, want %v", tt.max, fits, tt.fits)
		}
	}
	if _, fits := NewWorkspace([]string{"nowhere"}, Options{FS: disk}).Files(0); fits {
		t.Error("a path that does not exist fits")
	}
}

// TestWorkspaceDiagnosticsKeepLinks: the programs of a load stay linked
// to each other after Diagnostics, which compiles one flow alone.
func TestWorkspaceDiagnosticsKeepLinks(t *testing.T) {
	disk := fstest.MapFS{"flows/main.yaml": {Data: []byte(wsMain)}, "flows/mid.yaml": {Data: []byte(wsMid)}, "flows/leaf.yaml": {Data: []byte(wsLeaf)}}
	ws := NewWorkspace([]string{"flows"}, Options{FS: disk})
	set, diags := ws.Load()
	main, ok := set.Program("main")
	if !ok || diags.HasErrors() {
		t.Fatalf("no program main: %v", diags)
	}
	for _, file := range []string{"flows/main.yaml", "flows/mid.yaml"} {
		if ds := ws.Diagnostics(file); len(ds) != 0 {
			t.Errorf("%s: %v", file, ds)
		}
	}
	if got := loadedNames(&Set{Programs: []*flow.Program{main}}); !strings.Contains(got, "main→mid@flows/mid.yaml") {
		t.Errorf("after Diagnostics, main's program is %s", got)
	}
}
