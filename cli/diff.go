package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/flowserve/flowserve/diff"
	"github.com/flowserve/flowserve/project"
)

// runDiff compares two versions of a set of flows tool by tool and says,
// for each, whether the new version is compatible with runs in flight on
// the old one (DESIGN §13).
//
// Behaviour:
//   - OLD and NEW are flow files or directories, loaded with project.Load
//     as lint loads them; tools are matched by name. A path that does not
//     exist or holds no flows, or flows with errors (their diagnostics are
//     printed on stderr), is a usage error: there is nothing sound to
//     compare.
//   - Each tool gets a verdict from diff.Compare: compatible,
//     new-calls-only or breaking; a tool only in OLD is removed
//     (breaking), one only in NEW added (compatible).
//   - Text output: per tool, "name: verdict" (removed or added for those),
//     then its reasons indented, "file:line:col: sentence"; then a summary
//     line. JSON output (--format json): {tools: [{name, verdict, status,
//     reasons: [{node, change, verdict, pos: {file, line, col}, message}]}],
//     verdict, summary}.
//   - Exit status: 0 when no tool is breaking, 1 when one is, 2 on usage
//     errors.
func runDiff(ctx context.Context, env *Env) int {
	fs := flag.NewFlagSet("flowserve diff", flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	format := fs.String("format", "text", "output format: text or json")
	fs.Usage = func() {
		w := env.Stderr
		fmt.Fprintln(w, "usage: flowserve diff [--format text|json] OLD NEW")
		fmt.Fprintln(w, "\nCompares two versions of flows (files or directories, tools matched by name) and")
		fmt.Fprintln(w, "says for each tool what deploying NEW does:")
		fmt.Fprintln(w, "  compatible      every run in flight on OLD could also go on under NEW: its")
		fmt.Fprintln(w, "                  journal replays (the same questions and steps in the same")
		fmt.Fprintln(w, "                  order, with the same fingerprints, along the same branches)")
		fmt.Fprintln(w, "  new-calls-only  NEW serves new calls, but some runs in flight on OLD would")
		fmt.Fprintln(w, "                  not replay under it (a question or step changed, renamed,")
		fmt.Fprintln(w, "                  removed or preceded by a new one, a branch changed, ...):")
		fmt.Fprintln(w, "                  they finish on OLD, which servers keep for them")
		fmt.Fprintln(w, "  breaking        callers break even on new calls: the tool was removed, its")
		fmt.Fprintln(w, "                  input accepts less, its output promises less, it needs tasks,")
		fmt.Fprintln(w, "                  or it became a prompt (or the other way round)")
		fmt.Fprintln(w, "Each verdict comes with its reasons, node by node, at file:line:col.")
		fmt.Fprintln(w, "Exits 1 when a tool is breaking, 2 on usage errors (flows that do not load).")
		fs.PrintDefaults()
	}
	args, err := flagsAndArgs(fs, env.Args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if *format != "text" && *format != "json" {
		fmt.Fprintf(env.Stderr, "flowserve diff: --format must be text or json, not %q\n", *format)
		return exitUsage
	}
	if len(args) != 2 {
		fmt.Fprintln(env.Stderr, "flowserve diff: give the old and the new version: flowserve diff OLD NEW")
		fs.Usage()
		return exitUsage
	}
	var sets [2]*project.Set
	for i, path := range args {
		set, diags := project.Load([]string{path}, project.Options{})
		if msg, ok := usageError(diags); ok {
			fmt.Fprintf(env.Stderr, "flowserve diff: %s\n", msg)
			return exitUsage
		}
		if diags.HasErrors() {
			printDiagnostics(env.Stderr, diags.Errors())
			fmt.Fprintf(env.Stderr, "flowserve diff: %s: %s have errors; fix them first (flowserve lint %s)\n", path, failedParts(diags), path)
			return exitUsage
		}
		sets[i] = set
	}
	reports := diff.CompareAll(sets[0].Programs, sets[1].Programs)
	switch *format {
	case "json":
		if err := writeDiffJSON(env.Stdout, reports); err != nil {
			fmt.Fprintf(env.Stderr, "flowserve diff: %v\n", err)
			return exitFail
		}
	default:
		writeDiffText(env.Stdout, reports)
	}
	for _, r := range reports {
		if r.Verdict == diff.Breaking {
			return exitFail
		}
	}
	return exitOK
}

// status says how a tool's report reads: removed, added, changed (it has
// reasons) or unchanged.
func status(r *diff.Report) string {
	switch {
	case r.Removed():
		return "removed"
	case r.Added():
		return "added"
	case len(r.Reasons) > 0:
		return "changed"
	}
	return "unchanged"
}

// shownVerdict is what the text output says of a tool: its verdict, or
// removed and added for tools only in one version.
func shownVerdict(r *diff.Report) string {
	if s := status(r); s == "removed" || s == "added" {
		return s
	}
	return r.Verdict.String()
}

// writeDiffText writes the reports as text, then the summary line.
func writeDiffText(w io.Writer, reports []*diff.Report) {
	for _, r := range reports {
		fmt.Fprintf(w, "%s: %s\n", r.Name, shownVerdict(r))
		for _, x := range r.Reasons {
			fmt.Fprintf(w, "  %s: %s\n", x.Pos, x.Message)
		}
	}
	fmt.Fprintln(w, diffSummary(reports))
}

// diffCounts counts the tools of each verdict.
type diffCounts struct {
	Tools        int `json:"tools"`
	Breaking     int `json:"breaking"`
	NewCallsOnly int `json:"new-calls-only"`
	Compatible   int `json:"compatible"`
	Removed      int `json:"removed"`
	Added        int `json:"added"`
}

func countReports(reports []*diff.Report) diffCounts {
	var n diffCounts
	for _, r := range reports {
		n.Tools++
		switch r.Verdict {
		case diff.Breaking:
			n.Breaking++
		case diff.NewCallsOnly:
			n.NewCallsOnly++
		default:
			n.Compatible++
		}
		switch status(r) {
		case "removed":
			n.Removed++
		case "added":
			n.Added++
		}
	}
	return n
}

// diffSummary returns the summary line: "3 tools: 1 breaking (1 removed),
// 0 new-calls-only, 2 compatible (1 added)".
func diffSummary(reports []*diff.Report) string {
	n := countReports(reports)
	breaking := fmt.Sprintf("%d breaking", n.Breaking)
	if n.Removed > 0 {
		breaking += fmt.Sprintf(" (%d removed)", n.Removed)
	}
	compatible := fmt.Sprintf("%d compatible", n.Compatible)
	if n.Added > 0 {
		compatible += fmt.Sprintf(" (%d added)", n.Added)
	}
	return fmt.Sprintf("%s: %s, %d new-calls-only, %s", plural(n.Tools, "tool"), breaking, n.NewCallsOnly, compatible)
}

// The JSON document diff prints.
type (
	diffJSON struct {
		Tools   []toolDiffJSON `json:"tools"`
		Verdict diff.Verdict   `json:"verdict"`
		Summary diffCounts     `json:"summary"`
	}
	toolDiffJSON struct {
		Name    string           `json:"name"`
		Verdict diff.Verdict     `json:"verdict"`
		Status  string           `json:"status"`
		Reasons []diffReasonJSON `json:"reasons"`
	}
	diffReasonJSON struct {
		Node    string       `json:"node"`
		Change  diff.Change  `json:"change"`
		Verdict diff.Verdict `json:"verdict"`
		Pos     posJSON      `json:"pos"`
		Message string       `json:"message"`
	}
	posJSON struct {
		File string `json:"file"`
		Line int    `json:"line"`
		Col  int    `json:"col"`
	}
)

// writeDiffJSON writes the reports as one JSON document.
func writeDiffJSON(w io.Writer, reports []*diff.Report) error {
	doc := diffJSON{Tools: []toolDiffJSON{}, Summary: countReports(reports)}
	for _, r := range reports {
		doc.Verdict = max(doc.Verdict, r.Verdict)
		t := toolDiffJSON{Name: r.Name, Verdict: r.Verdict, Status: status(r), Reasons: []diffReasonJSON{}}
		for _, x := range r.Reasons {
			t.Reasons = append(t.Reasons, diffReasonJSON{
				Node: x.Node, Change: x.Change, Verdict: x.Verdict,
				Pos:     posJSON{File: x.Pos.File, Line: x.Pos.Line, Col: x.Pos.Col},
				Message: x.Message,
			})
		}
		doc.Tools = append(doc.Tools, t)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(doc); err != nil {
		return errors.New("writing JSON: " + err.Error())
	}
	return nil
}
