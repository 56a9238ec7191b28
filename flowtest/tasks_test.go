package flowtest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flowserve/flowserve/actions"
	_ "github.com/flowserve/flowserve/actions/std" // time.sleep
)

// TestTaskCases runs cases whose client declares tasks: the statuses the
// call goes through are what a 2026-07-28 server reports, and a wrong
// expectation fails naming both lists.
func TestTaskCases(t *testing.T) {
	r, err := Run(t.Context(), []string{"testdata/tasks"}, Options{Actions: actions.Default()})
	if err != nil {
		t.Fatal(err)
	}
	if !r.OK || r.Passed != 4 {
		t.Fatalf("want 4 passing cases, got %+v", r)
	}

	dir := t.TempDir()
	for _, name := range []string{"failing_job.yaml", "failing_job_test.yaml"} {
		b, err := os.ReadFile(filepath.Join("testdata", "tasks", name))
		if err != nil {
			t.Fatal(err)
		}
		b = []byte(strings.Replace(string(b), "statuses: [working, completed]", "statuses: [working, input_required, completed]", 1))
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r, err = Run(t.Context(), []string{dir}, Options{Actions: actions.Default()})
	if err != nil {
		t.Fatal(err)
	}
	if r.OK || r.Failed != 1 {
		t.Fatalf("want the statuses case to fail, got %+v", r)
	}
	f := r.Flows[0].Cases[0].Failures[0]
	if !strings.Contains(f.Message, "statuses") || !strings.Contains(f.Got, "working, completed") {
		t.Fatalf("failure: %+v", f)
	}
}
