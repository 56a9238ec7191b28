package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/flowserve/flowserve/flowtest"
)

// invoke runs a flowserve command line with empty standard input.
func invoke(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = Run(context.Background(), args, strings.NewReader(""), &out, &errOut)
	return out.String(), errOut.String(), code
}

// TestExampleFlowsTested is the CI gate for the example flows: every flow
// in flows/ has a test file, every case passes, none is skipped, and the
// cases visit every node.
func TestExampleFlowsTested(t *testing.T) {
	out, errOut, code := invoke(t, "test", "--cover", "--format", "json", "../flows")
	if code != exitOK {
		t.Errorf("flowserve test --cover ../flows: exit %d\n%s%s", code, errOut, out)
	}
	var r flowtest.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if len(r.Flows) < 4 {
		t.Fatalf("only %d example flows", len(r.Flows))
	}
	for _, fr := range r.Flows {
		switch {
		case len(fr.TestFiles) == 0:
			t.Errorf("%s has no test file (%s)", fr.File, strings.TrimSuffix(fr.File, ".yaml")+"_test.yaml")
		case fr.Coverage == nil:
			t.Errorf("%s did not load: %v", fr.File, fr.Errors)
		case fr.Coverage.Percent != 100:
			for _, n := range fr.Coverage.Uncovered {
				t.Errorf("%s:%d: no case visits %s (%s)", n.File, n.Line, n.Node, n.Kind)
			}
		}
		if fr.Skipped > 0 {
			t.Errorf("%s: %d cases skipped", fr.File, fr.Skipped)
		}
		if len(fr.Cases) == 0 {
			t.Errorf("%s: no cases", fr.File)
		}
	}
	if r.Failed > 0 || !r.OK {
		t.Errorf("%d of %d cases failed", r.Failed, r.Cases)
	}
}

func TestTestCommand(t *testing.T) {
	const fixture = "../flowtest/testdata/cli"
	empty := t.TempDir()
	tests := []struct {
		name string
		args []string
		code int
		// want are substrings of stdout, wantErr of stderr.
		want, wantErr []string
	}{
		{"examples pass", []string{"test", "../flows"}, exitOK,
			[]string{"--- PASS: signup/team plan needs 5 seats (", "ok  \tsignup\t", "\nok  \t"}, nil},
		{"coverage", []string{"test", "--cover", "../flows/signup.yaml"}, exitOK,
			[]string{"ok  \tsignup\t7 cases\tcoverage: 100.0% of nodes (4/4)\nok  \t1 flow, 7 cases\n"}, nil},
		{"a failing case", []string{"test", fixture}, exitFail,
			[]string{"--- PASS: hello/passes (", "--- FAIL: hello/fails (",
				"    ../flowtest/testdata/cli/hello_test.yaml:7: text: the result's text differs\n        want: \"Hello, Ada!\"\n        got:  \"Hello, Bob!\"\n",
				"FAIL\thello\t2 cases, 1 failed\nFAIL\t1 flow, 2 cases, 1 failed\n"}, nil},
		{"flags after paths", []string{"test", fixture, "--run", "hello/pass", "--cover"}, exitOK,
			[]string{"ok  \thello\t1 case\tcoverage: 100.0% of nodes (2/2)\n"}, nil},
		{"json", []string{"test", "--format", "json", fixture}, exitFail,
			[]string{`"failed": 1`, `"message": "text: the result's text differs"`}, nil},
		{"bad format", []string{"test", "--format", "yaml"}, exitUsage, nil,
			[]string{"--format must be text or json"}},
		{"bad flag", []string{"test", "--bogus"}, exitUsage, nil,
			[]string{"flag provided but not defined: -bogus", "usage: flowserve test"}},
		{"bad regexp", []string{"test", "--run", "("}, exitUsage, nil,
			[]string{"flowserve test: --run: error parsing regexp"}},
		// Issue 14: as lint does, a path that does not exist, or nothing
		// to test, is a usage error.
		{"missing path", []string{"test", "nope/"}, exitUsage, nil,
			[]string{"flowserve test: nope/: no such file or directory\nusage: flowserve test "}},
		{"a missing path beside one that exists", []string{"test", "../flows", "nope"}, exitUsage, nil,
			[]string{"flowserve test: nope: no such file or directory"}},
		{"nothing to test", []string{"test", empty}, exitUsage, nil,
			[]string{"flowserve test: no flows or test files in " + empty + "\nusage: flowserve test "}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := invoke(t, tc.args...)
			if code != tc.code {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.code, out, errOut)
			}
			if tc.code == exitUsage && out != "" {
				t.Errorf("a usage error printed to stdout:\n%s", out)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("stdout lacks %q:\n%s", w, out)
				}
			}
			for _, w := range tc.wantErr {
				if !strings.Contains(errOut, w) {
					t.Errorf("stderr lacks %q:\n%s", w, errOut)
				}
			}
		})
	}
}

