// Package cli is the flowserve command line. Main is what cmd/flowserve
// calls; a custom build (a main package that blank-imports more actions)
// calls it too.
package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"syscall"

	_ "github.com/flowserve/flowserve/actions/std" // the built-in actions
)

// Env is what a command runs with: its arguments and standard streams.
type Env struct {
	Args   []string // after the command name
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
}

// command is one subcommand.
type command struct {
	summary string
	run     func(ctx context.Context, env *Env) int
}

func commands() map[string]command {
	return map[string]command{
		"actions": {"list the registered actions with their schemas", runActions},
		"graph":   {"draw a flow as a Mermaid or Graphviz diagram", runGraph},
		"lint":    {"check flow files and print diagnostics", runLint},
		"run":     {"run a flow in the terminal, answering its questions", runRun},
		"schema":  {"print the JSON Schema of flow files, for editors", runSchema},
		"serve":   {"serve flows as MCP tools over Streamable HTTP or stdio", runServe},
		"test":    {"run the *_test.yaml cases beside flows", runTest},
	}
}

// Exit codes.
const (
	exitOK    = 0
	exitFail  = 1 // the command ran and found problems
	exitUsage = 2 // the command line was wrong
)

// Main runs the command line of the process and exits with its status.
func Main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := Run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// Run runs one flowserve command line (without the program name) and
// returns its exit status: 0 on success, 1 when the command found
// problems, 2 on usage errors.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cmds := commands()
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stdout, cmds)
		if len(args) == 0 {
			return exitUsage
		}
		return exitOK
	}
	c, ok := cmds[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "flowserve: unknown command %q\n", args[0])
		usage(stderr, cmds)
		return exitUsage
	}
	return c.run(ctx, &Env{Args: args[1:], Stdin: stdin, Stdout: stdout, Stderr: stderr})
}

func usage(w io.Writer, cmds map[string]command) {
	fmt.Fprintln(w, "usage: flowserve <command> [flags] [args]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "commands:")
	names := make([]string, 0, len(cmds))
	for n := range cmds {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, cmds[n].summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Run 'flowserve <command> -h' for a command's flags.")
}
