package check

import (
	"reflect"
	"strings"
	"testing"

	"github.com/flowserve/flowserve/dsl"
)

// typedValueDiags parses the files (the first is the flow compiled, the
// others the flows its calls find) and compiles the first with the
// default actions, returning every diagnostic as a string.
func typedValueDiags(t *testing.T, srcs ...string) []string {
	t.Helper()
	var files []*dsl.File
	for i, src := range srcs {
		name := "f.yaml"
		if i > 0 {
			name = "callee.yaml"
		}
		f, diags := dsl.Parse(name, []byte(src))
		if err := diags.Err(); err != nil {
			t.Fatalf("parse %s:\n%v", name, err)
		}
		files = append(files, f)
	}
	_, ds := Types(files[0], Env{Callees: dsl.NewFlowTable(files).Callees()})
	var out []string
	for _, d := range ds {
		out = append(out, d.String())
	}
	return out
}

// structuredHead is the top of a tool flow with typed inputs, an ask
// with a typed form and an output schema, for the structured cases.
const structuredHead = `name: t
description: T.
input:
  type: object
  properties:
    name: {type: string}
    n: {type: integer}
    x: {type: number}
    tags: {type: array, items: {type: string}}
    maybe: {type: [string, "null"]}
  required: [name, n, x, tags]
output:
  type: object
  properties:
    count: {type: integer}
    ratio: {type: number}
    info: {type: object, properties: {count: {type: integer}, note: {type: string}}}
    label: {type: string, default: none}
    ids: {type: array, items: {type: integer}}
    either: {type: [integer, "null"]}
    meta: {type: object}
    tagged: {enum: [a, b]}
    loose: {}
    byname: {type: object, patternProperties: {"^n_": {type: integer}}, additionalProperties: {type: string}}
  required: [count]
nodes:
  - id: q
    ask: Details?
    form:
      count: {type: string}
      note: {type: string}
`

