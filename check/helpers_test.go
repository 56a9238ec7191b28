package check

import (
	"path/filepath"
	"slices"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/flowserve/flowserve/dsl"
)

// mustParse parses src as flow.yaml, failing the test on diagnostics.
func mustParse(t *testing.T, src string) *dsl.File {
	t.Helper()
	f, ds := dsl.Parse("flow.yaml", []byte(src))
	if len(ds) > 0 {
		t.Fatalf("unexpected diagnostics:\n%v", ds.Err())
	}
	if f == nil {
		t.Fatal("nil file")
	}
	return f
}

// at is a position in flow.yaml.
func at(line, col int) dsl.Pos { return dsl.Pos{File: "flow.yaml", Line: line, Col: col} }

// parseGoldens returns the flow of every Parse golden of package dsl
// (../dsl/testdata/parse), most of which have errors, by file name.
func parseGoldens(t testing.TB) map[string][]byte {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "dsl", "testdata", "parse", "*.txtar"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden files: %v", err)
	}
	out := map[string][]byte{}
	for _, file := range files {
		a, err := txtar.ParseFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range a.Files {
			if f.Name == "flow.yaml" {
				out[file] = f.Data
			}
		}
		if out[file] == nil {
			t.Fatalf("%s has no flow.yaml section", file)
		}
	}
	return out
}

// sameDiagnostic reports whether d and o are the same diagnostic, fixes
// and all.
func sameDiagnostic(d, o dsl.Diagnostic) bool {
	return d.Pos == o.Pos && d.End == o.End && d.Severity == o.Severity &&
		d.Code == o.Code && d.Message == o.Message && slices.Equal(d.Fixes, o.Fixes)
}
