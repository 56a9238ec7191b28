package check

import (
	"fmt"
	"github.com/flowserve/flowserve/dsl"
	"strings"

	"github.com/flowserve/flowserve/check/codes"
	"github.com/flowserve/flowserve/lang"
)

// The definite-assignment analysis of checkReads: an ask, step, sample or
// roots id, or a set name, read by an expression where some path from
// the first node reaches without having bound it, fails at run time ("no
// such attribute"). It works on the CFG: a name is bound on an edge when
// the node it leaves binds it there (see EdgeKind), or when the edge is a
// branch case whose condition tests it (has(x.f), x != nil), or when an
// earlier case that would have been taken without it was not (!has(x.f)).
// A node's bound names are those bound on every path to it. A read of a
// name not bound there is reported only when a feasible path (one whose
// branch decisions do not contradict each other, see feasible.go) reaches
// it without binding the name.

// nameSet is a set of the names the analysis tracks, as bits.
type nameSet []uint64

func (s nameSet) has(i int) bool { return s[i/64]&(1<<(i%64)) != 0 }
func (s nameSet) add(i int)      { s[i/64] |= 1 << (i % 64) }

// readFacts is the analysis of one file.
type readFacts struct {
	f     *dsl.File
	cfg   *dsl.CFG
	lang  string
	names map[string]int // the tracked names, by bit
	words int
	in    []nameSet // bound at each node's start; nil for nodes no path reaches
	reads map[*dsl.Expr]readsOf
	feas  *feasibility // built when a read first needs it
}

// readsOf is what an expression reads, once worked out.
type readsOf struct {
	r  lang.Reads
	ok bool
}

// readsOf returns what e (nil: nothing) reads, parsing it once.
func (rf *readFacts) readsOf(e *dsl.Expr) (lang.Reads, bool) {
	if e == nil {
		return lang.Reads{}, false
	}
	if r, ok := e.Reads(); ok {
		return r, true
	}
	if r, ok := rf.reads[e]; ok {
		return r.r, r.ok
	}
	r, ok := lang.ReadsOf(rf.lang, e.Src)
	rf.reads[e] = readsOf{r, ok}
	return r, ok
}

// checkReads reports the reads of ids and set names that some path
// reaches unbound.
func (c *checker) checkReads() {
	f := c.f
	if len(f.Nodes) == 0 || f.Partial() {
		return
	}
	cfg := dsl.BuildCFG(f)
	if !cfg.Resolved() {
		return
	}
	rf := &readFacts{f: f, cfg: cfg, lang: f.Expressions.Value, names: map[string]int{}, reads: map[*dsl.Expr]readsOf{}}
	rf.collectNames()
	if len(rf.names) == 0 {
		return
	}
	rf.words = (len(rf.names) + 63) / 64
	rf.solve()
	for i, n := range f.Nodes {
		if rf.in[i] == nil {
			continue
		}
		rf.checkNode(c, i, n)
	}
}

// collectNames numbers the names a run binds as it goes.
func (rf *readFacts) collectNames() {
	add := func(name string) {
		if _, ok := rf.names[name]; !ok && name != "" {
			rf.names[name] = len(rf.names)
		}
	}
	for n := range rf.f.Walk() {
		switch {
		case n.Kind.IsQuestion(), n.Kind == dsl.KindStep, n.Kind == dsl.KindCall:
			add(n.ID)
		case n.Kind == dsl.KindSet && n.Set != nil:
			for _, b := range n.Set.Bindings {
				add(b.Name)
			}
		}
	}
}

// binds adds to s what node i binds when it leaves by edge e.
func (rf *readFacts) binds(s nameSet, i int, e dsl.Edge) {
	n := rf.f.Nodes[i]
	bind := func(name string) {
		if b, ok := rf.names[name]; ok {
			s.add(b)
		}
	}
	switch e.Kind {
	case dsl.EdgeFall, dsl.EdgeNext, dsl.EdgeUnavailable, dsl.EdgeOnTimeout:
		switch {
		case n.Kind == dsl.KindAll && n.All != nil:
			for _, q := range n.All.Questions {
				bind(q.ID)
			}
		case n.Kind == dsl.KindSet && n.Set != nil:
			for _, b := range n.Set.Bindings {
				bind(b.Name)
			}
		case n.Kind == dsl.KindStep && e.Kind != dsl.EdgeFall && e.Kind != dsl.EdgeNext:
		default:
			bind(n.ID)
		}
	case dsl.EdgeCase, dsl.EdgeElse, dsl.EdgeOtherwise:
		if n.Branch == nil {
			return
		}
		cases := n.Branch.Cases
		upto := len(cases) // the cases not taken before this edge
		if e.Kind == dsl.EdgeCase {
			upto = e.Case
			if r, ok := rf.readsOf(cases[e.Case].If); ok {
				for _, t := range r.Tests {
					bind(t)
				}
			}
		}
		for k := 0; k < upto; k++ {
			if r, ok := rf.readsOf(cases[k].If); ok {
				for _, t := range r.Untests {
					bind(t)
				}
			}
		}
	}
}

