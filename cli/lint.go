package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/flowserve/flowserve/check"
	"github.com/flowserve/flowserve/check/codes"
	"github.com/flowserve/flowserve/check/explain"
	"github.com/flowserve/flowserve/diff"
	"github.com/flowserve/flowserve/dsl"
	"github.com/flowserve/flowserve/flow"
	"github.com/flowserve/flowserve/project"
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
//   - The files are loaded with project.Load, as serve and test load them:
//     each runs through dsl.Parse, check.File and flow.Compile (whose
//     check.Types type-checks expressions); when Parse found errors,
//     the expressions it could read are type-checked all the same
//     (check.Partial), so that one run reports structural and type
//     errors together. Tool names defined by more than one file are
//     errors. Each stage reports what it owns, so no problem is reported
//     twice. A file that cannot be read is an error.
//   - Diagnostics are sorted by file, line, column, severity, code and
//     message.
//   - Text output: one diagnostic per line on stdout, then a summary line
//     on stderr ("2 errors, 1 warning in 3 files"). JSON output: one array
//     of {file, line, col, severity, code, message, end, fixes} on stdout,
//     no summary (end is {line, col}, exclusive, left out when unknown;
//     fixes are {title, start, end, new_text}). SARIF output (--format
//     sarif): a SARIF 2.1.0 log of one run, for code-scanning UIs (see
//     writeSARIF). Columns count runes everywhere.
//   - With --fix, the first fix of each diagnostic (a did-you-mean
//     replacement) is applied to its file, fixes that overlap an earlier
//     one left out; each change is said on stderr, then the paths are
//     linted again, and fixed again while that changes something (at most
//     10 passes: a file that parses now can show more), and reported and
//     exited on as without --fix.
//   - With --against OLD (a flow file or directory, loaded the same way),
//     each flow that has a previous version in OLD (by tool name) is
//     compared with it (diff.Compare, as flowserve diff does), and each
//     change that keeps runs in flight on OLD from going on under it is a
//     breaks-runs warning at its position in the new file. OLD must load
//     without errors (else its errors are printed: a usage error).
//   - Exit status: 0 when there are no errors (warnings allowed), 1 when
//     there are errors (a file that cannot be read is one), 2 on usage
//     errors.
func runLint(ctx context.Context, env *Env) int {
	fs := flag.NewFlagSet("flowserve lint", flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	format := fs.String("format", "text", "output format: text, json or sarif")
	against := fs.String("against", "", "the previous version (a flow file or directory): also warn where runs in flight on it cannot go on under this one")
	maxRounds := fs.Int("max-rounds", check.DefaultRoundBudget, "the round budget: warn (round-budget) where a path asks more rounds of questions than this")
	fix := fs.Bool("fix", false, "apply the first fix of each diagnostic (the did-you-mean replacements) to the files, say what changed on standard error, then lint again")
	explainCode := fs.String("explain", "", "print what the code `CODE` means: the rule, why it exists, and a flow that breaks it with its fix; lint nothing")
	fs.Usage = func() {
		fmt.Fprintln(env.Stderr, "usage: flowserve lint [--format text|json|sarif] [--against OLD] [--max-rounds N] [--fix] [PATH...]")
		fmt.Fprintln(env.Stderr, "       flowserve lint --explain CODE")
		fmt.Fprintln(env.Stderr, "\nChecks flow files and resource declarations (directories recursively; default:")
		fmt.Fprintln(env.Stderr, "flows/) and prints one diagnostic per line, file:line:col: error|warning:")
		fmt.Fprintln(env.Stderr, "message [code]. With --against OLD, also a breaks-runs warning at each change")
		fmt.Fprintln(env.Stderr, "that runs in flight on OLD cannot replay (see flowserve diff). --fix applies")
		fmt.Fprintln(env.Stderr, "the mechanical fixes (did-you-mean replacements) to the files first.")
		fmt.Fprintln(env.Stderr, "Exits 1 when there are errors, 2 on usage errors.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(env.Args); err != nil {
		return exitUsage
	}
	if explaining(fs) {
		return explainLint(env, *explainCode, fs.Args())
	}
	// Lint makes much garbage and keeps little: collecting it half as
	// often makes checking a thousand flows about a sixth faster.
	defer debug.SetGCPercent(debug.SetGCPercent(200))
	if !slices.Contains([]string{"text", "json", "sarif"}, *format) {
		fmt.Fprintf(env.Stderr, "flowserve lint: --format must be text, json or sarif, not %q\n", *format)
		return exitUsage
	}
	if *maxRounds < 1 {
		fmt.Fprintf(env.Stderr, "flowserve lint: --max-rounds must be at least 1, not %d\n", *maxRounds)
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
	set, diags, code := lint(env, paths, *against, fs.Usage)
	if code >= 0 {
		return code
	}
	diags = withBudget(set, paths, diags, *maxRounds)
	// A fix can let lint see further (a file that parses is compiled), so
	// --fix goes on while it changes something, as ESLint's does.
	for pass := 0; *fix && pass < maxFixPasses && applyFixes(env, diags); pass++ {
		if set, diags, code = lint(env, paths, *against, fs.Usage); code >= 0 {
			return code
		}
		diags = withBudget(set, paths, diags, *maxRounds)
	}
	if err := writeLint(env, *format, diags, len(set.Files.Flows)+len(set.Files.Resources)); err != nil {
		fmt.Fprintf(env.Stderr, "flowserve lint: %v\n", err)
		return exitFail
	}
	if diags.HasErrors() {
		return exitFail
	}
	return exitOK
}

// explaining reports whether fs was given --explain.
func explaining(fs *flag.FlagSet) bool {
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == "explain" })
	return given
}

// explainLint prints the explanation of code (see package explain) on
// standard output. An unknown code is a usage error that lists the codes
// it may stand for, or all of them when none is close; so are paths
// given with it, since nothing is linted.
func explainLint(env *Env, code string, paths []string) int {
	if len(paths) > 0 {
		fmt.Fprintf(env.Stderr, "flowserve lint: --explain lints nothing: give it a code alone, not %s\n", strings.Join(paths, " "))
		return exitUsage
	}
	e, ok := explain.Lookup(strings.ToLower(strings.TrimSpace(code)))
	if ok {
		fmt.Fprint(env.Stdout, e.Text)
		return exitOK
	}
	if close := explain.Close(code); len(close) > 0 {
		fmt.Fprintf(env.Stderr, "flowserve lint: no lint code is %q; did you mean %s?\n", code, orList(close))
	} else {
		fmt.Fprintf(env.Stderr, "flowserve lint: no lint code is %q; the codes are:\n  %s\n", code, strings.Join(explain.Codes(), "\n  "))
	}
	return exitUsage
}

// orList returns "a", "a or b", "a, b or c".
func orList(items []string) string {
	if len(items) == 1 {
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " or " + items[len(items)-1]
}

// withBudget returns diags with the round-budget warnings worked out for
// budget instead of the default one Check and CheckCalls use, in the
// flow files paths stand for. A call or link node counts the rounds of
// the flow it runs, found among the files lint loaded (as project.Load
// finds callees: the first file with the name), those beside a file
// named that it calls included; those files get no warnings of their
// own, as project.Load reports only their errors.
func withBudget(set *project.Set, paths []string, diags dsl.Diagnostics, budget int) dsl.Diagnostics {
	if budget == check.DefaultRoundBudget {
		return diags
	}
	out := slices.DeleteFunc(diags, func(d dsl.Diagnostic) bool { return d.Code == codes.RoundBudget })
	callees := dsl.NewFlowTable(set.Parsed).Callees()
	asked, _ := project.Discover(paths)
	named := make(map[string]bool, len(asked.Flows))
	for _, p := range asked.Flows {
		named[p] = true
	}
	for _, f := range set.Parsed {
		if !named[f.Path] {
			continue
		}
		var ds dsl.Diagnostics
		for _, d := range check.RoundDiagnosticsWith(f, budget, callees) {
			if d.Code == codes.RoundBudget {
				ds = append(ds, d)
			}
		}
		ds.SetEnds(f.Path, f.Source)
		out = append(out, ds...)
	}
	out.Sort()
	return out
}

// maxFixPasses bounds the passes of lint --fix.
const maxFixPasses = 10

// lint loads paths and, with against, compares them with it, and returns
// the diagnostics with their ends; on a usage error it says so (with
// usage) and returns the exit code, else code is -1.
func lint(env *Env, paths []string, against string, usage func()) (set *project.Set, diags dsl.Diagnostics, code int) {
	// The programs are only compared with OLD's.
	set, diags = project.Load(paths, project.Options{CheckOnly: against == ""})
	if msg, ok := usageError(diags); ok {
		fmt.Fprintf(env.Stderr, "flowserve lint: %s\n", msg)
		usage()
		return set, diags, exitUsage
	}
	if against == "" {
		return set, diags, -1
	}
	old, odiags := project.Load([]string{against}, project.Options{})
	if msg, ok := usageError(odiags); ok {
		fmt.Fprintf(env.Stderr, "flowserve lint: --against %s\n", msg)
		return set, diags, exitUsage
	}
	if odiags.HasErrors() {
		printDiagnostics(env.Stderr, odiags.Errors())
		fmt.Fprintf(env.Stderr, "flowserve lint: --against %s: %s have errors\n", against, failedParts(odiags))
		return set, diags, exitUsage
	}
	breaks := againstDiagnostics(old.Programs, set.Programs)
	for _, f := range set.Parsed {
		breaks.SetEnds(f.Path, f.Source)
	}
	diags = append(diags, breaks...)
	diags.Sort()
	return set, diags, -1
}

// writeLint writes diags in format: text (with the summary of a lint of
// files files on standard error), json or sarif.
func writeLint(env *Env, format string, diags dsl.Diagnostics, files int) error {
	switch format {
	case "json":
		return writeDiagnosticsJSON(env.Stdout, diags)
	case "sarif":
		wd, _ := os.Getwd()
		return writeSARIF(env.Stdout, diags, sarifOptions{version: Version, dir: wd})
	}
	printDiagnostics(env.Stdout, diags)
	fmt.Fprintln(env.Stderr, summary(diags, files))
	return nil
}

// againstDiagnostics returns the breaks-runs warnings for the programs of
// news that have an old version among olds.
func againstDiagnostics(olds, news []*flow.Program) dsl.Diagnostics {
	var out dsl.Diagnostics
	for _, r := range diff.CompareAll(olds, news) {
		if r.Old != nil {
			out = append(out, r.Diagnostics()...)
		}
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

// diagnosticJSON is the first fields of a diagnostic in lint's JSON
// output, the ones it has always had.
type diagnosticJSON struct {
	File     string `json:"file"`
	Line     int    `json:"line"`
	Col      int    `json:"col"`
	Severity string `json:"severity"`
	Code     string `json:"code"`
	Message  string `json:"message"`
}

// lintJSON is a diagnostic in lint's JSON output: diagnosticJSON, where
// its text ends (exclusive; omitted when unknown) and its fixes.
type lintJSON struct {
	diagnosticJSON
	End   *lintPosJSON `json:"end,omitempty"`
	Fixes []fixJSON    `json:"fixes"`
}

// lintPosJSON is a position in lint's JSON output: a 1-based line and a
// 1-based column counted in runes (Unicode code points).
type lintPosJSON struct {
	Line int `json:"line"`
	Col  int `json:"col"`
}

// fixJSON is a fix in lint's JSON output: replace the text from start to
// end (exclusive) with new_text.
type fixJSON struct {
	Title   string      `json:"title"`
	Start   lintPosJSON `json:"start"`
	End     lintPosJSON `json:"end"`
	NewText string      `json:"new_text"`
}

// writeDiagnosticsJSON writes diags as a JSON array.
func writeDiagnosticsJSON(w io.Writer, diags dsl.Diagnostics) error {
	out := make([]lintJSON, 0, len(diags))
	for _, d := range diags {
		j := lintJSON{
			diagnosticJSON: diagnosticJSON{
				File: d.Pos.File, Line: d.Pos.Line, Col: d.Pos.Col,
				Severity: d.Severity.String(), Code: d.Code, Message: d.Message,
			},
			Fixes: []fixJSON{},
		}
		if d.End.IsValid() {
			j.End = &lintPosJSON{Line: d.End.Line, Col: d.End.Col}
		}
		for _, f := range d.Fixes {
			j.Fixes = append(j.Fixes, fixJSON{
				Title:   f.Title,
				Start:   lintPosJSON{Line: f.Pos.Line, Col: f.Pos.Col},
				End:     lintPosJSON{Line: f.End.Line, Col: f.End.Col},
				NewText: f.NewText,
			})
		}
		out = append(out, j)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		return errors.New("writing JSON: " + err.Error())
	}
	return nil
}
