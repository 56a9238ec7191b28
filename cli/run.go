package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/charmbracelet/x/term"

	"github.com/flowserve/flowserve/actions"
	"github.com/flowserve/flowserve/dsl"
	"github.com/flowserve/flowserve/flow"
	"github.com/flowserve/flowserve/project"
	"github.com/flowserve/flowserve/runui"
	"github.com/flowserve/flowserve/serve"
)

// exitInterrupted is the exit status of a run the user interrupted
// (128 + SIGINT, as shells report it).
const exitInterrupted = 130

// The values of --approvals.
const (
	approvalsPage     = "page"
	approvalsTerminal = "terminal"
)

// runFlags is run's command line.
type runFlags struct {
	args       string
	answers    string
	client     string
	fsRoot     string
	accessible bool
	values     valueFlags
	// approvals is how approvals (asks with to:) are answered: "page"
	// or "terminal"; approvalsSet says the flag was given.
	approvals    string
	approvalsSet bool
	approvalAddr string

	flow      string          // FLOW, as given
	arguments json.RawMessage // args, checked to be an object
	caps      flow.Client     // client, parsed
}

// runRun runs one flow in the terminal, answering its questions.
func runRun(ctx context.Context, env *Env) int {
	f, code := parseRunFlags(env)
	if f == nil {
		return code
	}
	var answerer runui.Answerer
	var script *runui.Script
	if f.answers != "" {
		if script, code = loadAnswers(env, f.answers); script == nil {
			return code
		}
		answerer = script
	}
	path, err := resolveFlow(f.flow)
	if err != nil {
		fmt.Fprintf(env.Stderr, "flowserve run: %v\n", err)
		return exitUsage
	}
	values, err := f.values.read()
	if err != nil {
		fmt.Fprintf(env.Stderr, "flowserve run: %v\n", err)
		return exitFail
	}
	// Vars and secrets as serve reads them; the actions' log lines never
	// show a secret.
	logger := slog.New(serve.RedactingHandler(slog.NewTextHandler(env.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}), values.Redactor()))
	engine, err := flow.NewEngine(flow.EngineOptions{Values: values.Values})
	if err != nil {
		fmt.Fprintf(env.Stderr, "flowserve run: %v\n", err)
		return exitFail
	}
	host := &actions.Host{FSRoot: f.fsRoot, Logger: logger}
	reg, err := actions.Default().Provision(ctx, host)
	if err != nil {
		fmt.Fprintf(env.Stderr, "flowserve run: %v\n", err)
		return exitFail
	}
	defer reg.Cleanup()
	prog, code := loadOne(env, path, project.Options{Actions: reg, Values: values})
	if prog == nil {
		return code
	}
	if answerer == nil {
		answerer = terminal(env, f.accessible)
	}
	if len(prog.Callees()) > 0 {
		answerer = calleeQuestions{Answerer: answerer, prog: prog, out: env.Stdout}
	}
	ctx = actions.WithHost(ctx, host)
	// Approvals are answered on a page of their own, as a server serves
	// them, unless they are asked in the terminal (or, with --answers and
	// no --approvals, from the file).
	var approver runui.Approver
	if f.approvals == approvalsPage && (script == nil || f.approvalsSet) {
		// The page's problems, not every answer (the transcript shows those).
		pageLog := slog.New(serve.RedactingHandler(slog.NewTextHandler(env.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}), values.Redactor()))
		page := runui.NewPage(runui.PageOptions{Addr: f.approvalAddr, Log: pageLog})
		defer page.Close()
		approver = page
	}

	title := prog.Name()
	if prog.Title() != "" {
		title += " (" + prog.Title() + ")"
	}
	fmt.Fprintf(env.Stdout, "Running %s\n", title)
	res, err := runui.Run(ctx, prog, runui.Config{
		Arguments: f.arguments,
		Client:    f.caps,
		Answerer:  answerer,
		Out:       env.Stdout,
		Engine:    engine,
		Approver:  approver,
	})
	if script != nil {
		if unused := script.Unused(); len(unused) > 0 {
			fmt.Fprintf(env.Stderr, "flowserve run: answers not used: %s\n", strings.Join(unused, ", "))
		}
	}
	if err != nil {
		return runFailed(ctx, env, err, f.client)
	}
	if res.Prompt != nil {
		runui.PrintPrompt(env.Stdout, res.Prompt)
		return exitOK
	}
	runui.PrintResult(env.Stdout, res.Complete)
	if res.Complete.IsError {
		return exitFail
	}
	return exitOK
}

