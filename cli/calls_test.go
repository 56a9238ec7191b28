package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// callsDir holds order.yaml, which calls confirm_item (which calls
// double_check) or links to receipt, beside unrelated_broken.yaml, a flow
// with errors that order does not call.
const callsDir = "testdata/calls"

// TestRunCalls runs a flow with call and link nodes end to end: run
// loads the flows beside it that it calls, asks their questions by their
// call paths (confirm/ok, confirm/check/sure) saying whose they are, with
// the callee's fields in its order, and is not stopped by the errors of a
// flow beside it that it does not call.
func TestRunCalls(t *testing.T) {
	dir := t.TempDir()
	order := filepath.Join(callsDir, "order.yaml")
	tests := []struct {
		name    string
		args    []string // before FLOW
		answers string   // an --answers file; "" reads input
		input   string
		flow    string // default order
		code    int
		has     []string // parts of stdout, in order
		stderr  string   // part of stderr
	}{
		{
			name:    "answered from a file",
			answers: "confirm/check/sure: {content: {really: true}}\nconfirm/ok: {content: {proceed: true, note: quick}}\n",
			has: []string{
				"Running order\n· ran step confirm/ticket (uuid.new)\n",
				"\n? [confirm/check/sure] Sure about book?\n  (a question of double_check, which confirm/check calls)\n→ accept {\"really\":true}\n",
				"\n? [confirm/ok] Order book? (sure=true)\n  (a question of confirm_item, which confirm calls)\n→ accept {\"note\":\"quick\",\"proceed\":true}\n",
				"\nResult:\nOrdered book (ticket 36 characters): quick\n",
			},
		},
		{
			name:  "answered at the terminal, the callee's fields in its order",
			input: "1\ny\n1\ny\nquick\n",
			has: []string{
				"? [confirm/check/sure] Sure about book?\n  (a question of double_check, which confirm/check calls)\nHow do you respond? ",
				"Really [y/N] y\n",
				"? [confirm/ok] Order book? (sure=true)\n  (a question of confirm_item, which confirm calls)\nHow do you respond? ",
				"Yes, order it [y/N] y\nNote: quick\n",
				"Result:\nOrdered book (ticket 36 characters): quick\n",
			},
		},
		{
			name:    "declined: the callee fails and the call's on_error is taken",
			answers: "confirm/check/sure: decline\nconfirm/ok: decline\n",
			has:     []string{"→ decline\n", "→ decline\n", "Result:\nNot ordered: book was not confirmed\n"},
		},
		{
			name:    "a link hands the run over",
			args:    []string{"--args", `{"mode": "receipt", "item": "pen"}`},
			answers: "handed/ok: {content: {email: ada@example.com}}\n",
			has: []string{
				"? [handed/ok] A receipt for pen?\n  (a question of receipt, which handed links to)\n",
				"Result:\nReceipt for pen sent to ada@example.com\n",
			},
		},
		{
			name:    "a private flow run on its own",
			flow:    filepath.Join(callsDir, "confirm_item.yaml"),
			args:    []string{"--args", `{"item": "pen"}`},
			answers: "check/sure: accept\nok: {content: {proceed: true}}\n",
			has: []string{
				"? [check/sure] Sure about pen?\n  (a question of double_check, which check calls)\n",
				"? [ok] Order pen? (sure=false)\n→ accept",
				"Result:\n{\"note\":\"\",\"ticket\":\"",
			},
		},
		{
			name:    "an answer to a callee's question by its own id is not used",
			answers: "sure: accept\n",
			code:    1,
			stderr:  `flowserve run: no answer left: the answers have none for "confirm/check/sure"`,
		},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"run"}, tc.args...)
			if tc.answers != "" {
				args = append(args, "--answers", writeTemp(t, dir, "answers"+string(rune('a'+i))+".yaml", tc.answers))
			}
			flow := order
			if tc.flow != "" {
				flow = tc.flow
			}
			stdout, stderr, code := runCLI(t, cliCtx(t, 20*time.Second), strings.NewReader(tc.input), append(args, flow)...)
			if code != tc.code {
				t.Errorf("exit %d, want %d; stderr:\n%s\nstdout:\n%s", code, tc.code, stderr, stdout)
			}
			checkInOrder(t, "stdout", stdout, tc.has)
			if !strings.Contains(stderr, tc.stderr) || strings.Contains(stderr, "unrelated_broken") {
				t.Errorf("stderr lacks %q (or tells of unrelated_broken.yaml):\n%s", tc.stderr, stderr)
			}
		})
	}
}

