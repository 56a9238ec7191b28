package check

import (
	"github.com/flowserve/flowserve/dsl"
	"slices"
	"testing"

	"github.com/flowserve/flowserve/check/codes"
)

// TestCheckReadsParseTree checks that Check finds positions in the tree
// Parse read, not by decoding the file again: a File whose Source is gone
// gets the same diagnostics, at the keys themselves.
func TestCheckReadsParseTree(t *testing.T) {
	src := []byte(`name: t
description: Asks.
nodes:
  - id: q
    ask: "Age?"
    form:
      age: &p {type: integer, pattern: "x"}
      again: *p
  - return: "{{ q.content.age }}"
`)
	f, _ := dsl.Parse("f.yaml", src)
	want := File(f, nil)
	g, _ := dsl.Parse("f.yaml", src)
	g.Source = nil
	got := File(g, nil)
	if !slices.EqualFunc(got, want, sameDiagnostic) {
		t.Errorf("without the source:\n%v\nwith it:\n%v", got, want)
	}
	found := false
	for _, d := range want {
		found = found || d.Code == codes.FormKeyword && d.Pos.Line == 7 && d.Pos.Col == 31
	}
	if !found {
		t.Errorf("no form-keyword at the pattern key 7:31 in\n%v", want)
	}
}
