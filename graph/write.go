package graph

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/flowserve/flowserve/dsl"
)

// Mermaid draws a flow as a Mermaid flowchart.
func Mermaid(f *dsl.File) string { return Build(f).Mermaid() }

// DOT draws a flow as a Graphviz digraph.
func DOT(f *dsl.File) string { return Build(f).DOT() }

// MermaidWith draws a flow as a Mermaid flowchart with the callees of its
// call and link nodes, which callees finds, in subgraphs (see BuildWith).
func MermaidWith(f *dsl.File, callees dsl.Callees) string { return BuildWith(f, callees).Mermaid() }

// DOTWith draws a flow as a Graphviz digraph with the callees of its call
// and link nodes, which callees finds, in clusters (see BuildWith).
func DOTWith(f *dsl.File, callees dsl.Callees) string { return BuildWith(f, callees).DOT() }

// Fill and line colours of terminal nodes.
const (
	returnFill, returnLine = "#e6f4ea", "#2e7d32"
	failFill, failLine     = "#fdecea", "#c62828"
	longLine               = "#6a1b9a"
	approvalLine           = "#1565c0"
	clusterLine            = "#78909c"
)

// nesting writes the openings and closings of the clusters nodes are
// drawn in, as the nodes are written in order (a cluster's nodes come
// together, see Graph).
type nesting struct {
	g     *Graph
	b     *strings.Builder
	open  []string // the keys of the clusters open, outermost first
	begin func(b *strings.Builder, c *Cluster, indent string)
	close string // what ends a cluster: "end" or "}"
}

// indent is the indentation of a line inside the clusters open.
func (n *nesting) indent() string { return strings.Repeat("    ", len(n.open)+1) }

// enter opens and closes clusters so that cluster (a key, "" for the top
// level) is the innermost one open.
func (n *nesting) enter(cluster string) {
	var chain []*Cluster // outermost first
	for key := cluster; key != ""; {
		c := n.g.cluster(key)
		if c == nil {
			break
		}
		chain = append([]*Cluster{c}, chain...)
		key = c.Parent
	}
	for len(n.open) > 0 && (len(n.open) > len(chain) || n.open[len(n.open)-1] != chain[len(n.open)-1].Key) {
		n.open = n.open[:len(n.open)-1]
		n.b.WriteString(n.indent() + n.close + "\n")
	}
	for len(n.open) < len(chain) {
		c := chain[len(n.open)]
		n.begin(n.b, c, n.indent())
		n.open = append(n.open, c.Key)
	}
}

// cluster returns the cluster of key, or nil.
func (g *Graph) cluster(key string) *Cluster {
	for i := range g.Clusters {
		if g.Clusters[i].Key == key {
			return &g.Clusters[i]
		}
	}
	return nil
}

// Mermaid writes the graph as a Mermaid flowchart, top to bottom, with
// the flow's name as its title.
func (g *Graph) Mermaid() string {
	var b strings.Builder
	title, _ := json.Marshal(g.Name)
	fmt.Fprintf(&b, "---\ntitle: %s\n---\nflowchart TD\n", title)
	var returns, fails, long, approvals []string
	nest := &nesting{g: g, b: &b, close: "end", begin: func(b *strings.Builder, c *Cluster, indent string) {
		fmt.Fprintf(b, "%ssubgraph %s_flow[\"%s\"]\n", indent, c.Key, mermaidText(c.Title))
	}}
	for _, n := range g.Nodes {
		nest.enter(n.Cluster)
		if n.Long {
			long = append(long, n.Key)
		}
		if n.Approval {
			approvals = append(approvals, n.Key)
		}
		label := mermaidText(n.Title)
		if n.Text != "" {
			label += "<br/>" + mermaidText(n.Text)
		}
		open, close := mermaidShape(n.Shape)
		fmt.Fprintf(&b, "%s%s%s\"%s\"%s\n", nest.indent(), n.Key, open, label, close)
		switch n.Shape {
		case ShapeReturn:
			returns = append(returns, n.Key)
		case ShapeFail:
			fails = append(fails, n.Key)
		}
	}
	nest.enter("")
	for _, e := range g.Edges {
		arrow := "-->"
		switch e.Kind {
		case EdgeUnavailable, EdgeOnError, EdgeTimeout:
			arrow = "-.->"
		case EdgeCall, EdgeReturn:
			arrow = "==>"
		}
		if e.Label == "" {
			fmt.Fprintf(&b, "    %s %s %s\n", e.From, arrow, e.To)
		} else {
			fmt.Fprintf(&b, "    %s %s|\"%s\"| %s\n", e.From, arrow, mermaidText(e.Label), e.To)
		}
	}
	fmt.Fprintf(&b, "    classDef ret fill:%s,stroke:%s\n", returnFill, returnLine)
	fmt.Fprintf(&b, "    classDef fail fill:%s,stroke:%s\n", failFill, failLine)
	if len(returns) > 0 {
		fmt.Fprintf(&b, "    class %s ret\n", strings.Join(returns, ","))
	}
	if len(fails) > 0 {
		fmt.Fprintf(&b, "    class %s fail\n", strings.Join(fails, ","))
	}
	if len(long) > 0 {
		fmt.Fprintf(&b, "    classDef long stroke:%s,stroke-width:3px\n", longLine)
		fmt.Fprintf(&b, "    class %s long\n", strings.Join(long, ","))
	}
	if len(approvals) > 0 {
		fmt.Fprintf(&b, "    classDef approval stroke:%s,stroke-width:3px\n", approvalLine)
		fmt.Fprintf(&b, "    class %s approval\n", strings.Join(approvals, ","))
	}
	return b.String()
}