// TestTestWithoutFlowsDir: without paths, test tests flows/, and says so
// as lint does when there is none.
func TestTestWithoutFlowsDir(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, cmd := range []string{"lint", "test"} {
		_, errOut, code := invoke(t, cmd)
		want := "flowserve " + cmd + ": no paths given and no flows/ directory here\nusage: flowserve " + cmd + " "
		if code != exitUsage || !strings.HasPrefix(errOut, want) {
			t.Errorf("%s: exit %d, stderr %q; want exit 2 starting %q", cmd, code, errOut, want)
		}
	}
}

func TestGraphCommand(t *testing.T) {
	golden := func(name string) string {
		b, err := os.ReadFile("../graph/testdata/golden/" + name)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	tests := []struct {
		name    string
		args    []string
		code    int
		want    string // all of stdout, when set
		wantErr string // a substring of stderr
	}{
		{"mermaid by default", []string{"graph", "../flows/delete_file.yaml"}, exitOK, golden("delete_file.mmd"), ""},
		{"dot, flag after the flow", []string{"graph", "../flows/delete_file.yaml", "--format", "dot"}, exitOK, golden("delete_file.dot"), ""},
		{"flag before the flow", []string{"graph", "--format=mermaid", "../flows/signup.yaml"}, exitOK, golden("signup.mmd"), ""},
		{"no flow", []string{"graph"}, exitUsage, "", "give the flow file to draw"},
		{"two flows", []string{"graph", "a.yaml", "b.yaml"}, exitUsage, "", `unexpected argument "b.yaml"`},
		{"bad format", []string{"graph", "--format", "png", "../flows/signup.yaml"}, exitUsage, "", "--format must be mermaid or dot"},
		{"missing file", []string{"graph", "nope.yaml"}, exitUsage, "", "flowserve graph: no flow \"nope.yaml\": looked for nope.yaml, flows/nope.yaml"},
		{"missing path", []string{"graph", "../nope.yaml"}, exitUsage, "", "flowserve graph: ../nope.yaml: no such file or directory"},
		{"a name not found", []string{"graph", "nope"}, exitUsage, "", "flowserve graph: no flow \"nope\": looked for nope, flows/nope.yaml, flows/nope.yml"},
		{"flow with errors", []string{"graph", "../flowtest/testdata/errors/broken.yaml"}, exitFail, "",
			"broken.yaml:7:11: error: no node has id \"nowhere\" [unknown-target]\nflowserve graph: ../flowtest/testdata/errors/broken.yaml has errors"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := invoke(t, tc.args...)
			if code != tc.code {
				t.Errorf("exit %d, want %d\nstderr:\n%s", code, tc.code, errOut)
			}
			if tc.want != "" && out != tc.want {
				t.Errorf("stdout differs from the graph golden:\n%s", out)
			}
			if !strings.Contains(errOut, tc.wantErr) {
				t.Errorf("stderr lacks %q:\n%s", tc.wantErr, errOut)
			}
		})
	}
}

// TestTestPinsTheClock: under flowserve test the built-in time.now reads
// the same pinned clock as run.started, so a flow that returns the time
// has a result a test can expect.
func TestTestPinsTheClock(t *testing.T) {
	dir := writeFlows(t, map[string]string{
		"clock.yaml": `description: Tells the time.
nodes:
  - id: now
    step: time.now
  - return: "{{ now.rfc3339 }} / {{ run.started }}"
`,
		"clock_test.yaml": `tests:
  - name: the pinned clock
    expect:
      text: 2026-01-01T00:00:00Z / 2026-01-01T00:00:00Z
`,
	})
	out, errOut, code := invoke(t, "test", dir)
	if code != 0 {
		t.Errorf("exit %d\n%s%s", code, out, errOut)
	}
}
