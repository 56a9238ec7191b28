package check

import (
	"fmt"
	"github.com/flowserve/flowserve/dsl"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/flowserve/flowserve/check/codes"
	"github.com/flowserve/flowserve/internal/yamlx"
	"github.com/flowserve/flowserve/schemas"
)

// An input property annotated `x-mcp-header: Region` travels in the HTTP
// header Mcp-Param-Region too (SEP-2243). go-sdk (v1.8.0,
// validateParamHeaderAnnotations) refuses a tool whose annotations break
// its rules, and its AddTool panics on one, so Check reports them: the
// annotation of a property reached through properties from the top of
// the input schema, at any depth, must be a non-empty HTTP token (RFC
// 9110: letters, digits and !#$%&'*+-.^_`|~), on a property whose type is
// string, integer or boolean, and unique case-insensitively within the
// tool.

// headerAnnotation is the annotation key.
const headerAnnotation = "x-mcp-header"

// headerSeen is a header name a property of the tool already takes.
type headerSeen struct {
	prop string
	line int
}

// checkHeaders checks the x-mcp-header annotations of a tool's input
// schema.
func (c *checker) checkHeaders(s *dsl.Schema) {
	seen := map[string]headerSeen{}
	c.walkHeaders(c.ix.Mapping(s.Pos), "", seen, 0)
}

// walkHeaders checks the annotations of the properties of the schema
// mapping n, and of theirs; path names n's properties' parent ("" at
// the top).
func (c *checker) walkHeaders(n *yaml.Node, path string, seen map[string]headerSeen, depth int) {
	if n == nil || n.Kind != yaml.MappingNode || depth > 100 {
		return
	}
	props, ok := c.ix.Entry(n, "properties")
	if !ok || props.Value.Kind != yaml.MappingNode {
		return
	}
	for _, p := range c.ix.Entries(props.Value) {
		name := schemas.KeyField(path, p.Name)
		if p.Value.Kind != yaml.MappingNode {
			continue
		}
		if h, ok := c.ix.Entry(p.Value, headerAnnotation); ok {
			c.checkHeader(p.Value, h, name, seen)
		}
		c.walkHeaders(p.Value, name, seen, depth+1)
	}
}

// checkHeader checks the annotation h of the property prop (its schema
// mapping m).
func (c *checker) checkHeader(m *yaml.Node, h dsl.MapEntry, prop string, seen map[string]headerSeen) {
	t, hasType := c.ix.Entry(m, "type")
	typ := ""
	if hasType && yamlx.IsString(t.Value) {
		typ = t.Value.Value
	}
	switch typ {
	case "string", "integer", "boolean":
	default:
		what := "it has no type"
		if hasType {
			what = "not " + headerTypeText(t.Value)
		}
		c.errorf(h.Key, codes.BadMcpHeader, "property %q: x-mcp-header goes only on a property of type string, integer or boolean, %s: a header carries one plain value", prop, what)
		return
	}
	pos := c.ix.Pos(h.Value)
	if !yamlx.IsString(h.Value) || h.Value.Value == "" {
		c.errorf(pos, codes.BadMcpHeader, "property %q: x-mcp-header must name an HTTP header (Mcp-Param-<name>), not %s", prop, headerValueText(h.Value))
		return
	}
	header := h.Value.Value
	if i := strings.IndexFunc(header, func(r rune) bool { return !isTokenChar(r) }); i >= 0 {
		bad := []rune(header[i:])[0]
		c.errorf(pos, codes.BadMcpHeader, "property %q: x-mcp-header %q is not an HTTP header name: %q is not allowed (letters, digits and !#$%%&'*+-.^_`|~ only)", prop, header, bad)
		return
	}
	lower := strings.ToLower(header)
	if first, dup := seen[lower]; dup {
		c.errorf(pos, codes.BadMcpHeader, "property %q: x-mcp-header %q is the header of property %q too (line %d); header names are case-insensitive, so each property needs its own", prop, header, first.prop, first.line)
		return
	}
	seen[lower] = headerSeen{prop: prop, line: h.Key.Line}
}

// headerTypeText names the type keyword's value for messages: `"number"`,
// a list of types.
func headerTypeText(n *yaml.Node) string {
	switch {
	case yamlx.IsString(n):
		return fmt.Sprintf("%q", n.Value)
	case n.Kind == yaml.SequenceNode:
		return "a list of types"
	}
	return yamlx.TypeName(n)
}

// headerValueText names an annotation's value that is not a header name.
func headerValueText(n *yaml.Node) string {
	if yamlx.IsString(n) {
		return "an empty string"
	}
	return yamlx.TypeName(n)
}

// isTokenChar reports whether r may be in an HTTP token (RFC 9110 tchar).
func isTokenChar(r rune) bool {
	return r < 0x80 && (r >= '0' && r <= '9' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' ||
		slices.Contains([]rune("!#$%&'*+-.^_`|~"), r))
}