// solve works out the names bound at each node's start: the meet
// (intersection) over the edges into it, from nothing bound at the first
// node.
func (rf *readFacts) solve() {
	nodes := len(rf.f.Nodes)
	rf.in = make([]nameSet, nodes)
	rf.in[0] = make(nameSet, rf.words)
	work := []int{0}
	out := make(nameSet, rf.words)
	for len(work) > 0 {
		i := work[len(work)-1]
		work = work[:len(work)-1]
		for _, e := range rf.cfg.Succ(i) {
			if e.To < 0 || e.To >= nodes {
				continue
			}
			copy(out, rf.in[i])
			rf.binds(out, i, e)
			if rf.meet(e.To, out) {
				work = append(work, e.To)
			}
		}
	}
}

// meet narrows the names bound at node j's start to those of s too, and
// reports whether they changed (or j is newly reached).
func (rf *readFacts) meet(j int, s nameSet) bool {
	if rf.in[j] == nil {
		rf.in[j] = append(nameSet(nil), s...)
		return true
	}
	changed := false
	for w := range s {
		if v := rf.in[j][w] & s[w]; v != rf.in[j][w] {
			rf.in[j][w], changed = v, true
		}
	}
	return changed
}

// checkNode reports the unbound reads of the expressions node i
// evaluates, with the names bound where each is evaluated. A branch's
// case is evaluated only when every case before it was false, which may
// bind names (after !has(x.f), x ran).
func (rf *readFacts) checkNode(c *checker, i int, n *dsl.Node) {
	bound := append(nameSet(nil), rf.in[i]...)
	if n.Kind == dsl.KindBranch && n.Branch != nil {
		at := bound
		for k, cs := range n.Branch.Cases {
			if k > 0 {
				at = append(nameSet(nil), at...)
				if r, ok := rf.readsOf(n.Branch.Cases[k-1].If); ok {
					for _, t := range r.Untests {
						if b, ok := rf.names[t]; ok {
							at.add(b)
						}
					}
				}
			}
			rf.checkExpr(c, i, k, cs.If, at)
		}
		return
	}
	for _, ev := range nodeExprs(c, n) {
		at := bound
		if ev.self != "" || len(ev.also) > 0 {
			at = append(nameSet(nil), bound...)
			for _, name := range append([]string{ev.self}, ev.also...) {
				if b, ok := rf.names[name]; ok {
					at.add(b)
				}
			}
		}
		rf.checkExpr(c, i, 0, ev.expr, at)
	}
}

// checkExpr reports each read of e of a tracked name that is not bound in
// at, not guarded by a test in e, and reached unbound by a feasible path
// to node i: one on which, when upto > 0, the first upto cases of branch
// i can be false, and the conditions under which e evaluates the read
// (? :, && and ||) can hold.
func (rf *readFacts) checkExpr(c *checker, i, upto int, e *dsl.Expr, at nameSet) {
	r, ok := rf.readsOf(e)
	if !ok {
		return
	}
	seen := map[string]bool{}
	var guards []lang.GuardedRead
	for _, ref := range r.Refs {
		b, tracked := rf.names[ref.Name]
		if !tracked || ref.Guarded || at.has(b) || seen[ref.Name] {
			continue
		}
		if rf.feas == nil {
			rf.feas = newFeasibility(rf)
		}
		if guards == nil {
			guards, _ = lang.GuardsOf(rf.lang, e.Src)
		}
		res := rf.feas.search(ref.Name, i, upto, guardsAt(guards, ref))
		if res.decided && res.path == nil {
			continue // every path that reaches this read unbound is infeasible
		}
		seen[ref.Name] = true
		path := rf.feas.pathString(res.path)
		if !res.decided {
			path = rf.pathWithout(i, b)
		}
		c.errorf(e.PosAt(ref.Offset), codes.MaybeUnbound, "%s may not have run on every path to here: %s; %s",
			ref.Name, path, rf.guardHint(ref.Name))
	}
}

