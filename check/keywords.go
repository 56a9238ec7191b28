package check

import (
	"github.com/flowserve/flowserve/dsl"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/flowserve/flowserve/check/codes"
	"github.com/flowserve/flowserve/internal/yamlx"
)

// schemaKeywords returns the keywords of JSON Schema (draft 2020-12 and
// the drafts before it) and enumNames, the MCP form keyword.
func schemaKeywords() []string {
	return []string{
		"$schema", "$id", "id", "$ref", "$anchor", "$dynamicRef", "$dynamicAnchor",
		"$recursiveRef", "$recursiveAnchor", "$vocabulary", "$comment", "$defs", "definitions",
		"allOf", "anyOf", "oneOf", "not", "if", "then", "else", "dependentSchemas", "dependencies",
		"prefixItems", "items", "additionalItems", "contains", "properties", "patternProperties",
		"additionalProperties", "propertyNames", "unevaluatedItems", "unevaluatedProperties",
		"type", "const", "enum", "multipleOf", "maximum", "exclusiveMaximum", "minimum",
		"exclusiveMinimum", "maxLength", "minLength", "pattern", "maxItems", "minItems",
		"uniqueItems", "maxContains", "minContains", "maxProperties", "minProperties",
		"required", "dependentRequired", "title", "description", "default", "deprecated",
		"readOnly", "writeOnly", "examples", "format", "contentEncoding", "contentMediaType",
		"contentSchema", "enumNames",
	}
}

// The keywords whose values are schemas: one, a list of them, or a
// mapping of names to them.
var (
	schemaValued = []string{"items", "additionalItems", "contains", "additionalProperties",
		"propertyNames", "unevaluatedItems", "unevaluatedProperties", "not", "if", "then", "else",
		"contentSchema"}
	schemaListed = []string{"allOf", "anyOf", "oneOf", "prefixItems", "items"}
	schemaMapped = []string{"properties", "patternProperties", "$defs", "definitions",
		"dependentSchemas", "dependencies"}
)

// checkNullKeys warns about each key of the schema mapping n, and of
// every schema inside it, that is not a JSON Schema keyword and has no
// value: what YAML makes of `{type: string, description: Path of the
// file, relative to the demo root}`, whose comma ends the description
// and starts a key. Extension keys (x-...) are left alone. It returns
// the positions of the keys it reported, which the form checks then do
// not report again.
func (c *checker) checkNullKeys(n *yaml.Node, depth int) map[dsl.Pos]bool {
	found := map[dsl.Pos]bool{}
	c.walkNullKeys(n, depth, found)
	return found
}

// walkNullKeys reports the keys of the schema mapping n and of the
// schemas inside it, recording each in found.
func (c *checker) walkNullKeys(n *yaml.Node, depth int, found map[dsl.Pos]bool) {
	if n == nil || n.Kind != yaml.MappingNode || depth > 100 {
		return
	}
	for _, e := range c.ix.Entries(n) {
		v := e.Value
		switch {
		case yamlx.IsNull(v):
			if !slices.Contains(schemaKeywords(), e.Name) && !strings.HasPrefix(e.Name, "x-") && !found[e.Key] {
				found[e.Key] = true
				c.warnf(e.Key, codes.SchemaNullKey, "%s", nullKeyText(e.Name, n))
			}
		case slices.Contains(schemaMapped, e.Name) && v.Kind == yaml.MappingNode:
			for _, sub := range c.ix.Entries(v) {
				c.walkNullKeys(sub.Value, depth+1, found)
			}
		case slices.Contains(schemaListed, e.Name) && v.Kind == yaml.SequenceNode:
			for _, sub := range v.Content {
				c.walkNullKeys(yamlx.Resolve(sub), depth+1, found)
			}
		case slices.Contains(schemaValued, e.Name):
			c.walkNullKeys(v, depth+1, found)
		}
	}
}

// nullKeyText says what probably happened to a key without a value in
// the schema mapping m.
func nullKeyText(key string, m *yaml.Node) string {
	what := jsonText(key) + " is not a JSON Schema keyword and has no value: "
	if m.Style&yaml.FlowStyle != 0 {
		return what + "a comma in an unquoted flow-mapping value splits it; quote the value"
	}
	return what + "give it a value, or remove it"
}
