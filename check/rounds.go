package check

import (
	"fmt"
	"github.com/flowserve/flowserve/dsl"
	"slices"
	"strings"

	"github.com/flowserve/flowserve/check/codes"
	"github.com/flowserve/flowserve/lang"
)

// DefaultRoundBudget is the number of question rounds lint lets a path
// ask before it warns: the server's default round budget (serve
// --max-rounds). The TypeScript and go-sdk clients stop after about ten
// multi round-trip rounds.
const DefaultRoundBudget = 9

// maxIterations caps the iterations a loop bound can count.
const maxIterations = 1 << 20

// Rounds is what the round analysis of a flow found.
type Rounds struct {
	// Max is the most rounds of questions any path from the first node
	// asks the client: an ask (not an approval, which someone else
	// answers), sample or roots node is one, an all node one for all its
	// questions; a loop counts its questions once per iteration its
	// counter allows, once when nothing bounds it. Re-asks after invalid
	// answers are not counted.
	Max int
	// Over is the question node at which that path's rounds first pass
	// the budget it was worked out for, nil when they do not.
	Over *dsl.Node
	// Path lists the questions of that path in order, a loop's as "a, b
	// ×3".
	Path []string
	// Unbounded lists the loops that ask a question and have no counter
	// bound lint can read: each as its node indexes, sorted.
	Unbounded [][]int
}

// RoundsOf works out the rounds of f's paths against budget. It returns
// false when the control flow is not exact (a reference that does not
// resolve).
func RoundsOf(f *dsl.File, budget int) (Rounds, bool) {
	return RoundsWith(f, budget, nil)
}

// RoundsWith is RoundsOf for a flow whose call and link nodes run the
// flows callees finds: each counts the most rounds its callee's paths
// ask. A callee callees does not find (nil finds none), or one that is
// part of a call cycle, counts none.
func RoundsWith(f *dsl.File, budget int, callees dsl.Callees) (Rounds, bool) {
	return roundsWith(f, budget, callees, map[*dsl.File]bool{})
}

// roundsWith is RoundsWith, with the files whose analysis is under way
// (so that a call cycle counts nothing rather than recursing forever).
func roundsWith(f *dsl.File, budget int, callees dsl.Callees, busy map[*dsl.File]bool) (Rounds, bool) {
	if f == nil || len(f.Nodes) == 0 {
		return Rounds{}, false
	}
	g, ok := newFlowGraph(f)
	if !ok {
		return Rounds{}, false
	}
	busy[f] = true
	defer delete(busy, f)
	ra := &roundAnalysis{f: f, g: g, cfg: dsl.BuildCFG(f), lang: f.Expressions.Value, callees: callees, busy: busy}
	return ra.run(budget), true
}

// RoundDiagnostics returns the warnings of the round analysis of f for
// budget: a path that asks more rounds than budget (none for a task:
// required flow, whose questions the tasks extension asks), and each loop
// that asks with no bound.
func RoundDiagnostics(f *dsl.File, budget int) dsl.Diagnostics {
	return RoundDiagnosticsWith(f, budget, nil)
}

// RoundDiagnosticsWith is RoundDiagnostics counting the rounds of the
// flows f calls (see RoundsWith).
func RoundDiagnosticsWith(f *dsl.File, budget int, callees dsl.Callees) dsl.Diagnostics {
	r, ok := RoundsWith(f, budget, callees)
	if !ok {
		return nil
	}
	var ds dsl.Diagnostics
	warn := func(pos dsl.Pos, code, format string, args ...any) {
		ds = append(ds, dsl.Diagnostic{Pos: pos, Severity: dsl.Warning, Code: code, Message: fmt.Sprintf(format, args...)})
	}
	if r.Over != nil && f.TaskMode() != dsl.TaskRequired {
		warn(r.Over.Pos, codes.RoundBudget, "a path asks up to %d rounds of questions (%s), more than the round budget of %d: clients stop after about ten; ask questions together in an all node, or make the flow task: required",
			r.Max, strings.Join(r.Path, ", "), budget)
	}
	for _, scc := range r.Unbounded {
		names := make([]string, len(scc))
		for k, i := range scc {
			names[k] = f.Nodes[i].Name()
		}
		warn(f.Nodes[scc[0]].Pos, codes.UnboundedLoop, "the loop through %s asks questions with nothing to bound it: it can ask forever; count its rounds with a set and end it with a branch comparing the count with a constant",
			listText(names))
	}
	return ds
}

