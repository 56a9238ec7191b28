package schemas

import (
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// Schema is a compiled JSON Schema (draft 2020-12 unless it says
// otherwise). It is immutable and safe for concurrent use.
type Schema struct {
	doc  map[string]any
	sch  *jsonschema.Schema
	fast *fastForm // nil unless doc is a primitive form
}

// Violation is one way a value fails a schema.
type Violation struct {
	Field  string // dotted path of the offending value; "" for the value itself
	Reason string // lower-case, no trailing period
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
// violation, sorted by field; nil means v is valid.
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
	p := message.NewPrinter(language.English)
	var out []Violation
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			out = append(out, leafViolations(e, p)...)
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	slices.SortStableFunc(out, func(a, b Violation) int { return strings.Compare(a.Field, b.Field) })
	return slices.Compact(out)
}

// leafViolations describes one leaf error. Missing and unexpected
// properties are reported at the property itself, so every violation
// names the field a person has to fix.
func leafViolations(e *jsonschema.ValidationError, p *message.Printer) []Violation {
	field := strings.Join(e.InstanceLocation, ".")
	under := func(name string) string {
		if field == "" {
			return name
		}
		return field + "." + name
	}
	switch k := e.ErrorKind.(type) {
	case *kind.Required:
		out := make([]Violation, 0, len(k.Missing))
		for _, m := range k.Missing {
			out = append(out, Violation{Field: under(m), Reason: "is required"})
		}
		return out
	case *kind.AdditionalProperties:
		out := make([]Violation, 0, len(k.Properties))
		for _, m := range k.Properties {
			out = append(out, Violation{Field: under(m), Reason: "is not allowed"})
		}
		return out
	}
	return []Violation{{Field: field, Reason: e.ErrorKind.LocalizedString(p)}}
}
