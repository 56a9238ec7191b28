package content

import (
	"encoding/base64"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/flowserve/flowserve/internal/jsonx"
)

// Append appends the JSON of c to b: its members in key order, each
// written when go-sdk writes it (a block's type, a text block's text,
// media data and mimeType, a link's uri and name, a resource's uri always;
// the others when set), strings escaped as encoding/json escapes them,
// and <, > and & too when html is set (encoding/json's default). This is
// what encoding/json wrote for the map a block was built from. A nil
// block is null; a block of another type (tool_use, tool_result) is
// written by its own MarshalJSON.
func Append(b []byte, c mcp.Content, html bool) ([]byte, error) {
	w := writer{b: b, html: html}
	switch c := c.(type) {
	case nil:
		return append(b, "null"...), nil
	case *mcp.TextContent:
		w.open()
		w.common(c.Meta, c.Annotations)
		w.str("text", c.Text, true)
		w.str("type", "text", true)
	case *mcp.ImageContent:
		w.media("image", c.Data, c.MIMEType, c.Meta, c.Annotations)
	case *mcp.AudioContent:
		w.media("audio", c.Data, c.MIMEType, c.Meta, c.Annotations)
	case *mcp.ResourceLink:
		w.link(c)
	case *mcp.EmbeddedResource:
		w.open()
		w.common(c.Meta, c.Annotations)
		if r := c.Resource; r != nil {
			w.key("resource")
			w.resource(r)
		}
		w.str("type", "resource", true)
	default:
		raw, err := c.MarshalJSON()
		if err != nil {
			return nil, err
		}
		return append(b, raw...), nil
	}
	if w.err != nil {
		return nil, fmt.Errorf("encode a content block: %w", w.err)
	}
	return append(w.b, '}'), nil
}

// writer writes one JSON object member by member.
type writer struct {
	b     []byte
	html  bool
	count int // members of the innermost object written so far
	err   error
}

// open starts an object.
func (w *writer) open() {
	w.b = append(w.b, '{')
	w.count = 0
}

// key starts a member; names are plain ASCII, written as they are.
func (w *writer) key(name string) {
	if w.count > 0 {
		w.b = append(w.b, ',')
	}
	w.count++
	w.b = append(w.b, '"')
	w.b = append(w.b, name...)
	w.b = append(w.b, '"', ':')
}

// str writes a string member, when always or when it is not empty.
func (w *writer) str(name, s string, always bool) {
	if s == "" && !always {
		return
	}
	w.key(name)
	w.b = jsonx.AppendString(w.b, s, w.html)
}

// bytes writes a base64 member.
func (w *writer) bytes(name string, data []byte) {
	w.key(name)
	w.b = append(w.b, '"')
	w.b = base64.StdEncoding.AppendEncode(w.b, data)
	w.b = append(w.b, '"')
}

// value writes a member holding a JSON-like value.
func (w *writer) value(name string, v any) {
	w.key(name)
	b, err := AppendValue(w.b, v, w.html)
	if err != nil {
		if w.err == nil {
			w.err = fmt.Errorf("%s: %w", name, err)
		}
		return
	}
	w.b = b
}

// AppendValue appends the JSON of v, a JSON-like value, as encoding/json
// writes it (map keys sorted), with <, > and & escaped when html is set:
// how Append writes a block's _meta, and how a result's structured
// content is written beside its blocks.
func AppendValue(b []byte, v any, html bool) ([]byte, error) {
	start := len(b)
	b, err := jsonx.Append(b, v)
	if err != nil {
		return nil, err
	}
	if html {
		b = escapeHTML(b, start)
	}
	return b, nil
}

// common writes the members every block may have, _meta and annotations,
// which sort before the others.
func (w *writer) common(meta mcp.Meta, a *mcp.Annotations) {
	if meta != nil {
		w.value("_meta", map[string]any(meta))
	}
	if a == nil {
		return
	}
	w.key("annotations")
	outer := w.count
	w.open()
	if len(a.Audience) > 0 {
		w.key("audience")
		w.b = append(w.b, '[')
		for i, r := range a.Audience {
			if i > 0 {
				w.b = append(w.b, ',')
			}
			w.b = jsonx.AppendString(w.b, string(r), w.html)
		}
		w.b = append(w.b, ']')
	}
	w.str("lastModified", a.LastModified, false)
	if a.Priority != 0 {
		w.value("priority", a.Priority)
	}
	w.b = append(w.b, '}')
	w.count = outer
}

// media writes an image or audio block.
func (w *writer) media(typ string, data []byte, mimeType string, meta mcp.Meta, a *mcp.Annotations) {
	w.open()
	w.common(meta, a)
	w.bytes("data", data)
	w.str("mimeType", mimeType, true)
	w.str("type", typ, true)
}

// link writes a resource_link block.
func (w *writer) link(c *mcp.ResourceLink) {
	w.open()
	w.common(c.Meta, c.Annotations)
	w.str("description", c.Description, false)
	if c.Icons != nil {
		w.key("icons")
		outer := w.count
		w.b = append(w.b, '[')
		for i, ic := range c.Icons {
			if i > 0 {
				w.b = append(w.b, ',')
			}
			w.icon(ic)
		}
		w.b = append(w.b, ']')
		w.count = outer
	}
	w.str("mimeType", c.MIMEType, false)
	w.str("name", c.Name, true)
	if c.Size != nil {
		w.value("size", *c.Size)
	}
	w.str("title", c.Title, false)
	w.str("type", "resource_link", true)
	w.str("uri", c.URI, true)
}

// icon writes one icon of a resource link.
func (w *writer) icon(ic mcp.Icon) {
	w.open()
	w.str("mimeType", ic.MIMEType, false)
	if ic.Sizes != nil {
		w.key("sizes")
		w.b = append(w.b, '[')
		for i, s := range ic.Sizes {
			if i > 0 {
				w.b = append(w.b, ',')
			}
			w.b = jsonx.AppendString(w.b, s, w.html)
		}
		w.b = append(w.b, ']')
	}
	w.str("src", ic.Source, true)
	w.str("theme", string(ic.Theme), false)
	w.b = append(w.b, '}')
}

// resource writes the contents of an embedded resource.
func (w *writer) resource(r *mcp.ResourceContents) {
	outer := w.count
	w.open()
	if r.Meta != nil {
		w.value("_meta", map[string]any(r.Meta))
	}
	if r.Blob != nil {
		w.bytes("blob", r.Blob)
	}
	w.str("mimeType", r.MIMEType, false)
	w.str("text", r.Text, false)
	w.str("uri", r.URI, true)
	w.b = append(w.b, '}')
	w.count = outer
}

// escapeHTML escapes <, > and & in b[start:], JSON that jsonx wrote
// without escaping them, as encoding/json escapes them. Outside strings
// JSON has none of them, so each is inside a string.
func escapeHTML(b []byte, start int) []byte {
	i := start
	for i < len(b) && b[i] != '<' && b[i] != '>' && b[i] != '&' {
		i++
	}
	if i == len(b) {
		return b
	}
	tail := append([]byte(nil), b[i:]...)
	b = b[:i]
	for _, c := range tail {
		switch c {
		case '<':
			b = append(b, `\u003c`...)
		case '>':
			b = append(b, `\u003e`...)
		case '&':
			b = append(b, `\u0026`...)
		default:
			b = append(b, c)
		}
	}
	return b
}
