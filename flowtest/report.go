package flowtest

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/flowserve/flowserve/dsl"
)

// The statuses of a case.
const (
	StatusPass = "pass"
	StatusFail = "fail"
	StatusSkip = "skip"
)

// Report is the outcome of a test run.
type Report struct {
	OK      bool          `json:"ok"`
	Cases   int           `json:"cases"`
	Passed  int           `json:"passed"`
	Failed  int           `json:"failed"`
	Skipped int           `json:"skipped"`
	Flows   []*FlowReport `json:"flows"`
}

func (r *Report) add(fr *FlowReport) {
	if len(r.Flows) == 0 {
		r.OK = true
	}
	r.Flows = append(r.Flows, fr)
	r.Cases += len(fr.Cases)
	r.Passed += fr.Passed
	r.Failed += fr.Failed
	r.Skipped += fr.Skipped
	r.OK = r.OK && fr.OK
}

// FlowReport is the outcome of one flow's cases.
type FlowReport struct {
	Name      string        `json:"name"` // the tool name
	File      string        `json:"file"`
	TestFiles []string      `json:"test_files"`
	OK        bool          `json:"ok"`
	Errors    []Diagnostic  `json:"errors,omitempty"` // in the flow and its test files
	Cases     []*CaseReport `json:"cases"`
	Passed    int           `json:"passed"`
	Failed    int           `json:"failed"`
	Skipped   int           `json:"skipped"`
	// Coverage is nil when the flow did not load.
	Coverage *Coverage `json:"coverage,omitempty"`
	// LoadFailed is true when the flow has errors and no case ran.
	LoadFailed bool          `json:"load_failed,omitempty"`
	Elapsed    time.Duration `json:"-"`
}

func (fr *FlowReport) addDiags(ds dsl.Diagnostics) {
	for _, d := range ds {
		if d.Severity != dsl.Error {
			continue // warnings are lint's business
		}
		fr.Errors = append(fr.Errors, Diagnostic{File: d.Pos.File, Line: d.Pos.Line, Col: d.Pos.Col,
			Severity: d.Severity.String(), Code: d.Code, Message: d.Message})
	}
}

// Diagnostic is a problem in a flow or test file that keeps cases from
// running.
type Diagnostic struct {
	File     string `json:"file"`
	Line     int    `json:"line"`
	Col      int    `json:"col"`
	Severity string `json:"severity"`
	Code     string `json:"code"`
	Message  string `json:"message"`
}

// String formats the diagnostic as flowserve lint does.
func (d Diagnostic) String() string {
	return fmt.Sprintf("%s:%d:%d: %s: %s [%s]", d.File, d.Line, d.Col, d.Severity, d.Message, d.Code)
}

// CaseReport is the outcome of one case.
type CaseReport struct {
	Name       string        `json:"name"`
	File       string        `json:"file"`
	Line       int           `json:"line"`
	Col        int           `json:"col"`
	Status     string        `json:"status"` // StatusPass, StatusFail or StatusSkip
	SkipReason string        `json:"skip_reason,omitempty"`
	Failures   []Failure     `json:"failures,omitempty"`
	Path       []string      `json:"path"`   // ids of the nodes the final round visited
	Asks       []string      `json:"asks"`   // the questions asked, in order
	Rounds     int           `json:"rounds"` // the rounds the call took
	Elapsed    time.Duration `json:"-"`
}

// MarshalJSON adds the elapsed time in seconds.
func (c *CaseReport) MarshalJSON() ([]byte, error) {
	type plain CaseReport
	return json.Marshal(struct {
		*plain
		Elapsed float64 `json:"elapsed"`
	}{(*plain)(c), c.Elapsed.Seconds()})
}

// Failure is one way a case failed, at a position in its test file.
type Failure struct {
	File    string   `json:"file"`
	Line    int      `json:"line"`
	Col     int      `json:"col"`
	Message string   `json:"message"`
	Want    string   `json:"want,omitempty"`
	Got     string   `json:"got,omitempty"`
	Diff    []string `json:"diff,omitempty"` // one line per difference
	// Question is the message of a question the case had no answer for.
	Question string `json:"question,omitempty"`
}

// Coverage is the share of a flow's nodes that its cases visited, over
// every round of every case that ran: its own cases', and those of the
// run's flows that call it (a call whose mock replaces the flow visits
// none of its nodes).
type Coverage struct {
	Nodes     int       `json:"nodes"`
	Covered   int       `json:"covered"`
	Percent   float64   `json:"percent"` // rounded to one decimal
	Uncovered []NodeRef `json:"uncovered"`

	file *dsl.File
	seen []bool
}

// NodeRef names a node of a flow.
type NodeRef struct {
	Node string `json:"node"` // its id, or #N
	Kind string `json:"kind"`
	File string `json:"file"`
	Line int    `json:"line"`
	Col  int    `json:"col"`
}

func newCoverage(f *dsl.File) *Coverage {
	return &Coverage{file: f, seen: make([]bool, len(f.Nodes)), Uncovered: []NodeRef{}}
}

// visit marks a node, given by its name (id or #N), as covered.
func (c *Coverage) visit(name string) {
	if c == nil {
		return
	}
	if i, ok := anonIndex(name); ok {
		if i < len(c.seen) {
			c.seen[i] = true
		}
		return
	}
	if n := c.file.ByID[name]; n != nil {
		c.seen[n.Index] = true
	}
}

