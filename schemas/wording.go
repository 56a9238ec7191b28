package schemas

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/flowserve/flowserve/internal/jsonx"
)

// This file words the violations of a value: the one wording every
// flowserve schema check uses (tool arguments, form answers, action input
// and output). A reason is a predicate about the field it is reported at
// ("is required", "must be at least 3 characters long", "must be one of
// dev, staging, production"), so reasons compose into sentences. A
// reason never repeats the offending value itself, which may be a secret
// on its way to an action: only its JSON type.

// printer words the error kinds this file does not know (a vocabulary's
// own, a reference cycle) as the validator does.
var printer = message.NewPrinter(language.English)

// token is one step of a value's path: an object key or an array index.
type token struct {
	key   string
	index bool
}

// finding is a violation before it is printed. values and types are set
// when all the finding says is which values or JSON types the value must
// have (a const, an enum, a type): alternatives made only of such
// findings merge into one.
type finding struct {
	path   []token
	reason string
	values []any
	types  []string
	got    string // the value's JSON type, with types
}

// wording describes the validation errors of one value, inst, against a
// schema whose document is doc.
type wording struct {
	doc  map[string]any
	inst any
}

// violations flattens the error tree of one validation into sorted,
// distinct violations.
func (w wording) violations(e *jsonschema.ValidationError) []Violation {
	fs := w.describe(e)
	slices.SortStableFunc(fs, func(a, b finding) int {
		return cmp.Or(comparePaths(a.path, b.path), strings.Compare(a.reason, b.reason))
	})
	out := make([]Violation, 0, len(fs))
	for _, f := range fs {
		v := Violation{Field: fieldText(f.path), Reason: f.reason}
		if len(out) == 0 || out[len(out)-1] != v {
			out = append(out, v)
		}
	}
	return out
}

// describe turns an error and its causes into findings. Groups (allOf, a
// $ref, several failures of one schema) are walked; alternatives (anyOf,
// oneOf) become one finding, since any one of them would do.
func (w wording) describe(e *jsonschema.ValidationError) []finding {
	switch k := e.ErrorKind.(type) {
	case *kind.Schema, *kind.Group, *kind.AllOf, *kind.Reference:
		if len(e.Causes) == 0 {
			break
		}
		var out []finding
		for _, c := range e.Causes {
			out = append(out, w.describe(c)...)
		}
		return out
	case *kind.AnyOf:
		return w.alternatives(e)
	case *kind.OneOf:
		if len(k.Subschemas) == 0 {
			return w.alternatives(e)
		}
	case *kind.PropertyNames:
		return w.propertyName(e, k.Property)
	}
	return w.leafViolations(e)
}

// alternatives describes an anyOf or oneOf none of whose subschemas
// matched. Branches that each only name the values or types allowed at
// one place merge ("must be one of dev, staging, production"); others are
// listed, each a clause of its own.
func (w wording) alternatives(e *jsonschema.ValidationError) []finding {
	branches := make([][]finding, len(e.Causes))
	for i, c := range e.Causes {
		branches[i] = w.describe(c)
	}
	if f, ok := mergeChoices(branches); ok {
		return []finding{f}
	}
	at := w.path(e.InstanceLocation)
	if len(branches) == 0 {
		return []finding{{path: at, reason: "matches none of its alternatives"}}
	}
	clauses := make([]string, len(branches))
	for i, b := range branches {
		clauses[i] = clause(at, b)
	}
	return []finding{{path: at, reason: "matches none of its alternatives (" + strings.Join(clauses, "; or ") + ")"}}
}

// mergeChoices merges branches that each found one value-or-type finding,
// all at the same path, into one finding that lists every choice.
func mergeChoices(branches [][]finding) (finding, bool) {
	if len(branches) == 0 {
		return finding{}, false
	}
	merged := finding{path: nil}
	seen := map[string]bool{}
	for i, b := range branches {
		if len(b) != 1 || b[0].values == nil && b[0].types == nil {
			return finding{}, false
		}
		f := b[0]
		if i == 0 {
			merged.path = f.path
		} else if comparePaths(merged.path, f.path) != 0 {
			return finding{}, false
		}
		for _, v := range f.values {
			if k := jsonx.Text(v); !seen[k] {
				seen[k] = true
				merged.values = append(merged.values, v)
			}
		}
		for _, t := range f.types {
			if !slices.Contains(merged.types, t) {
				merged.types = append(merged.types, t)
			}
		}
		merged.got = cmp.Or(merged.got, f.got)
	}
	merged.reason = choiceReason(merged.values, merged.types, merged.got)
	return merged, true
}

