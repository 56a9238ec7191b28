package flow

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// TestFailureResultNamesNoPath: the error result a client gets for a run
// that failed names the flow and the node, never where the server keeps
// the flow file; the error itself (for the server's log, flowserve run)
// still starts with the file position.
func TestFailureResultNamesNoPath(t *testing.T) {
	const dir = "/srv/secret-place/flows/"
	const refund = `name: refund
description: Refunds.
input:
  type: object
  properties:
    which: {type: string}
    any: {description: Anything.}
nodes:
  - branch:
      - if: input.which == "step"
        then: charge
      - if: input.which == "expr"
        then: check
      - else: look
  - id: check
    branch:
      - if: input.any
        then: done
      - else: done
  - id: charge
    step: test.fail
    with: {message: "card declined"}
  - id: look
    call: lookup
  - id: done
    return: done
`
	const lookup = `name: lookup
description: Looks up.
expose: false
nodes:
  - id: who
    step: test.fail
    with: {message: "no such customer"}
  - return: found
`
	progs := compileSet(t, map[string]string{dir + "refund.yaml": refund, dir + "lookup.yaml": lookup}, testOptions{Actions: testRegistry(t, &counters{})})
	p := progs[dir+"refund.yaml"]
	e, err := NewEngine(EngineOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, args string
		node, text string
		errPrefix  string // how the error (not the result) starts
	}{
		{"a step", `{"which":"step"}`, "charge", "refund: node charge: test.fail failed: card declined", dir + "refund.yaml:20:5: node charge: "},
		{"an expression", `{"which":"expr","any":3}`, "check", `refund: node check: evaluating "input.any": the condition produced an integer, not a boolean`, dir + "refund.yaml:"},
		{"a called flow's step", `{"which":"call"}`, "look/who", "refund: node look/who: test.fail failed: no such customer", dir + "lookup.yaml:5:5: node look/who: "},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := e.Run(context.Background(), p, &Request{Arguments: []byte(tc.args)})
			var re *RunError
			if !errors.As(err, &re) {
				t.Fatalf("err = %v, want a RunError", err)
			}
			if !strings.HasPrefix(err.Error(), tc.errPrefix) {
				t.Errorf("err = %q, want it to start with %q", err, tc.errPrefix)
			}
			res := p.FailureResult(err)
			text, _ := blockText(res.Content[0]).(string)
			if !res.IsError || text != tc.text {
				t.Errorf("result text %q (isError %v), want %q", text, res.IsError, tc.text)
			}
			if strings.Contains(text, "/srv") || strings.Contains(text, ".yaml") {
				t.Errorf("result text %q names the server's path", text)
			}
			if res.Failure == nil || res.Failure.Node != tc.node || res.Failure.Message != text {
				t.Errorf("failure %+v, want node %q and the text", res.Failure, tc.node)
			}
		})
	}
}

// TestFailureResultOtherErrors: an error that is not a run's keeps its
// wording, the tool named.
func TestFailureResultOtherErrors(t *testing.T) {
	p := compile(t, "/srv/flows/t.yaml", "name: t\ndescription: T.\nnodes:\n  - return: x\n", testOptions{})
	res := p.FailureResult(errors.New("the store is down"))
	if text := blockText(res.Content[0]); text != "the t tool failed: the store is down" {
		t.Errorf("text %q", text)
	}
}
