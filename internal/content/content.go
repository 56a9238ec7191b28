// Package content holds the MCP content blocks of flow results as go-sdk's
// typed mcp.Content: it builds them from the JSON-like values a flow's
// return writes (FromValue), and encodes them as flowserve writes them on
// its own paths, the lean 2026-07-28 replies and the reply store (Append):
// members in key order, as encoding/json encodes a map, so the bytes are
// those flowserve wrote when blocks were maps.
//
// A block keeps what go-sdk's types hold: members a type has no field for
// (inside annotations, icons or a resource) are dropped, as go-sdk's own
// path always dropped them.
package content

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/flowserve/flowserve/internal/jsonx"
)

// FromValue builds the content block v says: a JSON-like map with a type
// (text, image, audio, resource_link or resource) and that type's members.
// Members are read as go-sdk reads them from JSON: absent or null leaves
// a field unset; a member of the wrong type, media data that is not
// base64 or an unknown type is an error naming the block's type and the
// member ("image block: data: illegal base64 data at input byte 4").
func FromValue(v any) (mcp.Content, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("must be a map, not %s", kindOf(v))
	}
	typ, _ := m["type"].(string)
	r := reader{m: m}
	var c mcp.Content
	switch typ {
	case "text":
		c = &mcp.TextContent{Text: r.str("text"), Meta: r.meta(), Annotations: r.annotations()}
	case "image":
		c = &mcp.ImageContent{Data: r.base64("data"), MIMEType: r.str("mimeType"), Meta: r.meta(), Annotations: r.annotations()}
	case "audio":
		c = &mcp.AudioContent{Data: r.base64("data"), MIMEType: r.str("mimeType"), Meta: r.meta(), Annotations: r.annotations()}
	case "resource_link":
		l := &mcp.ResourceLink{URI: r.str("uri"), Name: r.str("name"), Title: r.str("title"), Description: r.str("description"),
			MIMEType: r.str("mimeType"), Size: r.size(), Meta: r.meta(), Annotations: r.annotations()}
		r.decode("icons", &l.Icons)
		c = l
	case "resource":
		e := &mcp.EmbeddedResource{Meta: r.meta(), Annotations: r.annotations()}
		r.decode("resource", &e.Resource)
		c = e
	default:
		return nil, fmt.Errorf("unknown content type %q", typ)
	}
	if r.err != nil {
		return nil, fmt.Errorf("%s block: %w", typ, r.err)
	}
	return c, nil
}

// Text returns the text of a text block; ok is false for other blocks.
func Text(c mcp.Content) (text string, ok bool) {
	if t, isText := c.(*mcp.TextContent); isText && t != nil {
		return t.Text, true
	}
	return "", false
}

// Value returns c as a JSON-like map, as JSON decodes what Append
// encodes (numbers as float64): for comparing a block with one written
// as a map.
func Value(c mcp.Content) (map[string]any, error) {
	b, err := Append(nil, c, false)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	return m, nil
}

// reader reads a block's members, keeping the first error.
type reader struct {
	m   map[string]any
	err error
}

func (r *reader) fail(key string, err error) {
	if r.err == nil {
		r.err = fmt.Errorf("%s: %w", key, err)
	}
}

// str reads a string member.
func (r *reader) str(key string) string {
	switch v := r.m[key].(type) {
	case nil:
		return ""
	case string:
		return v
	default:
		r.fail(key, fmt.Errorf("must be a string, not %s", kindOf(v)))
		return ""
	}
}

// base64 reads a member holding base64 (the standard alphabet, padded).
func (r *reader) base64(key string) []byte {
	s, ok := r.m[key].(string)
	if !ok {
		r.str(key) // null is no data; another type is an error
		return nil
	}
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		r.fail(key, err)
		return nil
	}
	return b
}

// size reads a resource link's size, an integer.
func (r *reader) size() *int64 {
	var n int64
	switch v := r.m["size"].(type) {
	case nil:
		return nil
	case int64:
		n = v
	case int:
		n = int64(v)
	case float64:
		if v != math.Trunc(v) || v < math.MinInt64 || v >= math.MaxInt64 {
			r.fail("size", fmt.Errorf("must be an integer, not %v", v))
			return nil
		}
		n = int64(v)
	default:
		r.fail("size", fmt.Errorf("must be an integer, not %s", kindOf(v)))
		return nil
	}
	return &n
}

// meta reads the _meta member, an object.
func (r *reader) meta() mcp.Meta {
	switch v := r.m["_meta"].(type) {
	case nil:
		return nil
	case map[string]any:
		return mcp.Meta(v)
	default:
		r.fail("_meta", fmt.Errorf("must be an object, not %s", kindOf(v)))
		return nil
	}
}

// annotations reads the annotations member.
func (r *reader) annotations() *mcp.Annotations {
	var a *mcp.Annotations
	r.decode("annotations", &a)
	return a
}

// decode reads a member into go-sdk's type for it, as go-sdk decodes it
// from JSON.
func (r *reader) decode(key string, into any) {
	v, present := r.m[key]
	if !present || v == nil {
		return
	}
	b, err := jsonx.Append(nil, v)
	if err == nil {
		err = json.Unmarshal(b, into)
	}
	if err != nil {
		r.fail(key, err)
	}
}

// kindOf names the JSON type of a JSON-like value, for messages.
func kindOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case int, int64, float64:
		return "a number"
	case []any:
		return "a list"
	case map[string]any:
		return "a map"
	}
	return fmt.Sprintf("%T", v)
}
