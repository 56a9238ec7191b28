package check

import (
	"fmt"
	"github.com/flowserve/flowserve/dsl"
	"strings"
	"testing"

	"github.com/flowserve/flowserve/check/codes"
)

// asksFlow returns a flow of n asks in a row, with the top-level lines
// extra.
func asksFlow(n int, extra string) string {
	var b strings.Builder
	b.WriteString("description: d\n" + extra + "nodes:\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "  - id: q%d\n    ask: \"Q%d?\"\n    form: {v: {type: string}}\n", i, i)
	}
	b.WriteString("  - return: done\n")
	return b.String()
}

func TestRounds(t *testing.T) {
	loop := "description: d\nnodes:\n  - set: {i: 2}\n  - id: q\n    ask: \"Q?\"\n    form: {v: {type: string}}\n" +
		"  - set: {i: \"{{ i + 2 }}\"}\n  - branch:\n      - if: i <= 10\n        then: q\n  - return: done\n"
	tests := []struct {
		name     string
		src      string
		budget   int
		max      int
		warnings []string
	}{
		{"nine", asksFlow(9, ""), 9, 9, nil},
		{"ten", asksFlow(10, ""), 9, 10, []string{"t.yaml:30:5 round-budget"}},
		{"ten as a task", asksFlow(10, "task: required\n"), 9, 10, nil},
		{"ten, budget 12", asksFlow(10, ""), 12, 10, nil},
		{"loop of 5", loop, 3, 5, []string{"t.yaml:4:5 round-budget"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, ds := dsl.Parse("t.yaml", []byte(tt.src))
			if ds.HasErrors() {
				t.Fatal(ds)
			}
			r, ok := RoundsOf(f, tt.budget)
			if !ok || r.Max != tt.max {
				t.Errorf("RoundsOf: max %d (%v), want %d", r.Max, ok, tt.max)
			}
			var got []string
			for _, d := range RoundDiagnostics(f, tt.budget) {
				got = append(got, d.Pos.String()+" "+d.Code)
			}
			if strings.Join(got, "; ") != strings.Join(tt.warnings, "; ") {
				t.Errorf("warnings %v, want %v", got, tt.warnings)
			}
		})
	}
}

// countedFlow returns the shape in language lang: a counter set
// to start before an ask, stepped by step after it, and a branch leaving
// the loop when leave holds.
func countedFlow(lang, start, step, leave string) string {
	return "description: d\nexpressions: " + lang + "\ninput:\n  type: object\n  properties:\n    start: {type: integer}\n" +
		"nodes:\n  - set: {tries: " + start + "}\n  - id: q\n    ask: \"Again?\"\n    form: {v: {type: string}}\n" +
		"  - set: {tries: \"{{ " + step + " }}\"}\n  - branch:\n      - if: " + leave + "\n        then: done\n      - else: q\n" +
		"  - id: done\n    return: done\n"
}