// guardsAt returns the conditions that guard the read ref among guards.
func guardsAt(guards []lang.GuardedRead, ref lang.Ref) []lang.Cond {
	for _, g := range guards {
		if g.Name == ref.Name && g.Offset == ref.Offset {
			return g.When
		}
	}
	return nil
}

// pathWithout describes a path from the first node to node i on which
// the name with bit b is never bound.
func (rf *readFacts) pathWithout(i, b int) string {
	nodes := len(rf.f.Nodes)
	from := make([]int, nodes)
	for k := range from {
		from[k] = -2
	}
	from[0] = -1
	queue := []int{0}
	s := make(nameSet, rf.words)
	for len(queue) > 0 && from[i] == -2 {
		k := queue[0]
		queue = queue[1:]
		for _, e := range rf.cfg.Succ(k) {
			if e.To < 0 || e.To >= nodes || from[e.To] != -2 {
				continue
			}
			clear(s)
			rf.binds(s, k, e)
			if s.has(b) {
				continue
			}
			from[e.To] = k
			queue = append(queue, e.To)
		}
	}
	if from[i] == -2 {
		return "some path reaches here without it"
	}
	var path []string
	for k := i; k >= 0; k = from[k] {
		path = append(path, rf.f.Nodes[k].Name())
	}
	for l, r := 0, len(path)-1; l < r; l, r = l+1, r-1 {
		path[l], path[r] = path[r], path[l]
	}
	if len(path) == 1 {
		return "the flow starts here"
	}
	return "the path " + strings.Join(path, " → ") + " does not run it"
}

// guardHint says how to read a name that may be unbound.
func (rf *readFacts) guardHint(name string) string {
	if rf.lang == "expr" {
		return fmt.Sprintf("guard the read with %s != nil (or %s?.), or make every path run it first", name, name)
	}
	field := "action"
	for n := range rf.f.Walk() {
		if n.ID == name && (n.Kind == dsl.KindStep || n.Kind == dsl.KindCall) {
			field = "<field>"
		}
	}
	if rf.isSetName(name) {
		return "set it on every path to here first"
	}
	return fmt.Sprintf("guard the read with has(%s.%s), or make every path run it first", name, field)
}

// isSetName reports whether name is bound by a set node.
func (rf *readFacts) isSetName(name string) bool {
	for _, n := range rf.f.Nodes {
		if n.Set == nil {
			continue
		}
		for _, b := range n.Set.Bindings {
			if b.Name == name {
				return true
			}
		}
	}
	return false
}

// nodeExpr is an expression a node evaluates, with the names bound for it
// besides the node's: self, its own id (an ask's validate rules see the
// answer), and also (the bindings of a set before this one).
type nodeExpr struct {
	expr *dsl.Expr
	self string
	also []string
}

// nodeExprs returns the expressions node n evaluates when it runs: an all
// node's are its questions'.
func nodeExprs(c *checker, n *dsl.Node) []nodeExpr {
	var out []nodeExpr
	add := func(es []*dsl.Expr, self string, also []string, skip map[*dsl.Expr]bool) {
		for _, e := range es {
			if e != nil && !skip[e] {
				out = append(out, nodeExpr{expr: e, self: self, also: also})
			}
		}
	}
	if n.Kind == dsl.KindSet && n.Set != nil {
		var earlier []string
		for _, b := range n.Set.Bindings {
			add(b.Value.Exprs(), "", earlier, nil)
			earlier = append(earlier, b.Name)
		}
		return out
	}
	questions := []*dsl.Node{n}
	if n.All != nil {
		questions = n.All.Questions
	}
	for _, q := range questions {
		validate := map[*dsl.Expr]bool{}
		if q.Ask != nil {
			for _, r := range q.Ask.Validate {
				add(append([]*dsl.Expr{r.Rule}, r.Message.Exprs()...), q.ID, nil, nil)
				validate[r.Rule] = true
				if r.Message != nil {
					for _, part := range r.Message.Parts {
						validate[part.Expr] = true
					}
				}
			}
		}
		var es []*dsl.Expr
		for _, u := range c.f.NodeExprs(q, c.ix) {
			es = append(es, u.Expr)
		}
		if a := q.Ask; a != nil {
			es = append(es, a.To.Exprs()...)
			if a.Notify != nil {
				es = append(es, a.Notify.Webhook.Exprs()...)
			}
		}
		add(es, "", nil, validate)
	}
	return out
}
