package check

import (
	"slices"
	"testing"

	"github.com/flowserve/flowserve/dsl"
	"github.com/flowserve/flowserve/lang"
)

func TestTemplatedDefaultsTypes(t *testing.T) {
	src := `
description: Typed defaults.
input:
  type: object
  properties:
    email: {type: string}
    n: {type: integer}
    tags: {type: array, items: {type: string}}
nodes:
  - id: q
    ask: "Check these"
    form:
      a: {type: integer, default: "{{ input.email }}"}
      b: {type: integer, default: "n = {{ input.n }}"}
      c: {type: number, default: "{{ input.n }}"}
      d: {type: boolean, default: "{{ input.n > 1 }}"}
      e: {type: array, items: {type: string, enum: [x, y]}, default: "{{ input.tags }}"}
      f: {type: string, default: "{{ input.n }}"}
  - return: done
`
	f, ds := dsl.Parse("flow.yaml", []byte(src))
	if ds.HasErrors() {
		t.Fatal(ds.Err())
	}
	_, ds = Types(f, Env{})
	var got []string
	for _, d := range ds {
		got = append(got, d.String())
	}
	// The types are named as the expression languages name them.
	str, num := lang.TypeName(typed("string")), lang.TypeName(typed("integer"))
	want := []string{
		`flow.yaml:13:39: error: form property "a": default must be ` + num + `, not ` + str + ` [form-default]`,
		`flow.yaml:14:35: error: form property "b": default must be ` + num + `, not ` + str + ` [form-default]`,
		`flow.yaml:18:38: error: form property "f": default must be ` + str + `, not ` + num + ` [form-default]`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("diagnostics:\n got %q\nwant %q", got, want)
	}
}
