package check

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/flowserve/flowserve/check/codes"
	"github.com/flowserve/flowserve/dsl"
	"github.com/flowserve/flowserve/lang"
	"github.com/flowserve/flowserve/schemas"
)

// Values that flow into a schema (a step's or a call's with, a return's
// structured) are checked in two halves. check.File checks what is known
// before any expression is typed: keys, lengths, literals, and templates
// mixing text and expressions, which are strings (with-value,
// structured-value). typeValue checks the rest: each template that is one
// whole expression, which keeps the expression's type, against the
// schema at its place (type-error, at the expression). A type the checker
// does not know (dyn) fits everywhere: only a value that cannot fit is
// reported.

// valueTarget is the schema a value flows into and what owns it, for
// messages.
type valueTarget struct {
	schema map[string]any
	root   string // the value's key in the file: "with", "structured"
	by     string // the schema's owner: "action time.sleep", "flow confirm", "the output schema"
}

// typeValue reports each part of v that is one whole expression whose
// static type the schema at its place does not allow.
func (t *typer) typeValue(v *dsl.Value, to valueTarget) {
	if to.schema == nil {
		return
	}
	start := len(t.diags)
	t.typeValueAt(v, to.schema, nil, to)
	// An expression that breaks two parts of the schema (its properties
	// and an allOf's) is reported once, for the first.
	seen := map[dsl.Pos]bool{}
	kept := t.diags[:start]
	for _, d := range t.diags[start:] {
		if !seen[d.Pos] {
			seen[d.Pos] = true
			kept = append(kept, d)
		}
	}
	t.diags = kept
}

// typeValueAt is typeValue for the part v of the value at path (keys and
// list indexes below the root), whose schema is want.
func (t *typer) typeValueAt(v *dsl.Value, want map[string]any, path []string, to valueTarget) {
	if v == nil || want == nil {
		return
	}
	if v.Kind != dsl.ValueTemplate { // misfit looks into allOf itself
		for _, sub := range listOfAny(want["allOf"]) {
			if m, ok := sub.(map[string]any); ok {
				t.typeValueAt(v, m, path, to)
			}
		}
	}
	switch v.Kind {
	case dsl.ValueTemplate:
		var w *dsl.Expr
		if v.Template != nil {
			w = v.Template.Whole()
		}
		if w == nil || t.info.Programs[w] == nil {
			return // text, or an expression that does not compile (reported)
		}
		got := t.info.Programs[w].Schema()
		if below, ws, gs, bad := misfit(want, got); bad {
			t.errorf(w.Pos, codes.TypeError, "%s: %s takes %s there, not %s",
				valueLabel(to.root, append(slices.Clip(path), below...)), to.by, typesName(ws), lang.TypeName(gs))
		}
	case dsl.ValueMap:
		props, _ := want["properties"].(map[string]any)
		extra := additional(want)
		for i, key := range v.Keys {
			sub, _ := props[key].(map[string]any)
			if _, declared := props[key]; !declared {
				sub = extra
			}
			if i < len(v.Map) {
				t.typeValueAt(v.Map[i], sub, append(slices.Clip(path), "."+key), to)
			}
		}
	case dsl.ValueList:
		if _, prefixed := want["prefixItems"]; prefixed {
			return
		}
		items, _ := want["items"].(map[string]any)
		for i, e := range v.List {
			t.typeValueAt(e, items, append(slices.Clip(path), "["+strconv.Itoa(i)+"]"), to)
		}
	}
}

