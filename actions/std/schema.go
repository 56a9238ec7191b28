package std

import (
	"fmt"
	"math"
)

// Schema-building shorthands: every property carries a description.

type obj = map[string]any

// object is a closed object schema: unknown properties are errors, so lint
// catches a misspelt `with` key.
func object(desc string, props obj, required ...string) obj {
	s := obj{"type": "object", "properties": props, "additionalProperties": false}
	if desc != "" {
		s["description"] = desc
	}
	if len(required) > 0 {
		s["required"] = required
	}
	return s
}

func prop(typ, desc string, extra ...any) obj {
	s := obj{"description": desc}
	if typ != "" {
		s["type"] = typ
	}
	for i := 0; i+1 < len(extra); i += 2 {
		s[extra[i].(string)] = extra[i+1]
	}
	return s
}

func stringMap(desc string) obj {
	return obj{"type": "object", "description": desc, "additionalProperties": obj{"type": "string"}}
}

// Argument readers. Inputs arrive validated, but a Func may also be called
// without [actions.Action.Run] (so without defaults), and numbers may be any
// Go numeric type, so each reader takes a default and converts.

func argString(in map[string]any, key, def string) string {
	if s, ok := in[key].(string); ok {
		return s
	}
	return def
}

func argBool(in map[string]any, key string) bool {
	b, _ := in[key].(bool)
	return b
}

func argInt(in map[string]any, key string, def int64) (int64, error) {
	v, ok := in[key]
	if !ok || v == nil {
		return def, nil
	}
	switch n := v.(type) {
	case int64:
		return n, nil
	case int:
		return int64(n), nil
	case int32:
		return int64(n), nil
	case float64:
		if n == math.Trunc(n) && n >= math.MinInt64 && n < math.MaxInt64 {
			return int64(n), nil
		}
	}
	return 0, fmt.Errorf("%s: want an integer, got %v", key, v)
}

func argStringMap(in map[string]any, key string) (map[string]string, error) {
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
