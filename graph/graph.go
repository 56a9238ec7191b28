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
//
// Sub-flows: a call node is a hexagon, a link node an arrow-like flag
// ("call: NAME", "link: NAME"). Drawn with the flows a project holds
// ([BuildWith], [MermaidWith], [DOTWith]), each call or link node is
// followed by its callee's nodes in a subgraph of their own (a Mermaid
// subgraph, a DOT cluster) titled with the callee's name: a thick arrow
// goes from the call node into the callee's first node, and thick arrows
// from each of its returns (and its running off the end) back to what
// follows the call (its fall-through or next); a link's callee has no way
// back, its returns are the run's (or, for a link in a callee, go where
// that callee's returns go). The call's on_error edge stays on the
// call node, as it is taken whatever fails in the callee, and each fail
// node of the callee has a dashed on_error edge of its own to the same
// node (to that of an enclosing call when the call has no on_error: a
// failure goes up until a call takes it). The callee's nodes
// are titled with the call path, as the run's questions and trace name
// them (confirm/ok, a/b/ok, confirm/#3), so each callee is drawn once per
// call node that runs it, and a call inside a callee nests a subgraph in
// its subgraph. A callee that is not found (nil Callees, or a flow of
// another directory) leaves the call node drawn plainly, with its
// fall-through; so does a callee with parse errors, one already being
// drawn further out (a call cycle, which lint reports) and one nested
// deeper than MaxCallDepth, each said in the node's summary.
package graph

import (
	"fmt"
	"slices"
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
	ShapeCall // a call node: runs another flow and goes on
	ShapeLink // a link node: hands the run over to another flow
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
	EdgeCall                            // a call or link node into its callee's first node
	EdgeReturn                          // a callee's return (or end) back to what follows its call
)

// Graph is a flow as boxes and arrows, before it is written in a format.
// The nodes of a cluster (a callee drawn inside its call's subgraph) come
// together, right after their call node, with the nodes of the clusters
// nested in it.
type Graph struct {
	Name     string
	Nodes    []Node
	Edges    []Edge
	Clusters []Cluster // in the order their nodes come
}

