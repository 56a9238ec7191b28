// Package graph draws flows as diagrams: Mermaid flowcharts (for
// Markdown, GitHub and editors) and Graphviz DOT.
//
// Each node of the flow is a box shaped by its kind — an ask is a
// parallelogram, a step a subroutine box (a box in DOT), a branch a
// diamond, a set a rounded box, and the terminal nodes, return and fail,
// are stadiums (double ovals in DOT) filled green and red. A label holds
// the node's id (#N for a node without one) and a short summary: the
// ask's message, the step's action, the names a set binds, the text of a
// return or fail, truncated. A start marker points at the first node, and
// an "end" node stands for running off the end of the node list (an
// empty result), drawn only when some node can get there.
//
// Edges, one per edge of the flow's dsl.CFG: fall-through to the next
// node and `next` jumps (labelled "next"); each branch case to its
// target, labelled with its condition; the branch's else (labelled
// "else") or, without one, its fall-through (labelled "otherwise"); an
// ask's `unavailable` node and a step's `on_error` node, dashed; an
// approval's `on_timeout` node, dashed and labelled "timeout". A `long`
// step, where a call may go on as an MCP task, has a thick purple border;
// an approval (an ask with `to`, answered by someone else while the call
// waits as a task) a thick blue one, and "(to …)" in its summary. Text is
// escaped for each format, so any message or condition draws as written.
package graph

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/flowserve/flowserve/dsl"
)

// Shape is the kind of box a node is drawn as.
type Shape int

// The shapes of nodes.
const (
	ShapeStart Shape = iota + 1
	ShapeAsk
	ShapeStep
	ShapeBranch
	ShapeSet
	ShapeReturn
	ShapeFail
	ShapeEnd
)

// EdgeKind says why one node leads to another.
type EdgeKind int

// The kinds of edges.
const (
	EdgeFlow        EdgeKind = iota + 1 // fall-through, or from the start marker
	EdgeNext                            // an explicit `next`
	EdgeCase                            // a branch case; the label is its condition
	EdgeElse                            // a branch's else
	EdgeOtherwise                       // a branch without else falling through
	EdgeUnavailable                     // an ask the client cannot answer
	EdgeOnError                         // a step that failed
	EdgeTimeout                         // an approval nobody answered in time
)

// Graph is a flow as boxes and arrows, before it is written in a format.
type Graph struct {
	Name  string
	Nodes []Node
	Edges []Edge
}

// Node is one box.
type Node struct {
	Key   string // unique and safe in both formats: start, n0, n1, …, done ("end" is reserved in Mermaid)
	Shape Shape
	Title string // the node's id, or #N
	Kind  string // the node's kind: ask, step, …; "" for start and end
	Text  string // the summary, already truncated
	// Long marks a `long: true` step, where a call may go on as a task:
	// drawn with a thick purple border, and "(long)" in its summary.
	Long bool
	// Approval marks an ask with `to`, which someone other than the
	// caller answers while the call waits as a task: drawn with a thick
	// blue border, and "(to …)" in its summary.
	Approval bool
}

// Edge is one arrow.
type Edge struct {
	From, To string // node keys
	Kind     EdgeKind
	Label    string
}

// Lengths at which labels are truncated, in runes.
const (
	maxSummary   = 40
	maxCondition = 60
	maxTo        = 30 // who an approval asks
)

// Build turns a parsed flow into a Graph, one edge per edge of its
// dsl.CFG. References to nodes that do not exist (which dsl.Parse
// reports) are left out.
func Build(f *dsl.File) *Graph {
	g := &Graph{Name: f.Name.Value}
	if g.Name == "" {
		g.Name = dsl.DefaultName(f.Path)
	}
	g.Nodes = append(g.Nodes, Node{Key: "start", Shape: ShapeStart, Title: "start"})
	cfg := dsl.BuildCFG(f)
	end := cfg.End()
	reachesEnd := false
	key := func(i int) string {
		if i == end {
			reachesEnd = true
			return "done"
		}
		return fmt.Sprintf("n%d", i)
	}
	g.Edges = append(g.Edges, Edge{From: "start", To: key(cfg.Entry()), Kind: EdgeFlow})
	for i, n := range f.Nodes {
		g.Nodes = append(g.Nodes, Node{Key: key(i), Shape: shapeOf(n.Kind), Title: n.Name(), Kind: n.Kind.String(), Text: summary(n),
			Long: n.Step != nil && n.Step.Long, Approval: n.Kind == dsl.KindAsk && n.Ask.Approval()})
		for _, e := range cfg.Succ(i) {
			if e.To < 0 {
				continue
			}
			kind, label := edgeOf(e)
			g.Edges = append(g.Edges, Edge{From: key(i), To: key(e.To), Kind: kind, Label: label})
		}
	}
	if reachesEnd {
		g.Nodes = append(g.Nodes, Node{Key: "done", Shape: ShapeEnd, Title: "end", Text: "empty result"})
	}
	return g
}

