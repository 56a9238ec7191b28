package flow

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/flowserve/flowserve/replies"
)

const reviewPrompt = `
name: review
kind: prompt
description: Asks for a code review.
input:
  type: object
  properties:
    lang: {type: string, title: Language, description: The code's language, enum: [go, rust]}
    code: {type: string, description: The code}
    tone: {type: string}
  required: [code, lang]
nodes:
  - branch:
      - if: input.code == "fail"
        then: nope
  - return:
      description: "Review of {{ input.lang }} code"
      text: "Please review this {{ input.lang }} code."
      messages:
        - {role: assistant, text: "Send it over."}
        - role: user
          content:
            type: resource
            resource: {uri: "file:///snippet.{{ input.lang }}", mimeType: text/plain, text: "{{ input.code }}"}
        - role: user
          content: {type: image, data: "iVBORw0KGgo=", mimeType: image/png}
  - id: nope
    fail: "cannot review {{ input.code }}"
`

// TestPromptRun checks the results of a prompt flow's single round: its
// messages in order, a fail node as an error result, and invalid
// arguments as an *ArgumentsError.
func TestPromptRun(t *testing.T) {
	p := compile(t, "review.yaml", reviewPrompt, testOptions{})
	if !p.IsPrompt() {
		t.Fatal("IsPrompt is false for kind: prompt")
	}
	tests := []struct {
		name     string
		args     string
		want     *PromptResult
		failText string   // a fail node's message
		problems []string // an *ArgumentsError's
	}{
		{
			name: "messages",
			args: `{"lang": "go", "code": "x := 1"}`,
			want: &PromptResult{Description: "Review of go code", Messages: []PromptMessage{
				{Role: "user", Content: &mcp.TextContent{Text: "Please review this go code."}},
				{Role: "assistant", Content: &mcp.TextContent{Text: "Send it over."}},
				{Role: "user", Content: &mcp.EmbeddedResource{Resource: &mcp.ResourceContents{
					URI: "file:///snippet.go", MIMEType: "text/plain", Text: "x := 1"}}},
				{Role: "user", Content: &mcp.ImageContent{Data: []byte("\x89PNG\r\n\x1a\n"), MIMEType: "image/png"}},
			}},
		},
		{name: "fail", args: `{"lang": "rust", "code": "fail"}`, failText: "cannot review fail"},
		{name: "missing and wrong arguments", args: `{"lang": "c"}`,
			problems: []string{"code: is required", "lang: must be one of go, rust"}},
		{name: "not strings", args: `{"lang": "go", "code": 7}`, problems: []string{"code: must be a string, not an integer"}},
		{name: "not an object", args: `[1]`, problems: []string{"must be an object"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := p.Run(context.Background(), &Request{Arguments: json.RawMessage(tc.args)})
			if tc.problems != nil {
				var ae *ArgumentsError
				if !errors.As(err, &ae) || !IsInvalidParams(err) {
					t.Fatalf("err = %v, want an *ArgumentsError", err)
				}
				if len(ae.Problems) != len(tc.problems) {
					t.Fatalf("problems %q, want %q", ae.Problems, tc.problems)
				}
				for i, want := range tc.problems {
					if !strings.Contains(ae.Problems[i], want) {
						t.Errorf("problem %d is %q, want one containing %q", i, ae.Problems[i], want)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tc.failText != "" {
				if res.Prompt != nil || res.Complete == nil || !res.Complete.IsError || blockText(res.Complete.Content[0]) != tc.failText {
					t.Fatalf("result %+v, want the error result %q", res, tc.failText)
				}
				return
			}
			if res.Complete != nil || res.Input != nil || !reflect.DeepEqual(res.Prompt, tc.want) {
				t.Fatalf("prompt\n%+v\nwant\n%+v", res.Prompt, tc.want)
			}
		})
	}
}

// TestPromptArguments checks the arguments a prompt flow declares, in
// file order.
func TestPromptArguments(t *testing.T) {
	p := compile(t, "review.yaml", reviewPrompt, testOptions{})
	want := []Argument{
		{Name: "lang", Title: "Language", Description: "The code's language", Required: true, Values: []string{"go", "rust"}},
		{Name: "code", Description: "The code", Required: true},
		{Name: "tone"},
	}
	if got := p.Arguments(); !reflect.DeepEqual(got, want) {
		t.Fatalf("arguments %+v, want %+v", got, want)
	}
	tool := compile(t, "tool.yaml", "description: A tool.\ninput: {type: object, properties: {a: {type: string}}}\nnodes: [{return: hi}]\n", testOptions{})
	if tool.IsPrompt() || tool.Arguments() != nil {
		t.Fatalf("a tool flow is a prompt (%v) or has arguments (%v)", tool.IsPrompt(), tool.Arguments())
	}
}

// TestPromptRounds runs a prompt flow that asks first, and checks that
// its final round is kept in the reply store like a tool's: the same
// retry gets the same messages without the step running again.
func TestPromptRounds(t *testing.T) {
	clk := &clock{t: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)}
	cnt := &counters{}
	src := `
kind: prompt
description: Asks for context, then prompts.
nodes:
  - id: user_context
    ask: What context should the prompt use?
    form: {context: {type: string}}
    required: [context]
  - id: n
    step: test.count
    with: {key: prompt}
  - return: "Context: {{ user_context.content.context }} (call {{ n.n }})"
  - id: unused
    return: never
`
	p := compile(t, "ctx.yaml", src, testOptions{Actions: testRegistry(t, cnt), Codec: testCodec(t, clk), Now: clk.now, Replies: replies.NewMemory(0, clk.now)})
	ctx := context.Background()
	first, err := p.Run(ctx, &Request{Client: Client{Form: true}})
	if err != nil {
		t.Fatal(err)
	}
	if first.Input == nil || first.Input.Requests["user_context"] == nil {
		t.Fatalf("first round %+v, want input required for user_context", first)
	}
	final := &Request{
		State:     first.Input.State,
		Client:    Client{Form: true},
		Responses: map[string]json.RawMessage{"user_context": json.RawMessage(`{"action":"accept","content":{"context":"test context"}}`)},
	}
	want := &PromptResult{Messages: []PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "Context: test context (call 1)"}}}}
	for i, replayed := range []bool{false, true} {
		res, err := p.Run(ctx, final)
		if err != nil {
			t.Fatal(err)
		}
		if res.Replayed != replayed || !reflect.DeepEqual(res.Prompt, want) || res.Round != 2 {
			t.Fatalf("run %d: prompt %+v (replayed %v, round %d), want %+v (replayed %v, round 2)", i, res.Prompt, res.Replayed, res.Round, want, replayed)
		}
	}
	if n := cnt.get("count:prompt"); n != 1 {
		t.Fatalf("the step ran %d times, want 1", n)
	}
	// A client that cannot answer gets the same error as a tool's.
	_, err = p.Run(ctx, &Request{})
	var mc *MissingCapabilityError
	if !errors.As(err, &mc) {
		t.Fatalf("err = %v, want a *MissingCapabilityError", err)
	}
}

// TestPromptRunsOffTheEnd: a prompt flow whose path ends without a return
// returns no messages.
func TestPromptRunsOffTheEnd(t *testing.T) {
	p := compile(t, "empty.yaml", "kind: prompt\ndescription: Nothing.\nnodes:\n  - set: {x: 1}\n", testOptions{})
	res, err := p.Run(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Prompt == nil || len(res.Prompt.Messages) != 0 || res.Complete != nil {
		t.Fatalf("result %+v, want an empty prompt", res)
	}
}
