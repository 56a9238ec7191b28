package check

import (
	"fmt"
	"github.com/flowserve/flowserve/dsl"
	"maps"
	"slices"

	"go.yaml.in/yaml/v3"

	"github.com/flowserve/flowserve/check/codes"
	"github.com/flowserve/flowserve/internal/jsonx"
	"github.com/flowserve/flowserve/schemas"
)

// The input and output schemas are JSON Schema, which Types
// compiles (bad-schema for one that does not). A schema can compile and
// still be wrong in ways no value can satisfy, or that say what the
// author did not mean: a lower bound above its upper bound, a default
// that breaks its own schema, a required list naming a property twice or
// naming one the schema does not have. Check reports them in the input
// and output schemas and in every schema inside them, each at its own
// keyword or value; form properties have their own checks (form-value,
// form-default, duplicate-key, unknown-property).

// boundPair is a lower and an upper bound keyword that no value can
// satisfy together when the lower one passes the upper one (or reaches
// it, when either excludes it).
type boundPair struct {
	lo, hi   string
	strict   bool   // equal bounds leave nothing either
	noneFits string // what fits neither: "no number", "no string"
}

// boundPairs returns the pairs of bound keywords of JSON Schema.
func boundPairs() []boundPair {
	return []boundPair{
		{lo: "minimum", hi: "maximum", noneFits: "no number"},
		{lo: "exclusiveMinimum", hi: "maximum", strict: true, noneFits: "no number"},
		{lo: "minimum", hi: "exclusiveMaximum", strict: true, noneFits: "no number"},
		{lo: "exclusiveMinimum", hi: "exclusiveMaximum", strict: true, noneFits: "no number"},
		{lo: "minLength", hi: "maxLength", noneFits: "no string"},
		{lo: "minItems", hi: "maxItems", noneFits: "no list"},
		{lo: "minProperties", hi: "maxProperties", noneFits: "no object"},
		{lo: "minContains", hi: "maxContains", noneFits: "no list"},
	}
}

// checkSchemaRules checks the input and output schemas.
func (c *checker) checkSchemaRules() {
	if s := c.f.Input; s != nil {
		c.walkSchema(s.Value, c.ix.Mapping(s.Pos), s.Pos, "input", "", 0)
	}
	if s := c.f.Output; s != nil && !c.f.IsPrompt() {
		c.walkSchema(s.Value, c.ix.Mapping(s.Pos), s.Pos, "output", "", 0)
	}
}

