package resources_test

import (
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/flowserve/flowserve/dsl"
	"github.com/flowserve/flowserve/internal/golden"
	"github.com/flowserve/flowserve/resources"
)

var update = flag.Bool("update", false, "rewrite the diagnostics of testdata/diag/*.txtar")

// TestGolden loads the declaration files of each testdata/diag/*.txtar
// archive (the other files are the data they serve) and compares the
// diagnostics of Parse and Check with the archive's diagnostics section;
// -update rewrites it. Every documented code must be covered and every
// code seen documented.
func TestGolden(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "diag", "*.txtar"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden files: %v", err)
	}
	seen := map[string]bool{}
	for _, file := range files {
		file, _ = filepath.Abs(file)
		name := strings.TrimSuffix(filepath.Base(file), ".txtar")
		t.Run(name, func(t *testing.T) {
			a, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			var decls []string
			for _, f := range a.Files {
				if f.Name == golden.Section {
					continue
				}
				writeFile(t, dir, f.Name, f.Data)
				if resources.IsDeclarationFile(f.Name) {
					decls = append(decls, f.Name)
				}
			}
			sort.Strings(decls)
			t.Chdir(dir)
			var all []*resources.Resource
			var ds dsl.Diagnostics
			for _, path := range decls {
				src, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				rs, d := resources.Parse(path, src)
				all = append(all, rs...)
				ds = append(ds, d...)
			}
			ds = append(ds, resources.Check(all)...)
			ds.Sort()
			var b strings.Builder
			for _, d := range ds {
				b.WriteString(d.String())
				b.WriteByte('\n')
				seen[d.Code] = true
				if d.Pos.Line < 1 || d.Pos.Col < 1 {
					t.Errorf("diagnostic without a position: %v", d)
				}
				if d.Message != strings.TrimSpace(d.Message) || strings.HasSuffix(d.Message, ".") {
					t.Errorf("message with a trailing period or space: %q", d.Message)
				}
			}
			golden.Check(t, file, a, b.String(), *update)
		})
	}
	if t.Failed() || *update {
		return
	}
	golden.Coverage(t, documentedCodes(t), seen, "golden file", "doc.go")
}

// documentedCodes returns the codes doc.go lists.
func documentedCodes(t testing.TB) []string {
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	return golden.DocumentedCodes(t, doc, 15)
}

// writeFile writes a file below dir, making its directories.
func writeFile(t testing.TB, dir, name string, data []byte) {
	t.Helper()
	path := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
