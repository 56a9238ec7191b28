package check

import (
	"github.com/flowserve/flowserve/dsl"
	"slices"
	"strconv"
	"strings"

	"github.com/flowserve/flowserve/lang"
)

// The feasibility search of checkReads. The definite-assignment analysis
// (check_reads.go) finds the reads some path reaches without running the
// node that binds them; that path may be one no run can take, because
// its branch decisions contradict each other (a case taken on
// input.amount > 1000, then, with nothing changed in between, a case
// taken on !(input.amount > 1000)). For each such read the search looks
// for a feasible path: a breadth-first search over pairs of a node and
// the facts the branch decisions so far establish (facts.go), which
// prunes every edge whose condition contradicts them. A read is reported
// only when a feasible path reaches it unbound, and the message names
// that path.
//
// Facts hold only while the values they read cannot change: those of
// input, vars, principal and secrets, and of the ids and set names the
// flow binds, each until a node binds it again (a set reassigning it, a
// node running again in a loop). A fact reading anything else (run,
// client, error) holds only within the branch node that decided it, where
// a later case is decided knowing that every earlier case was false.
// A read that ? :, && or || guard (c ? x.f : y) is reached only
// where its guards can hold too. Facts that no branch ahead and no guard
// of the read mentions are dropped, so that paths that differ only in
// them merge. The search is bounded: when it gives up, the read
// is reported, with a path that may not be feasible; it never drops a
// read it could not decide.

// The bounds of the search.
const (
	// maxFacts caps the facts of one path; more are not learnt.
	maxFacts = 16
	// maxSearchStates caps the states one read's search visits, and
	// maxFileStates those of all the searches of one file.
	maxSearchStates = 2048
	maxFileStates   = 16384
)

// fixedRoots are the variables whose values never change during a run.
var fixedRoots = []string{"input", "vars", "principal", "secrets"}

// feasibility is the search state of one file, built when a read first
// needs it.
type feasibility struct {
	rf      *readFacts
	kinds   map[string]dsl.Kind // the kind of each node with an id
	conds   map[condOf]*cond    // each branch condition, as true and as false
	mention map[string][]int    // each fact key: the branch nodes whose conditions mention it
	reach   []nameSet           // the nodes a path from each node reaches, itself included
	budget  int                 // states left for the file's searches
	found   map[searchKey]found // each search's answer
}

type condOf struct {
	e     *dsl.Expr
	truth bool
}

type searchKey struct {
	name         string
	target, upto int
	when         string // the spelling of the read's guards
}

// found is a search's answer: path, when decided, is a feasible path
// (nil when there is none); decided is false when the search gave up.
type found struct {
	path    []int
	decided bool
}

// newFeasibility prepares the search of rf's file.
func newFeasibility(rf *readFacts) *feasibility {
	fs := &feasibility{rf: rf, kinds: map[string]dsl.Kind{}, conds: map[condOf]*cond{}, mention: map[string][]int{},
		budget: maxFileStates, found: map[searchKey]found{}}
	for n := range rf.f.Walk() {
		if n.ID != "" {
			fs.kinds[n.ID] = n.Kind
		}
	}
	for i, n := range rf.f.Nodes {
		if n.Kind != dsl.KindBranch || n.Branch == nil {
			continue
		}
		for _, c := range n.Branch.Cases {
			for _, k := range fs.cond(c.If, true).keys {
				if ms := fs.mention[k]; len(ms) == 0 || ms[len(ms)-1] != i {
					fs.mention[k] = append(ms, i)
				}
			}
		}
	}
	fs.reach = make([]nameSet, len(rf.f.Nodes))
	for i := range rf.f.Nodes {
		fs.reach[i] = fs.reachFrom(i)
	}
	return fs
}

// reachFrom returns the nodes a path from node i reaches, i included.
func (fs *feasibility) reachFrom(i int) nameSet {
	nodes := len(fs.rf.f.Nodes)
	seen := make(nameSet, (nodes+63)/64)
	seen.add(i)
	work := []int{i}
	for len(work) > 0 {
		k := work[len(work)-1]
		work = work[:len(work)-1]
		for _, e := range fs.rf.cfg.Succ(k) {
			if e.To >= 0 && e.To < nodes && !seen.has(e.To) {
				seen.add(e.To)
				work = append(work, e.To)
			}
		}
	}
	return seen
}

