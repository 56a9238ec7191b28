package check

import (
	"reflect"
	"strings"
	"testing"
)

// TestPromptReturnGives checks that a prompt flow's return gives text or
// messages, and that Check says so once, where Parse has not.
func TestPromptReturnGives(t *testing.T) {
	const head = "kind: prompt\ndescription: Drafts.\nnodes:\n"
	const needs = "return needs text or messages: a prompt's result is its messages, and this return gives none"
	tests := []struct {
		name string
		ret  string // the return node, under nodes
		want []string
	}{
		{
			name: "a description only",
			ret:  "  - return: {description: A draft}\n",
			want: []string{"4:13 missing-key: " + needs + " (a description describes the messages; it is not one)"},
		},
		{
			name: "a description only, in block style",
			ret:  "  - return:\n      description: A draft\n",
			want: []string{"5:7 missing-key: " + needs + " (a description describes the messages; it is not one)"},
		},
		{
			name: "tool keys only",
			ret:  "  - return: {content: [{type: text, text: hi}]}\n",
			want: []string{
				"4:13 missing-key: " + needs,
				"4:14 tool-only: content belongs to tool flows: a prompt returns text or messages",
			},
		},
		{name: "text", ret: "  - return: {text: Draft.}\n"},
		{name: "a plain text", ret: "  - return: Draft.\n"},
		{name: "text that is an expression", ret: "  - return: {text: \"{{ 'Draft.' }}\"}\n"},
		{name: "messages and a description", ret: "  - return: {description: A draft, messages: [{role: user, text: Draft.}]}\n"},
		{name: "text and messages", ret: "  - return: {text: Draft., messages: [{role: assistant, text: Sure.}]}\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := check(t, head+tc.ret)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

// TestToolReturnNeedsNoText checks that a tool flow's return is not held
// to a prompt's rule: structured or content alone is a result.
func TestToolReturnNeedsNoText(t *testing.T) {
	src := "description: Counts.\noutput: {type: object, properties: {n: {type: integer}}}\nnodes:\n  - return: {structured: {n: 1}}\n"
	if got := check(t, src); len(got) > 0 {
		t.Errorf("got %v, want none", got)
	}
}