// edgeOf returns the kind and label a CFG edge is drawn with.
func edgeOf(e dsl.Edge) (EdgeKind, string) {
	switch e.Kind {
	case dsl.EdgeNext:
		return EdgeNext, "next"
	case dsl.EdgeCase:
		if e.Cond == nil {
			return EdgeCase, ""
		}
		return EdgeCase, truncate(oneLine(e.Cond.Src), maxCondition)
	case dsl.EdgeElse:
		return EdgeElse, "else"
	case dsl.EdgeOtherwise:
		return EdgeOtherwise, "otherwise"
	case dsl.EdgeUnavailable:
		return EdgeUnavailable, "unavailable"
	case dsl.EdgeOnError:
		return EdgeOnError, "on_error"
	case dsl.EdgeOnTimeout:
		return EdgeTimeout, "timeout"
	}
	return EdgeFlow, ""
}

func shapeOf(k dsl.Kind) Shape {
	switch k {
	case dsl.KindAsk, dsl.KindSample, dsl.KindRoots, dsl.KindAll:
		return ShapeAsk
	case dsl.KindStep:
		return ShapeStep
	case dsl.KindBranch:
		return ShapeBranch
	case dsl.KindSet:
		return ShapeSet
	case dsl.KindReturn:
		return ShapeReturn
	case dsl.KindFail:
		return ShapeFail
	}
	return ShapeStep
}

// summary is the second line of a node's label.
func summary(n *dsl.Node) string {
	tmpl := func(t *dsl.Template) string {
		if t == nil {
			return ""
		}
		return truncate(oneLine(t.Src), maxSummary)
	}
	switch n.Kind {
	case dsl.KindAsk:
		if n.Ask == nil {
			return "ask"
		}
		s := "ask: " + tmpl(n.Ask.Message)
		if n.Ask.URL != nil {
			s = "ask (url): " + tmpl(n.Ask.Message)
		}
		if n.Ask.Approval() {
			s += " (to " + truncate(oneLine(n.Ask.To.Src), maxTo) + ")"
		}
		return s
	case dsl.KindSample:
		if n.Ask == nil || n.Ask.Sample == nil || len(n.Ask.Sample.Messages) == 0 {
			return "sample"
		}
		last := n.Ask.Sample.Messages[len(n.Ask.Sample.Messages)-1]
		if last.Text == nil {
			return "sample"
		}
		return "sample: " + tmpl(last.Text)
	case dsl.KindRoots:
		return "roots"
	case dsl.KindAll:
		if n.All == nil {
			return "all"
		}
		var parts []string
		for _, q := range n.All.Questions {
			parts = append(parts, q.Name()+" ("+q.Kind.String()+")")
		}
		return truncate("all: "+strings.Join(parts, ", "), maxSummary+5)
	case dsl.KindStep:
		if n.Step == nil {
			return "step"
		}
		if n.Step.Long {
			return "step: " + n.Step.Action.Value + " (long)"
		}
		return "step: " + n.Step.Action.Value
	case dsl.KindBranch:
		return "branch"
	case dsl.KindSet:
		if n.Set == nil {
			return "set"
		}
		names := make([]string, len(n.Set.Bindings))
		for i, b := range n.Set.Bindings {
			names[i] = b.Name
		}
		return truncate("set: "+strings.Join(names, ", "), maxSummary+5)
	case dsl.KindReturn:
		r := n.Return
		switch {
		case r == nil:
			return "return"
		case r.Text != nil:
			return "return: " + tmpl(r.Text)
		case r.Structured != nil:
			return "return: structured"
		case r.Messages != nil:
			return "return: messages"
		default:
			return "return: content"
		}
	case dsl.KindFail:
		return "fail: " + tmpl(n.Fail)
	}
	return n.Kind.String()
}

// oneLine folds runs of white space, newlines included, into one space.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// truncate cuts s to at most max runes, ending it with "…" when cut.
func truncate(s string, max int) string {
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	r := []rune(s)
	return strings.TrimRight(string(r[:max-1]), " ") + "…"
}