// cond returns branch condition e (nil: a case without if, always true)
// as a cond that is true when e is truth.
func (fs *feasibility) cond(e *dsl.Expr, truth bool) *cond {
	if c, ok := fs.conds[condOf{e, truth}]; ok {
		return c
	}
	var c *cond
	lc, ok := lang.Cond{}, false
	if e != nil {
		lc, ok = lang.CondOf(fs.rf.lang, e.Src)
	}
	switch {
	case e == nil && truth:
		c = newCond(condAnd, nil, nil)
	case e == nil:
		c = newCond(condOr, nil, nil)
	case ok:
		c = fs.toCond(lc, truth)
	default:
		c = newCond(condLit, nil, &literal{})
	}
	fs.conds[condOf{e, truth}] = c
	return c
}

// toCond returns lc as a cond that is true when lc is truth.
func (fs *feasibility) toCond(lc lang.Cond, truth bool) *cond {
	switch lc.Kind {
	case lang.CondAnd, lang.CondOr:
		kind := condAnd
		if (lc.Kind == lang.CondOr) == truth {
			kind = condOr
		}
		kids := make([]*cond, len(lc.Args))
		for i, a := range lc.Args {
			kids[i] = fs.toCond(a, truth)
		}
		return newCond(kind, kids, nil)
	case lang.CondNot:
		return fs.toCond(lc.Args[0], !truth)
	}
	return newCond(condLit, nil, fs.literal(lc, truth))
}

// answerKind reports whether name is the id of an ask, sample or roots
// node (an answer, whose action is always present once it ran).
func (fs *feasibility) answerKind(name string) bool { return fs.kinds[name].IsQuestion() }

// literal returns the atom lc (a comparison, has() or a whole expression)
// as a literal of the given truth.
func (fs *feasibility) literal(lc lang.Cond, truth bool) *literal {
	if lc.Key == "" || lc.Volatile {
		return &literal{}
	}
	switch lc.Kind {
	case lang.CondHas:
		root := lc.Path[0]
		if fs.answerKind(root) && len(lc.Path) == 2 && (lc.Path[1] == "action" || lc.Path[1] == "accepted" ||
			(lc.Path[1] == "content" && fs.kinds[root] != dsl.KindRoots)) {
			return ranLiteral(root, truth)
		}
		return &literal{key: "has " + lc.Key, truth: truth, root: root, reads: lc.Reads}
	case lang.CondCompare:
		return fs.compare(lc, truth)
	}
	return &literal{key: "?" + lc.Key, truth: truth, reads: lc.Reads}
}

// ranLiteral is the literal "the node name has run" of the given truth.
func ranLiteral(name string, truth bool) *literal {
	return &literal{key: "ran " + name, truth: truth, root: name, reads: []string{name}}
}

// actionKey is the key of the operand name.action.
func actionKey(name string) string { return "=" + name + ".action" }

// compare returns the comparison lc as a literal: an answer compared
// with nil is whether it ran (expr), and its accepted whether its action
// is accept.
func (fs *feasibility) compare(lc lang.Cond, truth bool) *literal {
	vals := make([]constVal, len(lc.Values))
	for i, v := range lc.Values {
		k, ok := constOf(v)
		if !ok {
			return &literal{}
		}
		vals[i] = k
	}
	eq := lc.Op == "==" || lc.Op == "!="
	if eq && len(lc.Path) > 0 && fs.answerKind(lc.Path[0]) {
		holds := (lc.Op == "==") == truth // whether the operand equals vals[0]
		switch {
		case len(lc.Path) == 1 && vals[0].kind == 'z':
			return ranLiteral(lc.Path[0], !holds)
		case len(lc.Path) == 2 && lc.Path[1] == "accepted" && vals[0].kind == 'b':
			return &literal{key: actionKey(lc.Path[0]), cmp: true, op: "==", vals: []constVal{{kind: 's', s: "accept"}},
				truth: vals[0].b == holds, reads: lc.Reads}
		}
	}
	if _, ok := anyValue.restrict(lc.Op, vals, true); !ok {
		// An order of strings, say: a whole atom.
		var b strings.Builder
		(&literal{key: lc.Key, cmp: true, op: lc.Op, vals: vals, truth: true}).spell(&b)
		return &literal{key: "?" + b.String(), truth: truth, reads: lc.Reads}
	}
	return &literal{key: "=" + lc.Key, cmp: true, op: lc.Op, vals: vals, truth: truth, reads: lc.Reads}
}

// state is a node a search reached with the facts of the path it took;
// parent is the index of the state it came from, -1 for the first.
type state struct {
	node   int
	facts  facts
	parent int
}

