package diff

import (
	"fmt"
	"strconv"

	"github.com/flowserve/flowserve/dsl"
)

// valid reports whether i is a node of g.
func valid(g *dsl.CFG, i int) bool { return i >= 0 && i < g.Len() }

func fill(n, v int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = v
	}
	return s
}

// reachable marks the nodes of g a run reaches from its first node.
func reachable(g *dsl.CFG) []bool {
	seen := make([]bool, g.Len())
	if g.Len() == 0 {
		return seen
	}
	stack := []int{g.Entry()}
	seen[g.Entry()] = true
	for len(stack) > 0 {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, e := range g.Succ(i) {
			if valid(g, e.To) && !seen[e.To] {
				seen[e.To] = true
				stack = append(stack, e.To)
			}
		}
	}
	return seen
}

// replayRegion marks the reached nodes of g from which a run may still
// reach a journaled node (themselves included): the nodes a replay
// passes on its way to a journaled position.
func replayRegion(g *dsl.CFG, reach []bool) []bool {
	in := make([]bool, g.Len())
	for i := range in {
		in[i] = reach[i] && journaled(g.Node(i).Kind)
	}
	for changed := true; changed; {
		changed = false
		for _, e := range g.Edges() {
			if reach[e.From] && !in[e.From] && valid(g, e.To) && in[e.To] {
				in[e.From], changed = true, true
			}
		}
	}
	return in
}

// journaled reports whether nodes of kind k take journal positions.
func journaled(k dsl.Kind) bool {
	return k.IsQuestion() || k == dsl.KindAll || k == dsl.KindStep || k.IsCall()
}

// nodes walks the two graphs together and compares their nodes.
func (c *comparer) nodes() {
	og, ng := c.og, c.ng
	if og.Len() > 0 {
		c.link(-1, role{kind: entryRole}, og.Entry(), ng.Entry())
	}
	c.walk()
	// Nodes with ids the walk did not reach in new (a change on the way
	// there is reported already): paired by id, and walked on from there.
	for o := range og.Len() {
		on := og.Node(o)
		if !c.reach[o] || on.ID == "" || c.pair[o] >= 0 {
			continue
		}
		if x := c.nf.ByID[on.ID]; x != nil && x.Group == nil && c.back[x.Index] < 0 {
			c.bind(o, x.Index)
			c.walk()
		}
	}
	// Nodes with ids new does not have: renamed, or gone.
	for o := range og.Len() {
		on := og.Node(o)
		if !c.reach[o] || on.ID == "" || c.renamed[o] || c.pair[o] >= 0 || c.nf.ByID[on.ID] != nil {
			continue
		}
		if s := c.lookalike(o); s >= 0 {
			c.rename(o, s)
			c.bind(o, s)
			c.walk()
			continue
		}
		at, ok := c.gone[o]
		if !ok {
			at = filePos(c.nf)
		}
		why := afterAll + ", so no replay reaches it"
		switch {
		case c.replay[o] && journaled(on.Kind):
			why = "runs in flight that reached it cannot replay their journal"
		case c.replay[o]:
			why = mayStray
		}
		c.say(on, ChangeRemoved, level(c.replay[o]), on.Pos, at, desc(on)+" was removed", why)
	}
	for s := range ng.Len() {
		if !c.nreach[s] || c.back[s] >= 0 || c.spoken[s] {
			continue
		}
		sn := ng.Node(s)
		why := "no run of the old version has reached it"
		if sn.ID != "" && c.of.ByID[sn.ID] != nil {
			why = "the old version has it but never reaches it"
		}
		c.sayNew(s, ChangeAdded, Compatible, desc(sn)+" is new on this way", why)
	}
}

// walk compares the paired nodes waiting in the queue, pairing their
// successors as it goes.
func (c *comparer) walk() {
	for len(c.queue) > 0 {
		o := c.queue[0]
		c.queue = c.queue[1:]
		c.compare(o, c.pair[o])
	}
}

// roleKind says which edge of a node an edge is, however it is written:
// a node's way on (next, or falling through), a branch's case or else
// (else, or falling through), unavailable, on_error, on_timeout; or the
// flow's start.
type roleKind uint8

const (
	entryRole roleKind = iota + 1
	onwardRole
	caseRole
	elseRole
	unavailableRole
	onErrorRole
	onTimeoutRole
)

// role is an edge of a node, as two versions of the node are compared.
type role struct {
	kind roleKind
	k    int // the case index of a caseRole
}

