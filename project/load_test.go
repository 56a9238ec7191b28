package project_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/flowserve/flowserve/check"
	"github.com/flowserve/flowserve/check/codes"
	"github.com/flowserve/flowserve/dsl"
	"github.com/flowserve/flowserve/flow"
	"github.com/flowserve/flowserve/project"
	"github.com/flowserve/flowserve/resources"
)

const okFlow = `description: Says hello.
nodes:
  - return: hello
`

// codesOf returns the codes of diags, in order.
func codesOf(diags dsl.Diagnostics) []string {
	var out []string
	for _, d := range diags {
		out = append(out, d.Code)
	}
	return out
}

// TestLoadReportsEachFindingOnce: every stage runs, and a problem two
// stages could see (an unknown action, a form Check rejects) is reported
// once, by the stage that owns it.
func TestLoadReportsEachFindingOnce(t *testing.T) {
	fsys := fstest.MapFS{
		"flows/ok.yaml": {Data: []byte(okFlow)},
		"flows/action.yaml": {Data: []byte(`description: Calls what does not exist.
nodes:
  - id: s
    step: no.such
  - return: "{{ s.nope }}"
`)},
		"flows/nested.yaml": {Data: []byte(`description: A form no client can render.
nodes:
  - id: q
    ask: Where?
    form:
      address: {type: object, properties: {city: {type: string}}}
  - return: done
`)},
		"flows/types.yaml": {Data: []byte(`description: A condition on a field that does not exist.
nodes:
  - id: q
    ask: Sure?
    form: {ok: {type: boolean}}
  - branch:
      - if: q.content.nope
        then: done
  - id: done
    return: done
`)},
		"flows/broken.yaml":  {Data: []byte("description: [unclosed\n")},
		"flows/dup.yaml":     {Data: []byte("name: ok\n" + okFlow)},
		"flows/ok_test.yaml": {Data: []byte("cases: []\n")},
	}
	set, diags := project.Load([]string{"flows"}, project.Options{FS: fsys})
	got := map[string][]string{}
	for _, d := range diags {
		got[d.Pos.File] = append(got[d.Pos.File], d.Code)
	}
	want := map[string][]string{
		"flows/action.yaml": {codes.UnknownAction},
		"flows/nested.yaml": {codes.FormKind},
		"flows/types.yaml":  {codes.BadExpression},
		"flows/broken.yaml": {codes.BadYAML},
		"flows/ok.yaml":     {codes.DuplicateTool}, // dup.yaml comes first
	}
	for file, w := range want {
		if g := got[file]; !slices.Equal(g, w) {
			t.Errorf("%s: codes %v, want %v\n%v", file, g, w, diags)
		}
	}
	for file := range got {
		if _, ok := want[file]; !ok {
			t.Errorf("%s: unexpected diagnostics %v", file, got[file])
		}
	}
	var names []string
	for _, p := range set.Programs {
		names = append(names, p.Name())
	}
	if !slices.Equal(names, []string{"ok", "ok"}) {
		t.Errorf("programs %v, want the two clean files", names)
	}
	if len(set.Files.Flows) != 6 {
		t.Errorf("flow files %v: want 6 (tests are not flows)", set.Files.Flows)
	}
}

// TestCompileChecks: the embedding path, dsl.Parse then flow.Compile,
// cannot skip check.File.
func TestCompileChecks(t *testing.T) {
	f, diags := dsl.Parse("secret.yaml", []byte(`description: Asks for a password in a form.
nodes:
  - id: login
    ask: Sign in
    form:
      password: {type: string}
  - return: ok
`))
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	p, diags := flow.Compile(f, flow.Env{})
	if p != nil || !slices.Contains(codesOf(diags), codes.SensitiveForm) {
		t.Errorf("Compile without Check: program %v, diagnostics %v; want none, and sensitive-form", p, diags)
	}
	// Checked first, Compile does not report Check's findings again.
	check.File(f, nil)
	p, diags = flow.Compile(f, flow.Env{})
	if p != nil || len(diags) != 0 {
		t.Errorf("Compile after Check: program %v, diagnostics %v; want none and no repeats", p, diags)
	}
}

// TestLoadUsage: paths that do not exist or hold nothing are usage errors.
func TestLoadUsage(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name  string
		paths []string
		code  string
	}{
		{"missing", []string{filepath.Join(dir, "nope")}, codes.NoSuchPath},
		{"empty", []string{dir}, codes.NoFlows},
	} {
		t.Run(tc.name, func(t *testing.T) {
			set, diags := project.Load(tc.paths, project.Options{})
			if set == nil || !project.IsUsage(diags) || !slices.Contains(codesOf(diags), tc.code) {
				t.Errorf("set %v, diagnostics %v; want a usage error %s", set, diags, tc.code)
			}
		})
	}
	_, diags := project.Load([]string{"testdata/none"}, project.Options{FS: fstest.MapFS{"flows/a.yaml": {Data: []byte(okFlow)}}})
	if !project.IsUsage(diags) {
		t.Errorf("a path missing from the FS: %v", diags)
	}
}