// search returns a feasible path from the first node to node target on
// which the name is never bound, and on which, at target, the first upto
// cases of branch target can all be false (a read in the condition of
// case upto) and the conditions when that guard the read can all be true.
// decided is false when the search gave up.
func (fs *feasibility) search(name string, target, upto int, when []lang.Cond) found {
	guards := make([]*cond, len(when))
	var b strings.Builder
	for i, c := range when {
		guards[i] = fs.toCond(c, true)
		b.WriteString(guards[i].text + ";")
	}
	key := searchKey{name, target, upto, b.String()}
	if res, ok := fs.found[key]; ok {
		return res
	}
	res := fs.bfs(name, target, upto, guards)
	fs.found[key] = res
	return res
}

func (fs *feasibility) bfs(name string, target, upto int, guards []*cond) found {
	rf := fs.rf
	bit := rf.names[name]
	r := &reasoner{unbound: name, nilUnbound: rf.lang == "expr", maxFacts: maxFacts}
	goal := goalKeys{target: target}
	for _, g := range guards {
		goal.keys = append(goal.keys, g.keys...)
	}
	states := []state{{node: 0, parent: -1}}
	seen := map[string]bool{stateKey(0, facts{}): true}
	scratch := make(nameSet, rf.words)
	nodes := len(rf.f.Nodes)
	for head := 0; head < len(states); head++ {
		s := states[head]
		if s.node == target && fs.goal(r, s.facts, target, upto, guards) {
			var path []int
			for k := head; k >= 0; k = states[k].parent {
				path = append(path, states[k].node)
			}
			slices.Reverse(path)
			return found{path: path, decided: true}
		}
		for _, e := range rf.cfg.Succ(s.node) {
			if e.To < 0 || e.To >= nodes {
				continue
			}
			clear(scratch)
			rf.binds(scratch, s.node, e)
			if scratch.has(bit) {
				continue
			}
			f, ok := fs.step(r, s.facts, e, goal)
			if !ok {
				continue
			}
			k := stateKey(e.To, f)
			if seen[k] {
				continue
			}
			if fs.budget <= 0 || len(states) >= maxSearchStates {
				return found{}
			}
			fs.budget--
			seen[k] = true
			states = append(states, state{node: e.To, facts: f, parent: head})
		}
	}
	return found{decided: true}
}

// stateKey spells a node and its facts.
func stateKey(node int, f facts) string {
	var b strings.Builder
	b.WriteString(strconv.Itoa(node))
	b.WriteByte('|')
	f.spell(&b)
	return b.String()
}

// goal reports whether, with facts f at node target, the first upto
// cases of branch target can all be false and the guards all true. The
// facts about what target binds go first: a set's later bindings see its
// earlier ones, an ask's validate rules its new answer.
func (fs *feasibility) goal(r *reasoner, f facts, target, upto int, guards []*cond) bool {
	writes := nodeWrites(fs.rf.f.Nodes[target])
	f = f.keep(func(v string) bool { return !slices.Contains(writes, v) }, func(string) bool { return true })
	ok := true
	for k := 0; k < upto && ok; k++ {
		f, ok = r.assume(f, fs.cond(fs.rf.f.Nodes[target].Branch.Cases[k].If, false))
	}
	for _, g := range guards {
		if !ok {
			break
		}
		f, ok = r.assume(f, g)
	}
	return ok
}

// goalKeys are the keys of the conditions a search assumes at its target
// besides those of the target's cases: the guards of the read.
type goalKeys struct {
	target int
	keys   []string
}

