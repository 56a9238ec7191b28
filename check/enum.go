package check

import (
	"fmt"
	"github.com/flowserve/flowserve/dsl"
	"strings"

	"github.com/flowserve/flowserve/check/codes"
	"github.com/flowserve/flowserve/internal/jsonx"
	"github.com/flowserve/flowserve/lang"
	"github.com/flowserve/flowserve/schemas"
)

// A field whose schema lists its values (an enum, a const, a oneOf or
// anyOf of consts) holds one of them whenever an expression reads it:
// an answer is checked against its form before the ask's rules and the
// rest of the flow see it, the arguments against the input schema, and
// a step's result against its action's output schema. A comparison of
// such a field with a literal it cannot hold is never true (==), always
// true (!=), or a dead entry of a list (in): a typo or a stale value,
// reported as a warning at the literal. It is not an error: the flow
// runs, and the comparison only makes one case dead (see the severity
// rule in docs/cli.md).

// checkEnumCompares reports each comparison of a field with a literal
// outside the values the field's schema allows (enum-compare), in every
// expression of the file.
func (c *checker) checkEnumCompares() {
	roots := c.choiceRoots()
	if len(roots) == 0 {
		return
	}
	for _, u := range c.f.Exprs() {
		src := u.Expr.Src
		if !comparesSomething(src) || !mentionsAny(src, roots) {
			continue
		}
		for _, cmp := range lang.Comparisons(c.f.Expressions.Value, src) {
			c.checkComparison(u.Expr, cmp, roots)
		}
	}
}

// choiceRoots returns the variables whose schema lists the values of
// some field, with their schemas: input, the ids of form asks and the
// ids of steps whose action's output has such a field.
func (c *checker) choiceRoots() map[string]map[string]any {
	roots := map[string]map[string]any{}
	if c.f.Input != nil && hasChoices(c.f.Input.Value, 0) {
		roots["input"] = c.f.Input.Value
	}
	for n := range c.f.Walk() {
		if n.ID == "" {
			continue
		}
		switch {
		case n.Kind == dsl.KindAsk && n.Ask != nil && n.Ask.Form != nil:
			props := map[string]any{}
			some := false
			for _, prop := range n.Ask.Form.Properties {
				props[prop.Name] = prop.Schema
				some = some || hasChoices(prop.Schema, 0)
			}
			if some {
				roots[n.ID] = map[string]any{"properties": map[string]any{
					"content": map[string]any{"properties": props},
				}}
			}
		case n.Kind == dsl.KindStep && n.Step != nil:
			if a, ok := c.reg.Lookup(n.Step.Action.Value); ok && hasChoices(a.Output, 0) {
				roots[n.ID] = a.Output
			}
		}
	}
	return roots
}

// hasChoices reports whether schema s, or a schema inside it, lists
// values (enum, const).
func hasChoices(s any, depth int) bool {
	switch s := s.(type) {
	case map[string]any:
		if _, ok := s["enum"]; ok {
			return true
		}
		if _, ok := s["const"]; ok {
			return true
		}
		if depth > 50 {
			return false
		}
		for _, v := range s {
			if hasChoices(v, depth+1) {
				return true
			}
		}
	case []any:
		for _, v := range s {
			if hasChoices(v, depth+1) {
				return true
			}
		}
	}
	return false
}

// comparesSomething reports whether src may hold a comparison: ==, !=
// or the word in.
func comparesSomething(src string) bool {
	if strings.Contains(src, "==") || strings.Contains(src, "!=") {
		return true
	}
	for i := strings.Index(src, "in"); i >= 0; {
		before := i == 0 || !isWordByte(src[i-1])
		after := i+2 >= len(src) || !isWordByte(src[i+2])
		if before && after {
			return true
		}
		j := strings.Index(src[i+2:], "in")
		if j < 0 {
			break
		}
		i += 2 + j
	}
	return false
}

// isWordByte reports whether b can be part of a name.
func isWordByte(b byte) bool {
	return b == '_' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9'
}

// mentionsAny reports whether src spells one of the names of roots.
func mentionsAny(src string, roots map[string]map[string]any) bool {
	for name := range roots {
		if strings.Contains(src, name) {
			return true
		}
	}
	return false
}

