package lsp

import (
	"slices"
	"strings"
	"testing"

	"github.com/flowserve/flowserve/actions"
	_ "github.com/flowserve/flowserve/actions/std" // the built-in actions
)

// cursor splits src at its "|" marker: the text without it, and the
// protocol position of the marker.
func cursor(t testing.TB, src string) (string, Position) {
	t.Helper()
	if strings.Count(src, "|") != 1 {
		t.Fatalf("want one | in %q", src)
	}
	p := posOf(t, src, "|", 0, 0)
	return strings.Replace(src, "|", "", 1), p
}

// snap returns a snapshot of src at path "/flows/f.yaml", its analysis
// built on the previous text prev when src does not parse.
func snap(t testing.TB, prev, src string) *snapshot {
	t.Helper()
	var good = (*snapshot)(nil)
	if prev != "" {
		good = newSnapshot("/flows/f.yaml", []byte(prev), nil, actions.Default())
		good.analysis()
	}
	return newSnapshot("/flows/f.yaml", []byte(src), good.lastGood(), actions.Default())
}

// completeFlow is the flow the completion cases edit, at "|".
const completeFlow = `name: order
description: Orders a coffee ☕.
input:
  type: object
  properties:
    size: {type: string, enum: [small, large], description: The cup}
    shots: {type: integer}
    items: {type: array, items: {type: object, properties: {sku: {type: string}, qty: {type: integer}}}}
vars:
  shop: {description: The shop's name}
secrets:
  token: {}
nodes:
  - id: confirm
    ask: "Order ☕ {{ input.size }}?"
    form:
      sugars: {type: integer, minimum: 0, maximum: 3}
      milk: {type: string, enum: [none, oat]}
    required: [sugars]
    unavailable: cannot
  - id: stat
    step: fs.stat
    with: {path: "{{ input.size }}"}
    on_error: cannot
  - id: check
    branch:
      - if: confirm.accepted
        then: done
      - else: cannot
  - set:
      order: {size: "{{ input.size }}", count: 2}
  - id: done
    return: "ok {{ confirm.content.milk }} {{ stat.bytes }}"
  - id: cannot
    fail: "no"
`

