package check

import (
	"fmt"
	"github.com/flowserve/flowserve/dsl"
	"slices"
	"strings"

	"github.com/flowserve/flowserve/check/codes"
)

// flowGraph is the control flow of a file as lint reads it: for each
// node, the distinct nodes that may run after it (the targets of its CFG
// edges). The index len(nodes) stands for "past the last node".
type flowGraph struct {
	nodes []*dsl.Node
	succ  [][]int
}

// newFlowGraph builds the graph of f's nodes from its CFG. It returns
// false when the CFG is not exact (a reference that does not resolve, a
// node whose kind Parse could not read; Parse reported it): the graph
// would be wrong, and its warnings noise.
func newFlowGraph(f *dsl.File) (*flowGraph, bool) {
	cfg := dsl.BuildCFG(f)
	if !cfg.Resolved() {
		return nil, false
	}
	g := &flowGraph{nodes: f.Nodes, succ: make([][]int, cfg.Len())}
	targets := make([]int, 0, len(cfg.Edges()))
	for i := range g.succ {
		from := len(targets)
		for _, e := range cfg.Succ(i) {
			if e.To >= 0 && !slices.Contains(targets[from:], e.To) {
				targets = append(targets, e.To)
			}
		}
		g.succ[i] = targets[from:len(targets):len(targets)]
	}
	return g, true
}

// reach returns which nodes can run when the flow starts at from.
func (g *flowGraph) reach(from int, seen []bool) {
	stack := []int{from}
	for len(stack) > 0 {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if i >= len(g.nodes) || seen[i] {
			continue
		}
		seen[i] = true
		stack = append(stack, g.succ[i]...)
	}
}

// checkGraph reports unreachable nodes, a path that runs past the last
// node, and loops that cannot end or only end through a branch.
func (c *checker) checkGraph() {
	f := c.f
	if len(f.Nodes) == 0 {
		return
	}
	g, ok := newFlowGraph(f)
	if !ok {
		return
	}
	reachable := make([]bool, len(f.Nodes))
	g.reach(0, reachable)

	// One warning per unreachable region, at its first node.
	covered := slices.Clone(reachable)
	for i, n := range f.Nodes {
		if covered[i] {
			continue
		}
		before := count(covered)
		g.reach(i, covered)
		also := ""
		if k := count(covered) - before - 1; k == 1 {
			also = " (nor is the node it leads to)"
		} else if k > 1 {
			also = fmt.Sprintf(" (nor are the %d nodes it leads to)", k)
		}
		c.warnf(n.Pos, codes.UnreachableNode, "node %s can never run: no path from the first node leads to it%s", n.Name(), also)
	}

	last := len(f.Nodes) - 1
	if reachable[last] && slices.Contains(g.succ[last], len(f.Nodes)) {
		n := f.Nodes[last]
		c.warnf(n.Pos, codes.FallsOffEnd, "the flow can run past its last node (%s) and end with an empty result; end it with a return or fail", n.Name())
	}

	for _, scc := range g.loops(reachable) {
		names := make([]string, len(scc))
		exits, works := false, false
		for k, i := range scc {
			n := f.Nodes[i]
			names[k] = n.Name()
			if n.Kind.IsQuestion() || n.Kind == dsl.KindAll || n.Kind == dsl.KindStep || n.Kind == dsl.KindCall {
				works = true
			}
			for _, s := range g.succ[i] {
				if !slices.Contains(scc, s) {
					exits = true
				}
			}
		}
		first := f.Nodes[scc[0]]
		switch {
		case !exits:
			c.errorf(first.Pos, codes.EndlessLoop, "the loop through %s never ends: no node in it leads out of it", listText(names))
		case !works:
			c.warnf(first.Pos, codes.BusyLoop, "the loop through %s neither asks nor runs a step: only a branch on set names can end it", listText(names))
		}
	}
	c.checkReads()
	c.checkRounds()
}

// count returns how many of bs are true.
func count(bs []bool) int {
	n := 0
	for _, b := range bs {
		if b {
			n++
		}
	}
	return n
}

// listText joins names as "a, b and c".
func listText(names []string) string {
	if len(names) <= 2 {
		return strings.Join(names, " and ")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// loops returns the cycles among the reachable nodes: each strongly
// connected component with more than one node or with an edge to itself,
// its node indexes sorted, the components in the order of their first
// node.
func (g *flowGraph) loops(reachable []bool) [][]int {
	n := len(g.nodes)
	index := make([]int, n)
	low := make([]int, n)
	onStack := make([]bool, n)
	for i := range index {
		index[i] = -1
	}
	var stack []int
	var out [][]int
	next := 0
	var visit func(v int)
	visit = func(v int) {
		index[v], low[v] = next, next
		next++
		stack = append(stack, v)
		onStack[v] = true
		for _, w := range g.succ[v] {
			if w >= n || !reachable[w] {
				continue
			}
			if index[w] < 0 {
				visit(w)
				low[v] = min(low[v], low[w])
			} else if onStack[w] {
				low[v] = min(low[v], index[w])
			}
		}
		if low[v] != index[v] {
			return
		}
		var scc []int
		for {
			w := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			onStack[w] = false
			scc = append(scc, w)
			if w == v {
				break
			}
		}
		if len(scc) > 1 || slices.Contains(g.succ[v], v) {
			slices.Sort(scc)
			out = append(out, scc)
		}
	}
	for v := range n {
		if reachable[v] && index[v] < 0 {
			visit(v)
		}
	}
	slices.SortFunc(out, func(a, b []int) int { return a[0] - b[0] })
	return out
}