func TestStructuredTypes(t *testing.T) {
	tests := []struct {
		name string
		ret  string // the return node, under nodes
		want []string
	}{
		{
			name: "a list where an integer is wanted",
			ret:  "  - return: {structured: {count: \"{{ input.tags }}\"}}\n",
			want: []string{`f.yaml:32:38: error: structured count: the output schema takes an integer there, not a list of strings [type-error]`},
		},
		{
			name: "a string where an object is wanted",
			ret:  "  - return: {structured: {count: 1, meta: \"{{ input.name }}\"}}\n",
			want: []string{`f.yaml:32:47: error: structured meta: the output schema takes an object there, not a string [type-error]`},
		},
		{
			name: "a literal expression of the wrong type",
			ret:  "  - return: {structured: {count: 1, label: \"{{ 3 }}\"}}\n",
			want: []string{`f.yaml:32:48: error: structured label: the output schema takes a string there, not an integer [type-error]`},
		},
		{
			name: "the whole structured value of the wrong type",
			ret:  "  - return:\n      structured: \"{{ input.n }}\"\n",
			want: []string{`f.yaml:33:23: error: structured: the output schema takes an object with fields byname, count, either, ids, info, label, loose, meta, ratio, tagged there, not an integer [type-error]`},
		},
		{
			name: "a field of an object that does not fit, named",
			ret:  "  - return: {structured: {count: 1, info: \"{{ q.content }}\"}}\n",
			want: []string{`f.yaml:32:47: error: structured info.count: the output schema takes an integer there, not a string [type-error]`},
		},
		{
			name: "list items of the wrong type",
			ret:  "  - return: {structured: {count: 1, ids: \"{{ input.tags }}\"}}\n",
			want: []string{`f.yaml:32:46: error: structured ids: the output schema takes a list of integers there, not a list of strings [type-error]`},
		},
		{
			name: "an expression inside a list",
			ret:  "  - return: {structured: {count: 1, ids: [1, \"{{ input.name }}\"]}}\n",
			want: []string{`f.yaml:32:50: error: structured ids[1]: the output schema takes an integer there, not a string [type-error]`},
		},
		{
			name: "a type list names each type",
			ret:  "  - return: {structured: {count: 1, either: \"{{ input.name }}\"}}\n",
			want: []string{`f.yaml:32:49: error: structured either: the output schema takes an integer or null there, not a string [type-error]`},
		},
		{
			name: "values that fit",
			ret: `  - return:
      structured:
        count: "{{ input.n }}"
        ratio: "{{ input.n }}"
        info: {count: "{{ input.n + 1 }}", note: "{{ q.content.note }}"}
        label: "{{ input.name }}"
        ids: [1, "{{ input.n }}", "{{ size(input.tags) }}"]
        either: "{{ input.n }}"
        meta: "{{ input }}"
        tagged: "{{ input.name }}"
        loose: "{{ input.tags }}"
`,
		},
		{
			name: "a number fits an integer: a whole number is one",
			ret:  "  - return: {structured: {count: \"{{ input.x * 2.0 }}\"}}\n",
		},
		{
			name: "dynamic values and null fit anywhere",
			ret:  "  - return: {structured: {count: \"{{ dyn(input.name) }}\", label: \"{{ null }}\", info: \"{{ dyn(input.tags) }}\"}}\n",
		},
		{
			name: "a nullable string fits a string",
			ret:  "  - return: {structured: {count: 1, label: \"{{ input.maybe }}\"}}\n",
		},
		{
			name: "text around an expression is a string, checked by Check",
			ret:  "  - return: {structured: {count: 1, label: \"{{ input.n }} items\"}}\n",
		},
		{
			name: "text around an expression where an integer is wanted (structured-value, once)",
			ret:  "  - return: {structured: {count: \"{{ input.n }}0\"}}\n",
			want: []string{`f.yaml:32:34: error: structured.count must be an integer, not a string [structured-value]`},
		},
		{
			name: "a key patternProperties may take is not held to additionalProperties",
			ret:  "  - return: {structured: {count: 1, byname: {n_count: \"{{ input.n }}\"}}}\n",
		},
		{
			name: "a whole structured object that fits",
			ret:  "  - return:\n      structured: \"{{ {'count': input.n, 'label': input.name} }}\"\n",
		},
		{
			name: "a field left out takes its default",
			ret:  "  - return: {structured: {count: \"{{ input.n }}\"}}\n",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := typedValueDiags(t, structuredHead+tc.ret)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

// withHead is the top of a tool flow with typed inputs, for the with
// cases.
const withHead = `name: t
description: T.
input:
  type: object
  properties:
    name: {type: string}
    n: {type: integer}
    x: {type: number}
    counts: {type: object, additionalProperties: {type: integer}}
    info: {type: object, properties: {tags: {type: array, items: {type: integer}}}}
  required: [name, n, x, counts, info]
nodes:
`

func TestWithTypes(t *testing.T) {
	tests := []struct {
		name  string
		nodes string
		want  []string
	}{
		{
			name:  "a string to time.sleep's seconds",
			nodes: "  - id: s\n    step: time.sleep\n    with: {seconds: \"{{ input.name }}\"}\n",
			want:  []string{`f.yaml:15:25: error: with seconds: action time.sleep takes a number there, not a string [type-error]`},
		},
		{
			name:  "a nested field of an action's input",
			nodes: "  - id: s\n    step: http.request\n    with: {url: \"https://x.test\", headers: {X-Count: \"{{ input.n }}\"}}\n",
			want:  []string{`f.yaml:15:58: error: with headers.X-Count: action http.request takes a string there, not an integer [type-error]`},
		},
		{
			name:  "a map of the wrong values",
			nodes: "  - id: s\n    step: http.request\n    with: {url: \"https://x.test\", query: \"{{ input.counts }}\"}\n",
			want:  []string{`f.yaml:15:46: error: with query: action http.request takes a map of strings there, not a map of integers [type-error]`},
		},
		{
			name:  "text around an expression is a string (with-value, once)",
			nodes: "  - id: s\n    step: time.sleep\n    with: {seconds: \"{{ input.n }}s\"}\n",
			want:  []string{`f.yaml:15:21: error: with.seconds must be a number, not a string [with-value]`},
		},
		{
			name: "values that fit",
			nodes: `  - id: s0
    step: time.sleep
    with: {seconds: "{{ input.n }}"}
  - id: s1
    step: time.sleep
    with: {seconds: "{{ input.x }}"}
  - id: s2
    step: fs.read
    with: {path: "{{ input.name }}", max_bytes: "{{ input.x }}"}
  - id: r
    step: http.request
    with:
      url: "https://x.test/{{ input.n }}"
      headers: {X-Name: "{{ input.name }}"}
      json: "{{ input.counts }}"
  - id: s3
    step: time.sleep
    with: {seconds: "{{ r.status / 100 }}"}
  - id: s4
    step: time.sleep
    with: {seconds: "{{ dyn(input.name) }}"}
  - id: s5
    step: random.int
    with: {min: 1, max: "{{ input.info.tags[0] }}"}
`,
		},
		{
			name:  "an unknown action is Check's to report",
			nodes: "  - id: s\n    step: no.such\n    with: {seconds: \"{{ input.name }}\"}\n",
			want:  []string{`f.yaml:14:11: error: unknown action "no.such" [unknown-action]`},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := typedValueDiags(t, withHead+tc.nodes+"  - return: ok\n")
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

// TestCallWithTypes checks that a call's with goes through the same
// checker as a step's: nested fields, and numbers either way.
func TestCallWithTypes(t *testing.T) {
	const callee = `name: callee
description: C.
expose: false
input:
  type: object
  properties:
    n: {type: integer}
    opts: {type: object, properties: {size: {type: integer}, tags: {type: array, items: {type: string}}}}
  allOf:
    - properties: {n: {type: integer}}
    - properties: {opts: {properties: {size: {minimum: 0}}}}
nodes:
  - return: ok
`
	tests := []struct {
		name string
		with string
		want []string
	}{
		{
			name: "an allOf, once",
			with: "{n: \"{{ input.name }}\"}",
			want: []string{`f.yaml:15:19: error: with n: flow callee takes an integer there, not a string [type-error]`},
		},
		{
			name: "a nested field of the wrong type",
			with: "{opts: {size: \"{{ input.name }}\"}}",
			want: []string{`f.yaml:15:29: error: with opts.size: flow callee takes an integer there, not a string [type-error]`},
		},
		{
			name: "an object whose field does not fit",
			with: "{opts: \"{{ input.info }}\"}",
			want: []string{`f.yaml:15:22: error: with opts.tags: flow callee takes a list of strings there, not a list of integers [type-error]`},
		},
		{
			name: "values that fit",
			with: "{n: \"{{ input.x }}\", opts: {size: \"{{ input.n }}\", tags: [\"{{ input.name }}\"]}}",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := withHead + "  - id: c\n    call: callee\n    with: " + tc.with + "\n  - return: ok\n"
			got := typedValueDiags(t, src, callee)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}