// TestCompletion completes at a cursor in an edited flow: each case
// replaces a line of completeFlow (or adds one) and says which labels
// must and must not be offered.
func TestCompletion(t *testing.T) {
	tests := []struct {
		name       string
		old, new   string // a line of completeFlow and what replaces it, with |
		want, dont []string
		detail     map[string]string // label → a substring of its detail
	}{
		{"a form's fields", `    return: "ok {{ confirm.content.milk }} {{ stat.bytes }}"`,
			`    return: "ok {{ confirm.content.| }}"`, []string{"milk", "sugars"}, []string{"accepted"},
			map[string]string{"milk": "string, one of none, oat", "sugars": "integer, 0 to 3"}},
		{"a form's fields, typed in part", `    return: "ok {{ confirm.content.milk }} {{ stat.bytes }}"`,
			`    return: "ok {{ confirm.content.su|`, []string{"sugars"}, nil, nil},
		{"an ask's answer", `      - if: confirm.accepted`, `      - if: confirm.|`,
			[]string{"accepted", "action", "content"}, []string{"milk"}, nil},
		{"input", `    ask: "Order ☕ {{ input.size }}?"`, `    ask: "Order ☕ {{ input.|`,
			[]string{"size", "shots"}, nil, map[string]string{"size": "one of small, large"}},
		{"a step's output", `    return: "ok {{ confirm.content.milk }} {{ stat.bytes }}"`,
			`    return: "{{ stat.| }}"`, []string{"bytes"}, []string{"sugars"}, nil},
		{"an item of a list", `    return: "ok {{ confirm.content.milk }} {{ stat.bytes }}"`,
			`    return: "{{ input.items[0].| }}"`, []string{"sku", "qty"}, nil, nil},
		{"a set name", `    return: "ok {{ confirm.content.milk }} {{ stat.bytes }}"`,
			`    return: "{{ order.| }}"`, []string{"size", "count"}, nil, map[string]string{"count": "integer"}},
		{"expr's optional chaining", `      - if: confirm.accepted`, `      - if: confirm?.|`, []string{"accepted"}, nil, nil},
		{"vars", `    ask: "Order ☕ {{ input.size }}?"`, `    ask: "Order {{ vars.| }}"`, []string{"shop"}, nil, map[string]string{"shop": "string"}},
		{"secrets", `    with: {path: "{{ input.size }}"}`, `    with: {path: "{{ secrets.| }}"}`, []string{"token"}, nil, nil},
		{"names in scope", `      - if: confirm.accepted`, `      - if: co|`,
			[]string{"confirm", "input", "stat", "client", "vars"}, nil, map[string]string{"confirm": "ask confirm"}},
		{"next", `    on_error: cannot`, `    next: |`, []string{"confirm", "check", "done", "cannot"}, nil,
			map[string]string{"done": "return node"}},
		{"then", `        then: done`, `        then: do|`, []string{"done"}, nil, nil},
		{"else", `      - else: cannot`, `      - else: |`, []string{"cannot"}, nil, nil},
		{"unavailable", `    unavailable: cannot`, `    unavailable: |`, []string{"cannot"}, nil, nil},
		{"on_error", `    on_error: cannot`, `    on_error: |`, []string{"cannot"}, nil, nil},
		{"on_timeout", `    unavailable: cannot`, `    on_timeout: |`, []string{"done"}, nil, nil},
		{"actions", `    step: fs.stat`, `    step: fs.|`, []string{"fs.stat", "fs.read", "uuid.new"}, nil,
			map[string]string{"fs.read": "Reads a text file"}},
		{"with keys, flow style", `    with: {path: "{{ input.size }}"}`, `    with: {|`, []string{"path"}, nil,
			map[string]string{"path": "required"}},
		{"with keys, block style", `    with: {path: "{{ input.size }}"}`, "    with:\n      |", []string{"path"}, nil, nil},
		{"with keys, step after with", `    step: fs.stat`, "    with:\n      |\n    step: fs.read",
			[]string{"max_bytes", "path"}, nil, nil},
		{"node keys of a step", `    on_error: cannot`, `    |`, []string{"on_error", "retry", "timeout"}, []string{"form", "step", "id"}, nil},
		{"node keys of a new node", `  - id: cannot`, "  - |\n  - id: cannot", []string{"ask", "step", "branch", "id"}, nil, nil},
		{"top-level keys", `vars:`, "|\nvars:", []string{"expressions", "output", "title"}, []string{"name", "nodes", "vars"}, nil},
		{"nothing in a message", `    fail: "no"`, `    fail: "no |"`, nil, []string{"confirm"}, nil},
		{"nothing after a call", `      - if: confirm.accepted`, `      - if: size(x).|`, nil, []string{"confirm"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !strings.Contains(completeFlow, tt.old+"\n") {
				t.Fatalf("completeFlow has no line %q", tt.old)
			}
			src, pos := cursor(t, strings.Replace(completeFlow, tt.old, tt.new, 1))
			items := complete(snap(t, completeFlow, src), pos)
			labels := labelsOf(items)
			for _, w := range tt.want {
				if !slices.Contains(labels, w) {
					t.Errorf("no %q among %v", w, labels)
				}
			}
			for _, d := range tt.dont {
				if slices.Contains(labels, d) {
					t.Errorf("%q offered, among %v", d, labels)
				}
			}
			for label, sub := range tt.detail {
				i := slices.Index(labels, label)
				if i >= 0 && !strings.Contains(items[i].Detail, sub) {
					t.Errorf("%s: detail %q, want %q in it", label, items[i].Detail, sub)
				}
			}
			for _, it := range items {
				if it.TextEdit == nil || it.TextEdit.Range.End != pos {
					t.Errorf("%s: edit %+v does not end at the cursor %+v", it.Label, it.TextEdit, pos)
				}
			}
		})
	}
}