// calleeFlow is a flow called by caller, given its name.
func calleeFlow(name string) string {
	return "name: " + name + "\ndescription: Says yes.\nexpose: false\nnodes:\n  - return: \"yes\"\n"
}

// callerFlow calls the flow callee.
const callerFlow = `name: caller
description: Calls callee.
nodes:
  - id: c
    call: callee
  - return: "{{ c }}"
`

// TestRunCallsNotRunnable: run does not run a flow whose callees are
// missing or have errors, and says which.
func TestRunCallsNotRunnable(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		want  []string // parts of stderr, in order
	}{
		{
			name:  "the callee is not beside it",
			files: map[string]string{"caller.yaml": callerFlow, "other.yaml": calleeFlow("other")},
			want:  []string{`caller.yaml:5:11: error: no flow is named "callee"`, "flowserve run: not running: the flow has errors\n"},
		},
		{
			name: "the callee has errors",
			files: map[string]string{"caller.yaml": callerFlow,
				"callee.yaml": "name: callee\ndescription: Broken.\nexpose: false\nnodes:\n  - return: \"{{ nope }}\"\n"},
			want: []string{"callee.yaml:5:17: error: ", "flowserve run: not running: the flows it calls have errors\n"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeFlows(t, tc.files)
			_, stderr, code := runCLI(t, cliCtx(t, 10*time.Second), strings.NewReader(""), "run", filepath.Join(dir, "caller.yaml"))
			if code != exitFail {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, exitFail, stderr)
			}
			checkInOrder(t, "stderr", stderr, tc.want)
		})
	}
}

// TestGraphCalls: graph draws the flows a flow calls, found beside it,
// inside it; a callee that is not beside it leaves the call drawn
// plainly, and the errors of flows beside it do not matter.
func TestGraphCalls(t *testing.T) {
	order := filepath.Join(callsDir, "order.yaml")
	alone := filepath.Join(t.TempDir(), "order.yaml")
	src, err := os.ReadFile(order)
	if err != nil {
		t.Fatal(err)
	}
	writeTemp(t, filepath.Dir(alone), "order.yaml", string(src))
	tests := []struct {
		name string
		args []string
		has  []string // parts of stdout, in order
		not  string   // not in stdout
	}{
		{
			name: "mermaid",
			args: []string{order},
			has: []string{
				`    n1{{"confirm<br/>call: confirm_item"}}` + "\n" + `    subgraph n1_flow["confirm_item"]` + "\n",
				`        n1_n1{{"confirm/check<br/>call: double_check"}}` + "\n" + `        subgraph n1_n1_flow["double_check"]` + "\n",
				`            n1_n1_n0[/"confirm/check/sure<br/>ask: Sure about {{ input.what }}?"/]` + "\n",
				"        end\n",
				`        n1_n2[/"confirm/ok<br/>ask: Order {{ input.item }}? ({{ check }})"/]`,
				"    end\n",
				`    n3>"handed<br/>link: receipt"]` + "\n" + `    subgraph n3_flow["receipt"]` + "\n",
				"    n1 ==> n1_n0\n",
				"    n1_n5 ==> n2\n",
				"    n1_n4 -.->|\"on_error\"| n4\n",
				"    n3 ==> n3_n0\n",
			},
		},
		{
			name: "dot",
			args: []string{"--format", "dot", order},
			has: []string{
				"    subgraph cluster_n1 {\n        label=\"confirm_item\";",
				"        subgraph cluster_n1_n1 {\n            label=\"double_check\";",
				"    n1 -> n1_n0 [style=bold];\n",
			},
		},
		{
			name: "the callees not beside it",
			args: []string{alone},
			has:  []string{`    n1{{"confirm<br/>call: confirm_item"}}` + "\n", `    n3>"handed<br/>link: receipt"]` + "\n", "    n0 -->|\"otherwise\"| n1\n    n1 --> n2\n"},
			not:  "subgraph",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := runCLI(t, cliCtx(t, 10*time.Second), nil, append([]string{"graph"}, tc.args...)...)
			if code != exitOK || errOut != "" {
				t.Errorf("exit %d, stderr:\n%s", code, errOut)
			}
			checkInOrder(t, "stdout", out, tc.has)
			if tc.not != "" && strings.Contains(out, tc.not) {
				t.Errorf("stdout has %q:\n%s", tc.not, out)
			}
		})
	}
}
