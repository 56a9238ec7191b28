package schemas

import "github.com/santhosh-tekuri/jsonschema/v6"

// Schema is a compiled JSON Schema (draft 2020-12 unless it says
// otherwise). It is immutable and safe for concurrent use.
type Schema struct {
	doc  map[string]any
	sch  *jsonschema.Schema
	fast *fastForm // nil unless doc is a primitive form
}

// Violation is one way a value fails a schema.
type Violation struct {
	// Field is the JSON path of the offending value: keys joined by dots,
	// indexes in brackets, odd keys quoted (list[1].name, headers["x.y"]);
	// "" for the value itself.
	Field string
	// Reason says what is wrong with it, lower-case and without a trailing
	// period, as a predicate: "is required", "must be at least 1".
	Reason string
}

// String formats v as "field: reason", or just the reason at the root.
func (v Violation) String() string {
	if v.Field == "" {
		return v.Reason
	}
	return v.Field + ": " + v.Reason
}

// Compile compiles doc, a JSON-compatible schema document, with format
// assertions on (an "email" field must hold an email address).
func Compile(doc map[string]any) (*Schema, error) {
	return CompileWith(doc, nil)
}

// Doc returns the schema document Compile was given. Callers must not
// modify it.
func (s *Schema) Doc() map[string]any { return s.doc }

// Validate checks v, a JSON-like value (nil, bool, int64, float64,
// json.Number, string, []any, map[string]any), and returns every
// violation, sorted by field; nil means v is valid. The violations read
// in the value's terms, the same wherever a schema is checked: a field
// as a JSON path (list[1].name), JSON type names, numbers as JSON writes
// them, and an enum or a oneOf of consts as the one list of values it
// allows.
func (s *Schema) Validate(v any) []Violation {
	if s.fast != nil && s.fast.valid(v) {
		return nil
	}
	err := s.sch.Validate(v)
	if err == nil {
		return nil
	}
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return []Violation{{Reason: err.Error()}}
	}
	return wording{doc: s.doc, inst: v}.violations(ve)
}
