package wire

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/flowserve/flowserve/flow"
)

// TestInputRequiredMessage checks the hand-written input_required reply
// against the same reply encoded by encoding/json.
func TestInputRequiredMessage(t *testing.T) {
	s := ServerInfo{Name: "flow\"serve", Version: "1.0"}
	in := &flow.InputRequired{
		State: "k1.abc-_",
		Requests: map[string]*flow.InputRequest{
			"b": {Mode: "form", Message: "Pick <one>\n", SchemaJSON: json.RawMessage(`{"type":"object","properties":{"x":{"type":"string"}}}`)},
			"a": {Mode: "url", Message: "Sign in", URL: "https://example.com/?a=1&b=2"},
		},
	}
	got := s.InputRequiredMessage(json.RawMessage(`7`), in)
	want := map[string]any{
		"jsonrpc": "2.0", "id": 7.0,
		"result": map[string]any{
			"_meta":      map[string]any{"io.modelcontextprotocol/serverInfo": map[string]any{"name": "flow\"serve", "version": "1.0"}},
			"resultType": "input_required",
			"inputRequests": map[string]any{
				"a": map[string]any{"method": "elicitation/create", "params": map[string]any{"mode": "url", "message": "Sign in", "url": "https://example.com/?a=1&b=2"}},
				"b": map[string]any{"method": "elicitation/create", "params": map[string]any{"mode": "form", "message": "Pick <one>\n",
					"requestedSchema": map[string]any{"type": "object", "properties": map[string]any{"x": map[string]any{"type": "string"}}}}},
			},
			"requestState": "k1.abc-_",
		},
	}
	var decoded map[string]any
	if err := json.Unmarshal(got, &decoded); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, got)
	}
	if !reflect.DeepEqual(decoded, want) {
		t.Errorf("got %s", got)
	}
}

// TestDecodeLean checks the one-pass request decoder on a full request
// and leaves malformed ones to the SDK.
func TestDecodeLean(t *testing.T) {
	body := []byte(`{"jsonrpc":"2.0","id":"x1","method":"tools/call","params":{"name":"t","arguments":{"a":1},
		"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","progressToken":5},
		"inputResponses":{"q":{"action":"accept","content":{"v":"\u00e9"}},"bad":12},"requestState":"s.t"}}`)
	var req Request
	if err := decode(body, &req); err != nil {
		t.Fatal(err)
	}
	p := req.Params
	if req.JSONRPC != "2.0" || string(req.ID) != `"x1"` || req.Method != "tools/call" || p == nil || p.Name != "t" ||
		string(p.Arguments) != `{"a":1}` || p.RequestState != "s.t" || string(p.Meta["progressToken"]) != "5" ||
		string(p.InputResponses["q"]) != `{"action":"accept","content":{"v":"\u00e9"}}` || string(p.InputResponses["bad"]) != "12" {
		t.Fatalf("decoded %+v %+v", req, p)
	}
	for _, bad := range []string{`[]`, `{"params":null}`, `{"params":{"name":5}}`, `{"id":1,`, `{"method":"tools/call"} x`} {
		var r Request
		if decode([]byte(bad), &r) == nil && r.Params != nil && r.Params.Name != "" {
			t.Errorf("%s: decoded as a lean request", bad)
		}
	}
}
