package lsp

import (
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/flowserve/flowserve/actions"
	"github.com/flowserve/flowserve/lang"
)

// segmentRE matches one step of a path after its root: a field (.name or
// ?.name) or an index ([...]).
var segmentRE = regexp.MustCompile(`\??\.([A-Za-z_$][\w$]*)|\[[^\[\]]*\]`)

// rootRE matches the root of a path.
var rootRE = regexp.MustCompile(`^[A-Za-z_$][\w$]*`)

// pathSchema returns the schema of the value a path (confirm.content.plan,
// input.items[0].name) has in the flow's scope, walking the variable's
// JSON Schema; when the walk cannot follow the path it compiles the path
// and takes the type checker's schema. ok is false when neither knows
// the path.
func (a *analysis) pathSchema(path string) (map[string]any, bool) {
	if s, ok := a.walkPath(path); ok {
		return s, true
	}
	env := a.environment()
	if env == nil {
		return nil, false
	}
	prg, errs := env.Compile(path, false)
	if len(errs) > 0 || prg == nil {
		return nil, false
	}
	return prg.Schema(), true
}

// walkPath follows path through the schemas of the scope.
func (a *analysis) walkPath(path string) (map[string]any, bool) {
	root := rootRE.FindString(path)
	v, ok := a.variable(root)
	if root == "" || !ok {
		return nil, false
	}
	s := v.Schema
	rest := path[len(root):]
	for rest != "" {
		loc := segmentRE.FindStringSubmatchIndex(rest)
		if loc == nil || loc[0] != 0 {
			return nil, false
		}
		if loc[2] >= 0 {
			if s, ok = property(s, rest[loc[2]:loc[3]]); !ok {
				return nil, false
			}
		} else if s, ok = element(s); !ok {
			return nil, false
		}
		rest = rest[loc[1]:]
	}
	return s, true
}

// property returns the schema of an object schema's field name: a
// declared property, else its additionalProperties schema; the first
// anyOf or oneOf alternative that has it.
func property(s map[string]any, name string) (map[string]any, bool) {
	if props, ok := s["properties"].(map[string]any); ok {
		if p, ok := props[name].(map[string]any); ok {
			return p, true
		}
	}
	if ap, ok := s["additionalProperties"].(map[string]any); ok {
		return ap, true
	}
	for _, alt := range alternatives(s) {
		if p, ok := property(alt, name); ok {
			return p, true
		}
	}
	return nil, false
}

// element returns the schema of an item of a list schema, or of a value
// of a map schema.
func element(s map[string]any) (map[string]any, bool) {
	if items, ok := s["items"].(map[string]any); ok {
		return items, true
	}
	if ap, ok := s["additionalProperties"].(map[string]any); ok {
		return ap, true
	}
	return nil, false
}

// alternatives returns a schema's anyOf and oneOf alternatives.
func alternatives(s map[string]any) []map[string]any {
	var out []map[string]any
	for _, key := range []string{"anyOf", "oneOf"} {
		alts, _ := s[key].([]any)
		for _, alt := range alts {
			if m, ok := alt.(map[string]any); ok {
				out = append(out, m)
			}
		}
	}
	return out
}

// fields returns the declared properties of an object schema (its
// alternatives' too), by name.
func fields(s map[string]any) map[string]map[string]any {
	out := map[string]map[string]any{}
	if props, ok := s["properties"].(map[string]any); ok {
		for n, p := range props {
			m, _ := p.(map[string]any)
			out[n] = m
		}
	}
	for _, alt := range alternatives(s) {
		for n, p := range fields(alt) {
			if _, ok := out[n]; !ok {
				out[n] = p
			}
		}
	}
	return out
}

// describe names a schema's type for the editor: "string, one of free,
// team", "integer, 1 to 10", "list of strings", "object with fields a, b",
// "any value". The notes, such as "required", come after the type and
// before its rules.
func describe(s map[string]any, notes ...string) string {
	base := actions.SchemaType(withoutChoices(s))
	if base == "any JSON value" {
		switch t := lang.TypeName(s); {
		case strings.HasPrefix(t, "an object with"):
			base = "object with" + strings.TrimPrefix(t, "an object with")
		case t != "any value":
			base = strings.TrimPrefix(strings.TrimPrefix(t, "an "), "a ")
		default:
			base = "any value"
		}
	} else if base == "object" {
		names := slices.Sorted(maps.Keys(fields(s)))
		if len(names) > 0 {
			base = "object with fields " + strings.Join(names, ", ")
		}
	}
	parts := append([]string{base}, notes...)
	if e, ok := s["enum"].([]any); ok {
		parts = append(parts, "one of "+choiceList(e))
	}
	if c, ok := s["const"]; ok {
		parts = append(parts, "always "+choiceList([]any{c}))
	}
	parts = append(parts, actions.SchemaRules(s)...)
	return strings.Join(parts, ", ")
}

// withoutChoices returns s without enum and const, so that its type is
// named by its type keyword.
func withoutChoices(s map[string]any) map[string]any {
	if _, ok := s["enum"]; !ok {
		if _, ok := s["const"]; !ok {
			return s
		}
	}
	out := make(map[string]any, len(s))
	for k, v := range s {
		if k != "enum" && k != "const" {
			out[k] = v
		}
	}
	if _, ok := out["type"]; !ok {
		if t := lang.TypeName(s); t == "a string" {
			out["type"] = "string"
		}
	}
	return out
}

// plainWordRE matches a string shown without quotes in a list of choices.
var plainWordRE = regexp.MustCompile(`^[\w.@/+-]+$`)

// choiceList lists values: plain words as they are, other values as JSON.
func choiceList(vs []any) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		if s, ok := v.(string); ok && plainWordRE.MatchString(s) {
			parts[i] = s
			continue
		}
		b, err := json.Marshal(v)
		if err != nil {
			b = []byte(fmt.Sprint(v))
		}
		parts[i] = string(b)
	}
	return strings.Join(parts, ", ")
}

// schemaDoc returns a schema's description and title, for documentation.
func schemaDoc(s map[string]any) string {
	var parts []string
	if t, ok := s["title"].(string); ok && t != "" {
		parts = append(parts, t)
	}
	if d, ok := s["description"].(string); ok && d != "" {
		parts = append(parts, d)
	}
	return strings.Join(parts, "\n\n")
}

// fieldList renders the fields of an action's schema as a markdown list.
func fieldList(s map[string]any) string {
	var b strings.Builder
	for _, f := range actions.SchemaFields(s) {
		var notes []string
		if f.Required {
			notes = append(notes, "required")
		}
		fmt.Fprintf(&b, "- `%s` %s", f.Path, describe(f.Schema, notes...))
		if d, ok := f.Schema["description"].(string); ok && d != "" {
			fmt.Fprintf(&b, " — %s", d)
		}
		b.WriteByte('\n')
	}
	if b.Len() == 0 {
		return "(no fields)\n"
	}
	return b.String()
}
