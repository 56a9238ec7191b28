package dsl

// CFG is the control-flow graph of a flow file: for every node of
// File.Nodes, the edges to the nodes that may run after it, each with the
// reason it is taken. It is the one place the successors of a node are
// worked out; lint (unreachable nodes, loops, running past the end),
// flowserve graph and the engine read them from here.
//
// Nodes are numbered by their index in File.Nodes, the index flow.Compile
// gives them. End (len(File.Nodes)) stands for running past the last node,
// which ends the run with an empty result, as the engine's index
// len(nodes) does. Entry is 0, the first node (End itself when the file
// has no nodes).
//
// A question of an all node is not a node of the graph: it is asked at
// its all node's index, and the all node's edges are its edges (its
// answer is bound on each of them). return and fail nodes have no edges:
// they end the run. A step without on_error that fails, or a question
// without unavailable that the client cannot be asked, ends the call with
// an error, which is no edge either. An approval (an ask with `to`) has
// an EdgeOnTimeout edge when it says on_timeout.
//
// A CFG is immutable, deterministic (edges come in the order documented
// on Succ) and cheap: building it makes three allocations whatever the
// size of the flow. It is safe for concurrent use.
type CFG struct {
	nodes    []*Node
	edges    []Edge // every edge, grouped by From in node order
	first    []int  // the edges of node i are edges[first[i]:first[i+1]]
	resolved bool
}

// EdgeKind says why control goes from one node to another, and so what a
// run has bound when it takes the edge.
type EdgeKind uint8

// The kinds of edges.
const (
	// EdgeFall falls through to the next node of the list (End after the
	// last node). It leaves ask, sample, roots, all, step and set nodes
	// that say no next, once the node has done its work: the question's
	// id (each question's, for an all node), the step's id or the set's
	// names are bound.
	EdgeFall EdgeKind = iota + 1
	// EdgeNext is an explicit `next: <id>`, taken as EdgeFall would be.
	EdgeNext
	// EdgeCase is a branch case taken because its condition (Edge.Cond)
	// is true and no case before it was; Edge.Case is its index in
	// Branch.Cases. It binds nothing.
	EdgeCase
	// EdgeElse is a branch's else, taken when no case's condition is
	// true. It binds nothing.
	EdgeElse
	// EdgeOtherwise falls through a branch without else to the next node
	// of the list (End after the last node) when no case's condition is
	// true. It binds nothing.
	EdgeOtherwise
	// EdgeUnavailable is an ask's, sample's, roots' or all node's
	// `unavailable`, taken when the client cannot be asked: the question's
	// id (each question's, for an all node) is bound to an answer whose
	// action is "unavailable".
	EdgeUnavailable
	// EdgeOnError is a step's `on_error`, taken when its action failed,
	// or a call's, taken when its callee failed: `error` is bound to the
	// failure's message, and the node's id is not bound.
	EdgeOnError
	// EdgeOnTimeout is an approval's `on_timeout` (an ask with `to` and a
	// timeout), taken when nobody answered before the timeout: the ask's
	// id is bound to an answer whose action is "timeout".
	EdgeOnTimeout
)

// String returns the kind's name as flow files write it where they have
// one (next, else, unavailable, on_error, on_timeout), else fall, case or
// otherwise.
func (k EdgeKind) String() string {
	switch k {
	case EdgeFall:
		return "fall"
	case EdgeNext:
		return "next"
	case EdgeCase:
		return "case"
	case EdgeElse:
		return "else"
	case EdgeOtherwise:
		return "otherwise"
	case EdgeUnavailable:
		return "unavailable"
	case EdgeOnError:
		return "on_error"
	case EdgeOnTimeout:
		return "on_timeout"
	}
	return "unknown"
}

// Edge is one way control may go from node From to node To.
type Edge struct {
	From int
	// To is the index of the node that runs next; End for running past
	// the last node; -1 when the reference names no node (Parse reported
	// it) or a branch case has no then.
	To   int
	Kind EdgeKind
	// Case is the index of the case in the branch's Cases for EdgeCase,
	// -1 for the other kinds.
	Case int
	// Cond is the condition of an EdgeCase (nil when the case has no if);
	// nil for the other kinds.
	Cond *Expr
	// Ref is the reference the edge was written as (next, then, else,
	// unavailable, on_error, on_timeout); nil for EdgeFall, EdgeOtherwise
	// and a case without then.
	Ref *Ref
}

// BuildCFG returns the control-flow graph of f, which may be a partial
// File (one Parse returned with errors): edges whose reference names no
// node have To -1, and Resolved reports whether there are any. A nil f has
// no nodes.
func BuildCFG(f *File) *CFG {
	var nodes []*Node
	if f != nil {
		nodes = f.Nodes
	}
	g := &CFG{
		nodes:    nodes,
		edges:    make([]Edge, 0, cfgEdges(nodes)),
		first:    make([]int, len(nodes)+1),
		resolved: true,
	}
	for i, n := range nodes {
		g.first[i] = len(g.edges)
		if n.Index != i || n.Kind == 0 {
			// Parse left an entry out, or could not read the kind.
			g.resolved = false
		}
		g.nodeEdges(i, n)
	}
	g.first[len(nodes)] = len(g.edges)
	return g
}

// cfgEdges returns how many edges the graph of nodes has, so that
// BuildCFG allocates them once.
func cfgEdges(nodes []*Node) int {
	k := 0
	for _, n := range nodes {
		switch {
		case n.Kind == KindBranch && n.Branch != nil:
			k += len(n.Branch.Cases) + 1
		case n.Kind == KindBranch || n.Kind == KindReturn || n.Kind == KindFail:
		case n.Kind == KindAsk && n.Ask != nil && n.Ask.OnTimeout != nil:
			k += 3
		default:
			k += 2
		}
	}
	return k
}