// checkRounds reports the round analysis's warnings for the default
// budget. A flow with call or link nodes is left to CheckCalls, which
// counts its callees' rounds too.
func (c *checker) checkRounds() {
	if c.f.HasCalls() {
		return
	}
	c.diags = append(c.diags, RoundDiagnostics(c.f, DefaultRoundBudget)...)
}

// roundAnalysis works out Rounds on the flow's strongly connected
// components.
type roundAnalysis struct {
	f    *dsl.File
	g    *flowGraph
	cfg  *dsl.CFG
	lang string
	comp []int   // the component of each node
	sccs [][]int // the components' nodes, sorted
	loop []bool  // whether a component is a loop
	// callees finds the flows of call and link nodes; busy holds the
	// files whose analysis is under way.
	callees dsl.Callees
	busy    map[*dsl.File]bool
}

// weight returns the rounds of questions node n asks: one for a
// question (see asks), its callee's most for a call or link.
func (ra *roundAnalysis) weight(n *dsl.Node) int {
	if asks(n) {
		return 1
	}
	if !n.Kind.IsCall() || n.Call == nil || ra.callees == nil {
		return 0
	}
	callee := ra.callees(n.Call.Flow.Value)
	if callee == nil || ra.busy[callee] {
		return 0
	}
	r, ok := roundsWith(callee, maxIterations, ra.callees, ra.busy)
	if !ok {
		return 0
	}
	return r.Max
}

// asks reports whether node n asks the client a round of questions.
func asks(n *dsl.Node) bool {
	switch n.Kind {
	case dsl.KindAll, dsl.KindSample, dsl.KindRoots:
		return true
	case dsl.KindAsk:
		return n.Ask == nil || !n.Ask.Approval()
	}
	return false
}

func (ra *roundAnalysis) run(budget int) Rounds {
	nodes := len(ra.f.Nodes)
	reachable := make([]bool, nodes)
	ra.g.reach(0, reachable)
	ra.components(reachable)
	var out Rounds
	weight := make([]int, len(ra.sccs))
	iters := make([]int, len(ra.sccs))
	for k, scc := range ra.sccs {
		q := 0
		for _, i := range scc {
			q += ra.weight(ra.f.Nodes[i])
		}
		iters[k] = 1
		if ra.loop[k] && q > 0 {
			if n, ok := ra.iterations(scc); ok {
				iters[k] = n
			} else {
				out.Unbounded = append(out.Unbounded, scc)
			}
		}
		weight[k] = q * iters[k]
	}
	best, next := ra.longest(weight)
	out.Max = best[ra.comp[0]]
	ra.describe(&out, next, iters, budget)
	return out
}

// components numbers the strongly connected components of the reachable
// nodes: loops (from flowGraph.loops) and single nodes.
func (ra *roundAnalysis) components(reachable []bool) {
	ra.comp = make([]int, len(ra.f.Nodes))
	for i := range ra.comp {
		ra.comp[i] = -1
	}
	for _, scc := range ra.g.loops(reachable) {
		for _, i := range scc {
			ra.comp[i] = len(ra.sccs)
		}
		ra.sccs = append(ra.sccs, scc)
		ra.loop = append(ra.loop, true)
	}
	for i := range ra.f.Nodes {
		if reachable[i] && ra.comp[i] < 0 {
			ra.comp[i] = len(ra.sccs)
			ra.sccs = append(ra.sccs, []int{i})
			ra.loop = append(ra.loop, false)
		}
	}
}

