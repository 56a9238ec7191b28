package check

import (
	"github.com/flowserve/flowserve/dsl"
	"strconv"
	"strings"

	"github.com/flowserve/flowserve/schemas"
)

// Check words what it finds wrong with a literal value (a with field, a
// structured field, a form default) through package schemas, the one
// wording of every violation: lint says what the engine would say when
// the flow runs, at the value's own position.

// schemaCache compiles the (sub)schemas Check validates literals
// against, each once per Check call.
type schemaCache map[string]*schemas.Schema

// compile returns doc compiled, or nil when it does not compile (a
// schema Types reports, or one with a $ref that only resolves in
// the document it came from).
func (sc schemaCache) compile(doc map[string]any) *schemas.Schema {
	key := jsonText(doc)
	if s, ok := sc[key]; ok {
		return s
	}
	s, err := schemas.Compile(doc)
	if err != nil {
		s = nil
	}
	sc[key] = s
	return s
}

// validate validates x against doc and returns the violations, none
// when doc does not compile.
func (sc schemaCache) validate(doc map[string]any, x any) []schemas.Violation {
	s := sc.compile(doc)
	if s == nil {
		return nil
	}
	return s.Validate(x)
}

// joinField appends a violation's field (list[1].name, ["x y"]) to path,
// the name of the value it was found in.
func joinField(path, field string) string {
	switch {
	case field == "":
		return path
	case path == "" || strings.HasPrefix(field, "["):
		return path + field
	}
	return path + "." + field
}

// fieldSteps reads a violation's field back into the keys and indexes
// it is made of (strings and ints, as Tree.find takes them), so a
// finding inside a literal list or mapping is placed at its element.
// ok is false when the field is not written as package schemas writes
// fields.
func fieldSteps(field string) (steps []any, ok bool) {
	for field != "" {
		switch {
		case strings.HasPrefix(field, `["`):
			q, err := strconv.QuotedPrefix(field[1:])
			if err != nil || !strings.HasPrefix(field[1+len(q):], "]") {
				return nil, false
			}
			key, _ := strconv.Unquote(q)
			steps = append(steps, key)
			field = field[2+len(q):]
		case strings.HasPrefix(field, "["):
			end := strings.IndexByte(field, ']')
			n, err := strconv.Atoi(field[1:max(end, 1)])
			if end < 0 || err != nil {
				return nil, false
			}
			steps = append(steps, n)
			field = field[end+1:]
		default:
			field = strings.TrimPrefix(field, ".")
			end := strings.IndexAny(field, ".[")
			if end < 0 {
				end = len(field)
			}
			if end == 0 {
				return nil, false
			}
			steps = append(steps, field[:end])
			field = field[end:]
		}
	}
	return steps, true
}

// scalarKeywords returns the keywords of s that apply to a scalar: s
// without the keywords of objects and arrays, whose subschemas (and
// their $refs) a scalar never reaches.
func scalarKeywords(s map[string]any) map[string]any {
	out := make(map[string]any, len(s))
	for k, v := range s {
		switch k {
		case "properties", "patternProperties", "additionalProperties", "unevaluatedProperties",
			"propertyNames", "dependentSchemas", "dependencies", "items", "prefixItems",
			"additionalItems", "unevaluatedItems", "contains", "$defs", "definitions",
			"allOf", "anyOf", "oneOf", "not", "if", "then", "else", "$ref", "$dynamicRef":
			continue
		}
		out[k] = v
	}
	return out
}

// enumHint returns a did-you-mean for a string that is not one of the
// string values of an enum or of a oneOf or anyOf of consts, or "".
func enumHint(lit any, s map[string]any) string {
	hint, _ := enumSuggestion(lit, s)
	return hint
}

// enumSuggestion returns the did-you-mean of enumHint and the value it
// suggests; "" and "" when there is none.
func enumSuggestion(lit any, s map[string]any) (hint, suggestion string) {
	str, ok := lit.(string)
	if !ok {
		return "", ""
	}
	var opts []string
	for _, e := range listOf(s["enum"]) {
		if o, ok := e.(string); ok {
			opts = append(opts, o)
		}
	}
	for _, k := range []string{"oneOf", "anyOf"} {
		for _, alt := range listOf(s[k]) {
			m, _ := alt.(map[string]any)
			if o, ok := m["const"].(string); ok {
				opts = append(opts, o)
			}
		}
	}
	return dsl.DidYouMean(str, opts)
}
