package schemas

import "maps"

// Types returns the JSON types a schema document allows by its "type"
// keyword: the one type it names, or the strings of the list it gives;
// nil when it has no "type" (any type).
func Types(doc map[string]any) []string {
	switch t := doc["type"].(type) {
	case string:
		return []string{t}
	case []any:
		var out []string
		for _, e := range t {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// WithProperty returns the object schema doc with the schema of its
// property name replaced by schema, sharing with doc what it does not
// change (doc itself is not modified).
func WithProperty(doc map[string]any, name string, schema map[string]any) map[string]any {
	out := maps.Clone(doc)
	props, _ := doc["properties"].(map[string]any)
	props = maps.Clone(props)
	if props == nil {
		props = map[string]any{}
	}
	props[name] = schema
	out["properties"] = props
	return out
}
