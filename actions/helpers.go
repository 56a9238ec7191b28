package actions

import (
	"fmt"
	"math"
)

// Helpers for untyped specs: schema shorthands for writing Spec.Input and
// Spec.Output as maps, and readers for a Func's input map. Typed actions
// ([Typed], [Method]) need neither.

// ObjectSchema returns a closed object schema: a property not in
// properties is a violation, so lint catches a misspelt `with` key. The
// description is left out when empty, required when there is none.
//
//	actions.ObjectSchema("", map[string]any{
//		"path": actions.PropSchema("string", "The file's path.", "minLength", 1),
//	}, "path")
func ObjectSchema(description string, properties map[string]any, required ...string) map[string]any {
	if properties == nil {
		properties = map[string]any{}
	}
	s := map[string]any{"type": "object", "properties": properties, "additionalProperties": false}
	if description != "" {
		s["description"] = description
	}
	if len(required) > 0 {
		s["required"] = required
	}
	return s
}

// PropSchema returns the schema of one property: its type ("" for any JSON
// value), its description, and further keywords as name, value pairs:
//
//	actions.PropSchema("integer", "How many.", "minimum", 1, "default", 10)
//
// It panics when a keyword name is not a string or lacks its value: like
// [Register], it is meant for code that runs at startup.
func PropSchema(typ, description string, keywords ...any) map[string]any {
	if len(keywords)%2 != 0 {
		panic(fmt.Sprintf("actions.PropSchema: keyword %v has no value", keywords[len(keywords)-1]))
	}
	s := map[string]any{"description": description}
	if typ != "" {
		s["type"] = typ
	}
	for i := 0; i < len(keywords); i += 2 {
		k, ok := keywords[i].(string)
		if !ok {
			panic(fmt.Sprintf("actions.PropSchema: keyword name %v is a %T, not a string", keywords[i], keywords[i]))
		}
		s[k] = keywords[i+1]
	}
	return s
}

// StringMapSchema returns the schema of an object of strings, name to
// value, like HTTP headers.
func StringMapSchema(description string) map[string]any {
	return map[string]any{"type": "object", "description": description, "additionalProperties": map[string]any{"type": "string"}}
}

// The readers take a default and convert: an input arrives validated by
// [Action.Run], but a Func may also be called directly (without defaults
// added), and numbers may be any Go numeric type.

// ArgString returns in[key] if it is a string, def otherwise.
func ArgString(in map[string]any, key, def string) string {
	if s, ok := in[key].(string); ok {
		return s
	}
	return def
}

// ArgBool returns in[key] if it is a bool, def otherwise.
func ArgBool(in map[string]any, key string, def bool) bool {
	if b, ok := in[key].(bool); ok {
		return b
	}
	return def
}

// ArgInt returns in[key] as an int64: any Go integer that fits, or a float
// with an integral value. It returns def when key is absent or null, and an
// error naming key for anything else.
func ArgInt(in map[string]any, key string, def int64) (int64, error) {
	v, ok := in[key]
	if !ok || v == nil {
		return def, nil
	}
	switch n, _ := Normalize(v); n := n.(type) {
	case int64:
		return n, nil
	case float64:
		if n == math.Trunc(n) && n >= math.MinInt64 && n < math.MaxInt64 {
			return int64(n), nil
		}
	}
	return 0, fmt.Errorf("%s: want an integer, got %v", key, v)
}

// ArgStringMap returns in[key], an object of strings, as a map. It returns
// nil when key is absent or null, and an error naming the key (and the
// entry) for anything else.
func ArgStringMap(in map[string]any, key string) (map[string]string, error) {
	v, ok := in[key]
	if !ok || v == nil {
		return nil, nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: want an object of strings, got %T", key, v)
	}
	out := make(map[string]string, len(m))
	for k, e := range m {
		s, ok := e.(string)
		if !ok {
			return nil, fmt.Errorf("%s.%s: want a string, got %T", key, k, e)
		}
		out[k] = s
	}
	return out, nil
}
