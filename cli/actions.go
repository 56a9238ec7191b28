package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/flowserve/flowserve/actions"
	"github.com/flowserve/flowserve/dsl"
)

// runActions lists the actions of the default registry, or shows one in
// full.
func runActions(ctx context.Context, env *Env) int {
	fs := flag.NewFlagSet("flowserve actions", flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	format := fs.String("format", "text", "output format: text or json")
	fs.Usage = func() {
		fmt.Fprintln(env.Stderr, "usage: flowserve actions [--format text|json] [NAME]")
		fmt.Fprintln(env.Stderr, "\nLists every registered action with its summary, description and the fields of")
		fmt.Fprintln(env.Stderr, "its input and output. With NAME, shows that action in full: its input and")
		fmt.Fprintln(env.Stderr, "output schemas field by field, nested fields and constraints included.")
		fs.PrintDefaults()
	}
	args, err := flagsAndArgs(fs, env.Args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if *format != "text" && *format != "json" {
		fmt.Fprintf(env.Stderr, "flowserve actions: --format must be text or json, not %q\n", *format)
		return exitUsage
	}
	reg := actions.Default()
	switch len(args) {
	case 0:
		list := reg.Actions()
		if *format == "json" {
			return writeActionsJSON(env.Stdout, env.Stderr, list)
		}
		writeActionsText(env.Stdout, list)
		return exitOK
	case 1:
	default:
		fmt.Fprintf(env.Stderr, "flowserve actions: unexpected argument %q (name one action)\n", args[1])
		fs.Usage()
		return exitUsage
	}
	a, ok := reg.Lookup(args[0])
	if !ok {
		fmt.Fprintf(env.Stderr, "flowserve actions: %s\n", unknownAction(args[0], reg.Actions()))
		return exitUsage
	}
	if *format == "json" {
		return writeJSON(env.Stdout, env.Stderr, toActionJSON(a))
	}
	writeAction(env.Stdout, a)
	return exitOK
}

// unknownAction says that no action is called name, with the closest
// name, or the names there are when none is close.
func unknownAction(name string, list []*actions.Action) string {
	names := make([]string, len(list))
	for i, a := range list {
		names[i] = a.Name
	}
	if s := dsl.Suggest(name, names); s != "" {
		return fmt.Sprintf("no action %q; did you mean %q?", name, s)
	}
	return fmt.Sprintf("no action %q (the actions are %s; run 'flowserve actions' for the list)", name, strings.Join(names, ", "))
}

type actionJSON struct {
	Name        string         `json:"name"`
	Summary     string         `json:"summary"`
	Description string         `json:"description,omitempty"`
	Input       map[string]any `json:"input"`
	Output      map[string]any `json:"output"`
}

func toActionJSON(a *actions.Action) actionJSON {
	return actionJSON{a.Name, a.Summary, a.Description, a.Input, a.Output}
}

// writeActionsJSON writes the listing as one JSON array.
func writeActionsJSON(stdout, stderr io.Writer, list []*actions.Action) int {
	out := make([]actionJSON, 0, len(list))
	for _, a := range list {
		out = append(out, toActionJSON(a))
	}
	return writeJSON(stdout, stderr, out)
}

// writeJSON writes v as indented JSON.
func writeJSON(stdout, stderr io.Writer, v any) int {
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		fmt.Fprintf(stderr, "flowserve actions: %v\n", err)
		return exitFail
	}
	return exitOK
}

// writeActionsText writes the listing: each action's name, summary and
// description, and the top-level fields of its input and output.
func writeActionsText(w io.Writer, list []*actions.Action) {
	for i, a := range list {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "%s\n  %s\n", a.Name, a.Summary)
		if a.Description != "" {
			writeWrapped(w, a.Description, "  ")
		}
		writeFields(w, "input", a.Input)
		writeFields(w, "output", a.Output)
	}
}

