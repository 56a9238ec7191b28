package project_test

import (
	"fmt"
	"testing"
	"testing/fstest"

	"github.com/flowserve/flowserve/dsl"
	"github.com/flowserve/flowserve/project"
)

// partialFlow has structural errors (a misspelt key, a misplaced one) and
// type errors, and calls a flow beside it with a with value of the wrong
// type.
const partialFlow = `description: Mistakes of both kinds.
input: {type: object, properties: {n: {type: integer}}}
nodes:
  - id: make
    step: uuid.new
    unavailable: make
  - id: shown
    call: receipt
    with: {order: "{{ string(input.n) }}"}
  - return: "{{ input.n + 's' }} {{ make.nope }}"
    nxet: make
`

const receiptFlow = `description: Shows a receipt.
expose: false
input: {type: object, properties: {order: {type: integer}}, required: [order]}
nodes:
  - return: "Receipt {{ input.order }}"
`

// TestLoadPartialTypeChecks loads a file Parse found errors in: Load,
// LoadSource and a Workspace with the text in its overlay report its type errors with its structural
// ones, once each, and give it no program.
func TestLoadPartialTypeChecks(t *testing.T) {
	fsys := fstest.MapFS{"flows/bad.yaml": {Data: []byte(partialFlow)}, "flows/receipt.yaml": {Data: []byte(receiptFlow)}}
	want := []string{
		"6:5 misplaced-key", "9:23 type-error", "10:25 bad-expression", "10:42 bad-expression", "11:5 unknown-key",
	}
	lines := func(ds dsl.Diagnostics) []string {
		var out []string
		for _, d := range ds {
			if d.Pos.File == "flows/bad.yaml" {
				out = append(out, fmt.Sprintf("%d:%d %s", d.Pos.Line, d.Pos.Col, d.Code))
			}
		}
		return out
	}
	set, diags := project.Load([]string{"flows"}, project.Options{FS: fsys})
	if got := lines(diags); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("Load: %v\nwant %v\n%v", got, want, diags)
	}
	if len(set.Programs) != 1 || set.Programs[0].Name() != "receipt" || len(set.Parsed) != 2 {
		t.Errorf("programs %d, parsed %d: want receipt's alone, and both parsed", len(set.Programs), len(set.Parsed))
	}

	// LoadSource has no callees: the with value is not typed.
	p, diags := project.LoadSource("flows/bad.yaml", []byte(partialFlow), project.Options{})
	if got := lines(diags); p != nil || fmt.Sprint(got) != fmt.Sprint(append(want[:1:1], want[2:]...)) {
		t.Errorf("LoadSource: %v, program %v", got, p)
	}

	// A Workspace whose overlay holds the text, as an editor lints one
	// document not saved yet: the file on disk says something else.
	ws := project.NewWorkspace([]string{"flows"}, project.Options{FS: fstest.MapFS{
		"flows/bad.yaml": {Data: []byte("description: Saved.\nnodes:\n  - return: ok\n")}, "flows/receipt.yaml": {Data: []byte(receiptFlow)}}})
	ws.SetOverlay("flows/bad.yaml", []byte(partialFlow))
	set, diags = ws.Load()
	if got := lines(diags); fmt.Sprint(got) != fmt.Sprint(want) || len(set.Programs) != 1 || set.Programs[0].Name() != "receipt" {
		t.Errorf("Workspace: %v, programs %d", got, len(set.Programs))
	}
}
