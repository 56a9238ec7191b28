package flowtest

import (
	"regexp"
	"strings"
	"testing"
)

// runID matches a run id in a report: they are random.
var runID = regexp.MustCompile(`"run":"[0-9a-f]{32}"`)

// TestApprovals runs cases that answer approvals (asks with to:) as the
// server's page would, let them time out, and check the notifications
// their webhooks would get; and test files that answer them wrong. And
// cases with a principal: who calls, and the flow's scopes checked.
func TestApprovals(t *testing.T) {
	for _, tc := range []struct {
		golden, path string
		cover, ok    bool
		passed       int
	}{
		{"approvals.txt", "testdata/approvals", true, true, 6},
		{"approvals_errors.txt", "testdata/approvals_errors", false, false, 0},
		{"approvals_fail.txt", "testdata/approvals_fail", false, false, 0},
		{"principal.txt", "testdata/principal", false, false, 4},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			got, r := report(t, []string{tc.path}, "text", tc.cover, nil)
			if r.OK != tc.ok || r.Passed != tc.passed {
				t.Errorf("report OK = %v with %d passed, want %v with %d", r.OK, r.Passed, tc.ok, tc.passed)
			}
			golden(t, tc.golden, runID.ReplaceAllString(got, `"run":"`+strings.Repeat("0", 32)+`"`))
		})
	}
}
