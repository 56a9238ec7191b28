package dsl

import (
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
	f, _ := Parse("f.yaml", src)
	want := Check(f, nil)
	g, _ := Parse("f.yaml", src)
	g.Source = nil
	got := Check(g, nil)
	if !slices.EqualFunc(got, want, Diagnostic.equal) {
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
