package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/flowserve/flowserve/actions"
)

// runActions lists the actions of the default registry.
func runActions(ctx context.Context, env *Env) int {
	fs := flag.NewFlagSet("flowserve actions", flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	format := fs.String("format", "text", "output format: text or json")
	fs.Usage = func() {
		fmt.Fprintln(env.Stderr, "usage: flowserve actions [--format text|json]")
		fmt.Fprintln(env.Stderr, "\nLists every registered action with its summary and its input and output schemas.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(env.Args); err != nil {
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(env.Stderr, "flowserve actions: unexpected argument %q\n", fs.Arg(0))
		return exitUsage
	}
	list := actions.Default().Actions()
	switch *format {
	case "json":
		return writeActionsJSON(env.Stdout, env.Stderr, list)
	case "text":
		writeActionsText(env.Stdout, list)
		return exitOK
	}
	fmt.Fprintf(env.Stderr, "flowserve actions: --format must be text or json, not %q\n", *format)
	return exitUsage
}

type actionJSON struct {
	Name        string         `json:"name"`
	Summary     string         `json:"summary"`
	Description string         `json:"description,omitempty"`
	Input       map[string]any `json:"input"`
	Output      map[string]any `json:"output"`
}

func writeActionsJSON(stdout, stderr io.Writer, list []*actions.Action) int {
	out := make([]actionJSON, 0, len(list))
	for _, a := range list {
		out = append(out, actionJSON{a.Name, a.Summary, a.Description, a.Input, a.Output})
	}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		fmt.Fprintf(stderr, "flowserve actions: %v\n", err)
		return exitFail
	}
	return exitOK
}

func writeActionsText(w io.Writer, list []*actions.Action) {
	for i, a := range list {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "%s\n  %s\n", a.Name, a.Summary)
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
	fmt.Fprintf(w, "  %s:\n", label)
	for _, n := range names {
		p, _ := props[n].(map[string]any)
		typ := schemaTypeText(p)
		var extra []string
		if required[n] {
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

func schemaTypeText(p map[string]any) string {
	switch t := p["type"].(type) {
	case string:
		if t == "array" {
			if items, ok := p["items"].(map[string]any); ok {
				return "array of " + schemaTypeText(items)
			}
		}
		if e, ok := p["enum"].([]any); ok {
			parts := make([]string, len(e))
			for i, v := range e {
				parts[i] = fmt.Sprint(v)
			}
			return t + ": " + strings.Join(parts, "|")
		}
		return t
	case []any:
		parts := make([]string, len(t))
		for i, v := range t {
			parts[i] = fmt.Sprint(v)
		}
		return strings.Join(parts, "|")
	}
	return "any"
}
