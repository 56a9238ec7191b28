package approve

import (
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// FieldProblem is why the value of a form's field could not be taken.
type FieldProblem struct {
	Field  string // the property's name
	Reason string // a sentence naming the property by its title
}

// The kinds of form fields, one per MCP elicitation primitive.
const (
	kindText   = "text"   // a string, possibly with a format
	kindNumber = "number" // a number or an integer
	kindBool   = "bool"   // a boolean
	kindChoice = "choice" // a single-select: a string with enum or oneOf
	kindMulti  = "multi"  // a multi-select: an array of enum strings
)

// fieldPrefix prefixes the form's names of the properties so that they
// never clash with the handler's own fields.
const fieldPrefix = "f."

// dateTimeLocal holds the layouts of an <input type=datetime-local> value.
var dateTimeLocal = []string{"2006-01-02T15:04", "2006-01-02T15:04:05"}

// prop is a property of a form's schema.
type prop struct {
	name     string
	schema   map[string]any
	required bool
}

// title returns the property's title, or its name when it has none.
func (p prop) title() string {
	if t, ok := p.schema["title"].(string); ok && strings.TrimSpace(t) != "" {
		return t
	}
	return p.name
}

// str returns the string value of the schema's keyword k, or "".
func (p prop) str(k string) string {
	s, _ := p.schema[k].(string)
	return s
}

// kind returns the kind of field the property is asked with.
func (p prop) kind() string {
	switch p.str("type") {
	case "boolean":
		return kindBool
	case "number", "integer":
		return kindNumber
	case "array":
		return kindMulti
	}
	if _, ok := p.schema["enum"]; ok {
		return kindChoice
	}
	if _, ok := p.schema["oneOf"]; ok {
		return kindChoice
	}
	return kindText
}

// choice is an option of a single- or multi-select.
type choice struct {
	value string // the form's value
	label string
	raw   any // the schema's value, which the answer carries
}

// choices returns the options of a single- or multi-select property.
func (p prop) choices() []choice {
	s := p.schema
	if p.kind() == kindMulti {
		s, _ = s["items"].(map[string]any)
	}
	if enum, ok := s["enum"].([]any); ok {
		names, _ := s["enumNames"].([]any)
		out := make([]choice, 0, len(enum))
		for i, v := range enum {
			c := choice{value: text(v), raw: v}
			c.label = c.value
			if i < len(names) {
				if n, ok := names[i].(string); ok && n != "" {
					c.label = n
				}
			}
			out = append(out, c)
		}
		return out
	}
	list, _ := s["oneOf"].([]any)
	if p.kind() == kindMulti {
		list, _ = s["anyOf"].([]any)
	}
	var out []choice
	for _, e := range list {
		m, _ := e.(map[string]any)
		v, ok := m["const"]
		if !ok {
			continue
		}
		c := choice{value: text(v), raw: v}
		c.label = c.value
		if t, ok := m["title"].(string); ok && t != "" {
			c.label = t
		}
		out = append(out, c)
	}
	return out
}

// props returns the properties of a form's schema in the order they are
// shown: the schema's "x-order" first, then the others by name.
func props(schema map[string]any) []prop {
	properties, _ := schema["properties"].(map[string]any)
	var required []string
	switch r := schema["required"].(type) {
	case []any:
		for _, e := range r {
			if s, ok := e.(string); ok {
				required = append(required, s)
			}
		}
	case []string:
		required = r
	}
	var order []string
	switch o := schema["x-order"].(type) {
	case []any:
		for _, e := range o {
			if s, ok := e.(string); ok {
				order = append(order, s)
			}
		}
	case []string:
		order = o
	}
	var rest []string
	for name := range properties {
		if !slices.Contains(order, name) {
			rest = append(rest, name)
		}
	}
	slices.Sort(rest)
	out := make([]prop, 0, len(properties))
	for _, name := range slices.Concat(order, rest) {
		s, ok := properties[name].(map[string]any)
		if !ok || slices.ContainsFunc(out, func(p prop) bool { return p.name == name }) {
			continue
		}
		out = append(out, prop{name: name, schema: s, required: slices.Contains(required, name)})
	}
	return out
}

// ParseForm turns submitted form values into content typed by schema: a
// property's values are those of the form field "f.<name>". Integers
// become int64, numbers float64, booleans bool, multi-selects []any and
// the choices of a select the schema's values; strings are kept as typed,
// except that a date-time from the page's picker (in UTC) becomes RFC
// 3339. An empty field is left out of content; unknown fields are
// ignored. ParseForm only types the values: the schema's other rules
// (required, lengths, bounds) are the caller's to check. Problems are
// one per field, in the form's order.
func ParseForm(schema map[string]any, v url.Values) (content map[string]any, problems []FieldProblem) {
	content = map[string]any{}
	for _, p := range props(schema) {
		vals := v[fieldPrefix+p.name]
		val, reason := p.parse(vals)
		switch {
		case reason != "":
			problems = append(problems, FieldProblem{Field: p.name, Reason: reason})
		case val != nil:
			content[p.name] = val
		}
	}
	return content, problems
}

// parse returns the typed value of a property's form values, nil when
// there is none, or why they cannot be taken.
func (p prop) parse(vals []string) (any, string) {
	first := ""
	if len(vals) > 0 {
		first = vals[0]
	}
	switch p.kind() {
	case kindMulti:
		return p.parseMulti(vals)
	case kindChoice:
		if first == "" {
			return nil, ""
		}
		return p.pick(first)
	case kindBool:
		switch strings.TrimSpace(first) {
		case "":
			return nil, ""
		case "true":
			return true, ""
		case "false":
			return false, ""
		}
		return nil, p.title() + " must be Yes or No"
	case kindNumber:
		return p.parseNumber(strings.TrimSpace(first))
	}
	if first == "" {
		return nil, ""
	}
	if p.str("format") == "date-time" {
		for _, layout := range dateTimeLocal {
			if t, err := time.Parse(layout, first); err == nil {
				return t.UTC().Format(time.RFC3339), ""
			}
		}
	}
	return first, ""
}

// parseMulti returns the choices of a multi-select, each once.
func (p prop) parseMulti(vals []string) (any, string) {
	choices := p.choices()
	var out []any
	var seen []string
	for _, s := range vals {
		if s == "" || slices.Contains(seen, s) {
			continue
		}
		seen = append(seen, s)
		if len(choices) == 0 {
			out = append(out, s)
			continue
		}
		v, reason := p.pick(s)
		if reason != "" {
			return nil, reason
		}
		out = append(out, v)
	}
	if len(out) == 0 {
		return nil, ""
	}
	return out, ""
}

// pick returns the schema's value of the choice s.
func (p prop) pick(s string) (any, string) {
	choices := p.choices()
	if len(choices) == 0 {
		return s, ""
	}
	for _, c := range choices {
		if c.value == s {
			return c.raw, ""
		}
	}
	return nil, fmt.Sprintf("%s: %q is not one of the choices", p.title(), s)
}

// parseNumber returns a number field's value: an int64 for an integer, a
// float64 for a number.
func (p prop) parseNumber(s string) (any, string) {
	if s == "" {
		return nil, ""
	}
	if p.str("type") == "integer" {
		if i, err := strconv.ParseInt(s, 10, 64); err == nil {
			return i, ""
		}
		if f, err := strconv.ParseFloat(s, 64); err == nil && f == math.Trunc(f) && math.Abs(f) < 1<<53 {
			return int64(f), ""
		}
		return nil, p.title() + " must be a whole number"
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return nil, p.title() + " must be a number"
	}
	return f, ""
}

// text returns a schema value as a form shows it: a string as it is, a
// number in its shortest form, a boolean as "true" or "false".
func text(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case nil:
		return ""
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case float32:
		return strconv.FormatFloat(float64(v), 'f', -1, 32)
	case json.Number:
		return v.String()
	case bool:
		return strconv.FormatBool(v)
	}
	return fmt.Sprint(v)
}
