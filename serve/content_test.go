package serve_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/flowserve/flowserve/flow"
)

// blocksFlow returns content blocks made of its arguments.
const blocksFlow = `
name: blocks
description: Returns blocks made of its arguments.
input:
  type: object
  properties:
    data: {type: string}
    size: {type: number}
nodes:
  - id: done
    return:
      text: "Blocks:"
      content:
        - {type: image, data: "{{ input.data }}", mimeType: image/png}
        - {type: resource_link, uri: "file:///a.txt", name: a, size: "{{ input.size }}", _meta: {origin: "<flow>"}}
        - type: resource
          resource: {uri: "test://r", mimeType: text/plain, text: hello}
          annotations: {audience: [user], priority: 0.5}
`

// TestContentBlocks checks a flow's content blocks on every era and
// transport (the lean path is 2026-07-28 over HTTP): they reach the
// client whole, _meta included, and a block its arguments make invalid is
// a tool error naming the node, the block and what is wrong with it, the
// same on every path.
func TestContentBlocks(t *testing.T) {
	ctx := testCtx(t)
	srv := newServer(t, []*flow.Program{compileSource(t, "blocks.yaml", []byte(blocksFlow), flow.Env{})}, "")
	size := int64(12)
	want := []mcp.Content{
		&mcp.TextContent{Text: "Blocks:"},
		&mcp.ImageContent{Data: []byte("\x89PNG\r\n\x1a\n"), MIMEType: "image/png"},
		&mcp.ResourceLink{URI: "file:///a.txt", Name: "a", Size: &size, Meta: mcp.Meta{"origin": "<flow>"}},
		&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "test://r", MIMEType: "text/plain", Text: "hello"},
			Annotations: &mcp.Annotations{Audience: []mcp.Role{"user"}, Priority: 0.5}},
	}
	wantJSON, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args map[string]any
		err  string // the tool error's text; "" for the blocks
	}{
		{name: "valid", args: map[string]any{"data": "iVBORw0KGgo=", "size": 12}},
		{name: "data not base64", args: map[string]any{"data": "not base64!", "size": 12},
			err: "blocks: node done: content block 1: image block: data: illegal base64 data at input byte 3"},
		{name: "size not an integer", args: map[string]any{"data": "", "size": 1.5},
			err: "blocks: node done: content block 2: resource_link block: size: must be an integer, not 1.5"},
	}
	for _, e := range eras {
		for _, kind := range transports {
			cs := connect(t, ctx, srv, kind, e.version, clientFor(e, nil, false, nil, nil), nil)
			for _, tc := range tests {
				t.Run(fmt.Sprintf("%s/%s/%s", e.name, kind, tc.name), func(t *testing.T) {
					res, _, err := callTool(t, ctx, cs, e, nil, &mcp.CallToolParams{Name: "blocks", Arguments: tc.args})
					if err != nil {
						t.Fatal(err)
					}
					if tc.err != "" {
						checkText(t, res, true, tc.err)
						return
					}
					got, err := json.Marshal(res.Content)
					if err != nil {
						t.Fatal(err)
					}
					if res.IsError || string(got) != string(wantJSON) {
						t.Errorf("content %s (isError %v), want %s", got, res.IsError, wantJSON)
					}
				})
			}
		}
	}
}