// nodeEdges appends the edges of node i, in the order Succ documents.
func (g *CFG) nodeEdges(i int, n *Node) {
	switch n.Kind {
	case KindAsk, KindSample, KindRoots:
		g.onward(i, n)
		if n.Ask != nil {
			g.ref(i, EdgeUnavailable, n.Ask.Unavailable)
			g.ref(i, EdgeOnTimeout, n.Ask.OnTimeout)
		}
	case KindAll:
		g.onward(i, n)
		if n.All != nil {
			g.ref(i, EdgeUnavailable, n.All.Unavailable)
		}
	case KindStep:
		g.onward(i, n)
		if n.Step != nil {
			g.ref(i, EdgeOnError, n.Step.OnError)
		}
	case KindCall:
		g.onward(i, n)
		if n.Call != nil {
			g.ref(i, EdgeOnError, n.Call.OnError)
		}
	case KindBranch:
		if n.Branch == nil {
			return
		}
		for k, c := range n.Branch.Cases {
			e := Edge{From: i, To: -1, Kind: EdgeCase, Case: k, Cond: c.If}
			if c.Then != nil {
				e = g.resolve(e, c.Then)
			}
			g.edges = append(g.edges, e)
		}
		if n.Branch.Else != nil {
			g.ref(i, EdgeElse, n.Branch.Else)
		} else {
			g.edges = append(g.edges, Edge{From: i, To: i + 1, Kind: EdgeOtherwise, Case: -1})
		}
	case KindReturn, KindFail, KindLink:
		// They end the run (a link with the result of the flow it links to).
	default: // set, or a node whose kind Parse could not read
		g.onward(i, n)
	}
}

// onward appends node i's own way on: its next, or the fall through.
func (g *CFG) onward(i int, n *Node) {
	if n.Next != nil {
		g.ref(i, EdgeNext, n.Next)
		return
	}
	g.edges = append(g.edges, Edge{From: i, To: i + 1, Kind: EdgeFall, Case: -1})
}

// ref appends an edge of kind k written as r; none when r is nil.
func (g *CFG) ref(i int, k EdgeKind, r *Ref) {
	if r != nil {
		g.edges = append(g.edges, g.resolve(Edge{From: i, To: -1, Kind: k, Case: -1}, r))
	}
}

// resolve returns e going where r points, or to -1 (and the graph not
// resolved) when r names no node.
func (g *CFG) resolve(e Edge, r *Ref) Edge {
	e.Ref = r
	if r.Target >= 0 && r.Target < len(g.nodes) {
		e.To = r.Target
	} else {
		e.To = -1
		g.resolved = false
	}
	return e
}

// Len returns the number of nodes, which is also End.
func (g *CFG) Len() int { return len(g.nodes) }

// Node returns node i of the file.
func (g *CFG) Node(i int) *Node { return g.nodes[i] }

// Entry returns the index of the node a run starts at: 0, which is End
// when the file has no nodes.
func (g *CFG) Entry() int { return 0 }

// End returns the index that stands for running past the last node (an
// empty result): len(File.Nodes).
func (g *CFG) End() int { return len(g.nodes) }

// Resolved reports whether the graph is exact: every node's kind was
// read, every node sits at its Index, and every reference names a node.
// When it is false Parse has reported an error, and an analysis whose
// findings would be noise on a wrong graph should not run.
func (g *CFG) Resolved() bool { return g.resolved }

// Succ returns the edges out of node i (0 <= i < Len), in this order: for
// ask, sample, roots, all, step and set nodes, the EdgeNext or EdgeFall
// edge, then the EdgeUnavailable or EdgeOnError edge if the node has one,
// then an approval's EdgeOnTimeout edge if it has one;
// for a branch, one EdgeCase per case in the order of Branch.Cases
// (Edge.Case is 0, 1, …), then the EdgeElse or the EdgeOtherwise edge;
// for return and fail, none. Two edges may go to the same node. The
// slice is shared: do not modify it.
func (g *CFG) Succ(i int) []Edge { return g.edges[g.first[i]:g.first[i+1]:g.first[i+1]] }

// Edges returns every edge of the graph: the edges of node 0, then those
// of node 1, and so on, each node's in the order of Succ. The slice is
// shared: do not modify it.
func (g *CFG) Edges() []Edge { return g.edges[:len(g.edges):len(g.edges)] }

// Next returns where node i goes once it has done its work, as
// flow.Compile's next: the target of its EdgeNext or EdgeFall edge. It
// is -1 for nodes without one (branch, return, fail) and when the next
// names no node.
func (g *CFG) Next(i int) int {
	for _, e := range g.Succ(i) {
		if e.Kind == EdgeNext || e.Kind == EdgeFall {
			return e.To
		}
	}
	return -1
}

// Target returns where node i's first edge of kind k goes: -1 when it has
// none or its reference names no node. It answers flow.Compile's
// unavailable (EdgeUnavailable), onError (EdgeOnError) and orElse
// (EdgeElse) for a node, and an approval's on_timeout (EdgeOnTimeout); a branch's cases are its EdgeCase edges in Succ.
func (g *CFG) Target(i int, k EdgeKind) int {
	for _, e := range g.Succ(i) {
		if e.Kind == k {
			return e.To
		}
	}
	return -1
}