// checkComparison reports cmp, a comparison in e, when its literal is
// not one of the values its field can hold.
func (c *checker) checkComparison(e *dsl.Expr, cmp lang.Comparison, roots map[string]map[string]any) {
	root, ok := roots[cmp.Field[0]]
	if !ok {
		return
	}
	s := fieldSchema(root, cmp.Field[1:])
	if cmp.Op == "contains" {
		s, _ = s["items"].(map[string]any)
	}
	values, ok := choicesOf(s)
	if !ok || !comparable(cmp.Literal, values) {
		return // no list of values, or a literal of another type, which the type checks report
	}
	for _, v := range values {
		if sameValue(cmp.Literal, v) {
			return
		}
	}
	field := cmp.Field[0]
	for _, k := range cmp.Field[1:] {
		field = schemas.KeyField(field, k)
	}
	var strs []string
	for _, v := range values {
		if str, ok := v.(string); ok {
			strs = append(strs, str)
		}
	}
	hint, suggestion := "compare with one of them", ""
	if str, ok := cmp.Literal.(string); ok {
		if suggestion = dsl.Suggest(str, strs); suggestion != "" {
			hint = fmt.Sprintf("did you mean %q?", suggestion)
		}
	}
	what := map[string]string{
		"==":       "this == is never true",
		"!=":       "this != is always true",
		"in":       "this entry of the list never matches",
		"contains": "this in test is never true",
	}[cmp.Op]
	holds := "is one of"
	if cmp.Op == "contains" {
		holds = "holds only"
	}
	pos := e.PosAt(cmp.Offset)
	c.warnSpan(pos, literalSpan(e, cmp, suggestion), codes.EnumCompare, "%s %s %s, never %s: %s; %s",
		field, holds, valuesList(values), jsonText(cmp.Literal), what, hint)
}

// warnSpan records a warning about the text from pos to sp.End, with
// sp's fixes, as errorSpan records an error.
func (c *checker) warnSpan(pos dsl.Pos, sp dsl.Span, code, format string, args ...any) {
	n := len(c.diags)
	c.warnf(pos, code, format, args...)
	if d := &c.diags[n]; d.Pos.Line == pos.Line && d.Pos.Col == pos.Col {
		d.End, d.Fixes = sp.End, sp.Fixes
	}
}

// literalSpan returns the Span of cmp's literal in the file, with the fix
// replacing it with suggestion in the same quotes when there is one; the
// zero Span when the literal is not in the file as written in e (escapes,
// folded lines).
func literalSpan(e *dsl.Expr, cmp lang.Comparison, suggestion string) dsl.Span {
	src := []rune(e.Src)
	if cmp.Offset < 0 || cmp.End <= cmp.Offset || cmp.End > len(src) {
		return dsl.Span{}
	}
	end, ok := e.End(cmp.Offset, cmp.End-cmp.Offset)
	if !ok {
		return dsl.Span{}
	}
	sp := dsl.Span{End: end}
	old := src[cmp.Offset:cmp.End]
	q := old[0]
	quoted := len(old) >= 2 && (q == '\'' || q == '"') && old[len(old)-1] == q && !strings.HasPrefix(string(old), string([]rune{q, q, q}))
	if suggestion != "" && quoted && !strings.ContainsAny(suggestion, string(q)+"\\\n") {
		sp.Fixes = []dsl.Fix{{
			Title: fmt.Sprintf("replace %s with %s", string(old), string(q)+suggestion+string(q)),
			Pos:   e.PosAt(cmp.Offset), End: end,
			NewText: string(q) + suggestion + string(q),
		}}
	}
	return sp
}

// fieldSchema returns the schema of the field at path inside s, nil when
// the schema does not say (no properties, or a reference elsewhere).
func fieldSchema(s map[string]any, path []string) map[string]any {
	for _, k := range path {
		if s == nil {
			return nil
		}
		props, _ := s["properties"].(map[string]any)
		s, _ = props[k].(map[string]any)
	}
	if s == nil {
		return nil
	}
	if _, ref := s["$ref"]; ref {
		return nil
	}
	return s
}

// choicesOf returns the values schema s allows when it lists them: its
// enum, its const, or the consts of a oneOf or anyOf whose every
// alternative is one.
func choicesOf(s map[string]any) ([]any, bool) {
	if s == nil {
		return nil, false
	}
	if e, ok := s["enum"].([]any); ok && len(e) > 0 {
		return e, true
	}
	if c, ok := s["const"]; ok {
		return []any{c}, true
	}
	for _, k := range []string{"oneOf", "anyOf"} {
		alts, ok := s[k].([]any)
		if !ok || len(alts) == 0 {
			continue
		}
		var out []any
		for _, alt := range alts {
			m, _ := alt.(map[string]any)
			c, isConst := m["const"]
			if !isConst {
				return nil, false
			}
			out = append(out, c)
		}
		return out, true
	}
	return nil, false
}

// valueClass is the kind of JSON value x is, numbers as one.
func valueClass(x any) string {
	if _, ok := jsonx.Number(x); ok {
		return "number"
	}
	return jsonType(x)
}

// comparable reports whether lit has the kind of some of values.
func comparable(lit any, values []any) bool {
	for _, v := range values {
		if valueClass(v) == valueClass(lit) {
			return true
		}
	}
	return false
}

// sameValue reports whether two scalar JSON values are equal, numbers
// by value.
func sameValue(a, b any) bool {
	if x, ok := jsonx.Number(a); ok {
		y, ok := jsonx.Number(b)
		return ok && x == y
	}
	return a == b
}

// valuesList writes the values of an enum for messages: strings as they
// are, others as JSON.
func valuesList(values []any) string {
	parts := make([]string, len(values))
	for i, v := range values {
		if s, ok := v.(string); ok && s != "" && !strings.ContainsAny(s, ", ") {
			parts[i] = s
		} else {
			parts[i] = jsonText(v)
		}
	}
	return strings.Join(parts, ", ")
}