func roleOf(e dsl.Edge) role {
	switch e.Kind {
	case dsl.EdgeFall, dsl.EdgeNext:
		return role{kind: onwardRole}
	case dsl.EdgeCase:
		return role{kind: caseRole, k: e.Case}
	case dsl.EdgeElse, dsl.EdgeOtherwise:
		return role{kind: elseRole}
	case dsl.EdgeUnavailable:
		return role{kind: unavailableRole}
	case dsl.EdgeOnError:
		return role{kind: onErrorRole}
	}
	return role{kind: onTimeoutRole}
}

// name returns how a flow file writes the role.
func (r role) name() string {
	switch r.kind {
	case unavailableRole:
		return "unavailable"
	case onErrorRole:
		return "on_error"
	case onTimeoutRole:
		return "on_timeout"
	case elseRole:
		return "else"
	case caseRole:
		return "case " + strconv.Itoa(r.k+1)
	}
	return "next"
}

// edgeOf returns the edge of node i of g in role r.
func edgeOf(g *dsl.CFG, i int, r role) (dsl.Edge, bool) {
	for _, e := range g.Succ(i) {
		if roleOf(e) == r {
			return e, true
		}
	}
	return dsl.Edge{}, false
}

// lead words the edge of old node from in role r, for "… X instead of Y".
func (c *comparer) lead(from int, r role) string {
	switch r.kind {
	case entryRole:
		return "the flow now starts at"
	case onwardRole:
		return "after " + desc(c.og.Node(from)) + ", the flow now goes to"
	case caseRole:
		return r.name() + " of " + desc(c.og.Node(from)) + " now goes to"
	}
	return "the " + r.name() + " of " + desc(c.og.Node(from)) + " now goes to"
}

// fresh reports whether new node s has no id that old has.
func (c *comparer) fresh(s int) bool {
	id := c.ng.Node(s).ID
	return id == "" || c.of.ByID[id] == nil
}

// counterpart reports whether new node s can stand for old node t: it has
// t's id, or when t has none, it has t's kind and no id old has.
func (c *comparer) counterpart(t, s int) bool {
	tn, sn := c.og.Node(t), c.ng.Node(s)
	if tn.ID != "" {
		return sn.ID == tn.ID
	}
	return c.fresh(s) && sn.Kind == tn.Kind
}

// link pairs the targets of the edge of old node from (-1 for the start)
// in role r: t in old, s in new.
func (c *comparer) link(from int, r role, t, s int) {
	if !valid(c.og, t) {
		return // old runs past its last node: nothing to replay there
	}
	if !valid(c.ng, s) {
		c.lost(from, r, t)
		return
	}
	if c.counterpart(t, s) {
		c.bind(t, s)
		return
	}
	tn, sn := c.og.Node(t), c.ng.Node(s)
	// New nodes ahead of t's counterpart.
	var chain []int
	cur := s
	for valid(c.ng, cur) && c.fresh(cur) && !c.counterpart(t, cur) && len(chain) < c.ng.Len() {
		chain = append(chain, cur)
		cur = c.ng.Next(cur)
	}
	if len(chain) > 0 && valid(c.ng, cur) && c.counterpart(t, cur) {
		for _, x := range chain {
			c.inserted(x, t)
		}
		c.bind(t, cur)
		return
	}
	if tn.ID != "" && c.nf.ByID[tn.ID] == nil {
		if c.fresh(s) && tn.Kind == sn.Kind && c.back[s] < 0 {
			c.rename(t, s)
			c.bind(t, s)
			return
		}
		if _, ok := c.gone[t]; !ok {
			c.gone[t] = sn.Pos
		}
		// Past what new no longer has, s may stand for what came next.
		for k, t2 := 0, c.og.Next(t); valid(c.og, t2) && k < c.og.Len(); k, t2 = k+1, c.og.Next(t2) {
			if c.counterpart(t2, s) {
				c.bind(t2, s)
				return
			}
			n2 := c.og.Node(t2)
			if n2.ID == "" || c.nf.ByID[n2.ID] != nil {
				return
			}
			if _, ok := c.gone[t2]; !ok {
				c.gone[t2] = sn.Pos
			}
		}
		return
	}
	why := afterAll
	if c.replay[t] {
		why = fmt.Sprintf("runs in flight that went on to %s cannot replay", tn.Name())
	}
	c.sayNew(s, ChangeControl, level(c.replay[t]), fmt.Sprintf("%s %s instead of %s", c.lead(from, r), desc(sn), desc(tn)), why)
}

