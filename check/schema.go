package check

import (
	"encoding/json"
	"fmt"
	"github.com/flowserve/flowserve/dsl"
	"math"
	"sort"
	"strings"

	"github.com/flowserve/flowserve/schemas"
)

// valueProblem is one way a flow value does not fit a JSON Schema.
type valueProblem int

const (
	problemMissing valueProblem = iota + 1 // a required property is absent
	problemUnknown                         // a property the schema does not allow
	problemValue                           // a literal of the wrong type, or outside the schema's bounds
)

// valueIssue is a problem found by valueChecker. name is set when the
// problem is about that text at pos (a key, a string literal), which
// suggestion, when set, most likely should be.
type valueIssue struct {
	problem          valueProblem
	pos              dsl.Pos
	msg              string
	name, suggestion string
}

// valueChecker checks a Value against a JSON Schema as far as it can be
// known before the flow runs: the keys of mappings, the lengths of lists
// and the literal scalars. A template that is one whole expression keeps
// the expression's type, which Types checks against the same
// schema (type-error), so it is skipped here; a template mixing text and
// expressions is a string. Every finding is worded by package schemas,
// as the engine words it when the flow runs: "with.url is required by
// action http.request", "structured.count must be at least 0".
type valueChecker struct {
	ix     *dsl.Tree
	sc     schemaCache
	issues []valueIssue
	// fillsDefaults says that top-level properties with a default may be
	// left out even when required (actions get their defaults applied).
	fillsDefaults bool
	// by names the schema's owner in messages about its properties:
	// "action http.request".
	by string
}

func (vc *valueChecker) report(problem valueProblem, pos dsl.Pos, format string, args ...any) {
	vc.issues = append(vc.issues, valueIssue{problem: problem, pos: pos, msg: fmt.Sprintf(format, args...)})
}

// reportAll reports violations of a value named path, at pos; hint is
// added to each.
func (vc *valueChecker) reportAll(problem valueProblem, pos dsl.Pos, path string, vs []schemas.Violation, hint string) {
	for _, v := range vs {
		vc.report(problem, pos, "%s %s%s", joinField(path, v.Field), v.Reason, hint)
	}
}

// misspelt marks the issues from the first to the last as being about
// name, spelt at their position, which suggestion most likely should be.
func (vc *valueChecker) misspelt(first int, name, suggestion string) {
	for i := first; i < len(vc.issues); i++ {
		vc.issues[i].name, vc.issues[i].suggestion = name, suggestion
	}
}

// check checks v against schema. path names v in messages
// ("with.url"); holder is where a property v lacks is reported: the key
// whose value v is (with:), or v itself in a list; top is set for the
// value the check started at.
func (vc *valueChecker) check(v *dsl.Value, schema any, path string, holder dsl.Pos, top bool) {
	s, ok := schema.(map[string]any)
	if !ok || v == nil {
		if b, isBool := schema.(bool); isBool && !b && v != nil {
			vc.report(problemUnknown, v.Pos, "%s is not allowed", path)
		}
		return
	}
	for _, sub := range listOf(s["allOf"]) {
		vc.check(v, sub, path, holder, top)
	}
	// Schemas that choose between alternatives or refer elsewhere are
	// beyond a literal check: only their own type is looked at.
	simple := true
	for _, k := range []string{"anyOf", "oneOf", "not", "if", "$ref", "$dynamicRef"} {
		if _, has := s[k]; has {
			simple = false
		}
	}
	lit, known := literalOf(v)
	if v.Kind == dsl.ValueTemplate && !known && v.Template.Whole() != nil {
		return // the expression's type: Types checks it
	}
	if t, has := s["type"]; has {
		if vs := vc.sc.validate(map[string]any{"type": t}, skeleton(v, lit, known)); len(vs) > 0 {
			vc.reportAll(problemValue, v.Pos, path, vs, "")
			return
		}
	}
	switch {
	case !simple:
	case known:
		vs := vc.sc.validate(scalarKeywords(s), lit)
		hint, sug := enumSuggestion(lit, s)
		first := len(vc.issues)
		vc.reportAll(problemValue, v.Pos, path, vs, hint)
		if str, ok := lit.(string); ok {
			vc.misspelt(first, str, sug)
		}
	case v.Kind == dsl.ValueMap:
		vc.checkMap(v, s, path, holder, top)
	case v.Kind == dsl.ValueList:
		vc.checkList(v, s, path)
	}
}

// skeleton returns a stand-in for v with v's JSON type: the literal when
// it is one, an empty mapping or list, or a string for a template mixing
// text and expressions.
func skeleton(v *dsl.Value, lit any, known bool) any {
	switch {
	case known:
		return lit
	case v.Kind == dsl.ValueMap:
		return map[string]any{}
	case v.Kind == dsl.ValueList:
		return []any{}
	}
	return ""
}

// literalOf returns the JSON value of a literal scalar or of a template
// without expressions, and whether v is one.
func literalOf(v *dsl.Value) (any, bool) {
	switch v.Kind {
	case dsl.ValueLiteral:
		return v.Literal, true
	case dsl.ValueTemplate:
		for _, p := range v.Template.Parts {
			if p.Expr != nil {
				return nil, false
			}
		}
		return v.Template.Src, true
	}
	return nil, false
}