// TestLoadFileUnreadable: a file that cannot be read is an error at the
// file, not a usage error.
func TestLoadFileUnreadable(t *testing.T) {
	if os.Getuid() == 0 {
		t.Skip("root reads files without permission") // CI runs as root; the FS case below covers the path
	}
	path := filepath.Join(t.TempDir(), "locked.yaml")
	if err := os.WriteFile(path, []byte(okFlow), 0o000); err != nil {
		t.Fatal(err)
	}
	p, diags := project.LoadFile(path, project.Options{})
	if p != nil || project.IsUsage(diags) || !slices.Contains(codesOf(diags), codes.Unreadable) {
		t.Errorf("program %v, diagnostics %v", p, diags)
	}
}

// target records what a Reloader swapped in.
type target struct {
	progs []*flow.Program
	res   []*resources.Resource
	swaps int
	fail  error
}

func (t *target) ReplaceAll(progs []*flow.Program, rs []*resources.Resource) error {
	if t.fail != nil {
		return t.fail
	}
	t.progs, t.res, t.swaps = progs, rs, t.swaps+1
	return nil
}

// TestReloader: a reload swaps flows and resources together, keeps the
// programs of unchanged files, and swaps nothing when anything has errors.
func TestReloader(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a.yaml", okFlow)
	write("b.yaml", okFlow)
	set, diags := project.Load([]string{dir}, project.Options{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	tg := &target{progs: set.Programs}
	r := project.NewReloader([]string{dir}, project.Options{}, tg, set)

	write("b.yaml", "description: Says bye.\nnodes:\n  - return: bye\n")
	write("c.yaml", okFlow)
	write("resources.yaml", "resources:\n  - uri: note://a\n    name: a\n    text: hi\n")
	ch, _, err := r.Reload()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ch.Added, []string{"c"}) || !slices.Equal(ch.Updated, []string{"b"}) || len(ch.Removed) != 0 {
		t.Errorf("change %+v", ch)
	}
	if tg.progs[0] != set.Programs[0] {
		t.Error("the unchanged program a was replaced")
	}
	if len(tg.res) != 1 {
		t.Errorf("resources %v, want the declared one with the flows", tg.res)
	}

	write("c.yaml", "description: [broken\n")
	swaps := tg.swaps
	if _, diags, err := r.Reload(); err == nil || !diags.HasErrors() || tg.swaps != swaps {
		t.Errorf("a reload with errors: err %v, diagnostics %v, swaps %d → %d", err, diags, swaps, tg.swaps)
	}

	tg.fail = errors.New("refused")
	write("c.yaml", okFlow)
	if _, _, err := r.Reload(); err == nil || !strings.Contains(err.Error(), "refused") {
		t.Errorf("a refused swap: %v", err)
	}
	tg.fail = nil
	// c is back as it was served: nothing changed.
	if ch, _, err = r.Reload(); err != nil || ch.Changed() {
		t.Errorf("after a refused swap: %+v, %v; want no change", ch, err)
	}

	for _, name := range []string{"a.yaml", "b.yaml", "c.yaml", "resources.yaml"} {
		os.Remove(filepath.Join(dir, name))
	}
	ch, _, err = r.Reload()
	if err != nil || len(tg.progs) != 0 || !slices.Equal(ch.Removed, []string{"a", "b", "c"}) {
		t.Errorf("every file removed: %+v, %v, programs %v", ch, err, tg.progs)
	}
}

func TestLoadSource(t *testing.T) {
	src := []byte("name: greet\ndescription: Greets.\nnodes:\n  - return: hi\n")
	p, diags := project.LoadSource("/srv/flows/greet.yaml", src, project.Options{})
	if p == nil || diags.HasErrors() || p.File().Path != "/srv/flows/greet.yaml" {
		t.Fatalf("LoadSource: %v, %v", p, diags)
	}
	f, _ := dsl.Parse("elsewhere.yaml", src)
	if p.Version() != f.Version {
		t.Error("the version depends on where the source was loaded from")
	}
	if p, diags := project.LoadSource("bad.yaml", []byte("name: bad\nnodes: []\n"), project.Options{}); p != nil || !diags.HasErrors() {
		t.Errorf("a bad source compiled: %v", diags)
	}
}

// TestLoadCheckOnly: with CheckOnly, Load reports the same diagnostics, in
// the same order, for many files loaded at once, and keeps no programs.
func TestLoadCheckOnly(t *testing.T) {
	files := fstest.MapFS{}
	for i := range 40 {
		src := okFlow
		if i%3 == 0 {
			src = "description: Bad.\nnodes:\n  - return: \"{{ nope }}\"\n"
		}
		files["flows/f"+strconv.Itoa(i)+".yaml"] = &fstest.MapFile{Data: []byte(src)}
	}
	full, fullDiags := project.Load([]string{"flows"}, project.Options{FS: files})
	checked, checkedDiags := project.Load([]string{"flows"}, project.Options{FS: files, CheckOnly: true})
	if len(full.Programs) != 26 || len(checked.Programs) != 0 || len(checked.Parsed) != 40 {
		t.Errorf("programs %d and %d, parsed %d; want 26, 0 and 40", len(full.Programs), len(checked.Programs), len(checked.Parsed))
	}
	if a, b := fullDiags.Err(), checkedDiags.Err(); a == nil || b == nil || a.Error() != b.Error() {
		t.Errorf("diagnostics differ:\n%v\n---\n%v", a, b)
	}
}
