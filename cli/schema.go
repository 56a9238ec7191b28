package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"

	"github.com/flowserve/flowserve/schemas"
)

// runSchema prints the JSON Schema of flow files, byte for byte as
// schemas/flow.schema.json holds it, or with --resources the one of
// resource declarations (schemas/resources.schema.json).
func runSchema(ctx context.Context, env *Env) int {
	fs := flag.NewFlagSet("flowserve schema", flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	res := fs.Bool("resources", false, "print the schema of resource declarations (resources.yaml, *.resources.yaml) instead")
	fs.Usage = func() {
		fmt.Fprintln(env.Stderr, "usage: flowserve schema [--resources]")
		fmt.Fprintln(env.Stderr, "\nPrints the JSON Schema (draft 2020-12) of flow files, for editors. Save it and")
		fmt.Fprintln(env.Stderr, "point the YAML language server at it with a first line in each flow, such as")
		fmt.Fprintln(env.Stderr, "  # yaml-language-server: $schema=../flow.schema.json")
		fmt.Fprintln(env.Stderr, "(a path relative to the flow file), or with yaml.schemas in the editor's settings.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(env.Args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(env.Stderr, "flowserve schema: unexpected argument %q\n", fs.Arg(0))
		fs.Usage()
		return exitUsage
	}
	schema := schemas.FlowSchema()
	if *res {
		schema = schemas.ResourcesSchema()
	}
	if _, err := env.Stdout.Write(schema); err != nil {
		fmt.Fprintf(env.Stderr, "flowserve schema: %v\n", err)
		return exitFail
	}
	return exitOK
}
