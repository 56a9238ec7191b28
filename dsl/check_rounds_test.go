package dsl

import (
	"fmt"
	"strings"
	"testing"
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
			f, ds := Parse("t.yaml", []byte(tt.src))
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
