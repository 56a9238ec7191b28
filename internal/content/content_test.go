package content

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/flowserve/flowserve/internal/jsonx"
)

// validBlocks are blocks as flows write them, each keeping every member
// through its type: Append must write what encoding/json wrote for the
// map.
var validBlocks = []map[string]any{
	{"type": "text", "text": "plain"},
	{"type": "text", "text": ""},
	{"type": "text", "text": `<b> & "quotes" \ é ☃ ` + "\u2028\u2029\x01\t\n"},
	{"type": "text", "text": "t", "_meta": map[string]any{"z": int64(1), "a": []any{"<", 1.5, nil, true}, "m": map[string]any{}}},
	{"type": "text", "text": "t", "_meta": map[string]any{}},
	{"type": "text", "text": "t", "annotations": map[string]any{"audience": []any{"user", "assistant"}, "priority": 0.25, "lastModified": "2026-01-02T03:04:05Z"}},
	{"type": "text", "text": "t", "annotations": map[string]any{"priority": int64(1)}},
	{"type": "text", "text": "t", "annotations": map[string]any{}},
	{"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"},
	{"type": "image", "data": "", "mimeType": "image/png", "_meta": map[string]any{"k": "<v>"}, "annotations": map[string]any{"audience": []any{"user"}}},
	{"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"},
	{"type": "resource_link", "uri": "file:///a&b.txt", "name": "a"},
	{"type": "resource_link", "uri": "https://x/y", "name": "n", "title": "T", "description": "D", "mimeType": "text/plain", "size": int64(0)},
	{"type": "resource_link", "uri": "u", "name": "n", "size": float64(1 << 40)},
	{"type": "resource_link", "uri": "u", "name": "n", "icons": []any{
		map[string]any{"src": "https://x/i.png", "mimeType": "image/png", "sizes": []any{"48x48", "any"}, "theme": "dark"},
		map[string]any{"src": "data:image/png;base64,AAAA", "sizes": []any{}},
	}},
	{"type": "resource_link", "uri": "u", "name": "n", "icons": []any{}},
	{"type": "resource", "resource": map[string]any{"uri": "test://r", "mimeType": "text/plain", "text": "hello <world>"}},
	{"type": "resource", "resource": map[string]any{"uri": "test://r", "blob": "AAECAw==", "_meta": map[string]any{"x": int64(2)}}},
	{"type": "resource", "resource": map[string]any{"uri": "test://r", "blob": ""}, "annotations": map[string]any{"lastModified": "now"}},
}

// TestAppendAsMaps checks that a block built from a map and appended is
// the JSON encoding/json made of the map, with HTML escaping (the lean
// path) and without it (the reply store, which wrote maps with jsonx).
func TestAppendAsMaps(t *testing.T) {
	for _, m := range validBlocks {
		c, err := FromValue(m)
		if err != nil {
			t.Errorf("%v: %v", m, err)
			continue
		}
		want, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Append([]byte("prefix<"), c, true)
		if err != nil || string(got) != "prefix<"+string(want) {
			t.Errorf("Append(html) = %s, %v; want %s", got, err, want)
		}
		want, err = jsonx.Append(nil, m)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := Append(nil, c, false); err != nil || string(got) != string(want) {
			t.Errorf("Append = %s, %v; want %s", got, err, want)
		}
		// go-sdk's own encoding of the block says the same.
		sdk, err := c.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		var a any
		if err := json.Unmarshal(sdk, &a); err != nil {
			t.Fatal(err)
		}
		v, err := Value(c)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(normalize(a), normalize(v)) {
			t.Errorf("go-sdk writes %s, Append %s", sdk, got)
		}
	}
}

// normalize drops the empty objects and lists a map may hold and go-sdk
// leaves out (an empty _meta, icons or sizes), so two decodings compare.
func normalize(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range v {
			e = normalize(e)
			if m, ok := e.(map[string]any); ok && len(m) == 0 && k != "annotations" {
				continue
			}
			if l, ok := e.([]any); ok && len(l) == 0 {
				continue
			}
			out[k] = e
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = normalize(e)
		}
		return out
	}
	return v
}