// longest returns, for each component, the most rounds a path from it
// asks (its own weight included), and the component that path goes to
// next (-1 at the end). The components form a DAG.
func (ra *roundAnalysis) longest(weight []int) (best, next []int) {
	n := len(ra.sccs)
	best, next = make([]int, n), make([]int, n)
	done := make([]bool, n)
	var visit func(k int)
	visit = func(k int) {
		if done[k] {
			return
		}
		done[k] = true
		next[k] = -1
		for _, i := range ra.sccs[k] {
			for _, s := range ra.g.succ[i] {
				if s >= len(ra.f.Nodes) || ra.comp[s] < 0 || ra.comp[s] == k {
					continue
				}
				visit(ra.comp[s])
				if next[k] < 0 || best[ra.comp[s]] > best[next[k]] {
					next[k] = ra.comp[s]
				}
			}
		}
		best[k] = weight[k]
		if next[k] >= 0 {
			best[k] += best[next[k]]
		}
	}
	for k := range ra.sccs {
		visit(k)
	}
	return best, next
}

// describe fills in Path and Over from the longest path.
func (ra *roundAnalysis) describe(out *Rounds, next, iters []int, budget int) {
	total := 0
	for k := ra.comp[0]; k >= 0; k = next[k] {
		var qs []*dsl.Node
		var ws []int
		for _, i := range ra.sccs[k] {
			if w := ra.weight(ra.f.Nodes[i]); w > 0 {
				qs = append(qs, ra.f.Nodes[i])
				ws = append(ws, w)
			}
		}
		if len(qs) == 0 {
			continue
		}
		names := make([]string, len(qs))
		for j, q := range qs {
			names[j] = q.Name()
			if q.Kind.IsCall() {
				names[j] = fmt.Sprintf("%s (%s %s: %d)", q.Name(), q.Kind, q.Call.Flow.Value, ws[j])
			}
		}
		item := strings.Join(names, ", ")
		if iters[k] > 1 {
			item += fmt.Sprintf(" ×%d", iters[k])
		}
		out.Path = append(out.Path, item)
		for rep := 0; rep < iters[k] && out.Over == nil; rep++ {
			for j, q := range qs {
				total += ws[j]
				if total > budget && out.Over == nil {
					out.Over = q
				}
			}
		}
	}
}

// iterations reads how many times the loop scc can go round: a set in it
// steps a counter by a constant, a set before it starts the counter at a
// constant (a number, or a template that folds to one: see intConstant),
// and a branch case in it compares the counter with a constant,
// either staying in the loop only while that holds (a case every cycle of
// the loop goes through, the comparison one of the operands of its
// condition's &&), or leaving it whenever it holds (a case of a branch
// every cycle goes through, after cases that all leave, the comparison
// one of the operands of its ||).
func (ra *roundAnalysis) iterations(scc []int) (int, bool) {
	steps := ra.counters(scc)
	best, found := 0, false
	for _, i := range scc {
		n := ra.f.Nodes[i]
		if n.Branch == nil {
			continue
		}
		leaving := true // every case before this one leaves the loop
		for _, e := range ra.cfg.Succ(i) {
			if e.Kind != dsl.EdgeCase || e.Cond == nil {
				continue
			}
			stays := slices.Contains(scc, e.To)
			var bounds []lang.Bound
			switch and, or := lang.BoundsOf(ra.lang, e.Cond.Src); {
			case stays && !ra.cyclic(scc, &e, -1):
				bounds = and
			case !stays && leaving && !ra.cyclic(scc, nil, i):
				for _, b := range or {
					b.Op = negated[b.Op] // the loop goes on while it is false
					bounds = append(bounds, b)
				}
			}
			leaving = leaving && !stays
			for _, b := range bounds {
				if n, ok := ra.boundIterations(b, steps, scc); ok && (!found || n < best) {
					best, found = n, true
				}
			}
		}
	}
	return best, found
}

// counters returns the set names a set in the loop steps by a constant,
// with the step.
func (ra *roundAnalysis) counters(scc []int) map[string]int64 {
	steps := map[string]int64{}
	for _, i := range scc {
		n := ra.f.Nodes[i]
		if n.Set == nil {
			continue
		}
		for _, b := range n.Set.Bindings {
			if b.Value == nil || b.Value.Template == nil || b.Value.Template.Whole() == nil {
				continue
			}
			if name, step, ok := lang.StepOf(ra.lang, b.Value.Template.Whole().Src); ok && name == b.Name && step != 0 {
				steps[name] = step
			}
		}
	}
	return steps
}