// misfit reports whether a value of the type got (a schema from
// lang.Program.Schema) cannot have the type want asks for, on any run:
// below is the path inside the value where it cannot (a field, "" for
// the value itself) and ws and gs the schemas there. Dyn, null and an
// unknown want fit; an integer fits a number and a number an integer (a
// whole number is one); a list fits when its items do; an object when
// each of its fields fits want's schema for that field.
func misfit(want, got map[string]any) (below []string, ws, gs map[string]any, bad bool) {
	g := singleType(got)
	if g == "" || g == "null" || want == nil {
		return nil, nil, nil, false
	}
	for _, sub := range listOfAny(want["allOf"]) {
		if m, ok := sub.(map[string]any); ok {
			if below, ws, gs, bad := misfit(m, got); bad {
				return below, ws, gs, true
			}
		}
	}
	if allowed := schemas.Types(want); allowed != nil && !slices.ContainsFunc(allowed, func(w string) bool { return kindFits(w, g) }) {
		return nil, want, got, true
	}
	switch g {
	case "array":
		wi, _ := want["items"].(map[string]any)
		gi, _ := got["items"].(map[string]any)
		if _, prefixed := want["prefixItems"]; !prefixed && wi != nil {
			if _, _, _, bad := misfit(wi, gi); bad {
				return nil, want, got, true // named as lists: "a list of integers"
			}
		}
	case "object":
		wp, _ := want["properties"].(map[string]any)
		wx := additional(want)
		gp, _ := got["properties"].(map[string]any)
		if gx, ok := got["additionalProperties"].(map[string]any); ok && wx != nil {
			if _, _, _, bad := misfit(wx, gx); bad {
				return nil, want, got, true // named as maps: "a map of strings"
			}
		}
		for _, name := range slices.Sorted(maps.Keys(gp)) {
			wf, _ := wp[name].(map[string]any)
			if _, has := wp[name]; !has {
				wf = wx
			}
			gf, _ := gp[name].(map[string]any)
			if wf == nil {
				continue
			}
			if below, ws, gs, bad := misfit(wf, gf); bad {
				return append([]string{"." + name}, below...), ws, gs, true
			}
		}
	}
	return nil, nil, nil, false
}

// additional returns the schema of s for the keys its properties do not
// name, or nil when that is not one schema: none, or patternProperties
// that may take some of those keys instead.
func additional(s map[string]any) map[string]any {
	if _, patterns := s["patternProperties"]; patterns {
		return nil
	}
	extra, _ := s["additionalProperties"].(map[string]any)
	return extra
}

// kindFits reports whether a value of JSON type got may have JSON type
// want: the same type, or numbers either way.
func kindFits(want, got string) bool {
	num := func(t string) bool { return t == "integer" || t == "number" }
	return want == got || num(want) && num(got)
}

// singleType returns the JSON type of a schema lang.Program.Schema gives,
// or "" when it is dynamic or not one type.
func singleType(s map[string]any) string {
	t, _ := s["type"].(string)
	return t
}

// typesName names the type a schema asks for, for messages: "an
// integer", "a list of strings", "a string or null".
func typesName(s map[string]any) string {
	allowed := schemas.Types(s)
	if len(allowed) < 2 {
		return typeName(s)
	}
	names := make([]string, len(allowed))
	for i, t := range allowed {
		one := map[string]any{"type": t}
		for _, k := range []string{"items", "properties", "additionalProperties"} {
			if x, ok := s[k]; ok {
				one[k] = x
			}
		}
		names[i] = typeName(one)
	}
	if len(names) == 2 {
		return names[0] + " or " + names[1]
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// typeName is lang.TypeName in the words of JSON Schema where they
// differ: "an object" for an object without properties (a map), "null".
func typeName(s map[string]any) string {
	switch s["type"] {
	case "null":
		return "null"
	case "object":
		if _, has := s["properties"]; !has {
			if _, typed := s["additionalProperties"].(map[string]any); !typed {
				return "an object"
			}
		}
	}
	return lang.TypeName(s)
}

// valueLabel names the part of a value at path for messages: "with",
// "with seconds", "structured info.count", "with items[2]".
func valueLabel(root string, path []string) string {
	if len(path) == 0 {
		return root
	}
	return root + " " + strings.TrimPrefix(strings.Join(path, ""), ".")
}

// listOfAny returns x as a list, or nil.
func listOfAny(x any) []any {
	l, _ := x.([]any)
	return l
}

// typeWith reports each part of the with of a call or link that is one
// whole expression whose type the callee's input schema does not allow
// there (typeValue; Calls checks the literals and the text).
// Nothing is reported when the callee is not found: Calls reports
// that.
func (t *typer) typeWith(call *dsl.Call) {
	if t.callees == nil {
		return
	}
	callee := t.callees(call.Flow.Value)
	if callee == nil || callee.Input == nil {
		return
	}
	t.typeValue(call.With, valueTarget{schema: callee.Input.Value, root: "with", by: "flow " + callee.Name.Value})
}
