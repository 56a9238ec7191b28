package check

import (
	"slices"
	"testing"

	"github.com/flowserve/flowserve/check/codes"
)

// TestCheckApproval checks what Check says about an ask with to: nothing
// in a flow that may run as a task, an error at the to key in a flow that
// says task: never, and in a prompt flow.
func TestCheckApproval(t *testing.T) {
	nodes := "nodes:\n  - id: ok\n    ask: Approve?\n    to: finance\n    form: {yes: {type: boolean}}\n  - return: done\n"
	tests := []struct {
		name, top string
		want      []string
	}{
		{"default", "description: d\n", nil},
		{"auto", "description: d\ntask: auto\n", nil},
		{"required", "description: d\ntask: required\n", nil},
		{"never", "description: d\ntask: never\n",
			[]string{"6:5 " + codes.ApprovalNeedsTask + ": ask ok is answered by someone else (to), so it waits as an MCP task, and the flow says task: never: remove task: never, or make it auto or required"}},
		{"prompt", "kind: prompt\ndescription: d\n",
			[]string{"6:5 " + codes.ToolOnly + ": to belongs to tool flows: an approval waits as an MCP task, and a prompt never runs as one"}},
		{"prompt never", "kind: prompt\ndescription: d\ntask: never\n",
			[]string{"7:5 " + codes.ToolOnly + ": to belongs to tool flows: an approval waits as an MCP task, and a prompt never runs as one"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := check(t, tc.top+nodes); !slices.Equal(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// TestCheckApprovalGraph checks that on_timeout is an edge for the graph
// checks: a node only on_timeout leads to is reachable, and a path through
// it that runs past the end is one.
func TestCheckApprovalGraph(t *testing.T) {
	src := "description: d\nnodes:\n  - id: q\n    ask: Approve?\n    to: finance\n    timeout: 1h\n    on_timeout: late\n    form: {yes: {type: boolean}}\n  - return: done\n  - id: late\n    set: {x: 1}\n"
	got := codesOf(check(t, src))
	if !slices.Equal(got, []string{codes.FallsOffEnd}) {
		t.Errorf("codes %v, want [%s] (late reachable, and it runs past the end)", got, codes.FallsOffEnd)
	}
}