// parseRunFlags reads run's command line and checks its values; a nil
// result comes with the exit status, the problem printed.
func parseRunFlags(env *Env) (*runFlags, int) {
	f := &runFlags{}
	fs := flag.NewFlagSet("flowserve run", flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	fs.StringVar(&f.args, "args", "{}", "the tool arguments, a JSON object")
	fs.StringVar(&f.answers, "answers", "", "answer the questions from this YAML file instead of asking (ask id: an answer {action, content}, with by for an approval, or timeout; used every time, or a list used in turn)")
	fs.StringVar(&f.client, "client", "form,url,sampling,roots", "what the client can be asked: a comma-separated list of form, url, sampling and roots, or none")
	fs.StringVar(&f.fsRoot, "fs-root", "", "directory the fs.* actions are confined to (none: they refuse)")
	f.values.register(fs)
	fs.BoolVar(&f.accessible, "accessible", os.Getenv("ACCESSIBLE") != "", "ask with plain line-by-line prompts (the default when standard input is not a terminal)")
	fs.StringVar(&f.approvals, "approvals", approvalsPage, "how approvals (asks with to:) are answered: page (on an approval page served on --approval-addr, as a server does) or terminal (asked here like any question, with your name); with --answers and no --approvals, from the file")
	fs.StringVar(&f.approvalAddr, "approval-addr", "127.0.0.1:0", "where the approval page listens (--approvals page); port 0 picks a free one")
	fs.Usage = func() {
		fmt.Fprintln(env.Stderr, "usage: flowserve run [flags] FLOW")
		fmt.Fprintln(env.Stderr, "\nRuns a flow round by round through the engine, asking its questions in the")
		fmt.Fprintln(env.Stderr, "terminal (each can be answered, declined or cancelled), and prints the result.")
		fmt.Fprintln(env.Stderr, "FLOW is a flow file, or the name of one in flows/ (NAME for flows/NAME.yaml).")
		fmt.Fprintln(env.Stderr, "The flows its call and link nodes run are the flow files beside it (in its")
		fmt.Fprintln(env.Stderr, "directory); their questions are asked by call path, as confirm/ok.")
		fmt.Fprintln(env.Stderr, "An approval (an ask with to:, for someone other than the caller) is served, by")
		fmt.Fprintln(env.Stderr, "default, on an approval page at a link the run prints; the run waits until the")
		fmt.Fprintln(env.Stderr, "page is answered or the approval times out. Webhooks are not posted; the run")
		fmt.Fprintln(env.Stderr, "prints the notification it would post. --approvals terminal asks approvals in")
		fmt.Fprintln(env.Stderr, "the terminal, like any question, with your name for answered_by.")
		fmt.Fprintln(env.Stderr, "Exit status: 0, 1 when the result is an error, 2 on usage errors (FLOW not")
		fmt.Fprintln(env.Stderr, "found), 130 when interrupted.")
		fs.PrintDefaults()
	}
	pos, ok := parseInterspersed(fs, env.Args)
	if !ok {
		return nil, exitUsage
	}
	fs.Visit(func(fl *flag.Flag) { f.approvalsSet = f.approvalsSet || fl.Name == "approvals" })
	if f.approvals != approvalsPage && f.approvals != approvalsTerminal {
		fmt.Fprintf(env.Stderr, "flowserve run: --approvals must be page or terminal, not %q\n", f.approvals)
		return nil, exitUsage
	}
	if len(pos) != 1 {
		fs.Usage()
		return nil, exitUsage
	}
	f.flow = pos[0]
	f.arguments = json.RawMessage(f.args)
	var obj map[string]any
	if err := json.Unmarshal(f.arguments, &obj); err != nil || obj == nil {
		fmt.Fprintln(env.Stderr, "flowserve run: --args must be a JSON object")
		return nil, exitUsage
	}
	var err error
	if f.caps, err = parseClient(f.client); err != nil {
		fmt.Fprintf(env.Stderr, "flowserve run: --client: %v\n", err)
		return nil, exitUsage
	}
	if f.fsRoot != "" {
		if info, err := os.Stat(f.fsRoot); err != nil || !info.IsDir() {
			fmt.Fprintf(env.Stderr, "flowserve run: --fs-root %s is not a directory\n", f.fsRoot)
			return nil, exitFail
		}
	}
	return f, exitOK
}

// loadAnswers reads an answers file; a nil script comes with the exit
// status, the problem printed.
func loadAnswers(env *Env, path string) (*runui.Script, int) {
	src, err := os.ReadFile(path)
	if err != nil {
		fmt.Fprintf(env.Stderr, "flowserve run: %s: %v\n", path, errNotFound(err))
		return nil, exitFail
	}
	script, err := runui.ParseAnswers(path, src)
	if err != nil {
		fmt.Fprintf(env.Stderr, "flowserve run: %v\n", err)
		return nil, exitFail
	}
	return script, exitOK
}

// runFailed reports a run that ended with err and returns its exit
// status: 130 when the user interrupted it, 1 otherwise.
func runFailed(ctx context.Context, env *Env, err error, client string) int {
	var mc *flow.MissingCapabilityError
	switch {
	case errors.Is(err, runui.ErrInterrupted) || ctx.Err() != nil:
		fmt.Fprintln(env.Stderr, "\nflowserve run: interrupted")
		return exitInterrupted
	case errors.As(err, &mc):
		fmt.Fprintf(env.Stderr, "flowserve run: %v (--client is %q)\n", err, client)
	default:
		fmt.Fprintf(env.Stderr, "flowserve run: %v\n", err)
	}
	return exitFail
}

// parseInterspersed parses flags that may come before or after the
// positional arguments, which it returns.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, bool) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, false
		}
		if fs.NArg() == 0 {
			return pos, true
		}
		rest := fs.Args()
		if len(args) > len(rest) && args[len(args)-len(rest)-1] == "--" {
			return append(pos, rest...), true
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// parseClient reads --client: a comma-separated list of form, url,
// sampling and roots, or none.
func parseClient(s string) (flow.Client, error) {
	c := flow.Client{Name: "flowserve-run", Version: servedVersion(), Protocol: "2026-07-28"}
	for _, part := range strings.Split(s, ",") {
		switch strings.TrimSpace(part) {
		case "form":
			c.Form = true
		case "url":
			c.URL = true
		case "sampling":
			c.Sampling = true
		case "roots":
			c.Roots = true
		case "none", "":
		default:
			return c, fmt.Errorf("unknown capability %q (want form, url, sampling, roots or none)", part)
		}
	}
	return c, nil
}

// resolveFlow returns the flow file FLOW names: the path itself when it
// exists; for a name without a directory, flows/NAME.yaml or
// flows/NAME.yml (flows/NAME when it ends in .yaml or .yml). When FLOW is
// such a name and none exists, the error says where it looked; any other
// path that does not exist is returned for loading to report.
func resolveFlow(name string) (string, error) {
	if _, err := os.Stat(name); err == nil || strings.ContainsAny(name, `/\`) {
		return name, nil
	}
	var candidates []string
	switch filepath.Ext(name) {
	case "":
		candidates = []string{filepath.Join("flows", name+".yaml"), filepath.Join("flows", name+".yml")}
	case ".yaml", ".yml":
		candidates = []string{filepath.Join("flows", name)}
	default:
		return name, nil
	}
	for _, p := range candidates {
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("no flow %q: looked for %s", name, strings.Join(append([]string{name}, candidates...), ", "))
}

// loadOne loads one flow file as serve loads it (opts.Values checked as
// serve checks them): project.Load of the file, which also loads the flow
// files beside it that its call and link nodes run, directly or not. It
// prints the diagnostics; a nil program comes with the exit status.
func loadOne(env *Env, path string, opts project.Options) (*flow.Program, int) {
	if info, err := os.Stat(path); err == nil && info.IsDir() {
		fmt.Fprintf(env.Stderr, "flowserve run: %s is a directory; name one flow file\n", path)
		return nil, exitUsage
	}
	set, diags := project.Load([]string{path}, opts)
	if msg, ok := usageError(diags); ok {
		fmt.Fprintf(env.Stderr, "flowserve run: %s\n", msg)
		return nil, exitUsage
	}
	printDiagnostics(env.Stderr, diags)
	p := programOf(set, path)
	if p == nil || diags.HasErrors() {
		what := "the flow has errors"
		if p != nil {
			what = "the flows it calls have errors"
		}
		fmt.Fprintf(env.Stderr, "flowserve run: not running: %s\n", what)
		return nil, exitFail
	}
	return p, exitOK
}

// programOf returns the program set has for the flow file at path, or
// nil when it has none (the flow has errors).
func programOf(set *project.Set, path string) *flow.Program {
	for _, p := range set.Programs {
		if samePath(p.File().Path, path) {
			return p
		}
	}
	return nil
}

// parsedOf returns the file set parsed from path, or nil.
func parsedOf(set *project.Set, path string) *dsl.File {
	for _, f := range set.Parsed {
		if samePath(f.Path, path) {
			return f
		}
	}
	return nil
}

// samePath reports whether two paths name the same file as loading
// names it.
func samePath(a, b string) bool {
	return filepath.Clean(a) == filepath.Clean(b)
}

// calleeQuestions answers the questions of the flows a run calls as
// those of the flow itself, with Answerer: a question keyed by its call
// path (confirm/ok: ask ok of the flow call node confirm runs; a/b/ok
// nested) is said to be that flow's, and its form's fields come in the
// order the callee's ask lists them.
type calleeQuestions struct {
	runui.Answerer
	prog *flow.Program
	out  io.Writer
}

// Answer says whose question q is when a callee asks it, then answers it.
func (c calleeQuestions) Answer(ctx context.Context, q *runui.Question) (*runui.Answer, error) {
	if ask, callee, via := calleeAsk(c.prog, q.ID); ask != nil {
		if len(q.Order) == 0 && ask.Kind == dsl.KindAsk && ask.Ask != nil && ask.Ask.Form != nil {
			for _, prop := range ask.Ask.Form.Properties {
				q.Order = append(q.Order, prop.Name)
			}
		}
		fmt.Fprintf(c.out, "  (a question of %s, which %s)\n", callee.Name(), via)
	}
	return c.Answerer.Answer(ctx, q)
}

// calleeAsk returns the question node of a callee that the question id
// names by its call path, the program it is in and what runs that
// program ("confirm calls", "handed links to", "a/b calls"); a nil node
// when id is not such a path.
func calleeAsk(p *flow.Program, id string) (*dsl.Node, *flow.Program, string) {
	parts := strings.Split(id, "/")
	if len(parts) < 2 {
		return nil, nil, ""
	}
	verb := ""
	for _, call := range parts[:len(parts)-1] {
		n := p.File().ByID[call]
		if n == nil || !n.Kind.IsCall() || n.Call == nil {
			return nil, nil, ""
		}
		var next *flow.Program
		for _, q := range p.Callees() {
			if q.Name() == n.Call.Flow.Value {
				next = q
				break
			}
		}
		if next == nil {
			return nil, nil, ""
		}
		p, verb = next, map[dsl.Kind]string{dsl.KindCall: "calls", dsl.KindLink: "links to"}[n.Kind]
	}
	n := p.File().ByID[parts[len(parts)-1]]
	if n == nil {
		return nil, nil, ""
	}
	return n, p, strings.Join(parts[:len(parts)-1], "/") + " " + verb
}

// terminal returns the answerer for a person at the terminal: huh forms
// when standard input is a terminal, accessible line-by-line prompts
// otherwise (or when asked for).
func terminal(env *Env, accessible bool) *runui.Terminal {
	inTTY := isTerminal(env.Stdin)
	if !inTTY || os.Getenv("TERM") == "dumb" {
		accessible = true
	}
	opts := runui.TerminalOptions{In: env.Stdin, Out: env.Stdout, Accessible: accessible, Echo: !inTTY}
	if !accessible && !isTerminal(env.Stdout) && isTerminal(env.Stderr) {
		// Draw the forms where the person sees them.
		opts.Out = env.Stderr
	}
	return runui.NewTerminal(opts)
}

// isTerminal reports whether v is a file open on a terminal.
func isTerminal(v any) bool {
	f, ok := v.(interface{ Fd() uintptr })
	return ok && term.IsTerminal(f.Fd())
}