// lost reports that new runs past its last node where old went on from
// node from, in role r, to t.
func (c *comparer) lost(from int, r role, t int) {
	tn := c.og.Node(t)
	if tn.ID != "" && c.nf.ByID[tn.ID] == nil {
		if _, ok := c.gone[t]; !ok {
			c.gone[t] = c.newPos(from)
		}
		return
	}
	why := afterAll
	if c.replay[t] {
		why = fmt.Sprintf("runs in flight that went on to %s cannot replay", tn.Name())
	}
	subject := "the flow now has no nodes, and"
	switch {
	case r.kind == onwardRole:
		subject = "after " + desc(c.og.Node(from)) + ", the flow"
	case r.kind != entryRole:
		subject = "the " + r.name() + " of " + desc(c.og.Node(from))
	}
	pos := c.newPos(from)
	c.say(tn, ChangeControl, level(c.replay[t]), pos, pos,
		fmt.Sprintf("%s now runs past the last node where it went on to %s", subject, desc(tn)), why)
}

// bind pairs old node t with new node s.
func (c *comparer) bind(t, s int) {
	if p, q := c.pair[t], c.back[s]; p >= 0 || q >= 0 {
		if p == s && q == t {
			return
		}
		why := afterAll
		if c.replay[t] {
			why = mayStray
		}
		c.sayNew(s, ChangeControl, level(c.replay[t]),
			fmt.Sprintf("%s now stands where the old version had %s, which it has elsewhere too", desc(c.ng.Node(s)), desc(c.og.Node(t))), why)
		return
	}
	c.pair[t], c.back[s] = s, t
	c.queue = append(c.queue, t)
}

// inserted reports new node x, which runs where old went straight on to
// node t.
func (c *comparer) inserted(x, t int) {
	xn, tn := c.ng.Node(x), c.og.Node(t)
	what := fmt.Sprintf("%s is new and runs before %s", desc(xn), desc(tn))
	switch {
	case !c.replay[t]:
		c.sayNew(x, ChangeInserted, Compatible, what, afterAll)
	case journaled(xn.Kind):
		c.sayNew(x, ChangeInserted, NewCallsOnly, what,
			fmt.Sprintf("runs in flight journaled %s at this position and cannot replay", tn.Name()))
	case xn.Kind == dsl.KindSet && c.freshNames(xn):
		c.sayNew(x, ChangeInserted, Compatible, what, "it binds only new names, so replays take the same way")
	default:
		c.sayNew(x, ChangeInserted, NewCallsOnly, what, mayStray)
	}
}

// freshNames reports whether a set node binds only names old does not
// have.
func (c *comparer) freshNames(n *dsl.Node) bool {
	for _, b := range n.Set.Bindings {
		if c.oldNames[b.Name] {
			return false
		}
	}
	return true
}

// rename reports that old node o is new node s under another id.
func (c *comparer) rename(o, s int) {
	on, sn := c.og.Node(o), c.ng.Node(s)
	c.renamed[o] = true
	c.spoken[s] = true
	what := fmt.Sprintf("%s was renamed %q", desc(on), sn.ID)
	pos := sn.IDPos
	if !pos.IsValid() {
		pos = sn.Pos
	}
	if journaled(on.Kind) {
		c.say(sn, ChangeRenamed, level(c.replay[o]), pos, pos, what,
			fmt.Sprintf("journals of runs in flight name %s, so they cannot replay", on.ID))
		return
	}
	c.say(sn, ChangeRenamed, Compatible, pos, pos, what, on.Kind.String()+" nodes are not journaled")
}

// lookalike returns the new node that is old node o under a new id and
// otherwise unchanged (the same fingerprint but for the id), when exactly
// one is; else -1.
func (c *comparer) lookalike(o int) int {
	on := c.og.Node(o)
	if !journaled(on.Kind) || on.Kind == dsl.KindAll {
		return -1
	}
	found := -1
	for s := range c.ng.Len() {
		sn := c.ng.Node(s)
		if sn.Kind != on.Kind || sn.ID == "" || !c.fresh(s) || c.back[s] >= 0 || c.spoken[s] {
			continue
		}
		if sameFingerprint(on, sn) {
			if found >= 0 {
				return -1
			}
			found = s
		}
	}
	return found
}