// TestFromValueKeepsWhatTypesHold checks the blocks whose map holds more
// than go-sdk's types: they come out as go-sdk reads the map's JSON, as
// go-sdk's path always sent them.
func TestFromValueKeepsWhatTypesHold(t *testing.T) {
	tests := []struct {
		in   map[string]any
		want string
	}{
		{map[string]any{"type": "text", "text": "t", "annotations": map[string]any{"priority": 0.0, "audience": []any{}, "extra": 1}}, `{"annotations":{},"text":"t","type":"text"}`},
		{map[string]any{"type": "text", "text": nil}, `{"text":"","type":"text"}`},
		{map[string]any{"type": "image", "mimeType": "image/png"}, `{"data":"","mimeType":"image/png","type":"image"}`},
		{map[string]any{"type": "resource_link", "uri": "u", "name": "n", "title": "", "icons": []any{map[string]any{"src": "s", "extra": true}}}, `{"icons":[{"src":"s"}],"name":"n","type":"resource_link","uri":"u"}`},
		{map[string]any{"type": "resource", "resource": map[string]any{"uri": "u", "text": "", "extra": 1}}, `{"resource":{"uri":"u"},"type":"resource"}`},
	}
	for _, tc := range tests {
		c, err := FromValue(tc.in)
		if err != nil {
			t.Errorf("%v: %v", tc.in, err)
			continue
		}
		if got, err := Append(nil, c, true); err != nil || string(got) != tc.want {
			t.Errorf("%v: %s, %v; want %s", tc.in, got, err, tc.want)
		}
	}
}

// TestFromValueErrors checks that what go-sdk's types cannot hold is an
// error naming the block's type and the member.
func TestFromValueErrors(t *testing.T) {
	tests := []struct {
		in   any
		want string
	}{
		{"text", "must be a map, not a string"},
		{nil, "must be a map, not null"},
		{map[string]any{"text": "no type"}, `unknown content type ""`},
		{map[string]any{"type": "video"}, `unknown content type "video"`},
		{map[string]any{"type": "tool_use", "id": "x"}, `unknown content type "tool_use"`},
		{map[string]any{"type": "text", "text": int64(7)}, "text block: text: must be a string, not a number"},
		{map[string]any{"type": "text", "text": "t", "_meta": "m"}, "text block: _meta: must be an object, not a string"},
		{map[string]any{"type": "text", "text": "t", "annotations": "a"}, "text block: annotations: json: cannot unmarshal string"},
		{map[string]any{"type": "text", "text": "t", "annotations": map[string]any{"priority": "high"}}, "text block: annotations: json: cannot unmarshal string"},
		{map[string]any{"type": "image", "data": "%%%", "mimeType": "image/png"}, "image block: data: illegal base64 data at input byte 0"},
		{map[string]any{"type": "audio", "data": true, "mimeType": "audio/wav"}, "audio block: data: must be a string, not a boolean"},
		{map[string]any{"type": "image", "data": "AAAA", "mimeType": []any{}}, "image block: mimeType: must be a string, not a list"},
		{map[string]any{"type": "resource_link", "uri": "u", "name": "n", "size": 1.5}, "resource_link block: size: must be an integer, not 1.5"},
		{map[string]any{"type": "resource_link", "uri": "u", "name": "n", "size": 1e300}, "resource_link block: size: must be an integer"},
		{map[string]any{"type": "resource_link", "uri": "u", "name": "n", "size": "3"}, "resource_link block: size: must be an integer, not a string"},
		{map[string]any{"type": "resource_link", "uri": "u", "name": "n", "icons": map[string]any{}}, "resource_link block: icons: json: cannot unmarshal object"},
		{map[string]any{"type": "resource", "resource": map[string]any{"uri": "u", "blob": "!"}}, "resource block: resource: illegal base64 data"},
		{map[string]any{"type": "resource", "resource": []any{}}, "resource block: resource: json: cannot unmarshal array"},
	}
	for _, tc := range tests {
		c, err := FromValue(tc.in)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("FromValue(%v) = %v, %v; want an error containing %q", tc.in, c, err, tc.want)
		}
	}
}

// TestAppendOthers checks the blocks FromValue does not build: nil, and
// go-sdk's sampling blocks, written by their own MarshalJSON.
func TestAppendOthers(t *testing.T) {
	if got, err := Append([]byte("["), nil, true); err != nil || string(got) != "[null" {
		t.Errorf("nil: %s, %v", got, err)
	}
	use := &mcp.ToolUseContent{ID: "1", Name: "n"}
	want, _ := use.MarshalJSON()
	if got, err := Append(nil, use, true); err != nil || string(got) != string(want) {
		t.Errorf("tool_use: %s, %v; want %s", got, err, want)
	}
	if s, ok := Text(&mcp.TextContent{Text: "x"}); !ok || s != "x" {
		t.Errorf("Text = %q, %v", s, ok)
	}
	if _, ok := Text(&mcp.ImageContent{}); ok {
		t.Error("Text of an image is ok")
	}
}
