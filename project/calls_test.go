package project

import (
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/flowserve/flowserve/check/codes"
	"github.com/flowserve/flowserve/flow"
	"github.com/flowserve/flowserve/internal/golden"
	"github.com/flowserve/flowserve/resources"
)

var update = flag.Bool("update", false, "rewrite golden files")

// TestCallGoldens loads each testdata/calls/*.txtar archive's flow files
// together and compares the diagnostics with its diagnostics section
// (-update rewrites them). Every code of the CheckCalls stage must be
// covered by some archive.
func TestCallGoldens(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "calls", "*.txtar"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no goldens: %v", err)
	}
	seen := map[string]bool{}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			a, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			for _, f := range a.Files {
				if strings.HasSuffix(f.Name, ".yaml") {
					if err := os.WriteFile(filepath.Join(dir, f.Name), f.Data, 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
			set, diags := Load([]string{dir}, Options{})
			var b strings.Builder
			for _, d := range diags {
				seen[d.Code] = true
				d.Pos.File = filepath.Base(d.Pos.File)
				b.WriteString(d.String() + "\n")
			}
			var served []string
			for _, p := range set.Programs {
				kind := "tool"
				switch {
				case p.Private():
					kind = "private"
				case p.IsPrompt():
					kind = "prompt"
				}
				served = append(served, p.Name()+" ("+kind+")")
			}
			sort.Strings(served)
			b.WriteString("programs: " + strings.Join(served, ", ") + "\n")
			golden.Check(t, file, a, b.String(), *update)
		})
	}
	for _, code := range []string{codes.UnknownFlow, codes.BadCallee, codes.CallCycle, codes.LinkOutput,
		codes.WithMissing, codes.WithUnknown, codes.WithValue, codes.TypeError, codes.ApprovalNeedsTask,
		codes.RoundBudget, codes.MaybeUnbound, codes.ToolOnly} {
		if !seen[code] {
			t.Errorf("no golden in testdata/calls reports %s", code)
		}
	}
}

// TestLoadPullsCallees checks that loading one file also loads the flows
// beside it that it calls, directly or not (and no others), reporting
// only their errors.
func TestLoadPullsCallees(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("main.yaml", "name: main\ndescription: x\nnodes:\n  - id: c\n    call: confirm\n  - return: \"{{ c }}\"\n")
	// confirm has no description (a warning, not reported) and calls ask.
	write("confirm.yaml", "name: confirm\nexpose: false\nnodes:\n  - id: a\n    call: asker\n  - return: \"{{ a }}\"\n")
	write("asker_flow.yaml", "name: asker\ndescription: x\nexpose: false\nnodes:\n  - return: asked\n")
	write("other.yaml", "name: other\ndescription: x\nnodes:\n  - return: [not, valid\n")
	set, diags := Load([]string{filepath.Join(dir, "main.yaml")}, Options{})
	if err := diags.Err(); err != nil || len(diags) > 0 {
		t.Fatalf("diagnostics: %v", diags)
	}
	var names []string
	for _, p := range set.Programs {
		names = append(names, p.Name())
	}
	if strings.Join(names, " ") != "main confirm asker" {
		t.Errorf("programs %v, want main confirm asker", names)
	}
	if len(set.Files.Flows) != 3 {
		t.Errorf("files %v", set.Files.Flows)
	}

	// A callee with errors fails its caller's load with them.
	write("confirm.yaml", "name: confirm\nexpose: false\nnodes:\n  - id: a\n    call: askr\n  - return: \"{{ a }}\"\n")
	_, diags = Load([]string{filepath.Join(dir, "main.yaml")}, Options{})
	if len(diags) != 1 || diags[0].Code != codes.UnknownFlow || filepath.Base(diags[0].Pos.File) != "confirm.yaml" {
		t.Errorf("diagnostics %v, want confirm's unknown-flow", diags)
	}

	// Two files beside it of the name it calls: as for the directory.
	write("confirm.yaml", "name: confirm\nexpose: false\nnodes:\n  - return: one\n")
	write("confirm_too.yaml", "name: confirm\nexpose: false\nnodes:\n  - return: two\n")
	_, diags = Load([]string{filepath.Join(dir, "main.yaml")}, Options{})
	if len(diags) != 1 || diags[0].Code != codes.DuplicateTool || filepath.Base(diags[0].Pos.File) != "confirm_too.yaml" {
		t.Errorf("diagnostics %v, want confirm_too's duplicate-tool", diags)
	}
}

// reloadTarget records what a Reloader swaps in.
type reloadTarget struct{ progs []*flow.Program }

func (r *reloadTarget) ReplaceAll(progs []*flow.Program, _ []*resources.Resource) error {
	r.progs = progs
	return nil
}

// TestReloadRelinksCallers checks that a reload that changes only a
// callee gives its unchanged callers a program linked to the new callee,
// and keeps the programs of flows whose calls did not change.
func TestReloadRelinksCallers(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("caller.yaml", "name: caller\ndescription: x\nnodes:\n  - id: c\n    call: callee\n  - return: \"{{ c }}\"\n")
	write("callee.yaml", "name: callee\nexpose: false\nnodes:\n  - return: v1\n")
	write("alone.yaml", "name: alone\ndescription: x\nnodes:\n  - return: alone\n")
	set, diags := Load([]string{dir}, Options{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	target := &reloadTarget{progs: set.Programs}
	r := NewReloader([]string{dir}, Options{}, target, set)
	before := map[string]*flow.Program{}
	for _, p := range set.Programs {
		before[p.Name()] = p
	}
	write("callee.yaml", "name: callee\nexpose: false\nnodes:\n  - return: v2\n")
	ch, _, err := r.Reload()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(ch.Updated, " ") != "callee" {
		t.Errorf("updated %v, want callee", ch.Updated)
	}
	after := map[string]*flow.Program{}
	for _, p := range target.progs {
		after[p.Name()] = p
	}
	if got := after["caller"].Callees(); len(got) != 1 || got[0] != after["callee"] {
		t.Errorf("the caller is linked to %v, not the new callee %p", got, after["callee"])
	}
	if after["alone"] != before["alone"] {
		t.Error("the program of a flow with no change and no calls was not kept")
	}
}