// jsonType returns the JSON type of a JSON-compatible Go value.
func jsonType(x any) string {
	switch x := x.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case int64, int:
		return "integer"
	case float64:
		if x == math.Trunc(x) && !math.IsInf(x, 0) {
			return "integer"
		}
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return "value"
}

// articleType returns a JSON type name with its article.
func articleType(t string) string {
	switch t {
	case "null":
		return "null"
	case "integer", "object", "array":
		return "an " + t
	case "":
		return "a value"
	}
	return "a " + t
}

// checkMap checks the keys and values of a mapping; the keys go through
// package schemas as a mapping of nulls, since only their presence is
// known.
func (vc *valueChecker) checkMap(v *dsl.Value, s map[string]any, path string, holder dsl.Pos, top bool) {
	props, _ := s["properties"].(map[string]any)
	_, hasPatterns := s["patternProperties"]
	additional, hasAdditional := s["additionalProperties"]
	closed := false
	if b, ok := additional.(bool); ok && !b {
		closed = !hasPatterns
	}
	if b, ok := s["unevaluatedProperties"].(bool); ok && !b && !hasPatterns && !hasAdditional {
		closed = true
	}
	keys := make(map[string]any, len(v.Keys))
	for i, key := range v.Keys {
		keys[key] = nil
		sub, keyPos := schemas.KeyField(path, key), vc.ix.KeyPos(v.Pos, key)
		if ps, ok := props[key]; ok {
			vc.check(v.Map[i], ps, sub, keyPos, false)
		} else if hasAdditional && !hasPatterns && !closed {
			vc.check(v.Map[i], additional, sub, keyPos, false)
		}
	}
	if closed {
		vc.checkClosed(v, keys, props, path)
	}
	var required []any
	for _, r := range listOf(s["required"]) {
		name, ok := r.(string)
		if ps, _ := props[name].(map[string]any); ok && top && vc.fillsDefaults && ps != nil {
			if _, hasDefault := ps["default"]; hasDefault {
				continue
			}
		}
		required = append(required, r)
	}
	if len(required) > 0 {
		for _, is := range vc.sc.validate(map[string]any{"required": required}, keys) {
			vc.report(problemMissing, holder, "%s %s by %s", joinField(path, is.Field), is.Reason, vc.by)
		}
	}
	if counts := pick(s, "minProperties", "maxProperties"); len(counts) > 0 {
		vc.reportAll(problemValue, v.Pos, path, vc.sc.validate(counts, keys), "")
	}
}

// checkClosed reports the keys of v that a schema without further
// properties does not allow, at each key, with the properties it takes.
func (vc *valueChecker) checkClosed(v *dsl.Value, keys map[string]any, props map[string]any, path string) {
	names := make([]string, 0, len(props))
	allowed := make(map[string]any, len(props))
	for name := range props {
		names = append(names, name)
		allowed[name] = true
	}
	sort.Strings(names)
	closed := map[string]any{"properties": allowed, "additionalProperties": false}
	for _, is := range vc.sc.validate(closed, keys) {
		steps, _ := fieldSteps(is.Field)
		key, _ := firstKey(steps)
		hint, sug := dsl.DidYouMean(key, names)
		first := len(vc.issues)
		vc.report(problemUnknown, vc.ix.KeyPos(v.Pos, key), "%s %s by %s%s%s",
			joinField(path, is.Field), is.Reason, vc.by, allowedText(names), hint)
		vc.misspelt(first, key, sug)
	}
}

// firstKey returns the first step of a field when it is a key.
func firstKey(steps []any) (string, bool) {
	if len(steps) == 0 {
		return "", false
	}
	k, ok := steps[0].(string)
	return k, ok
}

// pick returns the keywords of s named by keys that it has.
func pick(s map[string]any, keys ...string) map[string]any {
	out := map[string]any{}
	for _, k := range keys {
		if x, ok := s[k]; ok {
			out[k] = x
		}
	}
	return out
}

// allowedText returns " (it takes a, b)" for short lists of names.
func allowedText(names []string) string {
	if len(names) == 0 {
		return " (it takes none)"
	}
	if len(names) > 8 {
		return ""
	}
	return " (it takes " + strings.Join(names, ", ") + ")"
}

// checkList checks the items of a list, and its length through package
// schemas as a list of nulls.
func (vc *valueChecker) checkList(v *dsl.Value, s map[string]any, path string) {
	if _, prefixed := s["prefixItems"]; !prefixed {
		if items, ok := s["items"]; ok {
			for i, item := range v.List {
				vc.check(item, items, fmt.Sprintf("%s[%d]", path, i), item.Pos, false)
			}
		}
	}
	if counts := pick(s, "minItems", "maxItems"); len(counts) > 0 {
		vc.reportAll(problemValue, v.Pos, path, vc.sc.validate(counts, make([]any, len(v.List))), "")
	}
}

// listOf returns x as a list, or nil.
func listOf(x any) []any {
	l, _ := x.([]any)
	return l
}

// intOf returns x as an integer when it is one.
func intOf(x any) (int64, bool) {
	switch x := x.(type) {
	case int64:
		return x, true
	case int:
		return int64(x), true
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
			return int64(x), true
		}
	}
	return 0, false
}

// jsonText formats a JSON-compatible value as JSON.
func jsonText(x any) string {
	b, err := json.Marshal(x)
	if err != nil {
		return fmt.Sprint(x)
	}
	return string(b)
}
