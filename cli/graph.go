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
		fmt.Fprintln(env.Stderr, "flows/NAME.yaml). The flows its call and link nodes run, found among the flow")
		fmt.Fprintln(env.Stderr, "files beside it, are drawn inside it, each in a subgraph of its own. Exits 1")
		fmt.Fprintln(env.Stderr, "when the flow has errors, 2 on usage errors.")
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
	var draw func(*dsl.File, dsl.Callees) string
	switch *format {
	case "mermaid":
		draw = graph.MermaidWith
	case "dot":
		draw = graph.DOTWith
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
	// drawing helps find them. project.Load also loads the flows beside
	// it that it calls, which are drawn inside it.
	set, diags := project.Load([]string{path}, project.Options{CheckOnly: true})
	if msg, ok := usageError(diags); ok {
		fmt.Fprintf(env.Stderr, "flowserve graph: %s\n", msg)
		return exitUsage
	}
	f := parsedOf(set, path)
	if f == nil || f.Partial() {
		for _, d := range diags {
			if d.Severity == dsl.Error && samePath(d.Pos.File, path) {
				fmt.Fprintln(env.Stderr, d.String())
			}
		}
		fmt.Fprintf(env.Stderr, "flowserve graph: %s has errors\n", path)
		return exitFail
	}
	if _, err := io.WriteString(env.Stdout, draw(f, dsl.NewFlowTable(set.Parsed).Callees())); err != nil {
		fmt.Fprintf(env.Stderr, "flowserve graph: %v\n", err)
		return exitFail
	}
	return exitOK
}