// Cluster is the subgraph holding the nodes of a call's or link's callee.
type Cluster struct {
	Key    string // the call node's key; the subgraph is named after it in each format
	Title  string // the callee's name
	Parent string // the key of the cluster it is drawn in; "" for the top level
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
	// Cluster is the key of the cluster the node is drawn in (a callee's
	// node), "" for the flow's own nodes.
	Cluster string
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

// MaxCallDepth is how deep calls are drawn inside each other: a callee
// nested deeper is left as a plain call node.
const MaxCallDepth = 8

// Build turns a parsed flow into a Graph, one edge per edge of its
// dsl.CFG. References to nodes that do not exist (which dsl.Parse
// reports) are left out. Call and link nodes are drawn plainly: see
// BuildWith.
func Build(f *dsl.File) *Graph { return BuildWith(f, nil) }

// BuildWith is Build drawing the callee of each call and link node, which
// callees finds (nil finds none), in a cluster of its own (see the
// package documentation).
func BuildWith(f *dsl.File, callees dsl.Callees) *Graph {
	g := &Graph{Name: f.Name.Value}
	if g.Name == "" {
		g.Name = dsl.DefaultName(f.Path)
	}
	g.Nodes = append(g.Nodes, Node{Key: "start", Shape: ShapeStart, Title: "start"})
	g.Edges = append(g.Edges, Edge{From: "start", To: entryKey(f, ""), Kind: EdgeFlow})
	b := &builder{g: g, callees: callees}
	b.flow(f, frame{stack: []*dsl.File{f}})
	return g
}

// builder draws a flow and its callees into g.
type builder struct {
	g       *Graph
	callees dsl.Callees
}

// frame is where a flow's nodes are drawn: the top level, or a callee's
// cluster.
type frame struct {
	keys    string      // prefix of the node keys: "" at the top, "n1_" in call node n1's cluster, "n1_n3_" nested
	titles  string      // prefix of the node titles: the call path, "confirm/"
	cluster string      // the cluster's key, "" at the top
	depth   int         // how many calls deep
	stack   []*dsl.File // the flows being drawn, outermost first
	// returnTo are the keys of the nodes the callee's returns go back to:
	// what follows its call node; for a link, where the returns of the
	// flow it is in go (nil at the top: they end the run).
	returnTo []string
	// failTo are the keys of the nodes the callee's fail nodes go to: its
	// call's on_error, else that of the call its caller is a callee of
	// (a failure goes up until a call takes it); nil when none does.
	failTo []string
}

// entryKey is the key of the node a flow drawn with keys prefix starts
// at: its first node, or its end when it has none.
func entryKey(f *dsl.File, prefix string) string {
	if len(f.Nodes) == 0 {
		return prefix + "done"
	}
	return prefix + "n0"
}

// flow draws f's nodes and edges in fr, and the callees of its call and
// link nodes in clusters of their own.
func (b *builder) flow(f *dsl.File, fr frame) {
	g := b.g
	cfg := dsl.BuildCFG(f)
	end := cfg.End()
	reachesEnd := false
	key := func(i int) string {
		if i == end {
			reachesEnd = true
			return fr.keys + "done"
		}
		return fmt.Sprintf("%sn%d", fr.keys, i)
	}
	var returns, fails []string // the keys of f's return and fail nodes, for fr.returnTo and fr.failTo
	for i, n := range f.Nodes {
		node := Node{Key: key(i), Shape: shapeOf(n.Kind), Title: fr.titles + n.Name(), Kind: n.Kind.String(), Text: summary(n),
			Long: n.Step != nil && n.Step.Long, Approval: n.Kind == dsl.KindAsk && n.Ask.Approval(), Cluster: fr.cluster}
		switch n.Kind {
		case dsl.KindReturn:
			returns = append(returns, node.Key)
		case dsl.KindFail:
			fails = append(fails, node.Key)
		}
		callee, why := b.callee(n, fr)
		if why != "" {
			node.Text += " (" + why + ")"
		}
		g.Nodes = append(g.Nodes, node)
		if callee == nil {
			for _, e := range cfg.Succ(i) {
				if e.To < 0 {
					continue
				}
				kind, label := edgeOf(e)
				g.Edges = append(g.Edges, Edge{From: node.Key, To: key(e.To), Kind: kind, Label: label})
			}
			continue
		}
		// The callee's returns go where the call would go on, its fails
		// where its on_error goes; that edge stays on the call node too,
		// for the other failures.
		sub := frame{keys: node.Key + "_", titles: fr.titles + n.ID + "/", cluster: node.Key, depth: fr.depth + 1,
			stack: append(slices.Clip(fr.stack), callee), failTo: slices.Clip(fr.failTo)}
		switch {
		case n.Kind == dsl.KindLink:
			// The linked flow's result is this flow's: its returns go
			// where this flow's go.
			sub.returnTo = slices.Clip(fr.returnTo)
		case n.Call.OnError != nil:
			sub.failTo = nil
		}
		g.Edges = append(g.Edges, Edge{From: node.Key, To: entryKey(callee, sub.keys), Kind: EdgeCall})
		for _, e := range cfg.Succ(i) {
			if e.To < 0 {
				continue
			}
			if e.Kind == dsl.EdgeFall || e.Kind == dsl.EdgeNext {
				sub.returnTo = append(sub.returnTo, key(e.To))
				continue
			}
			kind, label := edgeOf(e)
			g.Edges = append(g.Edges, Edge{From: node.Key, To: key(e.To), Kind: kind, Label: label})
			if e.Kind == dsl.EdgeOnError {
				sub.failTo = append(sub.failTo, key(e.To))
			}
		}
		g.Clusters = append(g.Clusters, Cluster{Key: node.Key, Title: n.Call.Flow.Value, Parent: fr.cluster})
		b.flow(callee, sub)
	}
	if len(f.Nodes) == 0 {
		reachesEnd = true
	}
	if reachesEnd {
		g.Nodes = append(g.Nodes, Node{Key: fr.keys + "done", Shape: ShapeEnd, Title: "end", Text: "empty result", Cluster: fr.cluster})
		returns = append(returns, fr.keys+"done")
	}
	for _, from := range returns {
		for _, to := range fr.returnTo {
			g.Edges = append(g.Edges, Edge{From: from, To: to, Kind: EdgeReturn})
		}
	}
	for _, from := range fails {
		for _, to := range fr.failTo {
			g.Edges = append(g.Edges, Edge{From: from, To: to, Kind: EdgeOnError, Label: "on_error"})
		}
	}
}

// callee returns the flow call or link node n runs, to draw in a cluster
// under fr, or nil to draw n plainly, with why when there is a reason to
// say (the callee's errors, a cycle, the depth).
func (b *builder) callee(n *dsl.Node, fr frame) (*dsl.File, string) {
	if !n.Kind.IsCall() || n.Call == nil || n.ID == "" || b.callees == nil {
		return nil, ""
	}
	callee := b.callees(n.Call.Flow.Value)
	switch {
	case callee == nil:
		return nil, ""
	case callee.Partial():
		return nil, "it has errors"
	case slices.Contains(fr.stack, callee):
		return nil, "a call cycle: drawn above"
	case fr.depth >= MaxCallDepth:
		return nil, "nested too deep to draw"
	}
	return callee, ""
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
	case dsl.KindCall:
		return ShapeCall
	case dsl.KindLink:
		return ShapeLink
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
	case dsl.KindCall, dsl.KindLink:
		if n.Call == nil {
			return n.Kind.String()
		}
		return n.Kind.String() + ": " + truncate(oneLine(n.Call.Flow.Value), maxSummary)
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
