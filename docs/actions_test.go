package docs

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/flowserve/flowserve/actions"
	_ "github.com/flowserve/flowserve/actions/std" // the built-in actions
)

// TestActionsReference keeps docs/actions.md the rendering of the default
// registry (the built-in actions): it fails when the file is stale, and
// `go test ./docs -run TestActionsReference -update` rewrites it.
func TestActionsReference(t *testing.T) {
	want := renderActions(actions.Default().Actions())
	checkGenerated(t, "actions.md", want, "go test ./docs -run TestActionsReference -update")
}

// checkGenerated compares the file name of this directory with want, and
// with -update writes want to it instead.
func checkGenerated(t *testing.T, name, want, regenerate string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(name, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(name)
	if err != nil {
		t.Fatalf("%v: generate it with %s", err, regenerate)
	}
	if string(got) != want {
		t.Errorf("docs/%s is stale (the registry changed, or the file was edited by hand): regenerate it with\n\t%s\nand review the diff.\n%s",
			name, regenerate, firstDifference(string(got), want))
	}
}

// firstDifference describes the first line where got and want differ.
func firstDifference(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < len(g) || i < len(w); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return fmt.Sprintf("first difference at line %d:\n\tfile:      %q\n\tgenerated: %q", i+1, gl, wl)
		}
	}
	return ""
}

// renderActions writes the actions reference: an index, then each action
// with its summary, description and the fields of its input and output.
func renderActions(list []*actions.Action) string {
	var b strings.Builder
	b.WriteString(`# Actions reference

<!-- Generated from the action registry by docs/actions_test.go: do not edit.
     Regenerate with: go test ./docs -run TestActionsReference -update -->

The actions a ` + "`step`" + ` node can call in a stock ` + "`flowserve`" + ` build, as
` + "`flowserve actions`" + ` lists them (` + "`flowserve actions NAME`" + ` shows one,
` + "`--format json`" + ` gives the schemas). A step's ` + "`with`" + ` map is checked
against the action's input when the flow loads and again, rendered, before
the call; the result is checked against the output and is the step's value in
expressions (` + "`size.bytes`" + ` for a step ` + "`id: size`" + `). A custom build adds its
own actions: see [extending.md](extending.md).

Field paths name nested fields: ` + "`entries[].name`" + ` is the ` + "`name`" + ` of each item
of the list ` + "`entries`" + `.

| action | what it does |
|---|---|
`)
	for _, a := range list {
		fmt.Fprintf(&b, "| [`%s`](#%s) | %s |\n", a.Name, slug(a.Name), cell(a.Summary))
	}
	for _, a := range list {
		fmt.Fprintf(&b, "\n## %s\n\n%s\n", a.Name, strings.TrimSpace(a.Summary))
		if d := strings.TrimSpace(a.Description); d != "" {
			fmt.Fprintf(&b, "\n%s\n", d)
		}
		writeFieldTable(&b, "Input", a.Input)
		writeFieldTable(&b, "Output", a.Output)
	}
	return b.String()
}

// writeFieldTable writes a schema's fields as a table, or says what the
// value is when it has none.
func writeFieldTable(b *strings.Builder, label string, schema map[string]any) {
	var rows [][4]string
	collectFields(&rows, "", schema)
	if len(rows) == 0 {
		what := "an empty object"
		if d, _ := schema["description"].(string); d != "" {
			what = d
		} else if _, ok := schema["properties"]; !ok || schema["additionalProperties"] != false {
			what = typeText(schema)
		}
		fmt.Fprintf(b, "\n**%s:** %s\n", label, cell(what))
		return
	}
	fmt.Fprintf(b, "\n**%s**\n\n| field | type | rules | description |\n|---|---|---|---|\n", label)
	for _, r := range rows {
		fmt.Fprintf(b, "| `%s` | %s | %s | %s |\n", r[0], r[1], r[2], r[3])
	}
}

