package actions

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// A SchemaField is one property of an action's input or output schema, as
// listings show it (flowserve actions NAME, the actions reference).
type SchemaField struct {
	// Path is the property's path from the schema's root: "url",
	// "headers.accept", "entries[].name".
	Path string
	// Schema is the property's own schema.
	Schema map[string]any
	// Required reports that the object holding it requires it.
	Required bool
}

// SchemaFields lists the properties of an object schema, and those of the
// objects and lists of objects inside them, depth first, each object's
// properties sorted by name.
func SchemaFields(schema map[string]any) []SchemaField {
	var out []SchemaField
	collectFields(&out, "", schema)
	return out
}

func collectFields(out *[]SchemaField, prefix string, schema map[string]any) {
	props, _ := schema["properties"].(map[string]any)
	required := map[string]bool{}
	if req, ok := schema["required"].([]any); ok {
		for _, r := range req {
			if s, ok := r.(string); ok {
				required[s] = true
			}
		}
	}
	names := make([]string, 0, len(props))
	for n := range props {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		p, _ := props[n].(map[string]any)
		path := prefix + n
		*out = append(*out, SchemaField{Path: path, Schema: p, Required: required[n]})
		collectFields(out, path+".", p)
		if items, ok := p["items"].(map[string]any); ok {
			collectFields(out, path+"[].", items)
		}
	}
}

// SchemaType names a schema's type in a flow author's words: "string",
// "list of objects", "map of strings", `one of "GET", "POST"`, "integer or
// null", "any JSON value".
func SchemaType(p map[string]any) string {
	if e, ok := p["enum"].([]any); ok {
		return "one of " + jsonValues(e)
	}
	if c, ok := p["const"]; ok {
		return "always " + jsonValues([]any{c})
	}
	for _, key := range []string{"oneOf", "anyOf"} {
		if alts, ok := p[key].([]any); ok {
			parts := make([]string, len(alts))
			for i, a := range alts {
				m, _ := a.(map[string]any)
				parts[i] = SchemaType(m)
			}
			return strings.Join(parts, " or ")
		}
	}
	switch t := p["type"].(type) {
	case string:
		return typeWord(t, p)
	case []any:
		parts := make([]string, len(t))
		for i, v := range t {
			s, _ := v.(string)
			parts[i] = typeWord(s, p)
		}
		return strings.Join(parts, " or ")
	}
	return "any JSON value"
}

// typeWord names one JSON type t of schema p.
func typeWord(t string, p map[string]any) string {
	switch t {
	case "array":
		if items, ok := p["items"].(map[string]any); ok {
			return "list of " + plural(SchemaType(items))
		}
		return "list"
	case "object":
		if ap, ok := p["additionalProperties"].(map[string]any); ok {
			return "map of " + plural(SchemaType(ap))
		}
		if _, ok := p["properties"]; !ok {
			return "map"
		}
	}
	return t
}

// plural names a list's or a map's items: "strings", "objects"; types
// that are phrases stay as they are.
func plural(t string) string {
	switch t {
	case "string", "integer", "number", "boolean", "object", "list", "map":
		return t + "s"
	}
	return t
}

// SchemaRules describes a schema's rules: lengths, ranges, counts,
// format, pattern, uniqueness, and whether an object refuses keys it does
// not list ("at least 1 character", "format uri", "no other keys").
func SchemaRules(p map[string]any) []string {
	var out []string
	bounds := func(lo, hi, unit string) {
		min, hasMin := p[lo]
		max, hasMax := p[hi]
		u := func(n any) string {
			if fmt.Sprint(n) == "1" {
				return strings.TrimSuffix(unit, "s")
			}
			return unit
		}
		switch {
		case hasMin && hasMax:
			out = append(out, fmt.Sprintf("%v to %v%s", min, max, u(max)))
		case hasMin:
			out = append(out, fmt.Sprintf("at least %v%s", min, u(min)))
		case hasMax:
			out = append(out, fmt.Sprintf("at most %v%s", max, u(max)))
		}
	}
	bounds("minLength", "maxLength", " characters")
	bounds("minimum", "maximum", "")
	bounds("minItems", "maxItems", " items")
	if v, ok := p["exclusiveMinimum"]; ok {
		out = append(out, fmt.Sprintf("more than %v", v))
	}
	if v, ok := p["exclusiveMaximum"]; ok {
		out = append(out, fmt.Sprintf("less than %v", v))
	}
	if f, ok := p["format"].(string); ok {
		out = append(out, "format "+f)
	}
	if re, ok := p["pattern"].(string); ok {
		out = append(out, "matching "+re)
	}
	if p["uniqueItems"] == true {
		out = append(out, "no duplicates")
	}
	if _, ok := p["properties"]; ok && p["additionalProperties"] == false {
		out = append(out, "no other keys")
	}
	return out
}

// jsonValues lists values as JSON, comma-separated.
func jsonValues(vs []any) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		b, _ := json.Marshal(v)
		parts[i] = string(b)
	}
	return strings.Join(parts, ", ")
}