// writeFields prints the top-level properties of an object schema, one
// per line: name, type, whether it is required, and its description.
func writeFields(w io.Writer, label string, schema map[string]any) {
	props, _ := schema["properties"].(map[string]any)
	if len(props) == 0 {
		typ, _ := schema["type"].(string)
		if typ == "" {
			typ = "any"
		}
		fmt.Fprintf(w, "  %s: %s\n", label, typ)
		return
	}
	fmt.Fprintf(w, "  %s:\n", label)
	for _, f := range actions.SchemaFields(schema) {
		if strings.ContainsAny(f.Path, ".[") {
			continue // the listing shows the top level only
		}
		n, p := f.Path, f.Schema
		typ := actions.SchemaType(p)
		var extra []string
		if f.Required {
			extra = append(extra, "required")
		}
		if d, ok := p["default"]; ok {
			b, _ := json.Marshal(d)
			extra = append(extra, "default "+string(b))
		}
		if len(extra) > 0 {
			typ += ", " + strings.Join(extra, ", ")
		}
		desc, _ := p["description"].(string)
		fmt.Fprintf(w, "    %-12s %s  %s\n", n, "("+typ+")", desc)
	}
}

// writeAction shows one action in full: its name and summary, its
// description, then its input and output schemas field by field.
func writeAction(w io.Writer, a *actions.Action) {
	fmt.Fprintf(w, "%s\n  %s\n", a.Name, a.Summary)
	if a.Description != "" {
		fmt.Fprintln(w)
		writeWrapped(w, a.Description, "  ")
	}
	for _, part := range []struct {
		label  string
		schema map[string]any
	}{{"input", a.Input}, {"output", a.Output}} {
		fmt.Fprintf(w, "\n%s: %s\n", part.label, schemaSummary(part.schema, false))
		writeSchemaFields(w, part.schema)
	}
}

// wrapWidth is the width descriptions are wrapped to.
const wrapWidth = 80

// writeWrapped writes text with each line after indent, paragraphs
// (separated by blank lines) wrapped to wrapWidth. A paragraph with a
// line that starts a list item, a code fence or indented code keeps its
// lines as they are.
func writeWrapped(w io.Writer, text, indent string) {
	for i, para := range strings.Split(strings.TrimSpace(text), "\n\n") {
		if i > 0 {
			fmt.Fprintln(w)
		}
		lines := strings.Split(para, "\n")
		if preformatted(lines) {
			for _, l := range lines {
				fmt.Fprintln(w, strings.TrimRight(indent+l, " "))
			}
			continue
		}
		line := indent
		for _, word := range wrapWords(para) {
			if line != indent && len(line)+1+len(word) > wrapWidth {
				fmt.Fprintln(w, line)
				line = indent
			}
			if line != indent {
				line += " "
			}
			line += word
		}
		fmt.Fprintln(w, line)
	}
}

// wrapWords splits a paragraph into the words wrapping may break between:
// a markdown code span (`{{ run.id }}`) stays one word.
func wrapWords(para string) []string {
	var out []string
	open := false // inside a code span
	for _, word := range strings.Fields(para) {
		if open {
			out[len(out)-1] += " " + word
		} else {
			out = append(out, word)
		}
		if strings.Count(word, "`")%2 == 1 {
			open = !open
		}
	}
	return out
}

// preformatted reports whether a markdown paragraph's lines must be kept
// as they are: a list, a code fence or indented code.
func preformatted(lines []string) bool {
	for _, l := range lines {
		t := strings.TrimLeft(l, " ")
		if strings.HasPrefix(l, "    ") || strings.HasPrefix(l, "\t") || strings.HasPrefix(t, "```") ||
			strings.HasPrefix(t, "- ") || strings.HasPrefix(t, "* ") {
			return true
		}
	}
	return false
}

// writeSchemaFields writes the properties of an object schema, and those
// of the objects and lists of objects in them, one field per line with
// its path (entries[].name), its type and rules, then its description.
func writeSchemaFields(w io.Writer, schema map[string]any) {
	for _, f := range actions.SchemaFields(schema) {
		fmt.Fprintf(w, "  %s  %s\n", f.Path, schemaSummary(f.Schema, f.Required))
		if d, _ := f.Schema["description"].(string); d != "" {
			writeWrapped(w, d, "      ")
		}
	}
}

// schemaSummary describes a schema in one line: its type, then whether
// it is required, its default and its rules ("string, required, at
// least 1 character").
func schemaSummary(p map[string]any, required bool) string {
	parts := []string{actions.SchemaType(p)}
	if required {
		parts = append(parts, "required")
	}
	if d, ok := p["default"]; ok {
		b, _ := json.Marshal(d)
		parts = append(parts, "default "+string(b))
	}
	parts = append(parts, actions.SchemaRules(p)...)
	return strings.Join(parts, ", ")
}
