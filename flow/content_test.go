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

	"github.com/flowserve/flowserve/internal/content"
	"github.com/flowserve/flowserve/replies"
)

// blockText returns the text of a text block, nil for other blocks: what
// the tests read as block["text"] when blocks were maps.
func blockText(c mcp.Content) any {
	if s, ok := content.Text(c); ok {
		return s
	}
	return nil
}

// contentJSON encodes blocks as encoding/json encoded them when they were
// maps (members in key order, HTML escaped): the transcripts' form.
func contentJSON(blocks []mcp.Content) []byte {
	if blocks == nil {
		return []byte("null")
	}
	b := []byte{'['}
	for i, c := range blocks {
		if i > 0 {
			b = append(b, ',')
		}
		var err error
		if b, err = content.Append(b, c, true); err != nil {
			return []byte(err.Error())
		}
	}
	return append(b, ']')
}

// blocksFlow returns content blocks built from its arguments, which no
// static check can see.
const blocksFlow = `
name: blocks
description: Returns blocks made of its arguments.
input:
  type: object
  properties:
    data: {type: string}
    size: {type: number}
    role: {type: string}
nodes:
  - id: first
    set: {n: 1}
  - id: done
    return:
      text: "Blocks:"
      content:
        - {type: image, data: "{{ input.data }}", mimeType: image/png}
        - {type: resource_link, uri: "file:///a.txt", name: a, size: "{{ input.size }}"}
        - {type: text, text: "for {{ input.role }}", annotations: {audience: ["{{ input.role }}"], priority: 0.5}}
`

// TestContentBlocksTyped checks that a return's content blocks are built
// into go-sdk's types when the run ends, and that a block the flow's
// values make invalid ends the run with a RunError at the return node,
// saying which block and what is wrong with it.
func TestContentBlocksTyped(t *testing.T) {
	p := compile(t, "blocks.yaml", blocksFlow, testOptions{})
	size := int64(12)
	tests := []struct {
		name string
		args string
		want []mcp.Content // nil: the run fails
		err  string
	}{
		{name: "valid", args: `{"data": "iVBORw0KGgo=", "size": 12, "role": "user"}`, want: []mcp.Content{
			&mcp.TextContent{Text: "Blocks:"},
			&mcp.ImageContent{Data: []byte("\x89PNG\r\n\x1a\n"), MIMEType: "image/png"},
			&mcp.ResourceLink{URI: "file:///a.txt", Name: "a", Size: &size},
			&mcp.TextContent{Text: "for user", Annotations: &mcp.Annotations{Audience: []mcp.Role{"user"}, Priority: 0.5}},
		}},
		{name: "a whole size", args: `{"data": "", "size": 12.0, "role": "assistant"}`, want: []mcp.Content{
			&mcp.TextContent{Text: "Blocks:"},
			&mcp.ImageContent{Data: []byte{}, MIMEType: "image/png"},
			&mcp.ResourceLink{URI: "file:///a.txt", Name: "a", Size: &size},
			&mcp.TextContent{Text: "for assistant", Annotations: &mcp.Annotations{Audience: []mcp.Role{"assistant"}, Priority: 0.5}},
		}},
		{name: "data not base64", args: `{"data": "not base64!", "size": 1, "role": "user"}`,
			err: "content block 1: image block: data: illegal base64 data at input byte 3"},
		{name: "size not an integer", args: `{"data": "", "size": 1.5, "role": "user"}`,
			err: "content block 2: resource_link block: size: must be an integer, not 1.5"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := p.Run(context.Background(), &Request{Arguments: json.RawMessage(tc.args)})
			if tc.want != nil {
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(res.Complete.Content, tc.want) {
					t.Fatalf("content %s, want %s", contentJSON(res.Complete.Content), contentJSON(tc.want))
				}
				return
			}
			var re *RunError
			if !errors.As(err, &re) {
				t.Fatalf("err = %v (result %+v), want a *RunError", err, res)
			}
			if re.Node != "done" || re.Pos.Line != 13 || re.Pos.Col != 5 {
				t.Errorf("the error is at node %s, %d:%d; want node done, 13:5", re.Node, re.Pos.Line, re.Pos.Col)
			}
			if want := "blocks.yaml:13:5: node done: " + tc.err; err.Error() != want {
				t.Errorf("err = %q, want %q", err, want)
			}
			fail := p.FailureResult(err)
			if got, want := blockText(fail.Content[0]), "blocks: node done: "+tc.err; !fail.IsError || got != want {
				t.Errorf("failure result %q (isError %v), want %q", got, fail.IsError, want)
			}
		})
	}
}