func mermaidShape(s Shape) (string, string) {
	switch s {
	case ShapeStart:
		return "((", "))"
	case ShapeAsk:
		return "[/", "/]"
	case ShapeStep:
		return "[[", "]]"
	case ShapeBranch:
		return "{", "}"
	case ShapeSet:
		return "(", ")"
	case ShapeReturn, ShapeFail, ShapeEnd:
		return "([", "])"
	case ShapeCall:
		return "{{", "}}"
	case ShapeLink:
		return ">", "]"
	}
	return "[", "]"
}

// mermaidText escapes text for a quoted Mermaid label: the characters
// that end a label or that Mermaid or HTML would read become Mermaid's
// entity codes (#34; and so on).
func mermaidText(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '"', '#', '&', '<', '>', '|', '`':
			fmt.Fprintf(&b, "#%d;", r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// DOT writes the graph as a Graphviz digraph, top to bottom.
func (g *Graph) DOT() string {
	var b strings.Builder
	fmt.Fprintf(&b, "digraph %s {\n", dotString(g.Name))
	b.WriteString("    graph [fontname=\"Helvetica\"];\n")
	b.WriteString("    node [fontname=\"Helvetica\", fontsize=11];\n")
	b.WriteString("    edge [fontname=\"Helvetica\", fontsize=10];\n")
	nest := &nesting{g: g, b: &b, close: "}", begin: func(b *strings.Builder, c *Cluster, indent string) {
		fmt.Fprintf(b, "%ssubgraph cluster_%s {\n", indent, c.Key)
		fmt.Fprintf(b, "%s    label=%s; style=\"rounded,dashed\"; color=%s; fontcolor=%s;\n", indent, dotString(c.Title), dotString(clusterLine), dotString(clusterLine))
	}}
	for _, n := range g.Nodes {
		nest.enter(n.Cluster)
		label := n.Title
		if n.Text != "" {
			label += "\n" + n.Text
		}
		extra := ""
		switch {
		case n.Long:
			extra = ", penwidth=3, color=" + dotString(longLine)
		case n.Approval:
			extra = ", penwidth=3, color=" + dotString(approvalLine)
		}
		fmt.Fprintf(&b, "%s%s [%s%s, label=%s];\n", nest.indent(), n.Key, dotShape(n.Shape), extra, dotString(label))
	}
	nest.enter("")
	for _, e := range g.Edges {
		var attrs []string
		if e.Label != "" {
			attrs = append(attrs, "label="+dotString(e.Label))
		}
		switch e.Kind {
		case EdgeOnError:
			attrs = append(attrs, "style=dashed", "color="+dotString(failLine), "fontcolor="+dotString(failLine))
		case EdgeUnavailable:
			attrs = append(attrs, "style=dashed")
		case EdgeTimeout:
			attrs = append(attrs, "style=dashed", "color="+dotString(approvalLine), "fontcolor="+dotString(approvalLine))
		case EdgeCall, EdgeReturn:
			attrs = append(attrs, "style=bold")
		}
		if len(attrs) == 0 {
			fmt.Fprintf(&b, "    %s -> %s;\n", e.From, e.To)
		} else {
			fmt.Fprintf(&b, "    %s -> %s [%s];\n", e.From, e.To, strings.Join(attrs, ", "))
		}
	}
	b.WriteString("}\n")
	return b.String()
}

func dotShape(s Shape) string {
	switch s {
	case ShapeStart:
		return "shape=circle, style=filled, fillcolor=\"#eeeeee\""
	case ShapeAsk:
		return "shape=parallelogram"
	case ShapeStep:
		return "shape=box"
	case ShapeBranch:
		return "shape=diamond"
	case ShapeSet:
		return "shape=box, style=rounded"
	case ShapeReturn:
		return fmt.Sprintf("shape=oval, peripheries=2, style=filled, fillcolor=%s, color=%s", dotString(returnFill), dotString(returnLine))
	case ShapeFail:
		return fmt.Sprintf("shape=oval, peripheries=2, style=filled, fillcolor=%s, color=%s", dotString(failFill), dotString(failLine))
	case ShapeEnd:
		return "shape=oval, peripheries=2, style=dashed"
	case ShapeCall:
		return "shape=hexagon"
	case ShapeLink:
		return "shape=cds"
	}
	return "shape=box"
}

// dotString quotes s as a DOT string: backslashes and quotes are
// escaped, so label escapes like \l are not read into it, and newlines
// become \n line breaks.
func dotString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '\\':
			b.WriteString(`\\`)
		case '"':
			b.WriteString(`\"`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