// collectFields adds a row per property of schema, and of the objects
// and lists of objects inside it, with its path.
func collectFields(rows *[][4]string, prefix string, schema map[string]any) {
	props, _ := schema["properties"].(map[string]any)
	required := map[string]bool{}
	if req, ok := schema["required"].([]any); ok {
		for _, r := range req {
			if s, ok := r.(string); ok {
				required[s] = true
			}
		}
	}
	names := make([]string, 0, len(props))
	for n := range props {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		p, _ := props[n].(map[string]any)
		path := prefix + n
		rules := ruleTexts(p)
		if required[n] {
			rules = append([]string{"required"}, rules...)
		}
		if d, ok := p["default"]; ok {
			j, _ := json.Marshal(d)
			rules = append(rules, "default `"+string(j)+"`")
		}
		desc, _ := p["description"].(string)
		*rows = append(*rows, [4]string{path, cell(typeText(p)), cell(strings.Join(rules, ", ")), cell(desc)})
		collectFields(rows, path+".", p)
		if items, ok := p["items"].(map[string]any); ok {
			collectFields(rows, path+"[].", items)
		}
	}
}

// typeText names a schema's type: string, list of objects, map of
// strings, one of "GET", "POST", or any.
func typeText(p map[string]any) string {
	if e, ok := p["enum"].([]any); ok {
		return "one of " + jsonValues(e)
	}
	if c, ok := p["const"]; ok {
		return "always " + jsonValues([]any{c})
	}
	for _, key := range []string{"oneOf", "anyOf"} {
		if alts, ok := p[key].([]any); ok {
			parts := make([]string, len(alts))
			for i, a := range alts {
				m, _ := a.(map[string]any)
				parts[i] = typeText(m)
			}
			return strings.Join(parts, " or ")
		}
	}
	switch t := p["type"].(type) {
	case string:
		switch t {
		case "array":
			if items, ok := p["items"].(map[string]any); ok {
				return "list of " + typeText(items)
			}
			return "list"
		case "object":
			if ap, ok := p["additionalProperties"].(map[string]any); ok {
				return "map of " + typeText(ap)
			}
			if _, ok := p["properties"]; !ok {
				return "map"
			}
		}
		return t
	case []any:
		parts := make([]string, len(t))
		for i, v := range t {
			parts[i] = fmt.Sprint(v)
		}
		return strings.Join(parts, " or ")
	}
	return "any JSON value"
}

// ruleTexts describes a schema's constraints.
func ruleTexts(p map[string]any) []string {
	var out []string
	bounds := func(lo, hi, unit string) {
		min, hasMin := p[lo]
		max, hasMax := p[hi]
		u := func(n any) string {
			if fmt.Sprint(n) == "1" {
				return strings.TrimSuffix(unit, "s")
			}
			return unit
		}
		switch {
		case hasMin && hasMax:
			out = append(out, fmt.Sprintf("%v to %v%s", min, max, u(max)))
		case hasMin:
			out = append(out, fmt.Sprintf("at least %v%s", min, u(min)))
		case hasMax:
			out = append(out, fmt.Sprintf("at most %v%s", max, u(max)))
		}
	}
	bounds("minLength", "maxLength", " characters")
	bounds("minimum", "maximum", "")
	bounds("minItems", "maxItems", " items")
	if v, ok := p["exclusiveMinimum"]; ok {
		out = append(out, fmt.Sprintf("more than %v", v))
	}
	if v, ok := p["exclusiveMaximum"]; ok {
		out = append(out, fmt.Sprintf("less than %v", v))
	}
	if f, ok := p["format"].(string); ok {
		out = append(out, "format "+f)
	}
	if re, ok := p["pattern"].(string); ok {
		out = append(out, "matching `"+re+"`")
	}
	if p["uniqueItems"] == true {
		out = append(out, "no duplicates")
	}
	return out
}

func jsonValues(vs []any) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		j, _ := json.Marshal(v)
		parts[i] = "`" + string(j) + "`"
	}
	return strings.Join(parts, ", ")
}

// cell makes text fit in one markdown table cell.
func cell(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	return strings.ReplaceAll(s, "|", `\|`)
}
