package diff

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/flowserve/flowserve/dsl"
	"github.com/flowserve/flowserve/internal/jsonx"
	"github.com/flowserve/flowserve/schemas"
)

// input compares the input schemas: new must accept every call old
// accepted, and give runs in flight the same arguments.
func (c *comparer) input() {
	od, nd := schemaDoc(c.of.Input), schemaDoc(c.nf.Input)
	c.accepts(od, nd, "")
	c.defaults(od, nd)
}

// output compares the output schemas: what new returns must be what
// callers of old expect.
func (c *comparer) output() {
	switch {
	case c.of.Output == nil:
		if c.nf.Output != nil {
			c.schemaSay("", Compatible, "the tool now declares an output schema", "")
		}
	case c.nf.Output == nil:
		pos := toolPos(c.nf)
		c.say(nil, ChangeOutput, Breaking, pos, pos, "the tool no longer declares an output schema",
			"callers that read its structured content break")
	default:
		c.produces(c.of.Output.Value, c.nf.Output.Value, "")
	}
}

// schemaDoc returns the JSON Schema of the arguments.
func schemaDoc(s *dsl.Schema) map[string]any {
	if s == nil {
		return map[string]any{"type": "object"}
	}
	return s.Value
}

// subject names the input (or output) schema at path: the schema itself,
// or a property ("a.b", "a[]" for its items).
func subject(schema, path string) string {
	if path == "" {
		return "the " + schema
	}
	return fmt.Sprintf("%s property %q", schema, path)
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// propPos returns the position in f of the schema (input or output) at
// path: its top-level property, or the schema.
func propPos(f *dsl.File, s *dsl.Schema, path string) dsl.Pos {
	if s == nil {
		return toolPos(f)
	}
	top, _, _ := strings.Cut(path, ".")
	top = strings.TrimSuffix(top, "[]")
	for _, p := range s.Properties {
		if p.Value == top && path != "" {
			return p.Pos
		}
	}
	return s.Pos
}

// schemaSay adds a reason about the output schema at path.
func (c *comparer) schemaSay(path string, v Verdict, what, why string) {
	pos := propPos(c.nf, c.nf.Output, path)
	c.say(nil, ChangeOutput, v, pos, pos, what, why)
}

// inputSay adds a reason about the input schema at path.
func (c *comparer) inputSay(path string, ch Change, v Verdict, what, why string) {
	pos := propPos(c.nf, c.nf.Input, path)
	c.say(nil, ch, v, pos, pos, what, why)
}

// The JSON Schema keywords whose changes Compare does not work out: any
// change to them is taken to break callers.
var uncompared = []string{"allOf", "anyOf", "oneOf", "not", "if", "then", "else", "$ref", "$dynamicRef",
	"$defs", "definitions", "dependentRequired", "dependentSchemas", "dependencies", "patternProperties",
	"propertyNames", "prefixItems", "contains", "minContains", "maxContains", "unevaluatedProperties",
	"unevaluatedItems"}

// accepts reports each way input schema nd (new) accepts less than od
// (old) at path.
func (c *comparer) accepts(od, nd map[string]any, path string) {
	c.acceptsValues(od, nd, path)
	c.acceptsProperties(od, nd, path)
	c.acceptsUnlisted(od, nd, path)
	c.acceptsItems(od, nd, path)
}

// refused adds a Breaking reason about the input schema at path: it
// refuses calls the old version accepted.
func (c *comparer) refused(path, what string) {
	c.inputSay(path, ChangeInput, Breaking, what, "calls the old version accepted are refused")
}

// acceptsValues reports each keyword of input schema nd (new) at path
// that allows fewer values than od (old): its type, enum, const, bounds,
// pattern, format, multipleOf and uniqueItems, and any change to the
// keywords Compare does not work out.
func (c *comparer) acceptsValues(od, nd map[string]any, path string) {
	subj := subject("input", path)
	if ot, nt := schemas.Types(od), schemas.Types(nd); nt != nil && !covers(nt, ot) {
		c.refused(path, fmt.Sprintf("%s is now %s (it was %s)", subj, typeText(nt), typeText(ot)))
	}
	if ne, ok := nd["enum"].([]any); ok {
		oe, had := od["enum"].([]any)
		if lost := absent(oe, ne); !had || len(lost) > 0 {
			what := fmt.Sprintf("%s now allows only %s", subj, values(ne))
			if had {
				what = fmt.Sprintf("%s no longer allows %s", subj, values(lost))
			}
			c.refused(path, what)
		}
	}
	if nc, ok := nd["const"]; ok {
		if oc, had := od["const"]; !had || jsonSource(oc) != jsonSource(nc) {
			c.refused(path, fmt.Sprintf("%s must now be %s", subj, jsonSource(nc)))
		}
	}
	for _, k := range []string{"minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties"} {
		if nv, ok := jsonx.Number(nd[k]); ok {
			if ov, had := jsonx.Number(od[k]); !had || nv > ov {
				c.refused(path, fmt.Sprintf("%s has %s %s (%s)", subj, k, jsonSource(nd[k]), was(od, k)))
			}
		}
	}
	for _, k := range []string{"maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties"} {
		if nv, ok := jsonx.Number(nd[k]); ok {
			if ov, had := jsonx.Number(od[k]); !had || nv < ov {
				c.refused(path, fmt.Sprintf("%s has %s %s (%s)", subj, k, jsonSource(nd[k]), was(od, k)))
			}
		}
	}
	for _, k := range []string{"pattern", "format", "multipleOf"} {
		if nv, ok := nd[k]; ok && jsonSource(nv) != jsonSource(od[k]) {
			c.refused(path, fmt.Sprintf("%s has %s %s (%s)", subj, k, jsonSource(nv), was(od, k)))
		}
	}
	if nd["uniqueItems"] == true && od["uniqueItems"] != true {
		c.refused(path, subj+" now needs unique items")
	}
	for _, k := range uncompared {
		if jsonSource(od[k]) != jsonSource(nd[k]) {
			c.refused(path, fmt.Sprintf("%s changed its %s, which diff does not compare", subj, k))
		}
	}
}

// acceptsProperties reports the properties of input schema nd (new) at
// path that are newly required, removed or new, comparing those both
// schemas have property by property.
func (c *comparer) acceptsProperties(od, nd map[string]any, path string) {
	op, np := properties(od), properties(nd)
	oreq := stringList(od["required"])
	for _, name := range stringList(nd["required"]) {
		if slices.Contains(oreq, name) {
			continue
		}
		if _, has := np[name]["default"]; has && path == "" {
			continue // the default is applied first (see defaults)
		}
		p := join(path, name)
		what := fmt.Sprintf("%s is now required", subject("input", p))
		if _, had := op[name]; !had {
			what = fmt.Sprintf("%s is new and required", subject("input", p))
		}
		c.inputSay(p, ChangeInput, Breaking, what, "calls without it are refused")
	}
	closed := nd["additionalProperties"] == false
	for _, name := range slices.Sorted(maps.Keys(op)) {
		p := join(path, name)
		if ns, ok := np[name]; ok {
			c.accepts(op[name], ns, p)
			continue
		}
		pos := propPos(c.of, c.of.Input, p)
		at := propPos(c.nf, c.nf.Input, path)
		if closed {
			c.say(nil, ChangeInput, Breaking, pos, at, subject("input", p)+" was removed, and the input takes no other properties",
				"calls that send it are refused")
		} else {
			c.say(nil, ChangeInput, Compatible, pos, at, subject("input", p)+" was removed", "calls that send it are still accepted")
		}
	}
	for _, name := range slices.Sorted(maps.Keys(np)) {
		if _, ok := op[name]; !ok && !slices.Contains(stringList(nd["required"]), name) {
			p := join(path, name)
			c.inputSay(p, ChangeInput, Compatible, subject("input", p)+" is new and optional", "")
		}
	}
}

// acceptsUnlisted reports how input schema nd (new) at path takes less
// of the properties it does not list (additionalProperties) than od
// (old).
func (c *comparer) acceptsUnlisted(od, nd map[string]any, path string) {
	subj := subject("input", path)
	oa, na := od["additionalProperties"], nd["additionalProperties"]
	om, oIsMap := oa.(map[string]any)
	nm, nIsMap := na.(map[string]any)
	switch {
	case na == false && oa != false:
		c.refused(path, subj+" no longer takes properties it does not list")
	case nIsMap && oIsMap:
		c.accepts(om, nm, join(path, "*"))
	case nIsMap && oa != false:
		c.refused(path, subj+" now constrains properties it does not list")
	}
}

// acceptsItems reports how the items of input schema nd (new) at path
// accept less than those of od (old).
func (c *comparer) acceptsItems(od, nd map[string]any, path string) {
	oi, oIs := od["items"].(map[string]any)
	ni, nIs := nd["items"].(map[string]any)
	switch {
	case oIs && nIs:
		c.accepts(oi, ni, path+"[]")
	case nIs:
		c.refused(path, subject("input", path)+" now constrains its items")
	}
}

// defaults reports the top-level input defaults that changed. A run's
// arguments are bound to its state with the defaults applied, so a run
// in flight that left such a property out no longer matches its state.
func (c *comparer) defaults(od, nd map[string]any) {
	op, np := properties(od), properties(nd)
	names := slices.Sorted(maps.Keys(op))
	for _, n := range slices.Sorted(maps.Keys(np)) {
		if _, ok := op[n]; !ok {
			names = append(names, n)
		}
	}
	for _, name := range names {
		ov, oHas := op[name]["default"]
		nv, nHas := np[name]["default"]
		if oHas == nHas && (!oHas || jsonSource(ov) == jsonSource(nv)) {
			continue
		}
		var what string
		switch {
		case !nHas:
			what = fmt.Sprintf("%s no longer has a default (it was %s)", subject("input", name), jsonSource(ov))
		case !oHas:
			what = fmt.Sprintf("%s now has a default (%s)", subject("input", name), jsonSource(nv))
		default:
			what = fmt.Sprintf("%s has a new default, %s (it was %s)", subject("input", name), jsonSource(nv), jsonSource(ov))
		}
		if _, ok := np[name]; ok {
			c.inputSay(name, ChangeDefault, NewCallsOnly, what, "runs in flight that left it out no longer match the arguments their state was sealed with")
		} else {
			pos := propPos(c.of, c.of.Input, name)
			c.say(nil, ChangeDefault, NewCallsOnly, pos, propPos(c.nf, c.nf.Input, ""), what,
				"runs in flight that left it out no longer match the arguments their state was sealed with")
		}
	}
}

// produces reports each way output schema nd (new) promises less than
// od (old) at path.
func (c *comparer) produces(od, nd map[string]any, path string) {
	subj := subject("output", path)
	const breaks = "callers that read it break"
	if ot, nt := schemas.Types(od), schemas.Types(nd); ot != nil && (nt == nil || !covers(ot, nt)) {
		c.schemaSay(path, Breaking, fmt.Sprintf("%s is now %s (it was %s)", subj, typeText(nt), typeText(ot)), breaks)
	}
	if oe, ok := od["enum"].([]any); ok {
		ne, has := nd["enum"].([]any)
		if extra := absent(ne, oe); !has || len(extra) > 0 {
			what := subj + " may now hold any value"
			if has {
				what = fmt.Sprintf("%s may now be %s", subj, values(extra))
			}
			c.schemaSay(path, Breaking, what, breaks)
		}
	}
	op, np := properties(od), properties(nd)
	nreq := stringList(nd["required"])
	for _, name := range stringList(od["required"]) {
		if _, still := np[name]; still && !slices.Contains(nreq, name) {
			p := join(path, name)
			c.schemaSay(p, Breaking, subject("output", p)+" is no longer required", "callers that rely on it break")
		}
	}
	for _, name := range slices.Sorted(maps.Keys(op)) {
		p := join(path, name)
		if ns, ok := np[name]; ok {
			c.produces(op[name], ns, p)
			continue
		}
		pos := propPos(c.of, c.of.Output, p)
		c.say(nil, ChangeOutput, Breaking, pos, propPos(c.nf, c.nf.Output, path), subject("output", p)+" was removed", breaks)
	}
	for _, name := range slices.Sorted(maps.Keys(np)) {
		if _, ok := op[name]; !ok {
			p := join(path, name)
			c.schemaSay(p, Compatible, subject("output", p)+" is new", "")
		}
	}
	if oi, ok := od["items"].(map[string]any); ok {
		if ni, ok := nd["items"].(map[string]any); ok {
			c.produces(oi, ni, path+"[]")
		}
	}
}

// covers reports whether the types outer allow every value the types
// inner allow (nil is any type; a number covers an integer).
func covers(outer, inner []string) bool {
	if outer == nil {
		return true
	}
	if inner == nil {
		return false
	}
	for _, t := range inner {
		if !slices.Contains(outer, t) && !(t == "integer" && slices.Contains(outer, "number")) {
			return false
		}
	}
	return true
}

func typeText(ts []string) string {
	if ts == nil {
		return "of any type"
	}
	return article(ts[0]) + " " + strings.Join(ts, " or ")
}

// absent returns the values of want that have lacks.
func absent(want, have []any) []any {
	var out []any
	for _, w := range want {
		if !slices.ContainsFunc(have, func(h any) bool { return jsonSource(h) == jsonSource(w) }) {
			out = append(out, w)
		}
	}
	return out
}

func values(vs []any) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = jsonSource(v)
	}
	return list(parts)
}

// was says what a schema had for keyword k: "it was 3" or "it had none".
func was(s map[string]any, k string) string {
	if v, ok := s[k]; ok {
		return "it was " + jsonSource(v)
	}
	return "it had none"
}

// properties returns a schema's properties, each as a schema.
func properties(s map[string]any) map[string]map[string]any {
	out := map[string]map[string]any{}
	ps, _ := s["properties"].(map[string]any)
	for k, v := range ps {
		m, _ := v.(map[string]any)
		if m == nil {
			m = map[string]any{}
		}
		out[k] = m
	}
	return out
}

func stringList(v any) []string {
	var out []string
	l, _ := v.([]any)
	for _, e := range l {
		if s, ok := e.(string); ok {
			out = append(out, s)
		}
	}
	return out
}