// TestStoredRepliesDecode checks that replies stored before content
// blocks had types (members in key order, as maps were encoded) replay
// as the typed blocks, and that a tool reply stored now is byte for byte
// what was stored then.
func TestStoredRepliesDecode(t *testing.T) {
	size := int64(7)
	tests := []struct {
		name   string
		stored string
		want   *Result
	}{
		{
			name: "tool result",
			stored: `{"round":3,"content":[{"text":"Booked <the> \"small\" room & more","type":"text"},` +
				`{"data":"iVBORw0KGgo=","mimeType":"image/png","type":"image"},` +
				`{"_meta":{"k":"v"},"annotations":{"audience":["user"],"priority":0.5},"name":"a","size":7,"type":"resource_link","uri":"file:///a"},` +
				`{"resource":{"mimeType":"text/plain","text":"x","uri":"file:///b"},"type":"resource"}],` +
				`"structured":{"n":3},"isError":true,"failure":{"node":"pay","message":"no"}}`,
			want: &Result{Round: 3, Replayed: true, Complete: &ToolResult{
				Content: []mcp.Content{
					&mcp.TextContent{Text: `Booked <the> "small" room & more`},
					&mcp.ImageContent{Data: []byte("\x89PNG\r\n\x1a\n"), MIMEType: "image/png"},
					&mcp.ResourceLink{URI: "file:///a", Name: "a", Size: &size, Meta: mcp.Meta{"k": "v"},
						Annotations: &mcp.Annotations{Audience: []mcp.Role{"user"}, Priority: 0.5}},
					&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "file:///b", MIMEType: "text/plain", Text: "x"}},
				},
				Structured: map[string]any{"n": float64(3)}, IsError: true, Failure: &Failure{Node: "pay", Message: "no"},
			}},
		},
		{
			name:   "empty tool result",
			stored: `{"round":1,"content":[]}`,
			want:   &Result{Round: 1, Replayed: true, Complete: &ToolResult{Content: []mcp.Content{}}},
		},
		{
			name:   "prompt",
			stored: `{"round":2,"content":null,"prompt":{"description":"d","messages":[{"role":"user","content":{"text":"a \u003c b","type":"text"}}]}}`,
			want: &Result{Round: 2, Replayed: true, Prompt: &PromptResult{Description: "d", Messages: []PromptMessage{
				{Role: "user", Content: &mcp.TextContent{Text: "a < b"}},
			}}},
		},
	}
	clk := &clock{t: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)}
	ctx := context.Background()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			store := replies.NewMemory(0, clk.now)
			e, err := NewEngine(EngineOptions{Now: clk.now, Replies: store})
			if err != nil {
				t.Fatal(err)
			}
			key := [32]byte{1}
			if err := store.Put(ctx, key, []byte(tc.stored), time.Hour); err != nil {
				t.Fatal(err)
			}
			got, err := e.lookupReply(ctx, key)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("replayed %+v, want %+v", got, tc.want)
			}
			// Stored again, the reply is the same bytes.
			if err := e.storeReply(ctx, key, got, clk.now().Add(time.Hour)); err != nil {
				t.Fatal(err)
			}
			again, _, err := store.Get(ctx, key)
			if err != nil || string(again) != tc.stored {
				t.Fatalf("stored again as %s (%v), want %s", again, err, tc.stored)
			}
		})
	}
}

// TestStoredReplyDamaged checks that a stored block that is not a valid
// content block is an error naming the block, not a panic or a block
// the server cannot send.
func TestStoredReplyDamaged(t *testing.T) {
	clk := &clock{t: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)}
	ctx := context.Background()
	for stored, want := range map[string]string{
		`{"round":1,"content":[{"text":"a","type":"text"},{"type":"video"}]}`:                                   `stored reply: content block 2: unknown content type "video"`,
		`{"round":1,"content":[null]}`:                                                                          "stored reply: content block 1: must be a map, not null",
		`{"round":1,"content":null,"prompt":{"messages":[{"role":"user","content":{"text":7,"type":"text"}}]}}`: "stored reply: message 1: text block: text: must be a string, not a number",
	} {
		store := replies.NewMemory(0, clk.now)
		e, err := NewEngine(EngineOptions{Now: clk.now, Replies: store})
		if err != nil {
			t.Fatal(err)
		}
		if err := store.Put(ctx, [32]byte{}, []byte(stored), time.Hour); err != nil {
			t.Fatal(err)
		}
		if res, err := e.lookupReply(ctx, [32]byte{}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %+v, %v; want an error %q", stored, res, err, want)
		}
	}
}
