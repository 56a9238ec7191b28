// Package cli is the flowserve command line. Main is what cmd/flowserve
// calls; a custom build (a main package that blank-imports more actions)
// calls it too.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"regexp"
	"runtime"
	"runtime/debug"
	"sort"
	"strings"
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
		"diff":    {"compare two versions of flows: compatible, new-calls-only or breaking", runDiff},
		"graph":   {"draw a flow as a Mermaid or Graphviz diagram", runGraph},
		"lint":    {"check flow files and print diagnostics", runLint},
		"lsp":     {"serve the Language Server Protocol over stdio, for editors", runLsp},
		"run":     {"run a flow in the terminal, answering its questions", runRun},
		"schema":  {"print the JSON Schema of flow files, for editors", runSchema},
		"serve":   {"serve flows as MCP tools over Streamable HTTP or stdio", runServe},
		"test":    {"run the *_test.yaml cases beside flows", runTest},
		"version": {"print flowserve's version and the commit it was built from", runVersion},
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
	if len(args) > 0 && (args[0] == "--version" || args[0] == "-version") {
		args = append([]string{"version"}, args[1:]...)
	}
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
	fmt.Fprintln(w, "Run 'flowserve <command> -h' for a command's flags, 'flowserve --version' for the version.")
}

// sourceVersion is the version of this source tree: what a build that is
// not a tagged release serves, marked "-devel".
const sourceVersion = "0.1.0"

// runVersion prints the version of the binary: the module version it was
// built as, and the commit when it was built from a clone.
func runVersion(ctx context.Context, env *Env) int {
	fs := flag.NewFlagSet("flowserve version", flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	fs.Usage = func() {
		fmt.Fprintln(env.Stderr, "usage: flowserve version (or flowserve --version)")
		fmt.Fprintln(env.Stderr, "\nPrints the module version flowserve was built as (a release like v0.2.0 when")
		fmt.Fprintln(env.Stderr, "installed with go install ...@v0.2.0, \"(devel)\" when built from a clone), the")
		fmt.Fprintln(env.Stderr, "commit and whether the clone had changes, the version served to clients, and Go's.")
	}
	if err := fs.Parse(env.Args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(env.Stderr, "flowserve version: unexpected argument %q\n", fs.Arg(0))
		fs.Usage()
		return exitUsage
	}
	info, _ := debug.ReadBuildInfo()
	fmt.Fprint(env.Stdout, readBuild(info).String())
	return exitOK
}

// build is what a binary records of its own build.
type build struct {
	module   string // the main module's version: "v0.2.0", a pseudo-version, "(devel)"
	commit   string // the VCS revision, or ""
	time     string // the commit's time, or ""
	modified bool   // the clone had uncommitted changes
	goVer    string
}

// pseudoVersion matches the tail of a Go pseudo-version
// (v0.0.0-20261201192954-91d83f89d42f), which names a commit rather than
// a release.
var pseudoVersion = regexp.MustCompile(`[-.](\d{14})-([0-9a-f]{12})$`)

// readBuild reads info (nil when the binary has none).
func readBuild(info *debug.BuildInfo) build {
	b := build{module: "(devel)", goVer: runtime.Version()}
	if info == nil {
		return b
	}
	if v := info.Main.Version; v != "" {
		b.module = v
	}
	if info.GoVersion != "" {
		b.goVer = info.GoVersion
	}
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			b.commit = s.Value
		case "vcs.time":
			b.time = s.Value
		case "vcs.modified":
			b.modified = s.Value == "true"
		}
	}
	return b
}

// release returns the release the binary was built as ("v0.2.0"), or ""
// for a build from a clone, of a commit, or with changes.
func (b build) release() string {
	v := b.module
	if v == "(devel)" || strings.HasSuffix(v, "+dirty") || b.modified || pseudoVersion.MatchString(v) {
		return ""
	}
	return v
}

// shown is the version to show: the release, "(devel)" for a build from
// a clone, or the pseudo-version of a commit installed with go install.
func (b build) shown() string {
	if r := b.release(); r != "" {
		return r
	}
	if b.commit != "" || b.module == "(devel)" {
		return "(devel)"
	}
	return strings.TrimSuffix(b.module, "+dirty")
}

// served is the version reported to clients (serverInfo.version, and a
// run's client version): the release without its "v" ("0.2.0"), or
// sourceVersion marked as a development build with the commit when known
// ("0.1.0-devel+91d83f89d42f.dirty").
func (b build) served() string {
	if r := b.release(); r != "" {
		return strings.TrimPrefix(r, "v")
	}
	v := sourceVersion + "-devel"
	commit := b.commit
	if m := pseudoVersion.FindStringSubmatch(strings.TrimSuffix(b.module, "+dirty")); commit == "" && m != nil {
		commit = m[2]
	}
	if len(commit) > 12 {
		commit = commit[:12]
	}
	switch {
	case commit != "" && (b.modified || strings.HasSuffix(b.module, "+dirty")):
		v += "+" + commit + ".dirty"
	case commit != "":
		v += "+" + commit
	}
	return v
}

// String is what flowserve version prints: the version shown, then the
// commit, the version served and Go's, one per line.
func (b build) String() string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "flowserve %s\n", b.shown())
	switch {
	case b.commit != "":
		state := ""
		if b.modified {
			state = " (modified: the clone had uncommitted changes)"
		}
		fmt.Fprintf(&sb, "commit:    %s%s\n", b.commit, state)
		if b.time != "" {
			fmt.Fprintf(&sb, "committed: %s\n", b.time)
		}
	case b.shown() == "(devel)":
		fmt.Fprintln(&sb, "commit:    unknown (built without VCS information, as with -buildvcs=false)")
	}
	fmt.Fprintf(&sb, "serves:    %s\n", b.served())
	fmt.Fprintf(&sb, "go:        %s %s/%s\n", b.goVer, runtime.GOOS, runtime.GOARCH)
	return sb.String()
}

// servedVersion is the version this binary reports to clients; see
// build.served.
func servedVersion() string {
	info, _ := debug.ReadBuildInfo()
	return readBuild(info).served()
}
