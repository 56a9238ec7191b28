package cli

import (
	"context"
	"flag"
	"fmt"
	"os"
	"regexp"
	"strings"

	"github.com/flowserve/flowserve/flowtest"
	"github.com/flowserve/flowserve/project"
)

// runTest runs the test files beside flows (see package flowtest for
// their format) and reports like go test.
func runTest(ctx context.Context, env *Env) int {
	fs := flag.NewFlagSet("flowserve test", flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	cover := fs.Bool("cover", false, "print each flow's node coverage and the nodes no case visits")
	format := fs.String("format", "text", "output format: text or json")
	runRE := fs.String("run", "", "run only the cases whose flow/name matches this regular expression")
	fs.Usage = func() {
		fmt.Fprintln(env.Stderr, "usage: flowserve test [--cover] [--format text|json] [--run REGEXP] [PATH...]")
		fmt.Fprintln(env.Stderr, "\nRuns the cases of every <flow>_test.yaml beside the flows in PATH (default: flows/;")
		fmt.Fprintln(env.Stderr, "directories are searched recursively) and reports each case, like go test.")
		fmt.Fprintln(env.Stderr, "Exits 1 when a case fails, 2 on usage errors (a PATH that does not exist,")
		fmt.Fprintln(env.Stderr, "or nothing to test).")
		fs.PrintDefaults()
	}
	paths, err := flagsAndArgs(fs, env.Args)
	if err != nil {
		return exitUsage
	}
	if *format != "text" && *format != "json" {
		fmt.Fprintf(env.Stderr, "flowserve test: --format must be text or json, not %q\n", *format)
		return exitUsage
	}
	opts := flowtest.Options{}
	if *runRE != "" {
		re, err := regexp.Compile(*runRE)
		if err != nil {
			fmt.Fprintf(env.Stderr, "flowserve test: --run: %v\n", err)
			return exitUsage
		}
		opts.Match = func(flow, name string) bool { return re.MatchString(flow + "/" + name) }
	}
	if len(paths) == 0 {
		if info, err := os.Stat("flows"); err != nil || !info.IsDir() {
			fmt.Fprintln(env.Stderr, "flowserve test: no paths given and no flows/ directory here")
			fs.Usage()
			return exitUsage
		}
		paths = []string{"flows"}
	}
	// Paths that do not exist are usage errors, as lint and serve say.
	if _, diags := project.Discover(paths); project.IsUsage(diags) {
		msg, _ := usageError(diags)
		fmt.Fprintf(env.Stderr, "flowserve test: %s\n", msg)
		fs.Usage()
		return exitUsage
	}
	if *format == "text" {
		opts.OnFlow = func(fr *flowtest.FlowReport) { fr.WriteText(env.Stdout, *cover) }
	}
	report, err := flowtest.Run(ctx, paths, opts)
	if err != nil {
		fmt.Fprintf(env.Stderr, "flowserve test: %v\n", err)
		return exitFail
	}
	if len(report.Flows) == 0 {
		fmt.Fprintf(env.Stderr, "flowserve test: no flows or test files in %s\n", strings.Join(paths, ", "))
		fs.Usage()
		return exitUsage
	}
	if *format == "json" {
		if err := report.WriteJSON(env.Stdout); err != nil {
			fmt.Fprintf(env.Stderr, "flowserve test: %v\n", err)
			return exitFail
		}
	} else {
		report.WriteSummary(env.Stdout)
	}
	if !report.OK {
		return exitFail
	}
	return exitOK
}

// flagsAndArgs parses flags that may come before, between or after the
// positional arguments (flowserve graph FLOW --format dot) and returns
// the positional arguments. Everything after "--" is positional.
func flagsAndArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		// Parse stops at the first positional argument, or after "--".
		if used := args[:len(args)-len(rest)]; len(used) > 0 && used[len(used)-1] == "--" {
			return append(pos, rest...), nil
		}
		if len(rest) == 0 {
			return pos, nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}
