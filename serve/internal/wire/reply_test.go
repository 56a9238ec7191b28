package wire

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/flowserve/flowserve/flow"
	"github.com/flowserve/flowserve/internal/content"
)

// mapResultMessage is ResultMessage as it was written when content blocks
// were maps, with encoding/json: the bytes the lean path must still write.
func mapResultMessage(name, version string, id json.RawMessage, blocks []map[string]any, structured any, isError bool, prompt *flow.PromptResult, msgs []map[string]any) ([]byte, error) {
	type serverInfo struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	}
	meta := map[string]any{"io.modelcontextprotocol/serverInfo": serverInfo{name, version}}
	var result any
	if prompt != nil {
		type message struct {
			Role    string         `json:"role"`
			Content map[string]any `json:"content"`
		}
		out := make([]message, len(msgs))
		for i, m := range msgs {
			out[i] = message{prompt.Messages[i].Role, m}
		}
		result = struct {
			Meta        map[string]any `json:"_meta"`
			ResultType  string         `json:"resultType"`
			Description string         `json:"description,omitempty"`
			Messages    []message      `json:"messages"`
		}{meta, "complete", prompt.Description, out}
	} else {
		body := mapToolBody(blocks, structured, isError)
		body.Meta = meta
		result = body
	}
	return json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Result  any             `json:"result"`
	}{"2.0", id, result})
}

// mapBody is the result of a finished call as it was written when
// content blocks were maps.
type mapBody struct {
	Meta              map[string]any   `json:"_meta,omitempty"`
	ResultType        string           `json:"resultType"`
	Content           []map[string]any `json:"content"`
	StructuredContent any              `json:"structuredContent,omitempty"`
	IsError           bool             `json:"isError,omitempty"`
}

func mapToolBody(blocks []map[string]any, structured any, isError bool) mapBody {
	if blocks == nil {
		blocks = []map[string]any{}
	}
	return mapBody{ResultType: "complete", Content: blocks, StructuredContent: structured, IsError: isError}
}

// TestResultMessageAsMaps checks that the lean path writes a finished
// call's or prompt's reply, and a task's result, byte for byte as it did
// when content blocks were maps encoded by encoding/json.
func TestResultMessageAsMaps(t *testing.T) {
	s := ServerInfo{Name: "flow<serve>", Version: "1.0 & more"}
	blocks := [][]map[string]any{
		nil,
		{},
		{{"type": "text", "text": `Booked the "small" <room> & more` + "\u2028"}},
		{{"type": "text", "text": "a"}, {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"},
			{"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav", "annotations": map[string]any{"audience": []any{"user"}, "priority": 0.5}},
			{"type": "resource", "resource": map[string]any{"uri": "test://r", "mimeType": "text/plain", "text": "hello"}},
			{"type": "resource_link", "uri": "file:///x", "name": "x", "size": int64(3), "_meta": map[string]any{"k": "<v>"}}},
	}
	structured := []any{nil, map[string]any{"n": int64(3), "s": "<&>", "l": []any{1.5, nil, true}}, "text", int64(0)}
	ids := []string{`1`, `-42`, `"abc"`, `"a<b>&c"`, `"é\u2028"`}
	for _, b := range blocks {
		for _, st := range structured {
			for _, isError := range []bool{false, true} {
				for _, id := range ids {
					tr := &flow.ToolResult{Structured: st, IsError: isError}
					if b != nil {
						tr.Content = typed(t, b)
					}
					want, err := mapResultMessage(s.Name, s.Version, json.RawMessage(id), b, st, isError, nil, nil)
					if err != nil {
						t.Fatal(err)
					}
					if got := s.ResultMessage(json.RawMessage(id), &flow.Result{Complete: tr}); string(got) != string(want) {
						t.Errorf("got  %s\nwant %s", got, want)
					}
					// A task's result: the same, without _meta.
					task, err := json.Marshal(ToolResultBody(tr))
					if err != nil {
						t.Fatal(err)
					}
					if want, _ := json.Marshal(mapToolBody(b, st, isError)); string(task) != string(want) {
						t.Errorf("task result %s, want %s", task, want)
					}
				}
			}
		}
	}
	msgs := []map[string]any{{"type": "text", "text": "Write about <go>."}, {"type": "image", "data": "AAAA", "mimeType": "image/png"}}
	for _, desc := range []string{"", "A <prompt>"} {
		pr := &flow.PromptResult{Description: desc, Messages: []flow.PromptMessage{{Role: "user"}, {Role: "assistant"}}}
		for i, c := range typed(t, msgs) {
			pr.Messages[i].Content = c
		}
		want, err := mapResultMessage(s.Name, s.Version, json.RawMessage(`7`), nil, nil, false, pr, msgs)
		if err != nil {
			t.Fatal(err)
		}
		if got := s.ResultMessage(json.RawMessage(`7`), &flow.Result{Prompt: pr}); string(got) != string(want) {
			t.Errorf("prompt: got  %s\nwant %s", got, want)
		}
	}
	empty := &flow.PromptResult{}
	if got, want := string(s.ResultMessage(json.RawMessage(`7`), &flow.Result{Prompt: empty})), `{"jsonrpc":"2.0","id":7,"result":{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"flow\u003cserve\u003e","version":"1.0 \u0026 more"}},"resultType":"complete","messages":[]}}`; got != want {
		t.Errorf("empty prompt: got  %s\nwant %s", got, want)
	}
}

// TestResultMessageUnencodable checks that a result encoding/json cannot
// write is a JSON-RPC internal error, as it was.
func TestResultMessageUnencodable(t *testing.T) {
	s := ServerInfo{Name: "f", Version: "1"}
	got := s.ResultMessage(json.RawMessage(`1`), &flow.Result{Complete: &flow.ToolResult{Structured: math.Inf(1)}})
	want := `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"encode result: json: unsupported value: +Inf"}}`
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// typed builds the blocks written as maps.
func typed(t *testing.T, blocks []map[string]any) []mcp.Content {
	t.Helper()
	out := make([]mcp.Content, len(blocks))
	for i, b := range blocks {
		c, err := content.FromValue(b)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = c
	}
	return out
}
