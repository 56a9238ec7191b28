package runui

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/flowserve/flowserve/internal/jsonx"
	"github.com/flowserve/flowserve/schemas"
)

// kind is how a form property is asked.
type kind int

const (
	kindText    kind = iota // a string: a text input
	kindInteger             // an integer: a text input that parses
	kindNumber              // a number: a text input that parses
	kindBool                // a boolean: a yes/no confirm
	kindSelect              // one of an enum: a select
	kindMulti               // several of an enum: a multi-select
)

// option is one choice of a select or multi-select.
type option struct {
	value any    // as sent in the answer
	label string // as shown
}

// field is one form property, ready to be asked.
type field struct {
	name        string
	title       string // the property's title, or its name
	description string
	kind        kind
	required    bool
	options     []option
	schema      *schemas.Schema // the property's own schema; nil if it does not compile
	doc         map[string]any
	def         any // the default, or nil
}

// fields reads the properties of a requestedSchema, in the given order
// (the flow file's) and then any others sorted by name.
func fields(requested map[string]any, order []string) []*field {
	props, _ := requested["properties"].(map[string]any)
	required := map[string]bool{}
	if req, ok := requested["required"].([]any); ok {
		for _, r := range req {
			if s, ok := r.(string); ok {
				required[s] = true
			}
		}
	}
	var names []string
	seen := map[string]bool{}
	for _, n := range order {
		if _, ok := props[n]; ok && !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	var rest []string
	for n := range props {
		if !seen[n] {
			rest = append(rest, n)
		}
	}
	sort.Strings(rest)
	names = append(names, rest...)

	out := make([]*field, 0, len(names))
	for _, name := range names {
		doc, _ := props[name].(map[string]any)
		if doc == nil {
			doc = map[string]any{}
		}
		f := &field{name: name, doc: doc, required: required[name], def: doc["default"]}
		f.title, _ = doc["title"].(string)
		if f.title == "" {
			f.title = name
		}
		f.description, _ = doc["description"].(string)
		if s, err := schemas.Compile(doc); err == nil {
			f.schema = s
		}
		typ, _ := doc["type"].(string)
		switch {
		case typ == "array":
			f.kind = kindMulti
			items, _ := doc["items"].(map[string]any)
			f.options = enumOptions(items)
		case len(enumOptions(doc)) > 0:
			f.kind = kindSelect
			f.options = enumOptions(doc)
		case typ == "boolean":
			f.kind = kindBool
		case typ == "integer":
			f.kind = kindInteger
		case typ == "number":
			f.kind = kindNumber
		default:
			f.kind = kindText
		}
		out = append(out, f)
	}
	return out
}

// enumOptions reads the choices of an enum schema: `enum` (labelled by
// the legacy `enumNames` when present) or `oneOf`/`anyOf` of
// `{const, title}`.
func enumOptions(doc map[string]any) []option {
	if doc == nil {
		return nil
	}
	var out []option
	if enum, ok := doc["enum"].([]any); ok {
		names, _ := doc["enumNames"].([]any)
		for i, v := range enum {
			label := display(v)
			if i < len(names) {
				if s, ok := names[i].(string); ok && s != "" {
					label = s
				}
			}
			out = append(out, option{value: v, label: label})
		}
		return out
	}
	for _, key := range []string{"oneOf", "anyOf"} {
		alts, ok := doc[key].([]any)
		if !ok {
			continue
		}
		for _, a := range alts {
			m, _ := a.(map[string]any)
			v, ok := m["const"]
			if !ok {
				continue
			}
			label, _ := m["title"].(string)
			if label == "" {
				label = display(v)
			}
			out = append(out, option{value: v, label: label})
		}
		return out
	}
	return nil
}

// display formats a JSON value for a person: strings bare, the rest as
// JSON.
func display(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// hints describes what the field accepts, for prompts: "required",
// "2 to 80 characters", "an email address", "1 to 500". The default is
// not among them.
func (f *field) hints() []string {
	var out []string
	switch {
	case f.kind == kindBool:
		// A confirm always has a value.
	case f.kind == kindSelect && f.optionIndex(f.def) >= 0:
		// Nor does a select with a default.
	case f.required:
		out = append(out, "required")
	}
	rangeHint := func(lo, hi string, unit string) {
		min, hasMin := jsonx.Number(f.doc[lo])
		max, hasMax := jsonx.Number(f.doc[hi])
		u := func(n float64) string {
			switch {
			case unit == "":
				return ""
			case n == 1:
				return " " + strings.TrimSuffix(unit, "s")
			}
			return " " + unit
		}
		switch {
		case hasMin && hasMax:
			out = append(out, fmt.Sprintf("%s to %s%s", fmtNum(min), fmtNum(max), u(max)))
		case hasMin:
			out = append(out, fmt.Sprintf("at least %s%s", fmtNum(min), u(min)))
		case hasMax:
			out = append(out, fmt.Sprintf("at most %s%s", fmtNum(max), u(max)))
		}
	}
	switch f.kind {
	case kindText:
		rangeHint("minLength", "maxLength", "characters")
		switch f.doc["format"] {
		case "email":
			out = append(out, "an email address")
		case "uri":
			out = append(out, "a URI")
		case "date":
			out = append(out, "a date, YYYY-MM-DD")
		case "date-time":
			out = append(out, "a date and time, YYYY-MM-DDThh:mm:ssZ")
		}
	case kindInteger:
		out = append(out, "a whole number")
		rangeHint("minimum", "maximum", "")
	case kindNumber:
		out = append(out, "a number")
		rangeHint("minimum", "maximum", "")
	case kindMulti:
		rangeHint("minItems", "maxItems", "choices")
	}
	return out
}

// defaultLabel shows the default as the user sees the choices.
func (f *field) defaultLabel() string {
	switch f.kind {
	case kindSelect:
		if i := f.optionIndex(f.def); i >= 0 {
			return f.options[i].label
		}
	case kindMulti:
		list, _ := f.def.([]any)
		var labels []string
		for _, v := range list {
			if i := f.optionIndex(v); i >= 0 {
				labels = append(labels, f.options[i].label)
			}
		}
		return strings.Join(labels, ", ")
	}
	return display(f.def)
}

func fmtNum(x float64) string {
	if x == math.Trunc(x) && math.Abs(x) < 1e15 {
		return strconv.FormatInt(int64(x), 10)
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}

// noAnswerOption reports whether a select offers "(no answer)": it is
// optional and has no default among its options.
func (f *field) noAnswerOption() bool {
	return !f.required && f.optionIndex(f.def) < 0
}

// optionIndex returns the index of the option whose value equals v, or
// -1.
func (f *field) optionIndex(v any) int {
	if v == nil {
		return -1
	}
	want := display(v)
	for i, o := range f.options {
		if display(o.value) == want {
			return i
		}
	}
	return -1
}

// check validates a value against the property's own schema, giving the
// engine's own reasons.
func (f *field) check(v any) error {
	if f.schema == nil {
		return nil
	}
	if vs := f.schema.Validate(v); len(vs) > 0 {
		parts := make([]string, len(vs))
		for i, v := range vs {
			parts[i] = v.String()
		}
		return errors.New(strings.Join(parts, "; "))
	}
	return nil
}

// parseText turns what was typed into the field's value. ok is false
// when the field is left out of the answer (nothing typed in an
// optional field).
func (f *field) parseText(s string) (v any, ok bool, err error) {
	s = strings.TrimSpace(s)
	if s == "" {
		if f.required {
			return nil, false, errors.New("a value is required")
		}
		return nil, false, nil
	}
	switch f.kind {
	case kindInteger:
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return nil, false, fmt.Errorf("%q is not a whole number", s)
		}
		v = n
	case kindNumber:
		x, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsInf(x, 0) || math.IsNaN(x) {
			return nil, false, fmt.Errorf("%q is not a number", s)
		}
		v = x
	default:
		v = s
	}
	return v, true, f.check(v)
}

// textOf formats a value for a text input.
func textOf(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	return display(v)
}
