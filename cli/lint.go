package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"

	"github.com/flowserve/flowserve/actions"
	"github.com/flowserve/flowserve/dsl"
	"github.com/flowserve/flowserve/flow"
	"github.com/flowserve/flowserve/flow/state"
)

// runLint checks flow files and resource declarations and prints their
// diagnostics.
//
// Behaviour:
//   - PATH is a flow file (any name; it stands for itself), a resource
//     declaration file (resources.yaml, *.resources.yaml) or a directory,
//     searched recursively for both: *.yaml and *.yml files except tests
//     (*_test.yaml, *_test.yml) and hidden directories. Declarations are
//     checked with resources.Parse and, together, resources.Check.
//   - Without a PATH it lints flows/, as serve does; when there is no
//     flows/ directory that is a usage error.
//   - A PATH that does not exist, or paths that hold neither flow files
//     nor resource declarations, are usage errors (exit 2): nothing was
//     linted.
//   - Each file runs through dsl.Parse, dsl.Check and, when Parse found no
//     errors, flow.Compile (which type-checks expressions). Tool names
//     defined by more than one file are errors (serve refuses them too).
//   - Diagnostics are sorted by file, line, column, severity, code and
//     message; exact repeats are dropped, and so is a Compile diagnostic
//     at the position and with the code of one Parse or Check made (the
//     same problem, found twice).
//   - Text output: one diagnostic per line on stdout, then a summary line
//     on stderr ("2 errors, 1 warning in 3 files"). JSON output: one array
//     of {file, line, col, severity, code, message} on stdout, no summary.
//   - Exit status: 0 when there are no errors (warnings allowed), 1 when
//     there are errors (a file that cannot be read is one), 2 on usage
//     errors.
func runLint(ctx context.Context, env *Env) int {
	fs := flag.NewFlagSet("flowserve lint", flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	format := fs.String("format", "text", "output format: text or json")
	fs.Usage = func() {
		fmt.Fprintln(env.Stderr, "usage: flowserve lint [--format text|json] [PATH...]")
		fmt.Fprintln(env.Stderr, "\nChecks flow files and resource declarations (directories recursively; default:")
		fmt.Fprintln(env.Stderr, "flows/) and prints one diagnostic per line, file:line:col: error|warning:")
		fmt.Fprintln(env.Stderr, "message [code].")
		fmt.Fprintln(env.Stderr, "Exits 1 when there are errors, 2 on usage errors.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(env.Args); err != nil {
		return exitUsage
	}
	if *format != "text" && *format != "json" {
		fmt.Fprintf(env.Stderr, "flowserve lint: --format must be text or json, not %q\n", *format)
		return exitUsage
	}
	paths := fs.Args()
	if len(paths) == 0 {
		if info, err := os.Stat("flows"); err != nil || !info.IsDir() {
			fmt.Fprintln(env.Stderr, "flowserve lint: no paths given and no flows/ directory here")
			fs.Usage()
			return exitUsage
		}
		paths = []string{"flows"}
	}
	files, err := flowFiles(paths)
	if err != nil {
		fmt.Fprintf(env.Stderr, "flowserve lint: %v\n", err)
		return exitUsage
	}
	resFiles, err := resourceFiles(paths)
	if err != nil {
		fmt.Fprintf(env.Stderr, "flowserve lint: %v\n", err)
		return exitUsage
	}
	if len(files)+len(resFiles) == 0 {
		fmt.Fprintf(env.Stderr, "flowserve lint: no flow files (*.yaml, *.yml) or resource declarations in %s\n", strings.Join(paths, ", "))
		return exitUsage
	}
	var (
		srcs, resSrcs []lintSource
		readErrs      int
	)
	read := func(files []string, into *[]lintSource) {
		for _, path := range files {
			src, err := os.ReadFile(path)
			if err != nil {
				fmt.Fprintf(env.Stderr, "flowserve lint: %v\n", err)
				readErrs++
				continue
			}
			*into = append(*into, lintSource{path: path, src: src})
		}
	}
	read(files, &srcs)
	read(resFiles, &resSrcs)
	diags, err := lintSources(srcs, actions.Default())
	if err != nil {
		fmt.Fprintf(env.Stderr, "flowserve lint: %v\n", err)
		return exitFail
	}
	_, resDiags := parseResources(resSrcs)
	diags = append(diags, resDiags...)
	diags.Sort()
	switch *format {
	case "json":
		if err := writeDiagnosticsJSON(env.Stdout, diags); err != nil {
			fmt.Fprintf(env.Stderr, "flowserve lint: %v\n", err)
			return exitFail
		}
	default:
		printDiagnostics(env.Stdout, diags)
		fmt.Fprintln(env.Stderr, summary(diags, len(files)+len(resFiles)))
	}
	if diags.HasErrors() || readErrs > 0 {
		return exitFail
	}
	return exitOK
}

// lintSource is a flow file's path and content.
type lintSource struct {
	path string
	src  []byte
}

// lintSources lints flow files together: each on its own, then the tool
// names across them. The diagnostics are sorted.
func lintSources(srcs []lintSource, reg *actions.Registry) (dsl.Diagnostics, error) {
	ring, err := state.EphemeralKeyRing()
	if err != nil {
		return nil, err
	}
	opts := flow.Options{Actions: reg, Codec: state.NewCodec(ring, state.Options{})}
	var all dsl.Diagnostics
	var files []*dsl.File
	for _, s := range srcs {
		f, _, ds, err := lintFlow(s.path, s.src, opts)
		if err != nil {
			return nil, err
		}
		all = append(all, ds...)
		files = append(files, f)
	}
	all = append(all, duplicateTools(files)...)
	all.Sort()
	return all, nil
}

// lintFlow parses, checks and compiles one flow file. It returns the
// parsed file (nil when the YAML cannot be read), the program (nil when
// there are errors), and the diagnostics of every stage, sorted and
// without repeats. err is for failures that are not the flow's fault.
func lintFlow(path string, src []byte, opts flow.Options) (*dsl.File, *flow.Program, dsl.Diagnostics, error) {
	f, diags := dsl.Parse(path, src)
	if f == nil {
		return nil, nil, diags, nil
	}
	parseErrors := diags.HasErrors()
	checks := dsl.Check(f, opts.Actions)
	diags = append(diags, checks...)
	if parseErrors {
		// Compile expects a complete file.
		return f, nil, sortedUnique(diags), nil
	}
	p, err := flow.Compile(f, opts)
	if err != nil {
		cds, ok := dsl.AsDiagnostics(err)
		if !ok {
			return f, nil, nil, fmt.Errorf("%s: %w", path, err)
		}
		flagged := flaggedForms(f, checks)
		var keep dsl.Diagnostics
		for _, d := range cds {
			if d.Code == "bad-schema" && flagged[d.Pos] {
				continue // Check said what is wrong with the form, at the property
			}
			d.Message = oneLine(d.Message)
			keep = append(keep, d)
		}
		diags = mergeDiagnostics(diags, keep)
	}
	diags = sortedUnique(diags)
	if diags.HasErrors() {
		p = nil
	}
	return f, p, diags, nil
}

// mergeDiagnostics adds the diagnostics of a later stage to those of the
// earlier ones, leaving out those that repeat an earlier diagnostic's
// position and code: the same problem, found twice (an unknown action is
// reported by both Check and Compile).
func mergeDiagnostics(earlier, later dsl.Diagnostics) dsl.Diagnostics {
	type key struct {
		pos  dsl.Pos
		code string
	}
	seen := make(map[key]bool, len(earlier))
	for _, d := range earlier {
		seen[key{d.Pos, d.Code}] = true
	}
	out := earlier
	for _, d := range later {
		if !seen[key{d.Pos, d.Code}] {
			out = append(out, d)
		}
	}
	return out
}

// flaggedForms returns the positions of the forms in which Check found a
// form-* problem. Compile's bad-schema for such a form says the same thing
// less precisely, as a dump of JSON Schema metaschema errors.
func flaggedForms(f *dsl.File, checks dsl.Diagnostics) map[dsl.Pos]bool {
	flagged := map[dsl.Pos]bool{}
	before := func(a, b dsl.Pos) bool { return a.Line < b.Line || a.Line == b.Line && a.Col < b.Col }
	for i, n := range f.Nodes {
		if n.Ask == nil || n.Ask.Form == nil {
			continue
		}
		for _, d := range checks {
			if !strings.HasPrefix(d.Code, "form-") || before(d.Pos, n.Pos) {
				continue
			}
			if i+1 < len(f.Nodes) && !before(d.Pos, f.Nodes[i+1].Pos) {
				continue
			}
			flagged[n.Ask.Form.Pos] = true
		}
	}
	return flagged
}

// metaschemaNoise is the head of the JSON Schema compiler's message for a
// schema that breaks the metaschema.
var metaschemaNoise = regexp.MustCompile(`bad schema: "[^"]*" is not valid against metaschema: jsonschema validation failed with '[^']*'`)

// oneLine makes a multi-line message (a JSON Schema compiler's error tree)
// fit on the diagnostic's line: its first line, then the leaves of the
// tree, joined by "; ".
func oneLine(msg string) string {
	if !strings.Contains(msg, "\n") {
		return msg
	}
	lines := strings.Split(msg, "\n")
	indent := func(s string) int { return len(s) - len(strings.TrimLeft(s, " ")) }
	head := metaschemaNoise.ReplaceAllString(strings.TrimSpace(lines[0]), "not a valid JSON Schema")
	var leaves []string
	for i, l := range lines[1:] {
		if strings.TrimSpace(l) == "" {
			continue
		}
		if next := i + 2; next < len(lines) && indent(lines[next]) > indent(l) {
			continue
		}
		leaves = append(leaves, strings.TrimPrefix(strings.TrimSpace(l), "- "))
	}
	if len(leaves) == 0 {
		return head
	}
	return head + ": " + strings.Join(leaves, "; ")
}

// sortedUnique sorts ds and drops exact repeats.
func sortedUnique(ds dsl.Diagnostics) dsl.Diagnostics {
	ds.Sort()
	out := ds[:0]
	for i, d := range ds {
		if i == 0 || d != ds[i-1] {
			out = append(out, d)
		}
	}
	return out
}

// duplicateTools reports each file whose name an earlier file (in the
// order given) already uses: names are unique across tool and prompt
// flows.
func duplicateTools(files []*dsl.File) dsl.Diagnostics {
	var out dsl.Diagnostics
	first := map[string]string{}
	for _, f := range files {
		if f == nil || f.Name.Value == "" {
			continue
		}
		if prev, dup := first[f.Name.Value]; dup {
			kind := dsl.FlowTool
			if f.IsPrompt() {
				kind = dsl.FlowPrompt
			}
			out = append(out, dsl.Diagnostic{Pos: f.Name.Pos, Severity: dsl.Error, Code: "duplicate-tool",
				Message: fmt.Sprintf("%s %q is also defined in %s", kind, f.Name.Value, prev)})
			continue
		}
		first[f.Name.Value] = f.Path
	}
	return out
}

// summary returns the summary line of a lint run.
func summary(diags dsl.Diagnostics, files int) string {
	errs, warns := 0, 0
	for _, d := range diags {
		if d.Severity == dsl.Error {
			errs++
		} else {
			warns++
		}
	}
	return fmt.Sprintf("%s, %s in %s", plural(errs, "error"), plural(warns, "warning"), plural(files, "file"))
}

// plural returns "1 error" or "2 errors".
func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// diagnosticJSON is a diagnostic in lint's JSON output.
type diagnosticJSON struct {
	File     string `json:"file"`
	Line     int    `json:"line"`
	Col      int    `json:"col"`
	Severity string `json:"severity"`
	Code     string `json:"code"`
	Message  string `json:"message"`
}

// writeDiagnosticsJSON writes diags as a JSON array.
func writeDiagnosticsJSON(w io.Writer, diags dsl.Diagnostics) error {
	out := make([]diagnosticJSON, 0, len(diags))
	for _, d := range diags {
		out = append(out, diagnosticJSON{
			File: d.Pos.File, Line: d.Pos.Line, Col: d.Pos.Col,
			Severity: d.Severity.String(), Code: d.Code, Message: d.Message,
		})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		return errors.New("writing JSON: " + err.Error())
	}
	return nil
}
