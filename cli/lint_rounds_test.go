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

// TestLintMaxRoundsCountsCallees: with --max-rounds, a call node counts
// the rounds of the flow it calls, found among the files linted: a
// caller that calls a three-question flow twice asks six rounds.
func TestLintMaxRoundsCountsCallees(t *testing.T) {
	dir := writeFlows(t, map[string]string{
		"caller.yaml": `name: caller
description: Confirms twice.
nodes:
  - id: first
    call: confirm
  - id: second
    call: confirm
  - return: "{{ first }} {{ second }}"
`,
		"confirm.yaml": `name: confirm
description: Three questions.
expose: false
nodes:
  - id: a
    ask: "A?"
    form: {v: {type: string}}
  - id: b
    ask: "B?"
    form: {v: {type: string}}
  - id: c
    ask: "C?"
    form: {v: {type: string}}
  - return: done
`,
	})
	tests := []struct {
		args   []string
		want   string // in stdout; "" for nothing
		callee string // a warning in the callee, in stdout; "" for none
	}{
		{nil, "", ""},
		{[]string{"--max-rounds", "5"}, "caller.yaml:6:5: warning: a path asks up to 6 rounds of questions (first (call confirm: 3), second (call confirm: 3)), more than the round budget of 5", ""},
		{[]string{"--max-rounds", "6"}, "", ""},
		// Past the budget in the first call: the callee warns on its own.
		{[]string{"--max-rounds", "2"}, "caller.yaml:4:5: warning: a path asks up to 6 rounds", "confirm.yaml:11:5: warning: a path asks up to 3 rounds of questions (a, b, c)"},
	}
	for _, tt := range tests {
		out, errOut, code := runCLI(t, context.Background(), nil, append(append([]string{"lint"}, tt.args...), dir)...)
		if code != exitOK || (tt.want == "") != (out == "") || !strings.Contains(out, tt.want) {
			t.Errorf("lint %v: exit %d\n%s%s\nwant exit 0 with %q", tt.args, code, out, errOut, tt.want)
		}
		if tt.callee == "" && strings.Contains(out, "confirm.yaml") || !strings.Contains(out, tt.callee) {
			t.Errorf("lint %v: the callee's warnings:\n%s\nwant %q", tt.args, out, tt.callee)
		}
	}
	// The caller alone: its callee, beside it, is loaded to count its
	// rounds but, not asked for, gets no warnings of its own.
	out, errOut, code := runCLI(t, context.Background(), nil, "lint", "--max-rounds", "2", filepath.Join(dir, "caller.yaml"))
	if want := "caller.yaml:4:5: warning: a path asks up to 6 rounds"; code != exitOK || !strings.Contains(out, want) || strings.Contains(out, "confirm.yaml") {
		t.Errorf("lint of the caller alone: exit %d\n%s%s\nwant exit 0 with %q and nothing in confirm.yaml", code, out, errOut, want)
	}
}
