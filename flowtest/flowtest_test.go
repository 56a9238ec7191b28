package flowtest

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/flowserve/flowserve/actions"
)

var update = flag.Bool("update", false, "rewrite golden files")

// testRegistry holds test.lookup: a user's id from their name, failing
// for "nobody".
func testRegistry(t testing.TB) *actions.Registry {
	t.Helper()
	reg := actions.NewRegistry()
	err := reg.Register(actions.Spec{
		Name:    "test.lookup",
		Summary: "Looks a user up by name.",
		Input: map[string]any{"type": "object", "required": []string{"name"},
			"properties": map[string]any{"name": map[string]any{"type": "string"}}},
		Output: map[string]any{"type": "object", "required": []string{"id", "vip"}, "properties": map[string]any{
			"id": map[string]any{"type": "string"}, "vip": map[string]any{"type": "boolean"}}},
		Func: func(ctx context.Context, in map[string]any) (any, error) {
			name := in["name"].(string)
			if name == "nobody" {
				return nil, errors.New("no user is called nobody")
			}
			return map[string]any{"id": "id-" + name, "vip": false}, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

var (
	elapsedText = regexp.MustCompile(`\(\d+\.\d\ds\)`)
	elapsedJSON = regexp.MustCompile(`"elapsed": [0-9.e-]+`)
)

// report runs paths and renders the report as the command does.
func report(t *testing.T, paths []string, format string, cover bool, match func(flow, name string) bool) (string, *Report) {
	t.Helper()
	var b bytes.Buffer
	opts := Options{Actions: testRegistry(t), Match: match}
	if format == "text" {
		opts.OnFlow = func(fr *FlowReport) { fr.WriteText(&b, cover) }
	}
	r, err := Run(context.Background(), paths, opts)
	if err != nil {
		t.Fatal(err)
	}
	if format == "json" {
		if err := r.WriteJSON(&b); err != nil {
			t.Fatal(err)
		}
		return elapsedJSON.ReplaceAllString(b.String(), `"elapsed": 0`), r
	}
	r.WriteSummary(&b)
	return elapsedText.ReplaceAllString(b.String(), "(0.00s)"), r
}

// golden compares got with testdata/golden/name, or rewrites it with
// -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("report differs from %s (run with -update to accept)\n--- got\n%s--- want\n%s", path, got, want)
	}
}

// TestReports checks the exact reports of passing, failing and broken
// test files, in both formats, with and without coverage.
func TestReports(t *testing.T) {
	onlyDeclined := func(flow, name string) bool { return strings.Contains(name, "declined") }
	tests := []struct {
		golden string
		paths  []string
		format string
		cover  bool
		match  func(flow, name string) bool
		ok     bool
	}{
		{"pass.txt", []string{"testdata/pass"}, "text", true, nil, true},
		{"pass.json", []string{"testdata/pass"}, "json", true, nil, true},
		{"fail.txt", []string{"testdata/fail"}, "text", false, nil, false},
		{"fail.json", []string{"testdata/fail"}, "json", false, nil, false},
		{"errors.txt", []string{"testdata/errors"}, "text", true, nil, false},
		{"cover.txt", []string{"testdata/pass/greet.yaml"}, "text", true, onlyDeclined, true},
		{"prompt.txt", []string{"testdata/prompt"}, "text", true, nil, false},
	}
	for _, tc := range tests {
		t.Run(tc.golden, func(t *testing.T) {
			got, r := report(t, tc.paths, tc.format, tc.cover, tc.match)
			if r.OK != tc.ok {
				t.Errorf("report OK = %v, want %v", r.OK, tc.ok)
			}
			golden(t, tc.golden, got)
		})
	}
}