// step returns the facts of a path with facts f once it takes edge e,
// keeping those a branch ahead or the goal mentions; ok is false when no
// run can take e with f.
func (fs *feasibility) step(r *reasoner, f facts, e dsl.Edge, goal goalKeys) (facts, bool) {
	n := fs.rf.f.Nodes[e.From]
	ok := true
	if n.Kind == dsl.KindBranch && n.Branch != nil {
		upto := len(n.Branch.Cases)
		if e.Kind == dsl.EdgeCase {
			upto = e.Case
		}
		for k := 0; k < upto && ok; k++ {
			f, ok = r.assume(f, fs.cond(n.Branch.Cases[k].If, false))
		}
		if ok && e.Kind == dsl.EdgeCase {
			f, ok = r.assume(f, fs.cond(n.Branch.Cases[e.Case].If, true))
		}
		if !ok {
			return f, false
		}
	}
	writes := nodeWrites(n)
	f = f.keep(func(v string) bool {
		_, tracked := fs.rf.names[v]
		return (tracked || slices.Contains(fixedRoots, v)) && !slices.Contains(writes, v)
	}, func(string) bool { return true })
	switch {
	case n.Set != nil:
		for _, b := range n.Set.Bindings {
			if k, ok := setConst(b.Value); ok {
				f = f.withDom("="+b.Name, domain{in: []constVal{k}, lo: anyValue.lo, hi: anyValue.hi}, []string{b.Name})
			}
		}
	case n.Kind.IsQuestion() && n.ID != "":
		f = fs.answered(f, n, e.Kind)
	case n.All != nil && e.Kind != dsl.EdgeOnError:
		for _, q := range n.All.Questions {
			f = f.withLit("ran "+q.ID, true, []string{q.ID})
		}
	}
	reach := fs.reach[e.To]
	return f.keep(func(string) bool { return true }, func(k string) bool {
		return slices.ContainsFunc(fs.mention[k], reach.has) || (reach.has(goal.target) && slices.Contains(goal.keys, k))
	}), true
}

// answered returns f with what question q's edge of kind k says of its
// answer: that q ran, and its action (unavailable on its unavailable
// edge, timeout on its on_timeout edge, neither on the way on when it
// has those edges).
func (fs *feasibility) answered(f facts, q *dsl.Node, k dsl.EdgeKind) facts {
	f = f.withLit("ran "+q.ID, true, []string{q.ID})
	key := actionKey(q.ID)
	if len(fs.mention[key]) == 0 {
		return f
	}
	d := anyValue
	str := func(s string) []constVal { return []constVal{{kind: 's', s: s}} }
	switch k {
	case dsl.EdgeUnavailable:
		d, _ = d.restrict("==", str("unavailable"), true)
	case dsl.EdgeOnTimeout:
		d, _ = d.restrict("==", str("timeout"), true)
	case dsl.EdgeFall, dsl.EdgeNext:
		if fs.rf.cfg.Target(q.Index, dsl.EdgeUnavailable) >= 0 {
			d, _ = d.restrict("==", str("unavailable"), false)
		}
		if fs.rf.cfg.Target(q.Index, dsl.EdgeOnTimeout) >= 0 {
			d, _ = d.restrict("==", str("timeout"), false)
		}
	}
	if d.String() == "" {
		return f
	}
	return f.withDom(key, d, []string{q.ID})
}

// setConst returns the value of a set binding when it is a constant: a
// number, bool or null, or a string without {{ }}.
func setConst(v *dsl.Value) (constVal, bool) {
	switch {
	case v == nil:
	case v.Kind == dsl.ValueLiteral:
		switch x := v.Literal.(type) {
		case int64:
			if f, ok := exactInt(x); ok {
				return constVal{kind: 'n', f: f}, true
			}
			return constVal{}, false
		case int:
			return setConst(&dsl.Value{Kind: dsl.ValueLiteral, Literal: int64(x)})
		}
		return constOf(v.Literal)
	case v.Kind == dsl.ValueTemplate && v.Template != nil && !slices.ContainsFunc(v.Template.Parts, func(p dsl.Part) bool { return p.Expr != nil }):
		var b strings.Builder
		for _, p := range v.Template.Parts {
			b.WriteString(p.Text)
		}
		return constVal{kind: 's', s: b.String()}, true
	}
	return constVal{}, false
}

// exactInt returns n as a float64 when the conversion loses nothing.
func exactInt(n int64) (float64, bool) {
	const limit = 1 << 53
	if n > limit || n < -limit {
		return 0, false
	}
	return float64(n), true
}

// nodeWrites returns the names node n binds when it runs: its id, its
// questions' ids, its set names, and error.
func nodeWrites(n *dsl.Node) []string {
	out := []string{"error"}
	if n.ID != "" {
		out = append(out, n.ID)
	}
	if n.All != nil {
		for _, q := range n.All.Questions {
			out = append(out, q.ID)
		}
	}
	if n.Set != nil {
		for _, b := range n.Set.Bindings {
			out = append(out, b.Name)
		}
	}
	return out
}

// pathString spells a path of node indexes for messages.
func (fs *feasibility) pathString(path []int) string {
	names := make([]string, len(path))
	for i, k := range path {
		names[i] = fs.rf.f.Nodes[k].Name()
	}
	if len(names) == 1 {
		return "the flow starts here"
	}
	return "the path " + strings.Join(names, " → ") + " does not run it"
}
