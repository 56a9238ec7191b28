package cli

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestLintMaxRounds: --max-rounds sets the budget round-budget warns
// above.
func TestLintMaxRounds(t *testing.T) {
	var b strings.Builder
	b.WriteString("description: Six questions.\nnodes:\n")
	for i := 1; i <= 6; i++ {
		fmt.Fprintf(&b, "  - id: q%d\n    ask: \"Q%d?\"\n    form: {v: {type: string}}\n", i, i)
	}
	b.WriteString("  - return: done\n")
	path := writeTemp(t, t.TempDir(), "six.yaml", b.String())
	tests := []struct {
		args []string
		code int
		want string // in stdout; "" for nothing
	}{
		{nil, exitOK, ""},
		{[]string{"--max-rounds", "5"}, exitOK, filepath.Base(path) + ":18:5: warning: a path asks up to 6 rounds of questions (q1, q2, q3, q4, q5, q6), more than the round budget of 5"},
		{[]string{"--max-rounds", "6"}, exitOK, ""},
		{[]string{"--max-rounds", "0"}, exitUsage, ""},
	}
	for _, tt := range tests {
		out, errOut, code := runCLI(t, context.Background(), nil, append(append([]string{"lint"}, tt.args...), path)...)
		if code != tt.code || (tt.want == "") != (out == "") || !strings.Contains(out, tt.want) {
			t.Errorf("lint %v: exit %d\n%s%s\nwant exit %d with %q", tt.args, code, out, errOut, tt.code, tt.want)
		}
	}
}
