package cli

import (
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/flowserve/flowserve/check/codes"
	"github.com/flowserve/flowserve/check/explain"
	"github.com/flowserve/flowserve/dsl"
	"github.com/flowserve/flowserve/project"
)

// unexampled are the codes that no flow file can make lint report, whose
// explanations say in words what does: paths that are not there or hold
// no flows, a file that cannot be read, and findings of flow.Compile's
// that lint never sees (it is not given a file, or a partial one, and
// builds its expression environment itself).
var unexampled = []string{codes.NoSuchPath, codes.NoFlows, codes.Unreadable, codes.Compile,
	codes.NoFlow, codes.PartialFile}

// TestExplainExamples lints the example of every explanation, which must
// give its code, and the example with its fix, which must lint clean:
// no error and no warning at all. An example's old/ files are the
// version it is compared with, as lint --against does; missing-value's is
// loaded with values for nothing, as serve does.
func TestExplainExamples(t *testing.T) {
	codes := explain.Codes()
	if len(codes) < 80 {
		t.Fatalf("only %d explanations", len(codes))
	}
	for _, code := range codes {
		t.Run(code, func(t *testing.T) {
			e, ok := explain.Lookup(code)
			if !ok {
				t.Fatal("no explanation")
			}
			if len(e.Example) == 0 {
				if !slices.Contains(unexampled, code) {
					t.Fatal("no example: the explanation needs a flow that breaks the rule and its fix")
				}
				return
			}
			if slices.Contains(unexampled, code) {
				t.Errorf("%s has an example, but unexampled lists it", code)
			}
			got := lintExample(t, code, e.Example)
			if !slices.ContainsFunc(got, func(d dsl.Diagnostic) bool { return d.Code == code }) {
				t.Errorf("the example lints without %s:\n%v", code, got)
			}
			if fixed := lintExample(t, code, withFix(e.Example, e.Fix)); len(fixed) > 0 {
				t.Errorf("the fixed example does not lint clean:\n%v", fixed)
			}
		})
	}
}

// withFix returns the files of example with those of fix in place of
// theirs (and added when new).
func withFix(example, fix []explain.File) []explain.File {
	out := slices.Clone(example)
	for _, f := range fix {
		if i := slices.IndexFunc(out, func(e explain.File) bool { return e.Name == f.Name }); i >= 0 {
			out[i] = f
		} else {
			out = append(out, f)
		}
	}
	return out
}

// lintExample lints files as lint does a directory holding them (on
// disk: resource declarations read the files they serve from it): old/
// holds the version to compare with (--against); for missing-value, Load
// is given the values of vars.yaml and secrets.yaml.
func lintExample(t *testing.T, code string, files []explain.File) dsl.Diagnostics {
	t.Helper()
	dir := t.TempDir()
	var paths, olds []string
	for _, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(f.Text), 0o644); err != nil {
			t.Fatal(err)
		}
		switch {
		case strings.HasPrefix(f.Name, "old/"):
			olds = append(olds, p)
		case (path.Ext(f.Name) == ".yaml" || path.Ext(f.Name) == ".yml") && !valueFiles[f.Name]:
			paths = append(paths, p)
		}
	}
	opts := project.Options{}
	if code == codes.MissingValue {
		opts.Values = exampleValues(t, files)
	}
	set, diags := project.Load(paths, opts)
	if project.IsUsage(diags) {
		t.Fatalf("usage error: %v", diags)
	}
	if len(olds) > 0 {
		old, odiags := project.Load(olds, project.Options{})
		if odiags.HasErrors() {
			t.Fatalf("old version: %v", odiags)
		}
		diags = append(diags, againstDiagnostics(old.Programs, set.Programs)...)
	}
	return diags
}

// valueFiles are the files of an example that hold values of vars and
// secrets (flowserve serve --vars vars.yaml --secrets secrets.yaml).
var valueFiles = map[string]bool{"vars.yaml": true, "secrets.yaml": true}

// exampleValues returns the values of vars and secrets files gives, in
// vars.yaml and secrets.yaml.
func exampleValues(t *testing.T, files []explain.File) *project.Values {
	t.Helper()
	v := &project.Values{}
	v.Vars, v.Secrets = map[string]string{}, map[string]string{}
	for _, f := range files {
		into := map[string]map[string]string{"vars.yaml": v.Vars, "secrets.yaml": v.Secrets}[f.Name]
		if into == nil {
			continue
		}
		if err := yaml.Unmarshal([]byte(f.Text), &into); err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
	}
	return v
}

// TestLintExplain runs flowserve lint --explain: a code prints its
// explanation (in any case), an unknown one is a usage error naming the
// close codes, or all of them when none is close, and paths with it are
// a usage error.
func TestLintExplain(t *testing.T) {
	want, _ := explain.Lookup("maybe-unbound")
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout string   // exactly, when set
		stderr []string // each must appear
	}{
		{"a code", []string{"--explain", "maybe-unbound"}, exitOK, want.Text, nil},
		{"with =, in capitals", []string{"--explain=Maybe-Unbound"}, exitOK, want.Text, nil},
		{"misspelt", []string{"--explain", "mabye-unbound"}, exitUsage, "",
			[]string{`no lint code is "mabye-unbound"; did you mean maybe-unbound`}},
		{"a word of codes", []string{"--explain", "unbound"}, exitUsage, "",
			[]string{"maybe-unbound", "unbounded-loop"}},
		{"nothing close", []string{"--explain", "zzzzzzzz"}, exitUsage, "",
			[]string{`no lint code is "zzzzzzzz"; the codes are:`, "\n  unknown-key\n", "\n  bad-uri\n"}},
		{"with paths", []string{"--explain", "unknown-key", "flows"}, exitUsage, "",
			[]string{"--explain lints nothing: give it a code alone, not flows"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := run(t, append([]string{"lint"}, tc.args...)...)
			if code != tc.code {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.code, out, errOut)
			}
			if out != tc.stdout {
				t.Errorf("stdout:\n%s\nwant:\n%s", out, tc.stdout)
			}
			for _, s := range tc.stderr {
				if !strings.Contains(errOut, s) {
					t.Errorf("stderr lacks %q:\n%s", s, errOut)
				}
			}
		})
	}
	if !strings.Contains(want.Text, "## Why") || !strings.Contains(want.Text, "## Fix") {
		t.Errorf("the explanation lacks its sections:\n%s", want.Text)
	}
	t.Run("usage", func(t *testing.T) {
		_, errOut, _ := run(t, "lint", "-h")
		if !strings.Contains(errOut, "flowserve lint --explain CODE") || !strings.Contains(errOut, "-explain CODE") {
			t.Errorf("usage lacks --explain:\n%s", errOut)
		}
	})
}