// boundIterations counts the iterations b allows a counter of the loop:
// the most of those its starts allow.
func (ra *roundAnalysis) boundIterations(b lang.Bound, steps map[string]int64, scc []int) (int, bool) {
	step, counted := steps[b.Name]
	if !counted {
		return 0, false
	}
	starts, known := ra.starts(b.Name, scc)
	if !known {
		return 0, false
	}
	most := 0
	for _, start := range starts {
		n, ok := loopCount(start, step, b.Op, b.K)
		if !ok {
			return 0, false
		}
		most = max(most, n)
	}
	return most, true
}

// cyclic reports whether the nodes of scc still form a cycle without the
// edge skip (nil: none) and the node skipNode (-1: none).
func (ra *roundAnalysis) cyclic(scc []int, skip *dsl.Edge, skipNode int) bool {
	const (
		unseen = iota
		open
		closed
	)
	state := map[int]int{}
	var visit func(i int) bool
	visit = func(i int) bool {
		state[i] = open
		for _, e := range ra.cfg.Succ(i) {
			if e.To < 0 || e.To == skipNode || !slices.Contains(scc, e.To) || (skip != nil && e.From == skip.From && e.Kind == skip.Kind && e.Case == skip.Case) {
				continue
			}
			switch state[e.To] {
			case open:
				return true
			case unseen:
				if visit(e.To) {
					return true
				}
			}
		}
		state[i] = closed
		return false
	}
	for _, i := range scc {
		if i != skipNode && state[i] == unseen && visit(i) {
			return true
		}
	}
	return false
}

// negated is the comparison that holds when op does not.
var negated = map[string]string{"<": ">=", "<=": ">", ">": "<=", ">=": "<", "==": "!=", "!=": "=="}

// loopCount returns how many times a loop goes round whose counter starts at
// start and moves by step while "counter op k" holds.
func loopCount(start, step int64, op string, k int64) (int, bool) {
	var n int64
	switch {
	case step > 0 && op == "<":
		n = ceilDiv(k-start, step)
	case step > 0 && op == "<=":
		n = ceilDiv(k-start+1, step)
	case step < 0 && op == ">":
		n = ceilDiv(start-k, -step)
	case step < 0 && op == ">=":
		n = ceilDiv(start-k+1, -step)
	case op == "!=" && (step == 1 || step == -1) && (k-start)*step >= 0:
		n = (k - start) * step
	default:
		return 0, false
	}
	return int(min(max(n, 0), maxIterations)), true
}

func ceilDiv(a, b int64) int64 {
	if a <= 0 {
		return 0
	}
	return (a + b - 1) / b
}

// starts returns the constants the sets outside the loop bind name to
// (each counts: which one a run took is not known). known is false when
// none binds it, or one binds it to something that is not an integer
// constant.
func (ra *roundAnalysis) starts(name string, scc []int) (starts []int64, known bool) {
	for i, n := range ra.f.Nodes {
		if n.Set == nil || slices.Contains(scc, i) {
			continue
		}
		for _, b := range n.Set.Bindings {
			if b.Name != name {
				continue
			}
			v, ok := ra.intConstant(b.Value)
			if !ok {
				return nil, false // bound to something lint cannot count from
			}
			starts = append(starts, v)
		}
	}
	return starts, len(starts) > 0
}

// intConstant returns the integer a set value is when it is a constant:
// a literal, or a template that is one whole expression that folds to
// one ("{{ 0 }}", "{{ 1 + 1 }}", "{{ -1 }}": see lang.Constant).
func (ra *roundAnalysis) intConstant(v *dsl.Value) (int64, bool) {
	switch {
	case v == nil:
		return 0, false
	case v.Kind == dsl.ValueLiteral:
		return intLiteral(v.Literal)
	case v.Kind == dsl.ValueTemplate && v.Template.Whole() != nil:
		c, ok := lang.Constant(ra.lang, v.Template.Whole().Src)
		if !ok {
			return 0, false
		}
		return intLiteral(c)
	}
	return 0, false
}

// intLiteral returns the integer a literal is, if it is one.
func intLiteral(v any) (int64, bool) {
	switch v := v.(type) {
	case int:
		return int64(v), true
	case int64:
		return v, true
	case float64:
		if v == float64(int64(v)) {
			return int64(v), true
		}
	}
	return 0, false
}
