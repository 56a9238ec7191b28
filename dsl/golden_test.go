package dsl

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/flowserve/flowserve/internal/golden"
)

var update = flag.Bool("update", false, "rewrite golden files")

// goldenFiles returns the golden test files of Parse.
func goldenFiles(t testing.TB) []string {
	files, err := filepath.Glob(filepath.Join("testdata", "parse", "*.txtar"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden files: %v", err)
	}
	return files
}

// readGolden returns the archive of a golden file, its flow and the index
// of its diagnostics section (-1 when absent).
func readGolden(t testing.TB, file string) (*txtar.Archive, []byte, int) {
	a, err := txtar.ParseFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var src []byte
	diag := -1
	for i, f := range a.Files {
		switch f.Name {
		case "flow.yaml":
			src = f.Data
		case "diagnostics":
			diag = i
		}
	}
	if src == nil {
		t.Fatalf("%s has no flow.yaml section", file)
	}
	return a, src, diag
}

// TestGolden checks the diagnostics of each testdata/parse/*.txtar case;
// -update rewrites them. Every code of Parse that doc.go lists must be
// covered by a golden, and every code seen must be listed.
func TestGolden(t *testing.T) {
	codes := map[string]bool{}
	for _, file := range goldenFiles(t) {
		name := strings.TrimSuffix(filepath.Base(file), ".txtar")
		t.Run(name, func(t *testing.T) {
			a, src, _ := readGolden(t, file)
			_, ds := Parse("flow.yaml", src)
			var b strings.Builder
			for _, d := range ds {
				b.WriteString(d.String())
				b.WriteByte('\n')
				codes[d.Code] = true
				if d.Pos.Line < 1 || d.Pos.Col < 1 {
					t.Errorf("diagnostic without position: %v", d)
				}
			}
			golden.Check(t, file, a, b.String(), *update)
		})
	}
	if t.Failed() || *update {
		return
	}
	golden.Coverage(t, documentedCodes(t), codes, "golden file", "check/codes/doc.go")
}

// documentedCodes returns the diagnostic codes of Parse listed in
// check/codes/doc.go (those before check.File's list, which cli's lint goldens
// cover).
func documentedCodes(t testing.TB) []string {
	doc, err := os.ReadFile("../check/codes/doc.go")
	if err != nil {
		t.Fatal(err)
	}
	if i := bytes.Index(doc, []byte("// check.File reports")); i >= 0 {
		doc = doc[:i]
	}
	return golden.DocumentedCodes(t, doc, 20)
}
