package docs

import (
	"encoding/json"
	"fmt"
	"os"
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
	fields := actions.SchemaFields(schema)
	if len(fields) == 0 {
		what := "an empty object"
		if d, _ := schema["description"].(string); d != "" {
			what = d
		} else if _, ok := schema["properties"]; !ok || schema["additionalProperties"] != false {
			what = actions.SchemaType(schema)
		}
		fmt.Fprintf(b, "\n**%s:** %s\n", label, cell(what))
		return
	}
	fmt.Fprintf(b, "\n**%s**\n\n| field | type | rules | description |\n|---|---|---|---|\n", label)
	for _, f := range fields {
		rules := actions.SchemaRules(f.Schema)
		if f.Required {
			rules = append([]string{"required"}, rules...)
		}
		if d, ok := f.Schema["default"]; ok {
			j, _ := json.Marshal(d)
			rules = append(rules, "default `"+string(j)+"`")
		}
		desc, _ := f.Schema["description"].(string)
		fmt.Fprintf(b, "| `%s` | %s | %s | %s |\n", f.Path, cell(actions.SchemaType(f.Schema)), cell(strings.Join(rules, ", ")), cell(desc))
	}
}

// cell makes text fit in one markdown table cell.
func cell(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	return strings.ReplaceAll(s, "|", `\|`)
}
