package check

import (
	"fmt"
	"github.com/flowserve/flowserve/dsl"
	"slices"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/flowserve/flowserve/check/codes"
	"github.com/flowserve/flowserve/internal/jsonx"
)

// formTypes returns the property types an MCP form allows.
func formTypes() []string { return []string{"string", "number", "integer", "boolean", "array"} }

// formFormats returns the string formats an MCP form allows.
func formFormats() []string { return []string{"email", "uri", "date", "date-time"} }

// formTypeAliases maps type names borrowed from programming languages to
// the JSON Schema type meant.
var formTypeAliases = map[string]string{
	"bool": "boolean", "int": "integer", "str": "string", "text": "string",
	"float": "number", "double": "number", "list": "array",
}

// formKeywords returns the keywords a form property of type t accepts.
func formKeywords(t string) []string {
	common := []string{"type", "title", "description", "default"}
	switch t {
	case "string":
		return append(common, "minLength", "maxLength", "format", "enum", "enumNames", "oneOf")
	case "number", "integer":
		return append(common, "minimum", "maximum")
	case "array":
		return append(common, "items", "minItems", "maxItems")
	}
	return common
}

// choiceKeywords returns the keywords a single-select string property
// accepts (the MCP enum schemas).
func choiceKeywords() []string {
	return []string{"type", "title", "description", "default", "enum", "enumNames", "oneOf"}
}

// propChecker checks one form property.
type propChecker struct {
	c    *checker
	prop *dsl.Property
	node *yaml.Node // the property's schema mapping; nil when not found
	// nullKeys are the keys checkNullKeys reported (at their
	// positions): the keyword checks leave them alone.
	nullKeys map[dsl.Pos]bool
}

// at returns the positions of the key and value at path inside the
// property's schema.
func (pc *propChecker) at(path ...any) (key, val dsl.Pos) {
	return pc.c.ix.Find(pc.node, pc.prop.Pos, path...)
}

func (pc *propChecker) errorf(pos dsl.Pos, code, format string, args ...any) {
	pc.errorSpan(pos, dsl.Span{}, code, format, args...)
}

// errorSpan records an error about the property, about the text from pos
// to sp.End, with sp's fixes.
func (pc *propChecker) errorSpan(pos dsl.Pos, sp dsl.Span, code, format string, args ...any) {
	pc.c.errorSpan(pos, sp, code, "form property %q: %s", pc.prop.Name, fmt.Sprintf(format, args...))
}

// unknownf records an error about name, spelt at pos, that is not one of
// options, as parser.unknownf does.
func (pc *propChecker) unknownf(pos dsl.Pos, name string, options []string, code, format string, args ...any) {
	hint, sug := dsl.DidYouMean(name, options)
	pc.errorSpan(pos, pc.c.misspelt(pos, name, sug), code, format, append(args, hint)...)
}

