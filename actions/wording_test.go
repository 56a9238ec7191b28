package actions

import (
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/flowserve/flowserve/schemas"
)

// TestWordingIsSchemas: a value that fails an action's schema is worded
// exactly as package schemas words it for the same schema, input or output.
func TestWordingIsSchemas(t *testing.T) {
	a := numberAction(t)
	closed := map[string]any{
		"type":                 "object",
		"properties":           map[string]any{"path": map[string]any{"type": "string", "minLength": 1}, "mode": map[string]any{"const": "fast"}},
		"required":             []any{"path"},
		"additionalProperties": false,
	}
	b, err := NewAction(Spec{Name: "w.closed", Summary: "s", Func: nop, Input: closed, Output: closed})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		action *Action
		in     map[string]any
	}{
		{"type", a, map[string]any{"i": "3"}},
		{"range", a, map[string]any{"i": int64(-1), "n": 2.0}},
		{"enum", a, map[string]any{"e": int64(2)}},
		{"nested", a, map[string]any{"list": []any{map[string]any{"name": "x"}, map[string]any{}}}},
		{"map values", a, map[string]any{"tags": map[string]any{"a.b": int64(1)}}},
		{"format", a, map[string]any{"when": "yesterday"}},
		{"not JSON", a, map[string]any{"n": math.NaN()}},
		{"missing and unknown", b, map[string]any{"mode": "slow", "extra": true}},
		{"too short", b, map[string]any{"path": ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sch, err := schemas.Compile(tt.action.Input)
			if err != nil {
				t.Fatal(err)
			}
			want := sch.Validate(tt.in)
			if len(want) == 0 {
				t.Fatal("the case is valid; it tests nothing")
			}
			var verr *ValidationError
			if err := tt.action.ValidateInput(tt.in); !errors.As(err, &verr) || !slices.Equal(verr.Violations, want) {
				t.Errorf("ValidateInput = %v\nschemas says %q", err, want)
			}
			if tt.action != b {
				return
			}
			if err := b.ValidateOutput(tt.in); !errors.As(err, &verr) || !verr.Output || !slices.Equal(verr.Violations, want) {
				t.Errorf("ValidateOutput = %v\nschemas says %q", err, want)
			}
		})
	}
}
