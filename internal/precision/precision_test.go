// Package precision holds the precision corpus test of issue #28: every
// correct flow of the repository lints with no errors and with no
// warnings but those it says it expects. It is a package of its own so
// that registering the custom actions of examples/custom-actions (which
// its flows need) changes no other package's action registry.
package precision

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/flowserve/flowserve/cli"

	_ "github.com/flowserve/flowserve/examples/custom-actions/tickets" // tickets.create, tickets.get
)

// corpus lists the directories of correct flows, relative to the
// repository's root. The flow files of each (*.yaml and *.yml, not tests,
// not in subdirectories) are linted together, as `flowserve lint FILES...`
// does, so that calls find their callees; skip names files of the
// directory that are not meant to be correct, each with its reason.
//
// A flow that draws a warning on purpose says so in a comment line of its
// own, `# lint-expect: warning CODE`; any other warning fails the test, as
// does every error, and so does an expected warning that no longer shows.
var corpus = []struct {
	dir  string
	skip map[string]string // file name → why it is not part of the corpus
}{
	{dir: "flows"},
	{dir: "examples/custom-actions/flows"},
	{dir: "examples/attach/flows"},
	{dir: "testdata/conformance"},
	{dir: "testdata/conformance/pending"},
	{dir: "testdata/precision"}, // issue #28's corpus of flows written as users write them
	{dir: "cli/testdata/calls", skip: map[string]string{
		"unrelated_broken.yaml": "broken on purpose: lint of one file must not report it"}},
	{dir: "flowtest/testdata/approvals"},
	{dir: "flowtest/testdata/approvals_errors"}, // the flow is correct, its test file is not
	{dir: "flowtest/testdata/approvals_fail"},   // the flows are correct, their cases fail
	{dir: "flowtest/testdata/cli"},
	{dir: "flowtest/testdata/principal"},
	{dir: "flowtest/testdata/prompt"},
	{dir: "flowtest/testdata/tasks"},
	{dir: "graph/testdata", skip: map[string]string{
		"escape.yaml": "a bad tool name and a test-only action, to test the drawing's escaping"}},
	{dir: "serve/testdata", skip: map[string]string{
		"failing.yaml": "steps of test-only actions (test.fail…) registered by serve's tests"}},
}

// Not in the corpus: the package testdata directories whose flows need
// test-only actions their package's tests register (flowtest/testdata/
// calls, errors, pass, secrets, secrets_errors; reliability/testdata;
// serve/testdata/calls; flow/testdata/fingerprints), those broken on
// purpose (flowtest/testdata/calls_broken), and the lint goldens
// (cli/testdata/lint/*.txtar and the like).

// covered are the directories every flow file below which must be in the
// corpus (or skipped by it): a new flow there is linted without being
// listed. pending is left out: see pendingDir.
var covered = []string{"flows", "examples", "testdata"}

// pendingDir holds correct flows that lint still refuses because of a
// false positive being fixed; its README.md names each and the code that
// fires. The test does not lint them, and says when one lints clean.
const pendingDir = "testdata/precision/pending"

// tested are the directories whose flows' test files (flowserve test)
// must pass too: they prove each flow runs along its branches.
var tested = []string{"testdata/precision"}

var expectLine = regexp.MustCompile(`(?m)^\s*#\s*lint-expect:\s*(\S+)\s+(\S+)\s*$`)

// diagnostic is one entry of `flowserve lint --format json`.
type diagnostic struct {
	File     string `json:"file"`
	Line     int    `json:"line"`
	Col      int    `json:"col"`
	Severity string `json:"severity"`
	Code     string `json:"code"`
	Message  string `json:"message"`
}

// String gives d as lint's text output does.
func (d diagnostic) String() string {
	return fmt.Sprintf("%s:%d:%d: %s: %s [%s]", d.File, d.Line, d.Col, d.Severity, d.Message, d.Code)
}

// TestPrecisionCorpus lints every corpus flow as `flowserve lint` does and
// fails on any error and any warning the flow does not expect.
func TestPrecisionCorpus(t *testing.T) {
	t.Chdir(repoRoot(t))
	listed := map[string]bool{}
	for _, c := range corpus {
		files := flowFiles(t, c.dir, c.skip)
		for _, f := range files {
			listed[f] = true
		}
		for name := range c.skip {
			listed[filepath.Join(c.dir, name)] = true
		}
		t.Run(c.dir, func(t *testing.T) {
			if len(files) == 0 {
				t.Fatalf("%s holds no flow files: remove it from the corpus", c.dir)
			}
			byFile := lint(t, files)
			for file := range byFile {
				if !slices.Contains(files, file) {
					t.Errorf("a file outside the list was reported (a callee?): %s", file)
					for _, d := range byFile[file] {
						t.Errorf("  %s", d)
					}
				}
			}
			for _, f := range files {
				checkFile(t, f, byFile[f])
			}
		})
	}
	t.Run("every flow is listed", func(t *testing.T) {
		for _, dir := range covered {
			for _, f := range flowFilesBelow(t, dir) {
				if !listed[f] && !strings.HasPrefix(f, pendingDir+string(filepath.Separator)) {
					t.Errorf("%s is a flow file in no corpus directory: add its directory to corpus (or skip it there, saying why)", f)
				}
			}
		}
	})
}

