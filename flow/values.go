package flow

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/flowserve/flowserve/internal/jsonx"
)

// decodeJSON decodes raw into a JSON-like value, typing numbers by schema
// (see normalize).
func decodeJSON(raw []byte, schema map[string]any) (any, error) {
	v, err := jsonx.Parse(raw)
	if err != nil {
		return nil, err
	}
	return normalize(v, schema), nil
}

// normalize types numbers by schema: a JSON Schema "integer" is an int64
// (an integral double becomes one), a "number" a float64 (an int64 becomes
// one), and an untyped json.Number an int64 when it is written as an
// integer. Maps and lists are normalized in
// place, guided by properties, additionalProperties and items.
func normalize(v any, schema map[string]any) any {
	switch v := v.(type) {
	case json.Number:
		return number(v, schemaType(schema))
	case int64:
		if schemaType(schema) == "number" {
			return float64(v)
		}
		return v
	case float64:
		if schemaType(schema) == "integer" && v == math.Trunc(v) && math.Abs(v) < 1<<53 {
			return int64(v)
		}
		return v
	case map[string]any:
		props, _ := schema["properties"].(map[string]any)
		extra, _ := schema["additionalProperties"].(map[string]any)
		for k, e := range v {
			sub, ok := props[k].(map[string]any)
			if !ok {
				sub = extra
			}
			v[k] = normalize(e, sub)
		}
		return v
	case []any:
		items, _ := schema["items"].(map[string]any)
		for i, e := range v {
			v[i] = normalize(e, items)
		}
		return v
	}
	return v
}

func schemaType(schema map[string]any) string {
	switch t := schema["type"].(type) {
	case string:
		return t
	case []any:
		for _, e := range t {
			if s, ok := e.(string); ok && (s == "integer" || s == "number") {
				return s
			}
		}
	}
	return ""
}

func number(n json.Number, typ string) any {
	if typ != "number" {
		if i, err := n.Int64(); err == nil {
			return i
		}
	}
	f, err := n.Float64()
	if err != nil {
		return n.String()
	}
	return f
}

// marshal encodes v as JSON with map keys sorted and no HTML escaping:
// the journal's, the reply store's and the digests' canonical form.
func marshal(v any) ([]byte, error) {
	return jsonx.Append(nil, v)
}

// text renders a value inside a template: strings as they are, integers
// without a decimal point, doubles in their shortest form, null as the
// empty string, lists and maps as JSON.
func text(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return v
	case bool:
		return strconv.FormatBool(v)
	case int64:
		return strconv.FormatInt(v, 10)
	case int:
		return strconv.Itoa(v)
	case float64:
		if math.Abs(v) < 1e21 {
			return strconv.FormatFloat(v, 'f', -1, 64)
		}
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	b, err := marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// withDefaults returns content with the form's defaults added for omitted
// optional properties. content is not modified.
func withDefaults(content map[string]any, defaults map[string]any) map[string]any {
	if len(defaults) == 0 {
		return content
	}
	out := make(map[string]any, len(content)+len(defaults))
	for k, v := range content {
		out[k] = v
	}
	for k, v := range defaults {
		if _, ok := out[k]; !ok {
			out[k] = cloneJSON(v)
		}
	}
	return out
}

// cloneJSON deep-copies maps and lists, so values taken from a compiled
// program (schema defaults) are never shared with a run that may modify
// them.
func cloneJSON(v any) any {
	switch v := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(v))
		for k, e := range v {
			m[k] = cloneJSON(e)
		}
		return m
	case []any:
		l := make([]any, len(v))
		for i, e := range v {
			l[i] = cloneJSON(e)
		}
		return l
	}
	return v
}

// fieldList formats names for messages: "a", "a and b", "a, b and c".
func fieldList(names []string) string {
	switch len(names) {
	case 0:
		return ""
	case 1:
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// answerFields are the members of an elicitation's journal record
// ({"action": …, "content": {…}}) that the engine reads.
type answerFields struct {
	action  Action         // "" unless it is a string
	content map[string]any // nil unless it is an object
	by, at  string         // an approval's; "" unless strings
}

// decodeAnswerFields decodes an elicitation's journal record without
// building the record itself: a repeated member counts as its last
// value, as when the object is decoded whole, and a record that is not
// an object has neither member. It fails only when raw is not JSON.
func decodeAnswerFields(raw []byte) (answerFields, error) {
	var f answerFields
	err := jsonx.Fields(raw, func(k, v []byte) error {
		switch string(k) {
		case "action":
			f.action = actionOf(v)
		case "content":
			x, err := jsonx.Parse(v)
			if err != nil {
				return err
			}
			f.content, _ = x.(map[string]any)
		case "answered_by", "answered_at":
			x, err := jsonx.Parse(v)
			if err != nil {
				return err
			}
			s, _ := x.(string)
			if string(k) == "answered_by" {
				f.by = s
			} else {
				f.at = s
			}
		}
		return nil
	})
	if err != nil {
		// Not JSON, or not an object: Parse tells which.
		if _, err := jsonx.Parse(raw); err != nil {
			return answerFields{}, err
		}
		return answerFields{}, nil
	}
	return f, nil
}