// walkSchema checks schema s (its mapping n in the file, nil when not
// found; at is its position) and the schemas inside it. what is
// "input" or "output"; path is where s is inside it, as a JSON path
// ("properties.size"), "" at the top.
func (c *checker) walkSchema(s map[string]any, n *yaml.Node, at dsl.Pos, what, path string, depth int) {
	if s == nil || depth > 100 {
		return
	}
	where := schemaWhere(what, path)
	empty := c.checkSchemaBounds(s, n, at, where)
	c.checkSchemaRequired(s, n, at, where)
	if d, ok := s["default"]; ok && !empty {
		c.checkSchemaDefault(s, d, n, at, where)
	}
	sub := func(x any, steps ...any) {
		if m, ok := x.(map[string]any); ok {
			_, val := c.ix.Find(n, at, steps...)
			var node *yaml.Node
			if n != nil {
				node = c.ix.Mapping(val)
			}
			c.walkSchema(m, node, val, what, joinSteps(path, steps), depth+1)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(s)) {
		v := s[k]
		switch {
		case slices.Contains(schemaMapped, k):
			m, _ := v.(map[string]any)
			for _, name := range slices.Sorted(maps.Keys(m)) {
				sub(m[name], k, name)
			}
		case slices.Contains(schemaListed, k) && isList(v):
			for i, e := range listOf(v) {
				sub(e, k, i)
			}
		case slices.Contains(schemaValued, k):
			sub(v, k)
		}
	}
}

// schemaWhere names the schema at path inside the input or output
// schema for messages: `input schema`, `input property "size"`, `input
// schema at properties.tags.items`.
func schemaWhere(what, path string) string {
	if path == "" {
		return what + " schema"
	}
	if steps, ok := fieldSteps(path); ok && len(steps) == 2 && steps[0] == "properties" {
		if name, ok := steps[1].(string); ok {
			return fmt.Sprintf("%s property %q", what, name)
		}
	}
	return what + " schema at " + path
}

// joinSteps appends steps (keys and indexes) to a JSON path.
func joinSteps(path string, steps []any) string {
	for _, s := range steps {
		switch s := s.(type) {
		case string:
			path = schemas.KeyField(path, s)
		case int:
			path = fmt.Sprintf("%s[%d]", path, s)
		}
	}
	return path
}

// isList reports whether x is a list.
func isList(x any) bool {
	_, ok := x.([]any)
	return ok
}

// checkSchemaBounds reports each pair of bounds of s that no value can
// satisfy, at the upper bound's value (bad-value), and whether it found
// one: then no default can fit either, and it is not checked.
func (c *checker) checkSchemaBounds(s map[string]any, n *yaml.Node, at dsl.Pos, where string) (empty bool) {
	for _, b := range boundPairs() {
		lo, okLo := jsonx.Number(s[b.lo])
		hi, okHi := jsonx.Number(s[b.hi])
		if !okLo || !okHi {
			continue // absent, or of a type Types reports (bad-schema)
		}
		if lo < hi || lo == hi && !b.strict {
			continue
		}
		_, pos := c.ix.Find(n, at, b.hi)
		relation := "is less than"
		if lo == hi {
			relation = "equals"
		}
		c.errorf(pos, codes.BadValue, "%s: %s %s %s %s %s, so %s fits it; raise %s or lower %s",
			where, b.hi, jsonText(s[b.hi]), relation, b.lo, jsonText(s[b.lo]), b.noneFits, b.hi, b.lo)
		empty = true
	}
	return empty
}

// checkSchemaRequired reports a required list of s that names a
// property twice (duplicate-key), or names one that s does not describe
// while its properties list them all (unknown-property).
func (c *checker) checkSchemaRequired(s map[string]any, n *yaml.Node, at dsl.Pos, where string) {
	req, ok := s["required"].([]any)
	if !ok {
		return
	}
	props, _ := s["properties"].(map[string]any)
	names := slices.Sorted(maps.Keys(props))
	closed := len(props) > 0
	for _, k := range []string{"patternProperties", "allOf", "anyOf", "oneOf", "if", "then", "else", "dependentSchemas", "dependencies", "$ref", "$dynamicRef", "unevaluatedProperties"} {
		if _, has := s[k]; has {
			closed = false // the property may be described elsewhere
		}
	}
	if ap, has := s["additionalProperties"]; has && ap != false {
		closed = false
	}
	var seen []string
	for i, r := range req {
		name, isStr := r.(string)
		if !isStr {
			continue // Types reports it (bad-schema)
		}
		_, pos := c.ix.Find(n, at, "required", i)
		switch {
		case slices.Contains(seen, name):
			c.errorf(pos, codes.DuplicateKey, "%s: required lists %q twice", where, name)
			continue
		case closed && !slices.Contains(names, name):
			list := ""
			if len(names) <= 8 {
				list = " (" + listText(names) + ")"
			}
			c.unknownf(pos, name, names, codes.UnknownProperty, "%s: required names %q, which is not one of its properties%s%s", where, name, list)
		}
		seen = append(seen, name)
	}
}

// checkSchemaDefault reports the ways a schema's default d breaks the
// schema itself, at the default or at the part of it at fault
// (bad-value).
func (c *checker) checkSchemaDefault(s map[string]any, d any, n *yaml.Node, at dsl.Pos, where string) {
	if d == nil {
		return // default: null, as good as none
	}
	_, pos := c.ix.Find(n, at, "default")
	for _, v := range c.sc.validate(s, d) {
		vpos := pos
		if steps, ok := fieldSteps(v.Field); ok && len(steps) > 0 {
			_, vpos = c.ix.Find(n, at, append([]any{"default"}, steps...)...)
		}
		hint := ""
		if v.Field == "" {
			hint = enumHint(d, s)
		}
		c.errorf(vpos, codes.BadValue, "%s: %s %s%s", where, joinField("default", v.Field), v.Reason, hint)
	}
}
