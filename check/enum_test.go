package check

import (
	"context"
	"github.com/flowserve/flowserve/dsl"
	"reflect"
	"strings"
	"testing"

	"github.com/flowserve/flowserve/actions"
	"github.com/flowserve/flowserve/check/codes"
)

// enumRegistry returns a registry with one action, job.run, whose output
// has a status that is one of done and failed.
func enumRegistry(t *testing.T) *actions.Registry {
	reg := actions.NewRegistry()
	err := reg.Register(actions.Spec{
		Name:    "job.run",
		Summary: "Runs a job.",
		Input:   map[string]any{"type": "object"},
		Output: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"status": map[string]any{"type": "string", "enum": []any{"done", "failed"}},
				"code":   map[string]any{"const": int64(0)},
				"nested": map[string]any{"$ref": "#/$defs/n"},
			},
			"$defs": map[string]any{"n": map[string]any{"enum": []any{"x"}}},
		},
		Func: func(context.Context, map[string]any) (any, error) { return map[string]any{}, nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

func TestCheckEnumCompares(t *testing.T) {
	const head = "description: Jobs.\nnodes:\n  - id: job\n    step: job.run\n"
	tests := []struct {
		name, cond string
		want       []string
	}{
		{"step output enum", "job.status == 'don'", []string{
			`6:28 enum-compare: job.status is one of done, failed, never "don": this == is never true; did you mean "done"?`,
		}},
		{"step output const", "job.code != 1", []string{
			`6:26 enum-compare: job.code is one of 0, never 1: this != is always true; compare with one of them`,
		}},
		{"a number equal to an integer value", "job.code == 0.0", nil},
		{"a value of the enum", "job.status == 'failed'", nil},
		{"a reference is not followed", "job.nested == 'y'", nil},
		{"no enum", "job.other == 'y'", nil},
		{"a comprehension variable", "[1].exists(job, job == 'x')", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := head + "  - branch:\n      - if: \"" + tc.cond + "\"\n        then: done\n  - id: done\n    return: done\n"
			f, ds := dsl.Parse("flow.yaml", []byte(src))
			if ds.HasErrors() {
				t.Fatalf("parse errors:\n%v", ds.Err())
			}
			var got []string
			for _, d := range File(f, enumRegistry(t)) {
				if d.Code == codes.EnumCompare {
					got = append(got, strings.TrimPrefix(d.Pos.String(), "flow.yaml:")+" "+d.Code+": "+d.Message)
				}
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

// TestEnumCompareFix checks the span of an enum-compare warning, its
// literal, and the fix replacing it with the value it misspells; the
// flow runs (the comparison only makes a case dead), so it is a warning
// and the flow has no errors.
func TestEnumCompareFix(t *testing.T) {
	src := "description: Jobs.\nnodes:\n  - id: job\n    step: job.run\n  - branch:\n      - if: job.status == \"don\" || job.status == 'running'\n        then: done\n  - id: done\n    return: done\n"
	f, ds := dsl.Parse("flow.yaml", []byte(src))
	if ds.HasErrors() {
		t.Fatalf("parse errors:\n%v", ds.Err())
	}
	var got []dsl.Diagnostic
	for _, d := range File(f, enumRegistry(t)) {
		if d.Code == codes.EnumCompare {
			got = append(got, d)
		}
	}
	at := func(line, col int) dsl.Pos { return dsl.Pos{File: "flow.yaml", Line: line, Col: col} }
	if len(got) != 2 {
		t.Fatalf("got %d enum-compare warnings, want 2: %v", len(got), got)
	}
	want := []dsl.Fix{{Title: `replace "don" with "done"`, Pos: at(6, 27), End: at(6, 32), NewText: `"done"`}}
	if d := got[0]; d.Pos != at(6, 27) || d.End != at(6, 32) || !reflect.DeepEqual(d.Fixes, want) {
		t.Errorf("got %v (end %v) with fixes %#v, want the span 6:27-6:32 and %#v", d, d.End, d.Fixes, want)
	}
	if d := got[1]; d.Pos != at(6, 50) || d.End != at(6, 59) || d.Fixes != nil {
		t.Errorf("got %v (end %v) with fixes %#v, want the span 6:50-6:59 and no fix", d, d.End, d.Fixes)
	}
	for _, d := range got {
		if d.Severity != dsl.Warning {
			t.Errorf("%v: want a warning", d)
		}
	}
}
