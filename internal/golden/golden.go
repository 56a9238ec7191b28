// Package golden holds what the tests whose goldens are diagnostics in
// txtar archives share: comparing (or rewriting, with -update) an
// archive's diagnostics section, reading the codes a doc.go documents, and
// checking that goldens and documentation cover the same codes. dsl's
// Parse goldens, lint's goldens and the resource declaration goldens use
// it.
package golden

import (
	"os"
	"regexp"
	"slices"
	"sort"
	"testing"

	"golang.org/x/tools/txtar"
)

// Section is the name of the archive section that holds the expected
// diagnostics, one per line.
const Section = "diagnostics"

// Check compares got with the diagnostics section of a, the archive read
// from file. With update it writes got into that section (adding the
// section when missing) and rewrites file instead.
func Check(t *testing.T, file string, a *txtar.Archive, got string, update bool) {
	t.Helper()
	CheckSection(t, file, a, Section, got, update)
}

// CheckSection is Check for the section called name.
func CheckSection(t *testing.T, file string, a *txtar.Archive, name, got string, update bool) {
	t.Helper()
	i := slices.IndexFunc(a.Files, func(f txtar.File) bool { return f.Name == name })
	if update {
		if i < 0 {
			a.Files = append(a.Files, txtar.File{Name: name})
			i = len(a.Files) - 1
		}
		a.Files[i].Data = []byte(got)
		if err := os.WriteFile(file, txtar.Format(a), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if i < 0 {
		t.Fatalf("%s has no %s section (run with -update)", file, name)
	}
	if want := string(a.Files[i].Data); got != want {
		t.Errorf("%s differ\n--- got\n%s--- want\n%s", name, got, want)
	}
}

// codeLine is a line of a doc.go code list: "//\tcode-name   what it means".
var codeLine = regexp.MustCompile(`(?m)^//\t([a-z]+(?:-[a-z]+)+) {2,}\S`)

// DocumentedCodes returns the diagnostic codes doc, the text of a doc.go,
// lists, failing when there are fewer than min (the list was not found).
func DocumentedCodes(t testing.TB, doc []byte, min int) []string {
	t.Helper()
	var codes []string
	for _, m := range codeLine.FindAllSubmatch(doc, -1) {
		codes = append(codes, string(m[1]))
	}
	if len(codes) < min {
		t.Fatalf("found only %d documented codes, want at least %d", len(codes), min)
	}
	return codes
}

// Coverage reports each documented code no golden produced and each
// code the goldens produced that is not documented; goldens and doc name
// them in the messages.
func Coverage(t *testing.T, documented []string, seen map[string]bool, goldens, doc string) {
	t.Helper()
	for _, c := range documented {
		if !seen[c] {
			t.Errorf("code %s is not covered by any %s", c, goldens)
		}
	}
	var extra []string
	for c := range seen {
		if !slices.Contains(documented, c) {
			extra = append(extra, c)
		}
	}
	sort.Strings(extra)
	for _, c := range extra {
		t.Errorf("code %s is not documented in %s", c, doc)
	}
}
