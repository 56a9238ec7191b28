package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/flowserve/flowserve/dsl"
	"github.com/flowserve/flowserve/graph"
	"github.com/flowserve/flowserve/project"
)

// runGraph draws a flow as a Mermaid or Graphviz diagram.
func runGraph(ctx context.Context, env *Env) int {
	fs := flag.NewFlagSet("flowserve graph", flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	format := fs.String("format", "mermaid", "diagram format: mermaid or dot")
	fs.Usage = func() {
		fmt.Fprintln(env.Stderr, "usage: flowserve graph FLOW [--format mermaid|dot]")
		fmt.Fprintln(env.Stderr, "\nPrints the flow FLOW as a diagram: a Mermaid flowchart (for Markdown) or a")
		fmt.Fprintln(env.Stderr, "Graphviz digraph. FLOW is a flow file, or the name of one in flows/ (NAME for")
		fmt.Fprintln(env.Stderr, "flows/NAME.yaml). Exits 1 when the flow has errors, 2 on usage errors.")
		fs.PrintDefaults()
	}
	args, err := flagsAndArgs(fs, env.Args)
	if err != nil {
		return exitUsage
	}
	switch {
	case len(args) == 0:
		fmt.Fprintln(env.Stderr, "flowserve graph: give the flow file to draw")
		fs.Usage()
		return exitUsage
	case len(args) > 1:
		fmt.Fprintf(env.Stderr, "flowserve graph: unexpected argument %q; graph draws one flow\n", args[1])
		return exitUsage
	}
	var draw func(*dsl.File) string
	switch *format {
	case "mermaid":
		draw = graph.Mermaid
	case "dot":
		draw = graph.DOT
	default:
		fmt.Fprintf(env.Stderr, "flowserve graph: --format must be mermaid or dot, not %q\n", *format)
		return exitUsage
	}
	path, err := resolveFlow(args[0])
	if err != nil {
		fmt.Fprintf(env.Stderr, "flowserve graph: %v\n", err)
		return exitUsage
	}
	if info, err := os.Stat(path); err == nil && info.IsDir() {
		fmt.Fprintf(env.Stderr, "flowserve graph: %s is a directory; name one flow file\n", path)
		return exitUsage
	}
	// A flow with errors other than syntax errors is still drawn: the
	// drawing helps find them.
	set, diags := project.Load([]string{path}, project.Options{})
	if msg, ok := usageError(diags); ok {
		fmt.Fprintf(env.Stderr, "flowserve graph: %s\n", msg)
		return exitUsage
	}
	if len(set.Parsed) != 1 || set.Parsed[0].Partial() {
		for _, d := range diags {
			if d.Severity == dsl.Error {
				fmt.Fprintln(env.Stderr, d.String())
			}
		}
		fmt.Fprintf(env.Stderr, "flowserve graph: %s has errors\n", path)
		return exitFail
	}
	f := set.Parsed[0]
	if _, err := io.WriteString(env.Stdout, draw(f)); err != nil {
		fmt.Fprintf(env.Stderr, "flowserve graph: %v\n", err)
		return exitFail
	}
	return exitOK
}
