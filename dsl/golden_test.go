package dsl

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"
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
// -update rewrites them.
func TestGolden(t *testing.T) {
	codes := map[string]bool{}
	for _, file := range goldenFiles(t) {
		name := strings.TrimSuffix(filepath.Base(file), ".txtar")
		t.Run(name, func(t *testing.T) {
			a, src, diag := readGolden(t, file)
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
			got := b.String()
			if *update {
				if diag < 0 {
					a.Files = append(a.Files, txtar.File{Name: "diagnostics"})
					diag = len(a.Files) - 1
				}
				a.Files[diag].Data = []byte(got)
				if err := os.WriteFile(file, txtar.Format(a), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want := ""
			if diag >= 0 {
				want = string(a.Files[diag].Data)
			}
			if got != want {
				t.Errorf("diagnostics differ\n--- got\n%s--- want\n%s", got, want)
			}
		})
	}
	if t.Failed() || *update {
		return
	}
	// Every documented code is exercised by a golden file, and every code
	// emitted is documented.
	documented := documentedCodes(t)
	for _, c := range documented {
		if !codes[c] {
			t.Errorf("code %s is not covered by any golden file", c)
		}
	}
	for c := range codes {
		if !slices.Contains(documented, c) {
			t.Errorf("code %s is not documented in doc.go", c)
		}
	}
}

// documentedCodes returns the diagnostic codes of Parse listed in doc.go
// (those before Check's list, which cli's lint goldens cover).
func documentedCodes(t testing.TB) []string {
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	if i := bytes.Index(doc, []byte("// Check reports")); i >= 0 {
		doc = doc[:i]
	}
	var codes []string
	for _, m := range regexp.MustCompile(`(?m)^//\t([a-z]+(?:-[a-z]+)+) {2,}\S`).FindAllStringSubmatch(string(doc), -1) {
		codes = append(codes, m[1])
	}
	if len(codes) < 20 {
		t.Fatalf("found only %d codes in doc.go", len(codes))
	}
	return codes
}
