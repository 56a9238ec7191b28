package flowtest

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestDocsSubflows runs the example of docs/testing.md's Sub-flows
// section: its flow and test files, written out as the page shows them,
// must pass with full coverage of both flows.
func TestDocsSubflows(t *testing.T) {
	md, err := os.ReadFile(filepath.Join("..", "docs", "testing.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(md), "\n## Sub-flows\n")
	if !ok {
		t.Fatal("docs/testing.md has no Sub-flows section")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	first := regexp.MustCompile(`^# (flows/[\w.-]+\.yaml)\b`)
	dir := t.TempDir()
	written := 0
	for _, block := range strings.Split(section, "```yaml\n")[1:] {
		text, _, _ := strings.Cut(block, "```")
		m := first.FindStringSubmatch(text)
		if m == nil {
			continue
		}
		path := filepath.Join(dir, filepath.FromSlash(m[1]))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		written++
	}
	if written != 3 {
		t.Fatalf("the Sub-flows section shows %d files, want 3 (a caller, its callee, a test file)", written)
	}
	r, err := Run(context.Background(), []string{filepath.Join(dir, "flows")}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !r.OK || r.Passed != 5 || len(r.Flows) != 2 {
		t.Errorf("report OK = %v with %d passed in %d flows, want true with 5 in 2", r.OK, r.Passed, len(r.Flows))
	}
	for _, fr := range r.Flows {
		for _, d := range fr.Errors {
			t.Error(d)
		}
		for _, c := range fr.Cases {
			for _, f := range c.Failures {
				t.Errorf("%s: %s", c.Name, f.Message)
			}
		}
		if fr.Coverage == nil || fr.Coverage.Percent != 100 {
			t.Errorf("%s: coverage %+v, want 100%%", fr.Name, fr.Coverage)
		}
	}
}