func (c *Coverage) finish() {
	c.Nodes, c.Covered, c.Uncovered = len(c.seen), 0, []NodeRef{}
	for i, ok := range c.seen {
		if ok {
			c.Covered++
			continue
		}
		n := c.file.Nodes[i]
		c.Uncovered = append(c.Uncovered, NodeRef{Node: n.Name(), Kind: n.Kind.String(), File: n.Pos.File, Line: n.Pos.Line, Col: n.Pos.Col})
	}
	c.Percent = 100
	if c.Nodes > 0 {
		c.Percent = math.Round(1000*float64(c.Covered)/float64(c.Nodes)) / 10
	}
}

// WriteJSON writes the report as indented JSON.
func (r *Report) WriteJSON(w io.Writer) error {
	if r.Flows == nil {
		r.Flows = []*FlowReport{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(r)
}

// WriteText writes a flow's report the way go test reports a package: a
// line per case with its failures below it, then a line for the flow,
// and with cover its node coverage and the nodes no case visited.
func (fr *FlowReport) WriteText(w io.Writer, cover bool) {
	for _, c := range fr.Cases {
		fmt.Fprintf(w, "--- %s: %s/%s (%.2fs)\n", strings.ToUpper(c.Status), fr.Name, c.Name, c.Elapsed.Seconds())
		if c.Status == StatusSkip {
			fmt.Fprintf(w, "    %s:%d: %s\n", c.File, c.Line, c.SkipReason)
		}
		for _, f := range c.Failures {
			fmt.Fprintf(w, "    %s:%d: %s\n", f.File, f.Line, f.Message)
			if f.Want != "" {
				fmt.Fprintf(w, "        want: %s\n", f.Want)
			}
			for _, d := range f.Diff {
				fmt.Fprintf(w, "        %s\n", d)
			}
			if f.Got != "" {
				fmt.Fprintf(w, "        got:  %s\n", f.Got)
			}
			if f.Question != "" {
				fmt.Fprintf(w, "        question: %s\n", indentMore(f.Question, 18))
			}
		}
	}
	if len(fr.Errors) > 0 {
		fmt.Fprintf(w, "# %s\n", fr.Name)
		for _, d := range fr.Errors {
			fmt.Fprintln(w, d.String())
		}
	}
	status := "ok  "
	if !fr.OK {
		status = "FAIL"
	}
	var summary string
	switch {
	case fr.LoadFailed:
		summary = "[flow does not load]"
	case len(fr.TestFiles) == 0:
		status, summary = "?   ", "[no test files]"
	case len(fr.Cases) == 0 && len(fr.Errors) == 0:
		summary = "[no cases to run]"
	default:
		summary = countText(len(fr.Cases), fr.Failed, fr.Skipped)
		if len(fr.Errors) > 0 {
			summary += " [test file errors]"
		}
	}
	line := status + "\t" + fr.Name + "\t" + summary
	if cover && fr.Coverage != nil {
		line += fmt.Sprintf("\tcoverage: %.1f%% of nodes (%d/%d)", fr.Coverage.Percent, fr.Coverage.Covered, fr.Coverage.Nodes)
	}
	fmt.Fprintln(w, line)
	// A flow without test files lists what it misses when other flows'
	// cases call it.
	if cover && fr.Coverage != nil && (len(fr.TestFiles) > 0 || fr.Coverage.Covered > 0) {
		for _, n := range fr.Coverage.Uncovered {
			fmt.Fprintf(w, "    %s:%d: not covered: %s (%s)\n", n.File, n.Line, n.Node, n.Kind)
		}
	}
}

// WriteSummary writes the final line: ok or FAIL with the counts.
func (r *Report) WriteSummary(w io.Writer) {
	status := "ok  "
	if !r.OK {
		status = "FAIL"
	}
	flows := fmt.Sprintf("%d flows", len(r.Flows))
	if len(r.Flows) == 1 {
		flows = "1 flow"
	}
	summary := flows + ", " + countText(r.Cases, r.Failed, r.Skipped)
	bad := 0
	for _, fr := range r.Flows {
		if len(fr.Errors) > 0 {
			bad++
		}
	}
	switch bad {
	case 0:
	case 1:
		summary += ", 1 flow with errors"
	default:
		summary += fmt.Sprintf(", %d flows with errors", bad)
	}
	fmt.Fprintf(w, "%s\t%s\n", status, summary)
}

func countText(cases, failed, skipped int) string {
	s := fmt.Sprintf("%d cases", cases)
	if cases == 1 {
		s = "1 case"
	}
	if failed > 0 {
		s += fmt.Sprintf(", %d failed", failed)
	}
	if skipped > 0 {
		s += fmt.Sprintf(", %d skipped", skipped)
	}
	return s
}

// indentMore indents the lines after the first of a multi-line value to
// sit under the first.
func indentMore(s string, by int) string {
	lines := strings.Split(s, "\n")
	for i := 1; i < len(lines); i++ {
		if lines[i] != "" {
			lines[i] = strings.Repeat(" ", by) + lines[i]
		}
	}
	return strings.Join(lines, "\n")
}
