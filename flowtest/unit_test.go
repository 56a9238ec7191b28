package flowtest

import (
	"fmt"
	"strings"
	"testing"
)

func TestDiscover(t *testing.T) {
	tests := []struct {
		paths []string
		want  string // "flow: tests" per suite, one per line
		err   string
	}{
		{paths: []string{"testdata/pass"}, want: "testdata/pass/greet.yaml: [testdata/pass/greet_test.yaml]"},
		{paths: []string{"testdata/pass/"}, want: "testdata/pass/greet.yaml: [testdata/pass/greet_test.yaml]"},
		{paths: []string{"testdata/pass/greet.yaml"}, want: "testdata/pass/greet.yaml: [testdata/pass/greet_test.yaml]"},
		{paths: []string{"testdata/pass/greet_test.yaml"}, want: "testdata/pass/greet.yaml: [testdata/pass/greet_test.yaml]"},
		{paths: []string{"testdata/fail"}, want: "testdata/pass/greet.yaml: [testdata/fail/greet_broken_test.yaml]"},
		{paths: []string{"testdata/pass", "testdata/fail", "testdata/pass/greet.yaml"},
			want: "testdata/pass/greet.yaml: [testdata/fail/greet_broken_test.yaml testdata/pass/greet_test.yaml]"},
		{paths: []string{"testdata/errors"}, want: strings.Join([]string{
			"testdata/errors/broken.yaml: [testdata/errors/broken_test.yaml]",
			"testdata/errors/lonely.yaml: []",
			"testdata/errors/ok.yaml: [testdata/errors/more_test.yaml testdata/errors/ok_test.yaml]",
			"testdata/errors/orphan.yaml: [testdata/errors/orphan_test.yaml]",
			"testdata/errors/yaml.yaml: [testdata/errors/yaml_test.yaml]",
		}, "\n")},
		{paths: []string{"testdata/nope"}, err: "testdata/nope: no such file or directory"},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.paths, ","), func(t *testing.T) {
			suites, err := Discover(tc.paths)
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var lines []string
			for _, s := range suites {
				lines = append(lines, fmt.Sprintf("%s: %v", s.Flow, s.Tests))
			}
			if got := strings.Join(lines, "\n"); got != tc.want {
				t.Errorf("suites:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}

func TestIsTestFile(t *testing.T) {
	tests := map[string]bool{
		"signup_test.yaml": true,
		"signup_test.yml":  true,
		"signup.yaml":      false,
		"_test.yaml":       false,
		"signup_test.json": false,
		"my_tests.yaml":    false,
	}
	for name, want := range tests {
		if got := IsTestFile(name); got != want {
			t.Errorf("IsTestFile(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestDiffValues(t *testing.T) {
	tests := []struct {
		name      string
		want, got any
		contains  bool
		diff      string
	}{
		{"equal", map[string]any{"a": int64(1)}, map[string]any{"a": 1.0}, false, ""},
		{"numbers by value", []any{int64(2), 2.5}, []any{2.0, 2.5}, false, ""},
		{"a different scalar", map[string]any{"a": "x"}, map[string]any{"a": "y"}, false, `v.a: want "x", got "y"`},
		{"missing and unexpected", map[string]any{"a": true}, map[string]any{"b": nil}, false,
			"v.a: missing, want true; v.b: unexpected, got null"},
		{"contains ignores more keys", map[string]any{"a": map[string]any{"b": int64(1)}},
			map[string]any{"a": map[string]any{"b": int64(1), "c": int64(2)}, "d": "x"}, true, ""},
		{"contains still compares lists whole", []any{"a"}, []any{"a", "b"}, true, `v: want 1 item ["a"], got 2 ["a","b"]`},
		{"odd keys are quoted", map[string]any{"x-y": int64(1)}, map[string]any{"x-y": int64(2)}, false, `v["x-y"]: want 1, got 2`},
		{"types differ", map[string]any{"a": int64(1)}, "text", false, `v: want an object {"a":1}, got "text"`},
		{"null is not false", nil, false, false, "v: want null, got false"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var lines []string
			diffValues(tc.want, tc.got, "v", tc.contains, &lines)
			if got := strings.Join(lines, "; "); got != tc.diff {
				t.Errorf("diff %q, want %q", got, tc.diff)
			}
		})
	}
}

func TestOrdinal(t *testing.T) {
	for n, want := range map[int]string{1: "1st", 2: "2nd", 3: "3rd", 4: "4th", 11: "11th", 12: "12th", 13: "13th", 21: "21st", 102: "102nd"} {
		if got := ordinal(n); got != want {
			t.Errorf("ordinal(%d) = %q, want %q", n, got, want)
		}
	}
}
