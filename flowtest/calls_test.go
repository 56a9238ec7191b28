package flowtest

import "testing"

// TestCalls runs flows with call and link nodes: their callees run for
// real, loaded with the flows beside them, their questions answered by
// the call path (confirm/ok), calls and callees' steps mocked, and the
// callees' nodes covered in their own files; and test files that name
// callees' nodes wrong, and cases that fail.
func TestCalls(t *testing.T) {
	onlyMocked := func(flow, name string) bool { return name == "mocked confirmation" }
	for _, tc := range []struct {
		golden string
		paths  []string
		cover  bool
		match  func(flow, name string) bool
		ok     bool
		passed int
	}{
		{"calls.txt", []string{"testdata/calls"}, true, nil, true, 9},
		{"calls_mocked.txt", []string{"testdata/calls"}, true, onlyMocked, true, 1},
		{"calls_one.txt", []string{"testdata/calls/admin_test.yaml"}, true, nil, true, 3},
		{"calls_errors.txt", []string{"testdata/calls_errors"}, false, nil, false, 0},
		{"calls_fail.txt", []string{"testdata/calls_fail"}, false, nil, false, 0},
		{"calls_broken.txt", []string{"testdata/calls_broken"}, false, nil, false, 0},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			got, r := report(t, tc.paths, "text", tc.cover, tc.match)
			if r.OK != tc.ok || r.Passed != tc.passed {
				t.Errorf("report OK = %v with %d passed, want %v with %d", r.OK, r.Passed, tc.ok, tc.passed)
			}
			golden(t, tc.golden, got)
		})
	}
}
