package flowtest

import "testing"

// TestSettings runs cases that give the flow's vars and secrets, in the
// test file and per case, and a test file that gives them wrong.
func TestSettings(t *testing.T) {
	// Tests are hermetic: the server's environment gives no value.
	t.Setenv("FLOWSERVE_VAR_GREETING", "from the environment")
	t.Setenv("FLOWSERVE_SECRET_TOKEN", "from the environment")
	for _, tc := range []struct {
		golden, path string
		ok           bool
	}{
		{"secrets.txt", "testdata/secrets", true},
		{"secrets_errors.txt", "testdata/secrets_errors", false},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			got, r := report(t, []string{tc.path}, "text", false, nil)
			if r.OK != tc.ok {
				t.Errorf("report OK = %v, want %v", r.OK, tc.ok)
			}
			golden(t, tc.golden, got)
		})
	}
}