// clause says a branch's findings as one clause, each finding's path
// relative to at: `kind must be "a" and id is required`.
func clause(at []token, fs []finding) string {
	parts := make([]string, len(fs))
	for i, f := range fs {
		rel := f.path
		if len(rel) >= len(at) && comparePaths(rel[:len(at)], at) == 0 {
			rel = rel[len(at):]
		}
		switch {
		case len(rel) == 0:
			parts[i] = f.reason
		case rel[0].index:
			parts[i] = "item " + fieldText(rel) + " " + f.reason
		default:
			parts[i] = fieldText(rel) + " " + f.reason
		}
	}
	return strings.Join(parts, " and ")
}

// propertyName describes an object key that fails propertyNames, at the
// key itself: `headers["x y"]: property name must match the pattern ...`.
func (w wording) propertyName(e *jsonschema.ValidationError, prop string) []finding {
	at := child(w.path(e.InstanceLocation), token{key: prop})
	name := wording{doc: w.doc, inst: prop}
	var out []finding
	for _, c := range e.Causes {
		for _, f := range name.describe(c) {
			out = append(out, finding{path: at, reason: "property name " + f.reason})
		}
	}
	if len(out) == 0 {
		out = append(out, finding{path: at, reason: "is not an allowed property name"})
	}
	return out
}

// leafViolations describes one leaf error. Missing and unexpected
// properties are reported at the property itself, so every violation
// names the field a person has to fix.
func (w wording) leafViolations(e *jsonschema.ValidationError) []finding {
	at := w.path(e.InstanceLocation)
	each := func(names []string, reason string) []finding {
		out := make([]finding, len(names))
		for i, n := range names {
			out[i] = finding{path: child(at, token{key: n}), reason: reason}
		}
		return out
	}
	switch k := e.ErrorKind.(type) {
	case *kind.Required:
		return each(k.Missing, "is required")
	case *kind.AdditionalProperties:
		return each(k.Properties, "is not allowed")
	case *kind.DependentRequired:
		return each(k.Missing, "is required when "+fieldText(child(at, token{key: k.Prop}))+" is given")
	case *kind.Dependency:
		return each(k.Missing, "is required when "+fieldText(child(at, token{key: k.Prop}))+" is given")
	case *kind.Type:
		got := w.gotType(k.Got, e.InstanceLocation, k.Want)
		return []finding{{path: at, reason: typeReason(k.Want, got), types: k.Want, got: got}}
	case *kind.Enum:
		return []finding{{path: at, reason: choiceReason(k.Want, nil, ""), values: k.Want}}
	case *kind.Const:
		return []finding{{path: at, reason: choiceReason([]any{k.Want}, nil, ""), values: []any{k.Want}}}
	}
	reason, ok := kindReason(e.ErrorKind)
	if !ok {
		reason = w.contextReason(e)
	}
	return []finding{{path: at, reason: reason}}
}

// contextReason words the error kinds whose reason needs the schema
// document or the value: not, contains, a oneOf matched twice, items past
// the last allowed one. Any other kind reads as the validator says it.
func (w wording) contextReason(e *jsonschema.ValidationError) string {
	switch k := e.ErrorKind.(type) {
	case *kind.Not:
		if d, ok := schemaText(w.schemaAt(e.SchemaURL, "not")); ok {
			return "must not be " + d
		}
		return `must not match its "not" schema`
	case *kind.Contains:
		if d, ok := schemaText(w.schemaAt(e.SchemaURL, "contains")); ok {
			return "must contain " + d
		}
		return `must contain an item that matches its "contains" schema`
	case *kind.MinContains:
		return containsCount(w.schemaAt(e.SchemaURL, "contains"), "least", k.Want)
	case *kind.MaxContains:
		return containsCount(w.schemaAt(e.SchemaURL, "contains"), "most", k.Want)
	case *kind.OneOf:
		return "must match exactly one of its alternatives, but matches the " +
			ordinal(k.Subschemas[0]+1) + " and the " + ordinal(k.Subschemas[1]+1)
	case *kind.AdditionalItems:
		if l, ok := w.valueAt(e.InstanceLocation).([]any); ok {
			return "must have at most " + plural(len(l)-k.Count, "item")
		}
	}
	return e.ErrorKind.LocalizedString(printer)
}

// containsCount words minContains and maxContains ("least" or "most").
func containsCount(contains any, bound string, n int) string {
	if d, ok := schemaText(contains); ok {
		return "must contain " + d + " at " + bound + " " + times(n)
	}
	return "must contain at " + bound + " " + plural(n, "item") + ` that match its "contains" schema`
}

// times returns "once", "twice" or "3 times".
func times(n int) string {
	switch n {
	case 1:
		return "once"
	case 2:
		return "twice"
	}
	return strconv.Itoa(n) + " times"
}

// ordinal returns "1st", "2nd", "3rd", "4th", "11th"...
func ordinal(n int) string {
	suffix := "th"
	if n%100 < 11 || n%100 > 13 {
		switch n % 10 {
		case 1:
			suffix = "st"
		case 2:
			suffix = "nd"
		case 3:
			suffix = "rd"
		}
	}
	return strconv.Itoa(n) + suffix
}
