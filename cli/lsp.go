package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"

	"github.com/flowserve/flowserve/lsp"
)

// runLsp serves the language server over standard input and output.
//
// Behaviour:
//   - It speaks the Language Server Protocol (JSON-RPC 2.0 with
//     Content-Length framing) on stdin and stdout until the client sends
//     exit; what it cannot tell the client goes to stderr.
//   - --stdio is accepted and changes nothing: editors' LSP clients pass
//     it to say the transport, which is always stdio.
//   - Exit status: 0 after shutdown and exit, 1 when the client exits (or
//     closes stdin) without shutdown, as the protocol says, or on a broken
//     connection; 2 on usage errors.
func runLsp(ctx context.Context, env *Env) int {
	fs := flag.NewFlagSet("flowserve lsp", flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	fs.Bool("stdio", true, "serve over standard input and output (the only transport; accepted for editors that pass it)")
	fs.Usage = func() {
		fmt.Fprintln(env.Stderr, "usage: flowserve lsp [--stdio]")
		fmt.Fprintln(env.Stderr, "\nServes the Language Server Protocol over standard input and output, for")
		fmt.Fprintln(env.Stderr, "editors: lint's diagnostics as you type, completion, hover, go to definition,")
		fmt.Fprintln(env.Stderr, "rename of node ids and quick fixes. docs/editors.md sets up VS Code and Neovim.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(env.Args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(env.Stderr, "flowserve lsp: unexpected argument %q\n", fs.Arg(0))
		fs.Usage()
		return exitUsage
	}
	srv := lsp.New(lsp.Options{
		Version: servedVersion(),
		Log:     log.New(env.Stderr, "flowserve lsp: ", 0),
	})
	if err := srv.Serve(ctx, env.Stdin, env.Stdout); err != nil {
		if !errors.Is(err, lsp.ErrNoShutdown) {
			fmt.Fprintf(env.Stderr, "flowserve lsp: %v\n", err)
		}
		return exitFail
	}
	return exitOK
}
