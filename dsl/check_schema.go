package dsl

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"
)

// valueProblem is one way a flow value does not fit a JSON Schema.
type valueProblem int

const (
	problemMissing valueProblem = iota + 1 // a required property is absent
	problemUnknown                         // a property the schema does not allow
	problemValue                           // a literal of the wrong type, or outside the schema's bounds
)

// valueIssue is a problem found by valueChecker.
type valueIssue struct {
	problem valueProblem
	pos     Pos
	msg     string
}

// valueChecker checks a Value against a JSON Schema as far as it can be
// known before the flow runs: the keys of mappings, and the literal
// scalars. A template that is one whole expression can have any type and
// is skipped; a template mixing text and expressions is a string.
type valueChecker struct {
	ix     *posIndex
	issues []valueIssue
	// fillsDefaults says that top-level properties with a default may be
	// left out even when required (actions get their defaults applied).
	fillsDefaults bool
	// of names the schema's owner in messages about properties: " of
	// action http.request".
	of string
}

func (vc *valueChecker) report(problem valueProblem, pos Pos, format string, args ...any) {
	vc.issues = append(vc.issues, valueIssue{problem: problem, pos: pos, msg: fmt.Sprintf(format, args...)})
}

// check checks v against schema; path names v in messages ("with.url").
func (vc *valueChecker) check(v *Value, schema any, path string, top bool) {
	s, ok := schema.(map[string]any)
	if !ok || v == nil {
		if b, isBool := schema.(bool); isBool && !b && v != nil {
			vc.report(problemUnknown, v.Pos, "%s is not allowed here", path)
		}
		return
	}
	for _, sub := range listOf(s["allOf"]) {
		vc.check(v, sub, path, top)
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
	if v.Kind == ValueTemplate && !known && v.Template.Whole() != nil {
		return // any type: checked when expressions are typed
	}
	got := valueType(v, lit, known)
	if types := schemaTypes(s); len(types) > 0 && !typeAllowed(types, got) {
		vc.report(problemValue, v.Pos, "%s must be %s, not %s", path, typesText(types), articleType(got))
		return
	}
	if !simple {
		return
	}
	if known {
		vc.checkLiteral(v, s, path, lit)
		return
	}
	switch v.Kind {
	case ValueMap:
		vc.checkMap(v, s, path, top)
	case ValueList:
		vc.checkList(v, s, path)
	case ValueTemplate:
		vc.checkEnum(v, s, path, nil, false)
	}
}

// literalOf returns the JSON value of a literal scalar or of a template
// without expressions, and whether v is one.
func literalOf(v *Value) (any, bool) {
	switch v.Kind {
	case ValueLiteral:
		return v.Literal, true
	case ValueTemplate:
		for _, p := range v.Template.Parts {
			if p.Expr != nil {
				return nil, false
			}
		}
		return v.Template.Src, true
	}
	return nil, false
}

// valueType returns the JSON type of v: null, boolean, integer, number,
// string, object or array.
func valueType(v *Value, lit any, known bool) string {
	if known {
		return jsonType(lit)
	}
	switch v.Kind {
	case ValueMap:
		return "object"
	case ValueList:
		return "array"
	}
	return "string" // a template mixing text and expressions
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

// schemaTypes returns the types a schema's "type" allows.
func schemaTypes(s map[string]any) []string {
	switch t := s["type"].(type) {
	case string:
		return []string{t}
	case []any:
		var out []string
		for _, x := range t {
			if str, ok := x.(string); ok {
				out = append(out, str)
			}
		}
		return out
	}
	return nil
}

// typeAllowed reports whether a value of JSON type got fits types. An
// integer is a number.
func typeAllowed(types []string, got string) bool {
	for _, t := range types {
		if t == got || t == "number" && got == "integer" {
			return true
		}
	}
	return false
}

// typesText names types for messages: "a string", "an integer or null".
func typesText(types []string) string {
	parts := make([]string, len(types))
	for i, t := range types {
		parts[i] = articleType(t)
	}
	if len(parts) <= 2 {
		return strings.Join(parts, " or ")
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " or " + parts[len(parts)-1]
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

// checkMap checks the keys and values of a mapping.
func (vc *valueChecker) checkMap(v *Value, s map[string]any, path string, top bool) {
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
	names := make([]string, 0, len(props))
	for name := range props {
		names = append(names, name)
	}
	sort.Strings(names)
	for i, key := range v.Keys {
		sub := path + "." + key
		if ps, ok := props[key]; ok {
			vc.check(v.Map[i], ps, sub, false)
			continue
		}
		switch {
		case closed:
			vc.report(problemUnknown, vc.ix.keyPos(v.Pos, key), "%s is not a property%s%s%s",
				sub, vc.of, allowedText(names), didYouMean(key, names))
		case hasAdditional && !hasPatterns:
			vc.check(v.Map[i], additional, sub, false)
		}
	}
	var missing []string
	for _, r := range listOf(s["required"]) {
		name, ok := r.(string)
		if !ok || slices.Contains(v.Keys, name) {
			continue
		}
		if ps, _ := props[name].(map[string]any); top && vc.fillsDefaults && ps != nil {
			if _, hasDefault := ps["default"]; hasDefault {
				continue
			}
		}
		missing = append(missing, name)
	}
	if len(missing) > 0 {
		what := "property"
		if len(missing) > 1 {
			what = "properties"
		}
		vc.report(problemMissing, v.Pos, "%s lacks the required %s %s%s", path, what, quotedList(missing), vc.of)
	}
	vc.checkCount(v.Pos, path, len(v.Keys), s, "minProperties", "maxProperties", "property")
}

// allowedText returns " (properties: a, b)" for short lists of names.
func allowedText(names []string) string {
	if len(names) == 0 {
		return " (it takes none)"
	}
	if len(names) > 8 {
		return ""
	}
	return " (it takes " + strings.Join(names, ", ") + ")"
}

// quotedList formats names as "a", "b" and "c".
func quotedList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	if len(q) <= 2 {
		return strings.Join(q, " and ")
	}
	return strings.Join(q[:len(q)-1], ", ") + " and " + q[len(q)-1]
}

// checkList checks the items of a list.
func (vc *valueChecker) checkList(v *Value, s map[string]any, path string) {
	if _, prefixed := s["prefixItems"]; !prefixed {
		if items, ok := s["items"]; ok {
			for i, item := range v.List {
				vc.check(item, items, fmt.Sprintf("%s[%d]", path, i), false)
			}
		}
	}
	vc.checkCount(v.Pos, path, len(v.List), s, "minItems", "maxItems", "item")
}

// checkCount checks a count against a schema's lower and upper bound
// keywords.
func (vc *valueChecker) checkCount(pos Pos, path string, n int, s map[string]any, minKey, maxKey, what string) {
	if lo, ok := intOf(s[minKey]); ok && int64(n) < lo {
		vc.report(problemValue, pos, "%s has %s, fewer than the %d it needs", path, plural(int64(n), what), lo)
	}
	if hi, ok := intOf(s[maxKey]); ok && int64(n) > hi {
		vc.report(problemValue, pos, "%s has %s, more than the %d it allows", path, plural(int64(n), what), hi)
	}
}

// checkLiteral checks a literal scalar (or a literal list or mapping of
// them) against enum, const and the bounds of its type.
func (vc *valueChecker) checkLiteral(v *Value, s map[string]any, path string, lit any) {
	if vc.checkEnum(v, s, path, lit, true) {
		return
	}
	switch x := lit.(type) {
	case string:
		n := int64(utf8.RuneCountInString(x))
		if lo, ok := intOf(s["minLength"]); ok && n < lo {
			vc.report(problemValue, v.Pos, "%s must be at least %s long, not %d", path, plural(lo, "character"), n)
		}
		if hi, ok := intOf(s["maxLength"]); ok && n > hi {
			vc.report(problemValue, v.Pos, "%s must be at most %s long, not %d", path, plural(hi, "character"), n)
		}
	case int64, float64:
		f, _ := numberOf(x)
		if lo, ok := numberOf(s["minimum"]); ok && f < lo {
			vc.report(problemValue, v.Pos, "%s must be at least %s, not %s", path, numText(s["minimum"]), numText(x))
		}
		if hi, ok := numberOf(s["maximum"]); ok && f > hi {
			vc.report(problemValue, v.Pos, "%s must be at most %s, not %s", path, numText(s["maximum"]), numText(x))
		}
		if lo, ok := numberOf(s["exclusiveMinimum"]); ok && f <= lo {
			vc.report(problemValue, v.Pos, "%s must be more than %s, not %s", path, numText(s["exclusiveMinimum"]), numText(x))
		}
		if hi, ok := numberOf(s["exclusiveMaximum"]); ok && f >= hi {
			vc.report(problemValue, v.Pos, "%s must be less than %s, not %s", path, numText(s["exclusiveMaximum"]), numText(x))
		}
	}
}

// checkEnum checks a value against enum and const. When the value is not
// known (a template mixing text and expressions) only an enum or const
// without strings is reported. It reports whether it found a problem.
func (vc *valueChecker) checkEnum(v *Value, s map[string]any, path string, lit any, known bool) bool {
	if c, ok := s["const"]; ok && known && !jsonEqual(lit, c) {
		vc.report(problemValue, v.Pos, "%s must be %s, not %s", path, jsonText(c), jsonText(lit))
		return true
	}
	enum, ok := s["enum"].([]any)
	if !ok {
		return false
	}
	if !known {
		return false
	}
	if slices.ContainsFunc(enum, func(e any) bool { return jsonEqual(lit, e) }) {
		return false
	}
	var opts, strs []string
	for _, e := range enum {
		opts = append(opts, jsonText(e))
		if s, ok := e.(string); ok {
			strs = append(strs, s)
		}
	}
	hint := ""
	if s, ok := lit.(string); ok {
		hint = didYouMean(s, strs)
	}
	vc.report(problemValue, v.Pos, "%s must be one of %s, not %s%s", path, strings.Join(opts, ", "), jsonText(lit), hint)
	return true
}

// plural returns "1 item" or "2 items"; what is singular.
func plural(n int64, what string) string {
	if n == 1 {
		return "1 " + what
	}
	if strings.HasSuffix(what, "y") {
		return fmt.Sprintf("%d %sies", n, what[:len(what)-1])
	}
	return fmt.Sprintf("%d %ss", n, what)
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

// numberOf returns x as a float64 when it is a number.
func numberOf(x any) (float64, bool) {
	switch x := x.(type) {
	case int64:
		return float64(x), true
	case int:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}

// numText formats a number as it would be written in JSON.
func numText(x any) string {
	return jsonText(x)
}

// jsonText formats a JSON-compatible value as JSON.
func jsonText(x any) string {
	b, err := json.Marshal(x)
	if err != nil {
		return fmt.Sprint(x)
	}
	return string(b)
}

// jsonEqual reports whether two JSON-compatible values are equal, numbers
// compared by value whatever their Go type.
func jsonEqual(a, b any) bool {
	if fa, ok := numberOf(a); ok {
		fb, ok := numberOf(b)
		return ok && fa == fb
	}
	switch a := a.(type) {
	case []any:
		bl, ok := b.([]any)
		if !ok || len(a) != len(bl) {
			return false
		}
		for i := range a {
			if !jsonEqual(a[i], bl[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		bm, ok := b.(map[string]any)
		if !ok || len(a) != len(bm) {
			return false
		}
		for k, av := range a {
			bv, ok := bm[k]
			if !ok || !jsonEqual(av, bv) {
				return false
			}
		}
		return true
	}
	return a == b
}