// checkFile compares the diagnostics of file with its lint-expect lines.
func checkFile(t *testing.T, file string, diags []diagnostic) {
	t.Helper()
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	expected := map[string]bool{} // warning codes
	for _, m := range expectLine.FindAllStringSubmatch(string(src), -1) {
		if m[1] != "warning" {
			t.Errorf("%s: lint-expect: %s %s: only warnings may be expected; a correct flow has no errors", file, m[1], m[2])
			continue
		}
		expected[m[2]] = true
	}
	seen := map[string]bool{}
	for _, d := range diags {
		switch {
		case d.Severity == "error":
			t.Errorf("error in a correct flow: %s", d)
		case expected[d.Code]:
			seen[d.Code] = true
		default:
			t.Errorf("unexpected warning (fix the flow, or add the line \"# lint-expect: warning %s\" with the reason): %s", d.Code, d)
		}
	}
	for code := range expected {
		if !seen[code] {
			t.Errorf("%s expects a %s warning that lint no longer gives: remove its lint-expect line", file, code)
		}
	}
}

// lint runs `flowserve lint --format json` on files and returns the
// diagnostics by file.
func lint(t *testing.T, files []string) map[string][]diagnostic {
	t.Helper()
	var out, errb bytes.Buffer
	args := append([]string{"lint", "--format", "json"}, files...)
	code := cli.Run(context.Background(), args, strings.NewReader(""), &out, &errb)
	if code != 0 && code != 1 {
		t.Fatalf("flowserve lint exited %d:\n%s", code, errb.String())
	}
	var diags []diagnostic
	if err := json.Unmarshal(out.Bytes(), &diags); err != nil {
		t.Fatalf("flowserve lint --format json: %v\n%s", err, out.String())
	}
	byFile := map[string][]diagnostic{}
	for _, d := range diags {
		f := filepath.Clean(d.File)
		byFile[f] = append(byFile[f], d)
	}
	return byFile
}

// TestPrecisionCorpusRuns runs the test files beside the flows of tested
// (flowserve test), which take each flow along its branches.
func TestPrecisionCorpusRuns(t *testing.T) {
	t.Chdir(repoRoot(t))
	for _, dir := range tested {
		t.Run(dir, func(t *testing.T) {
			files := flowFiles(t, dir, nil)
			var out, errb bytes.Buffer
			args := append([]string{"test"}, files...)
			if code := cli.Run(context.Background(), args, strings.NewReader(""), &out, &errb); code != 0 {
				t.Fatalf("flowserve test %s exited %d:\n%s%s", dir, code, out.String(), errb.String())
			}
		})
	}
}

// TestPrecisionPending checks that every pending flow is explained in the
// README.md beside it, and says which ones lint clean by now (to be moved
// back into the corpus).
func TestPrecisionPending(t *testing.T) {
	t.Chdir(repoRoot(t))
	files := flowFilesBelow(t, pendingDir)
	if len(files) == 0 {
		return
	}
	readme, err := os.ReadFile(filepath.Join(pendingDir, "README.md"))
	if err != nil {
		t.Fatalf("%s holds flows and no README.md saying why: %v", pendingDir, err)
	}
	for _, f := range files {
		if !strings.Contains(string(readme), filepath.Base(f)) {
			t.Errorf("%s/README.md does not name %s: say which false positive keeps it there", pendingDir, filepath.Base(f))
		}
	}
	byFile := lint(t, files)
	for _, f := range files {
		if len(byFile[f]) == 0 {
			t.Logf("%s lints clean now: move it (and its test file) back to testdata/precision", f)
		}
	}
}

// repoRoot returns the directory of the module's go.mod.
func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = parent
	}
}

// flowFiles returns the flow files directly in dir, but those of skip,
// and fails when a skipped file is not there.
func flowFiles(t *testing.T, dir string, skip map[string]string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, e := range entries {
		if !e.IsDir() && isFlowFile(e.Name()) && skip[e.Name()] == "" {
			files = append(files, filepath.Join(dir, e.Name()))
		}
	}
	for name := range skip {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("corpus skips %s/%s, which is not there: %v", dir, name, err)
		}
	}
	return files
}

// flowFilesBelow returns the flow files in dir and its subdirectories.
func flowFilesBelow(t *testing.T, dir string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && isFlowFile(d.Name()) {
			files = append(files, path)
		}
		return nil
	})
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return files
}

// isFlowFile reports whether name is a flow file's: *.yaml or *.yml, not
// a test file and not a resource declaration file.
func isFlowFile(name string) bool {
	ext := filepath.Ext(name)
	if ext != ".yaml" && ext != ".yml" {
		return false
	}
	base := strings.TrimSuffix(name, ext)
	return !strings.HasSuffix(base, "_test") && base != "resources" && !strings.HasSuffix(base, ".resources")
}
