package schemas

import (
	"math"
	"slices"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// fastForm validates values against a form schema made only of the
// flat, primitive properties MCP elicitation allows (the shapes lint
// accepts), without the general validator. It only ever answers "valid":
// a value it cannot vouch for goes to the full validator, which also
// words the violations, so it changes no verdict and no message.
type fastForm struct {
	required []string
	props    map[string]fastProp
}

type fastProp struct {
	typ                string // string, integer, number, boolean, array
	minLen, maxLen     int    // -1: none (runes)
	min, max           float64
	hasMin, hasMax     bool
	choices            []string // enum, oneOf consts, or the items' choices (arrays)
	minItems, maxItems int      // -1: none
	format             string   // a string's format, checked by check
	check              func(any) error
}

// newFastForm returns a fast validator for doc, or nil when doc uses
// anything beyond the primitive form shapes (a pattern, nesting). A
// string's format is checked by the very function the compiled schema
// sch asserts it with, so it must be sch's.
func newFastForm(doc map[string]any, sch *jsonschema.Schema) *fastForm {
	for k := range doc {
		if k != "type" && k != "properties" && k != "required" {
			return nil
		}
	}
	if doc["type"] != "object" {
		return nil
	}
	f := &fastForm{props: map[string]fastProp{}}
	if req, ok := doc["required"]; ok {
		list, ok := req.([]any)
		if !ok {
			return nil
		}
		for _, r := range list {
			s, ok := r.(string)
			if !ok {
				return nil
			}
			f.required = append(f.required, s)
		}
	}
	props, ok := doc["properties"].(map[string]any)
	if !ok && doc["properties"] != nil {
		return nil
	}
	for name, p := range props {
		pm, ok := p.(map[string]any)
		if !ok {
			return nil
		}
		fp, ok := newFastProp(pm)
		if !ok {
			return nil
		}
		if fp.format != "" {
			// The compiled schema asserts the format (Compile turns
			// assertions on): use its check, or leave the form to it.
			sub := sch.Properties[name]
			if sub == nil || sub.Format == nil || sub.Format.Name != fp.format || fp.format == "regex" {
				return nil
			}
			fp.check = sub.Format.Validate
		}
		f.props[name] = fp
	}
	return f
}

func newFastProp(p map[string]any) (fastProp, bool) {
	fp := fastProp{minLen: -1, maxLen: -1, minItems: -1, maxItems: -1}
	fp.typ, _ = p["type"].(string)
	for k, v := range p {
		var ok bool
		switch k {
		case "type", "title", "description", "default", "enumNames":
			ok = true
		case "minLength":
			fp.minLen, ok = count(v)
		case "maxLength":
			fp.maxLen, ok = count(v)
		case "format":
			fp.format, ok = v.(string)
			ok = ok && fp.typ == "string" && fp.format != ""
		case "minItems":
			fp.minItems, ok = count(v)
		case "maxItems":
			fp.maxItems, ok = count(v)
		case "minimum":
			fp.min, ok = num(v)
			fp.hasMin = true
		case "maximum":
			fp.max, ok = num(v)
			fp.hasMax = true
		case "enum":
			fp.choices, ok = stringChoices(v, false)
		case "oneOf":
			fp.choices, ok = stringChoices(v, true)
		case "items":
			items, isMap := v.(map[string]any)
			if !isMap || fp.typ != "array" {
				return fp, false
			}
			for ik, iv := range items {
				switch ik {
				case "type":
					ok = iv == "string"
				case "enum":
					fp.choices, ok = stringChoices(iv, false)
				case "anyOf":
					fp.choices, ok = stringChoices(iv, true)
				default:
					ok = false
				}
				if !ok {
					return fp, false
				}
			}
			ok = fp.choices != nil
		}
		if !ok {
			return fp, false
		}
	}
	switch fp.typ {
	case "string", "integer", "number", "boolean":
	case "array":
		if fp.choices == nil {
			return fp, false
		}
	default:
		return fp, false
	}
	return fp, true
}

func count(v any) (int, bool) {
	f, ok := num(v)
	if !ok || f < 0 || f != math.Trunc(f) || f > math.MaxInt32 {
		return 0, false
	}
	return int(f), true
}

func num(v any) (float64, bool) {
	switch n := v.(type) {
	case int64:
		return float64(n), true
	case int:
		return float64(n), true
	case float64:
		return n, !math.IsNaN(n) && !math.IsInf(n, 0)
	}
	return 0, false
}

// stringChoices reads an enum (a list of strings) or, with consts, a list of
// {const: string, title} objects.
func stringChoices(v any, consts bool) ([]string, bool) {
	list, ok := v.([]any)
	if !ok || len(list) == 0 {
		return nil, false
	}
	out := make([]string, 0, len(list))
	for _, e := range list {
		if consts {
			m, ok := e.(map[string]any)
			if !ok {
				return nil, false
			}
			for k := range m {
				if k != "const" && k != "title" {
					return nil, false
				}
			}
			e = m["const"]
		}
		s, ok := e.(string)
		if !ok {
			return nil, false
		}
		out = append(out, s)
	}
	return out, true
}

// valid reports whether v certainly satisfies the form.
func (f *fastForm) valid(v any) bool {
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	for _, r := range f.required {
		if _, ok := m[r]; !ok {
			return false
		}
	}
	for name, val := range m {
		if p, ok := f.props[name]; ok && !p.valid(val) {
			return false
		}
	}
	return true
}

func (p fastProp) valid(v any) bool {
	switch p.typ {
	case "string":
		s, ok := v.(string)
		if !ok {
			return false
		}
		if p.minLen >= 0 || p.maxLen >= 0 {
			n := utf8.RuneCountInString(s)
			if p.minLen >= 0 && n < p.minLen || p.maxLen >= 0 && n > p.maxLen {
				return false
			}
		}
		if p.check != nil && p.check(v) != nil {
			return false
		}
		return p.choices == nil || slices.Contains(p.choices, s)
	case "integer", "number":
		f, ok := num(v)
		if !ok || p.typ == "integer" && f != math.Trunc(f) {
			return false
		}
		if _, isInt := v.(int64); isInt && math.Abs(f) > 1<<53 {
			return false // beyond exact float64: let the full validator decide
		}
		return (!p.hasMin || f >= p.min) && (!p.hasMax || f <= p.max) && p.choices == nil
	case "boolean":
		_, ok := v.(bool)
		return ok && p.choices == nil
	case "array":
		l, ok := v.([]any)
		if !ok || p.minItems >= 0 && len(l) < p.minItems || p.maxItems >= 0 && len(l) > p.maxItems {
			return false
		}
		for _, e := range l {
			s, ok := e.(string)
			if !ok || !slices.Contains(p.choices, s) {
				return false
			}
		}
		return true
	}
	return false
}