// TestRoundsFolded: a counter started by a template that folds to a
// constant counts like one started by a number, in CEL and expr, for the
// loop bound and the round budget; one started by a value read at run
// time does not.
func TestRoundsFolded(t *testing.T) {
	tests := []struct {
		name   string
		src    string
		budget int
		max    int
		codes  []string
	}{
		{"number", countedFlow("cel", "0", "tries + 1", "tries >= 3"), 9, 3, nil},
		{"number, expr", countedFlow("expr", "0", "tries + 1", "tries >= 3"), 9, 3, nil},
		{"{{ 0 }}", countedFlow("cel", `"{{ 0 }}"`, "tries + 1", "tries >= 3"), 9, 3, nil},
		{"{{ 0 }}, expr", countedFlow("expr", `"{{ 0 }}"`, "tries + 1", "tries >= 3"), 9, 3, nil},
		{"{{ 1 + 1 }}", countedFlow("cel", `"{{ 1 + 1 }}"`, "tries + 1", "tries >= 3"), 9, 1, nil},
		{"{{ 1 + 1 }}, expr", countedFlow("expr", `"{{ 1 + 1 }}"`, "tries + 1", "tries >= 3"), 9, 1, nil},
		{"{{ -1 }}", countedFlow("cel", `"{{ -1 }}"`, "tries + 1", "tries >= 3"), 9, 4, nil},
		{"{{ -1 }}, expr", countedFlow("expr", `"{{ -1 }}"`, "tries + 1", "tries >= 3"), 9, 4, nil},
		{"{{ size([1, 2]) }} down", countedFlow("cel", `"{{ size([1, 2]) * 3 }}"`, "tries - 1", "tries <= 0"), 9, 6, nil},
		{"{{ len([1, 2]) }} down, expr", countedFlow("expr", `"{{ len([1, 2]) * 3 }}"`, "tries - 1", "tries <= 0"), 9, 6, nil},
		{"folded, over the budget", countedFlow("cel", `"{{ 0 }}"`, "tries + 1", "tries >= 3"), 2, 3, []string{codes.RoundBudget}},
		{"folded, over the budget, expr", countedFlow("expr", `"{{ 0 }}"`, "tries + 1", "tries >= 3"), 2, 3, []string{codes.RoundBudget}},

		// Not constants: the loop has no bound lint can read.
		{"read from input", countedFlow("cel", `"{{ input.start }}"`, "tries + 1", "tries >= 3"), 9, 1, []string{codes.UnboundedLoop}},
		{"read from input, expr", countedFlow("expr", `"{{ input.start }}"`, "tries + 1", "tries >= 3"), 9, 1, []string{codes.UnboundedLoop}},
		{"arithmetic on input", countedFlow("cel", `"{{ 0 * input.start }}"`, "tries + 1", "tries >= 3"), 9, 1, []string{codes.UnboundedLoop}},
		{"text, not a number", countedFlow("cel", `"0"`, "tries + 1", "tries >= 3"), 9, 1, []string{codes.UnboundedLoop}},
		{"text around the expression", countedFlow("cel", `"{{ 0 }} tries"`, "tries + 1", "tries >= 3"), 9, 1, []string{codes.UnboundedLoop}},
		{"a string constant", countedFlow("cel", `"{{ 'zero' }}"`, "tries + 1", "tries >= 3"), 9, 1, []string{codes.UnboundedLoop}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, ds := dsl.Parse("t.yaml", []byte(tt.src))
			if ds.HasErrors() {
				t.Fatal(ds)
			}
			r, ok := RoundsOf(f, tt.budget)
			if !ok || r.Max != tt.max {
				t.Errorf("RoundsOf: max %d (%v), want %d", r.Max, ok, tt.max)
			}
			var got []string
			for _, d := range RoundDiagnostics(f, tt.budget) {
				got = append(got, d.Code)
			}
			if strings.Join(got, " ") != strings.Join(tt.codes, " ") {
				t.Errorf("warnings %v, want %v", got, tt.codes)
			}
		})
	}
}

// TestRoundsDownFromEitherStart: a count down started at either of two
// constants, on two paths, goes round as often as the larger start
// allows.
func TestRoundsDownFromEitherStart(t *testing.T) {
	src := "description: d\ninput:\n  type: object\n  properties:\n    big: {type: boolean}\n" +
		"nodes:\n  - branch:\n      - if: input.big\n        then: big\n  - set: {left: 2}\n    next: q\n" +
		"  - id: big\n    set: {left: \"{{ 2 + 3 }}\"}\n" +
		"  - id: q\n    ask: \"Again?\"\n    form: {v: {type: string}}\n" +
		"  - set: {left: \"{{ left - 1 }}\"}\n  - branch:\n      - if: left > 0\n        then: q\n  - return: done\n"
	f, ds := dsl.Parse("t.yaml", []byte(src))
	if ds.HasErrors() {
		t.Fatal(ds)
	}
	r, ok := RoundsOf(f, 9)
	if !ok || r.Max != 5 || len(r.Unbounded) != 0 {
		t.Errorf("RoundsOf: max %d, unbounded %v (%v); want 5 and none", r.Max, r.Unbounded, ok)
	}
}