// keys returns the keys of the property's schema in file order.
func (pc *propChecker) keys() []string {
	if pc.node != nil {
		var out []string
		for _, e := range pc.c.ix.Entries(pc.node) {
			out = append(out, e.Name)
		}
		return out
	}
	out := make([]string, 0, len(pc.prop.Schema))
	for k := range pc.prop.Schema {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// checkForm checks the properties of a form against what MCP elicitation
// allows (DESIGN §2, mcp-wire.md §2.1).
func (c *checker) checkForm(fm *dsl.Form) {
	for _, prop := range fm.Properties {
		pc := &propChecker{c: c, prop: prop, node: c.ix.ValueOfKey(prop.Pos)}
		if pc.node != nil && pc.node.Kind != yaml.MappingNode {
			pc.node = nil
		}
		pc.nullKeys = c.checkNullKeys(pc.node, 0)
		pc.check()
	}
}

// check checks the property's schema.
func (pc *propChecker) check() {
	s := pc.prop.Schema
	raw, hasType := s["type"]
	if !hasType {
		hint := "string, number, integer, boolean or array"
		if _, ok := s["enum"]; ok {
			hint = "string (its enum makes it a choice)"
		} else if _, ok := s["oneOf"]; ok {
			hint = "string (its oneOf makes it a choice)"
		}
		pc.errorf(pc.prop.Pos, codes.FormKind, "needs a type: %s", hint)
		return
	}
	_, typePos := pc.at("type")
	t, ok := raw.(string)
	if !ok {
		pc.errorf(typePos, codes.FormKind, "type must be one of %s, not %s", strings.Join(formTypes(), ", "), articleType(jsonType(raw)))
		return
	}
	switch {
	case t == "object":
		pc.errorf(typePos, codes.FormKind, "form properties are flat: an object cannot be asked for; make each of its fields a property of the form")
		return
	case !slices.Contains(formTypes(), t):
		hint, sug := dsl.DidYouMean(t, formTypes())
		if a, ok := formTypeAliases[t]; ok {
			hint, sug = `; did you mean "`+a+`"?`, a
		}
		pc.errorSpan(typePos, pc.c.misspelt(typePos, t, sug), codes.FormKind,
			"type %q is not one MCP forms allow (%s)%s", t, strings.Join(formTypes(), ", "), hint)
		return
	}
	pc.checkKeywords(t)
	for _, k := range []string{"title", "description"} {
		if v, ok := s[k]; ok {
			if _, isStr := v.(string); !isStr {
				_, pos := pc.at(k)
				pc.errorf(pos, codes.FormValue, "%s must be a string, not %s", k, articleType(jsonType(v)))
			}
		}
	}
	switch t {
	case "string":
		pc.checkString()
	case "number", "integer":
		pc.checkBounds("minimum", "maximum", false)
	case "array":
		pc.checkArray()
	}
	if d, ok := s["default"]; ok {
		pc.checkDefault(d)
	}
}

// checkKeywords reports keywords that a property of type t cannot have.
func (pc *propChecker) checkKeywords(t string) {
	allowed := formKeywords(t)
	s := pc.prop.Schema
	_, hasEnum := s["enum"]
	_, hasOneOf := s["oneOf"]
	choice := t == "string" && (hasEnum || hasOneOf)
	for _, k := range pc.keys() {
		keyPos, _ := pc.at(k)
		switch {
		case pc.nullKeys[keyPos]:
		case choice && !slices.Contains(choiceKeywords(), k) && slices.Contains(allowed, k):
			pc.errorf(keyPos, codes.FormKeyword, "%s does not go with a choice (enum or oneOf): a choice takes only title, description and default", k)
		case slices.Contains(allowed, k):
		case k == "pattern":
			pc.errorf(keyPos, codes.FormKeyword, "pattern is not allowed: MCP forms do not support it; check the answer with a validate rule instead")
		case k == "required":
			pc.errorf(keyPos, codes.FormKeyword, "required is not a property keyword: list the property in the ask's required list")
		case k == "properties" || k == "additionalProperties" || k == "items":
			pc.errorf(keyPos, codes.FormKeyword, "%s is not allowed: form properties are flat, without nested fields", k)
		case k == "exclusiveMinimum" || k == "exclusiveMaximum":
			pc.errorf(keyPos, codes.FormKeyword, "%s is not allowed: MCP forms have only minimum and maximum", k)
		case k == "enum" || k == "oneOf" || k == "enumNames":
			pc.errorf(keyPos, codes.FormKeyword, "%s is not allowed on %s property: choices are strings (or an array of them)", k, articleType(t))
		default:
			pc.unknownf(keyPos, k, allowed, codes.FormKeyword, "%s is not allowed on %s property (it takes %s)%s",
				k, articleType(t), strings.Join(allowed[1:], ", "))
		}
	}
}

// checkString checks the keywords of a string property, and its choices
// if it is a choice.
func (pc *propChecker) checkString() {
	s := pc.prop.Schema
	pc.checkBounds("minLength", "maxLength", true)
	if f, ok := s["format"]; ok {
		_, pos := pc.at("format")
		fs, isStr := f.(string)
		switch {
		case !isStr:
			pc.errorf(pos, codes.FormFormat, "format must be one of %s, not %s", strings.Join(formFormats(), ", "), articleType(jsonType(f)))
		case !slices.Contains(formFormats(), fs):
			pc.unknownf(pos, fs, formFormats(), codes.FormFormat, "format %q is not one MCP forms allow (%s)%s", fs, strings.Join(formFormats(), ", "))
		}
	}
	enum, hasEnum := s["enum"]
	oneOf, hasOneOf := s["oneOf"]
	names, hasNames := s["enumNames"]
	switch {
	case hasEnum && hasOneOf:
		pos, _ := pc.at("oneOf")
		pc.errorf(pos, codes.FormEnum, "a choice has enum or oneOf, not both")
		pc.choices(enum, []any{"enum"})
	case hasEnum:
		pc.choices(enum, []any{"enum"})
		if hasNames {
			pc.checkEnumNames(names, len(listOf(enum)))
		}
	case hasOneOf:
		if hasNames {
			pos, _ := pc.at("enumNames")
			pc.errorf(pos, codes.FormEnum, "enumNames goes with enum; with oneOf, each choice has its title")
		}
		pc.titled(oneOf, []any{"oneOf"})
	case hasNames:
		pos, _ := pc.at("enumNames")
		pc.errorf(pos, codes.FormEnum, "enumNames names the values of an enum, and this property has none")
	}
}

// checkArray checks a multi-select and its choices.
func (pc *propChecker) checkArray() {
	s := pc.prop.Schema
	pc.checkBounds("minItems", "maxItems", true)
	items, ok := s["items"]
	if !ok {
		pc.errorf(pc.prop.Pos, codes.FormEnum, "an array is a multi-select: it needs items with an enum or an anyOf of {const, title}")
		return
	}
	itemsKey, itemsPos := pc.at("items")
	im, ok := items.(map[string]any)
	if !ok {
		pc.errorf(itemsPos, codes.FormEnum, "items must be a mapping with an enum or an anyOf of {const, title}, not %s", articleType(jsonType(items)))
		return
	}
	if t, ok := im["type"]; ok {
		_, pos := pc.at("items", "type")
		switch t {
		case "string":
		case "object", "array":
			pc.errorf(pos, codes.FormKind, "form properties are flat: a multi-select's items are strings, not %s", articleType(t.(string)))
			return
		default:
			pc.errorf(pos, codes.FormKind, "a multi-select's items are strings, not %s", typeOrValue(t))
			return
		}
	}
	var itemKeys []string
	if node := pc.itemsNode(); node != nil {
		for _, e := range pc.c.ix.Entries(node) {
			itemKeys = append(itemKeys, e.Name)
		}
	} else {
		for k := range im {
			itemKeys = append(itemKeys, k)
		}
		sort.Strings(itemKeys)
	}
	for _, k := range itemKeys {
		pos, _ := pc.at("items", k)
		if k == "type" || k == "enum" || k == "anyOf" || pc.nullKeys[pos] {
			continue
		}
		pc.unknownf(pos, k, []string{"type", "enum", "anyOf"}, codes.FormKeyword, "items take only type, and enum or anyOf, not %s%s", k)
	}
	enum, hasEnum := im["enum"]
	anyOf, hasAnyOf := im["anyOf"]
	var choices []string
	switch {
	case hasEnum && hasAnyOf:
		pos, _ := pc.at("items", "anyOf")
		pc.errorf(pos, codes.FormEnum, "items have enum or anyOf, not both")
		choices = pc.choices(enum, []any{"items", "enum"})
	case hasEnum:
		choices = pc.choices(enum, []any{"items", "enum"})
	case hasAnyOf:
		choices = pc.titled(anyOf, []any{"items", "anyOf"})
	default:
		pc.errorf(itemsKey, codes.FormEnum, "a multi-select's items need an enum or an anyOf of {const, title}")
		return
	}
	if lo, ok := intOf(s["minItems"]); ok && len(choices) > 0 && lo > int64(len(choices)) {
		_, pos := pc.at("minItems")
		pc.errorf(pos, codes.FormValue, "minItems %d is more than the %d choices", lo, len(choices))
	}
}

// itemsNode returns the YAML mapping of the property's items.
func (pc *propChecker) itemsNode() *yaml.Node {
	if e, ok := pc.c.ix.Entry(pc.node, "items"); ok && e.Value != nil && e.Value.Kind == yaml.MappingNode {
		return e.Value
	}
	return nil
}

// typeOrValue names a "type" keyword's value for messages.
func typeOrValue(t any) string {
	if s, ok := t.(string); ok {
		return fmt.Sprintf("%q", s)
	}
	return articleType(jsonType(t))
}

// choices checks an enum list (at path) and returns its values.
func (pc *propChecker) choices(enum any, path []any) []string {
	_, pos := pc.at(path...)
	list, ok := enum.([]any)
	if !ok || len(list) == 0 {
		pc.errorf(pos, codes.FormEnum, "%s must be a non-empty list of strings", path[len(path)-1])
		return nil
	}
	var out []string
	for i, e := range list {
		_, epos := pc.at(append(slices.Clone(path), i)...)
		s, ok := e.(string)
		switch {
		case !ok:
			pc.errorf(epos, codes.FormEnum, "choices are strings, not %s", articleType(jsonType(e)))
		case slices.Contains(out, s):
			pc.errorf(epos, codes.FormEnum, "choice %q is listed twice", s)
		default:
			out = append(out, s)
		}
	}
	return out
}

// titled checks a oneOf or anyOf list of {const, title} (at path) and
// returns its values.
func (pc *propChecker) titled(list any, path []any) []string {
	_, pos := pc.at(path...)
	l, ok := list.([]any)
	if !ok || len(l) == 0 {
		pc.errorf(pos, codes.FormEnum, "%s must be a non-empty list of {const, title}", path[len(path)-1])
		return nil
	}
	var out []string
	for i, e := range l {
		ep := append(slices.Clone(path), i)
		_, epos := pc.at(ep...)
		m, ok := e.(map[string]any)
		if !ok {
			pc.errorf(epos, codes.FormEnum, "each choice is a mapping {const, title}, not %s", articleType(jsonType(e)))
			continue
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			kpos, _ := pc.at(append(slices.Clone(ep), k)...)
			if k != "const" && k != "title" && !pc.nullKeys[kpos] {
				pc.unknownf(kpos, k, []string{"const", "title"}, codes.FormEnum, "a choice has only const and title, not %s%s", k)
			}
		}
		c, hasConst := m["const"]
		cs, isStr := c.(string)
		switch {
		case !hasConst:
			pc.errorf(epos, codes.FormEnum, "a choice needs a const (its value)")
		case !isStr:
			_, cpos := pc.at(append(slices.Clone(ep), "const")...)
			pc.errorf(cpos, codes.FormEnum, "a choice's const is a string, not %s", articleType(jsonType(c)))
		case slices.Contains(out, cs):
			_, cpos := pc.at(append(slices.Clone(ep), "const")...)
			pc.errorf(cpos, codes.FormEnum, "choice %q is listed twice", cs)
		default:
			out = append(out, cs)
		}
		t, hasTitle := m["title"]
		if _, ok := t.(string); !ok {
			if !hasTitle {
				pc.errorf(epos, codes.FormEnum, "a choice needs a title (what the user sees)")
			} else {
				_, tpos := pc.at(append(slices.Clone(ep), "title")...)
				pc.errorf(tpos, codes.FormEnum, "a choice's title is a string, not %s", articleType(jsonType(t)))
			}
		}
	}
	return out
}

// checkEnumNames checks the legacy enumNames list against an enum of n
// values.
func (pc *propChecker) checkEnumNames(names any, n int) {
	_, pos := pc.at("enumNames")
	l, ok := names.([]any)
	if !ok {
		pc.errorf(pos, codes.FormEnum, "enumNames must be a list of strings, not %s", articleType(jsonType(names)))
		return
	}
	for i, e := range l {
		if _, ok := e.(string); !ok {
			_, epos := pc.at("enumNames", i)
			pc.errorf(epos, codes.FormEnum, "enumNames are strings, not %s", articleType(jsonType(e)))
		}
	}
	if len(l) != n && n > 0 {
		pc.errorf(pos, codes.FormEnum, "enumNames has %d names for %d enum values", len(l), n)
	}
}

// checkBounds checks a pair of lower and upper bound keywords: numbers,
// or non-negative integers when counts is set, with lower <= upper.
func (pc *propChecker) checkBounds(loKey, hiKey string, counts bool) {
	s := pc.prop.Schema
	var vals [2]float64
	var have [2]bool
	for i, k := range []string{loKey, hiKey} {
		v, ok := s[k]
		if !ok {
			continue
		}
		_, pos := pc.at(k)
		if counts {
			n, isInt := intOf(v)
			if !isInt || n < 0 {
				pc.errorf(pos, codes.FormValue, "%s must be an integer of 0 or more, not %s", k, jsonText(v))
				continue
			}
			vals[i], have[i] = float64(n), true
			continue
		}
		f, isNum := jsonx.Number(v)
		if !isNum {
			pc.errorf(pos, codes.FormValue, "%s must be a number, not %s", k, articleType(jsonType(v)))
			continue
		}
		vals[i], have[i] = f, true
	}
	if have[0] && have[1] && vals[0] > vals[1] {
		_, pos := pc.at(hiKey)
		pc.errorf(pos, codes.FormValue, "%s %s is less than %s %s", hiKey, jsonText(s[hiKey]), loKey, jsonText(s[loKey]))
	}
}

// checkDefault checks a property's default against the property's own
// schema through package schemas, as the engine checks an answer that
// takes it: its type, choices, bounds and format. A template is checked
// when it is compiled (Types types its expressions) and when it
// is rendered.
func (pc *propChecker) checkDefault(d any) {
	_, pos := pc.at("default")
	if str, ok := d.(string); ok && strings.Contains(str, "{{") {
		pc.checkDefaultTemplate()
		return
	}
	for _, v := range pc.c.sc.validate(pc.prop.Schema, d) {
		at := pos
		if steps, ok := fieldSteps(v.Field); ok && len(steps) > 0 {
			_, at = pc.at(append([]any{"default"}, steps...)...)
		}
		pc.errorf(at, codes.FormDefault, "%s %s%s", joinField("default", v.Field), v.Reason, pc.defaultHint(d, v.Field))
	}
}

// defaultHint returns a did-you-mean for a default, or for the item of a
// multi-select's default at field, that is not one of the choices.
func (pc *propChecker) defaultHint(d any, field string) string {
	s := pc.prop.Schema
	steps, _ := fieldSteps(field)
	if len(steps) == 0 {
		return enumHint(d, s)
	}
	i, isIndex := steps[0].(int)
	list, isList := d.([]any)
	if len(steps) != 1 || !isIndex || !isList || i >= len(list) {
		return ""
	}
	items, _ := s["items"].(map[string]any)
	return enumHint(list[i], items)
}
