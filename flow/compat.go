package flow

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/flowserve/flowserve/dsl"
)

// Verdict says what a new version of a tool (or prompt) does to its
// callers and to the runs in flight on the old version (DESIGN §13).
// Verdicts are ordered: a report's verdict is the most severe of its
// reasons'.
type Verdict uint8

// The verdicts, from the mildest.
const (
	// Compatible means every run in flight on the old version could also
	// go on under the new one: replaying its journal reaches the same
	// questions and steps, in the same order, with the same fingerprints.
	Compatible Verdict = iota
	// NewCallsOnly means the new version serves new calls as the old one
	// did, but some run in flight on the old version would not replay
	// under it: it must finish on the old version (servers pin runs to
	// the version they began on).
	NewCallsOnly
	// Breaking means callers break even on new calls: the tool is gone,
	// refuses arguments the old version took, returns structured content
	// its callers do not expect, needs the tasks extension, or is served
	// as a prompt instead of a tool (or the other way round).
	Breaking
)

// String returns "compatible", "new-calls-only" or "breaking".
func (v Verdict) String() string {
	switch v {
	case Compatible:
		return "compatible"
	case NewCallsOnly:
		return "new-calls-only"
	case Breaking:
		return "breaking"
	}
	return "verdict(" + strconv.Itoa(int(v)) + ")"
}

// MarshalText encodes the verdict as its String.
func (v Verdict) MarshalText() ([]byte, error) { return []byte(v.String()), nil }

// Change is the kind of change a CompatReason is about.
type Change string

// The kinds of changes.
const (
	// ChangeToolRemoved: the tool is only in the old version.
	ChangeToolRemoved Change = "tool-removed"
	// ChangeToolAdded: the tool is only in the new version.
	ChangeToolAdded Change = "tool-added"
	// ChangeServedAs: a tool became a prompt, or a prompt a tool.
	ChangeServedAs Change = "served-as"
	// ChangeInput: the input schema (a prompt's arguments) changed.
	ChangeInput Change = "input"
	// ChangeDefault: a top-level input default changed, was added or
	// removed. Defaults are applied before a run's arguments are bound to
	// its state, so runs in flight that left the property out no longer
	// match their state.
	ChangeDefault Change = "input-default"
	// ChangeOutput: the output schema changed.
	ChangeOutput Change = "output"
	// ChangeTask: the flow's task mode changed.
	ChangeTask Change = "task-mode"
	// ChangeLanguage: the flow's expression language changed.
	ChangeLanguage Change = "expression-language"
	// ChangeText: a title, description, return or fail text changed.
	ChangeText Change = "text"
	// ChangeDetail: something replays do not read changed: an ask's
	// validate rules, retries, approver or timeout, a step's timeout,
	// retry or long.
	ChangeDetail Change = "detail"
	// ChangeRedefined: a node's kind or fingerprint changed (an ask asks
	// a different question, a step runs another action or other inputs),
	// or an all node's questions changed.
	ChangeRedefined Change = "redefined"
	// ChangeRenamed: a node's id changed.
	ChangeRenamed Change = "renamed"
	// ChangeRemoved: a node the old version reaches is gone.
	ChangeRemoved Change = "removed"
	// ChangeInserted: a new node runs where the old version went straight
	// on to one of its own.
	ChangeInserted Change = "inserted"
	// ChangeControl: the way between nodes changed: a branch case's
	// condition or target, a set's bindings, a next, else, unavailable,
	// on_error or on_timeout target.
	ChangeControl Change = "control"
	// ChangeAdded: a new node, on a way the old version does not go.
	ChangeAdded Change = "added"
)

// CompatReason is one change between two versions of a tool, and what it
// does.
type CompatReason struct {
	// Node is the id of the node the reason is about, "#N" (its 1-based
	// index in the file of Pos) for a node without one, or "" for the
	// tool as a whole.
	Node string
	// Change is the kind of change.
	Change Change
	// Verdict is what the change does on its own.
	Verdict Verdict
	// Pos is where the change is: in the new version's file, or in the old
	// one's for what the new version no longer has (a removed node, a
	// removed property, a removed tool).
	Pos dsl.Pos
	// NewPos is where the change shows in the new version's file, where
	// lint reports it: Pos itself, or for what is gone, the node now in
	// its place (or the one leading there). Zero for a removed tool.
	NewPos dsl.Pos
	// Message is a sentence (no trailing period): what changed and what
	// that does.
	Message string

	what string // what changed, for lint's wording of the consequence
}

// CompatReport compares two versions of one tool (or prompt): whether
// the new version is compatible with the old, and why, node by node.
type CompatReport struct {
	// Name is the tool's (or prompt's) name.
	Name string
	// Old and New are the two versions; Old is nil for a tool that is
	// new, New for a tool that was removed.
	Old, New *Program
	// Verdict is the most severe verdict of the reasons; Compatible when
	// there are none.
	Verdict Verdict
	// Reasons are the changes: those at positions in the new version's
	// file first, then those in the old one's, each group in file order.
	Reasons []CompatReason
}

// Added reports whether the tool is only in the new version.
func (r *CompatReport) Added() bool { return r.Old == nil && r.New != nil }

// Removed reports whether the tool is only in the old version.
func (r *CompatReport) Removed() bool { return r.New == nil && r.Old != nil }

// Diagnostics returns lint's warnings for the report: a dsl.CodeBreaksRuns
// warning, at its NewPos, for each reason that keeps runs in flight on
// the old version from going on under the new one (NewCallsOnly and
// Breaking). None for a removed tool, which has no file to report in.
func (r *CompatReport) Diagnostics() dsl.Diagnostics {
	if r.New == nil {
		return nil
	}
	const pinned = "runs in flight on the old version finish on it (servers pin runs to the version they began on)"
	var ds dsl.Diagnostics
	for _, x := range r.Reasons {
		if x.Verdict < NewCallsOnly || !x.NewPos.IsValid() {
			continue
		}
		msg := x.what + ": " + pinned + " but cannot move to this one"
		if x.Verdict == Breaking {
			msg = x.Message + "; " + pinned
		}
		ds = append(ds, dsl.Diagnostic{Pos: x.NewPos, Severity: dsl.Warning, Code: dsl.CodeBreaksRuns, Message: msg})
	}
	ds.Sort()
	return slices.Compact(ds)
}

// CompatAll compares two sets of programs tool by tool, matching them by
// name: one report per name in either set, sorted by name. A tool only in
// old is removed (Breaking), one only in new is added (Compatible).
func CompatAll(old, new []*Program) []*CompatReport {
	byName := map[string][2]*Program{}
	for _, p := range old {
		e := byName[p.Name()]
		e[0] = p
		byName[p.Name()] = e
	}
	for _, p := range new {
		e := byName[p.Name()]
		e[1] = p
		byName[p.Name()] = e
	}
	out := make([]*CompatReport, 0, len(byName))
	for _, n := range sortedKeys(byName) {
		e := byName[n]
		out = append(out, Compat(e[0], e[1]))
	}
	return out
}

// Compat compares two versions of one tool (or prompt). Either may be
// nil: a tool only in new is added (Compatible), one only in old removed
// (Breaking).
//
// The verdict is Breaking when new calls break: the tool was removed; it
// became a prompt or a prompt became a tool; its input schema accepts
// less (a new required property without a default, a property removed
// while additionalProperties is false, a type changed to one that does
// not cover the old, an enum or const narrowed, a bound tightened, a new
// pattern, format or multipleOf, additionalProperties newly false or
// constrained, or any change to a keyword Compat does not work out, such
// as anyOf or $ref); its output schema promises less (a property
// removed, no longer required, retyped to a type the old did not allow,
// or with new enum values; the schema dropped); or its task mode became
// required.
//
// Otherwise it is NewCallsOnly when some run in flight on old would not
// replay under new. The part of old's control-flow graph (dsl.CFG) a
// replay follows is the replay region: the nodes a run reaches from which
// it may still reach an ask, sample, roots, all or step node (the nodes
// that take journal positions). Old and new are walked together from
// their first nodes, each old node paired with its counterpart in new:
// the node with the same id, or for a node without an id, the node of
// the same kind that new has in its place (where the paired edge leads).
// Within the replay region, new must have
//   - each journaled node, under the same id, with the same kind and
//     fingerprint (an all node: the same questions, each with its
//     fingerprint);
//   - each set with the same bindings (names and value sources), each
//     branch with the same case conditions (by source) in the same order
//     up to the last case that leads into the region (all of them, and no
//     new ones, when its else does);
//   - each next (or fall through), case, else, unavailable, on_error and
//     on_timeout edge that leads into the region, leading to the
//     counterpart of its old target;
//   - no new node ahead of an old one, but for a set that binds only
//     names old does not have;
//   - the same expression language, and the same top-level input
//     defaults (a run's arguments are bound to its state with the
//     defaults applied).
//
// Everything else is Compatible: texts (title, description, return and
// fail), what comes after the last journaled node of every old path,
// nodes added on ways old does not go, new unavailable, on_error and
// on_timeout edges (no run in flight took a way old did not have),
// renamed pure nodes, new optional input properties, new output
// properties, and what replays do not read (validate rules, retries,
// approvers, timeouts). Positions, next versus falling through, comments
// and formatting do not count at all: they give no reason.
func Compat(old, new *Program) *CompatReport {
	switch {
	case old == nil && new == nil:
		return &CompatReport{}
	case old == nil:
		f := new.File()
		return finish(&CompatReport{Name: new.Name(), New: new, Reasons: []CompatReason{
			reason("", ChangeToolAdded, Compatible, toolPos(f), toolPos(f), "the "+servedAs(f)+" is new", "")}})
	case new == nil:
		f := old.File()
		return finish(&CompatReport{Name: old.Name(), Old: old, Reasons: []CompatReason{
			reason("", ChangeToolRemoved, Breaking, toolPos(f), dsl.Pos{}, "the "+servedAs(f)+" was removed", "its callers break")}})
	}
	c := newComparer(old, new)
	c.tool()
	c.nodes()
	return finish(c.rep)
}

// finish sorts the reasons, drops repeats and sets the verdict.
func finish(r *CompatReport) *CompatReport {
	newFile := ""
	if r.New != nil {
		newFile = r.New.File().Path
	}
	inOld := func(x CompatReason) int {
		if x.Pos.File == newFile {
			return 0
		}
		return 1
	}
	slices.SortStableFunc(r.Reasons, func(a, b CompatReason) int {
		return cmp.Or(cmp.Compare(inOld(a), inOld(b)), cmp.Compare(a.Pos.Line, b.Pos.Line),
			cmp.Compare(a.Pos.Col, b.Pos.Col), strings.Compare(a.Message, b.Message))
	})
	r.Reasons = slices.CompactFunc(r.Reasons, func(a, b CompatReason) bool {
		return a.Pos == b.Pos && a.Message == b.Message
	})
	r.Verdict = Compatible
	for _, x := range r.Reasons {
		r.Verdict = max(r.Verdict, x.Verdict)
	}
	return r
}

// reason makes a reason from what changed and why that matters.
func reason(node string, ch Change, v Verdict, pos, newPos dsl.Pos, what, why string) CompatReason {
	msg := what
	if why != "" {
		msg += ": " + why
	}
	return CompatReason{Node: node, Change: ch, Verdict: v, Pos: pos, NewPos: newPos, Message: msg, what: what}
}

// toolPos is where a file names its tool: its name key, or its start.
func toolPos(f *dsl.File) dsl.Pos {
	if f.Name.Pos.IsValid() {
		return f.Name.Pos
	}
	return filePos(f)
}

func filePos(f *dsl.File) dsl.Pos { return dsl.Pos{File: f.Path, Line: 1, Col: 1} }

func servedAs(f *dsl.File) string {
	if f.IsPrompt() {
		return "prompt"
	}
	return "tool"
}

// comparer compares an old and a new version of one flow.
type comparer struct {
	rep    *CompatReport
	of, nf *dsl.File
	og, ng *dsl.CFG

	reach  []bool // old nodes a run reaches
	nreach []bool // new nodes a run reaches
	replay []bool // old nodes in the replay region

	pair    []int           // old node → its counterpart in new, or -1
	back    []int           // new node → its counterpart in old, or -1
	spoken  []bool          // new nodes a reason speaks of
	done    []bool          // old nodes whose definitions were compared
	renamed []bool          // old nodes renamed in new
	gone    map[int]dsl.Pos // old nodes new lacks → where new has something else
	queue   []int           // old nodes paired, to compare

	oldNames map[string]bool // every id and set name of old
}

func newComparer(old, new *Program) *comparer {
	of, nf := old.File(), new.File()
	c := &comparer{
		rep: &CompatReport{Name: new.Name(), Old: old, New: new},
		of:  of, nf: nf,
		og: dsl.BuildCFG(of), ng: dsl.BuildCFG(nf),
		gone:     map[int]dsl.Pos{},
		oldNames: map[string]bool{},
	}
	c.reach, c.nreach = reachable(c.og), reachable(c.ng)
	c.replay = replayRegion(c.og, c.reach)
	c.pair, c.back = fill(c.og.Len(), -1), fill(c.ng.Len(), -1)
	c.spoken = make([]bool, c.ng.Len())
	c.done = make([]bool, c.og.Len())
	c.renamed = make([]bool, c.og.Len())
	for n := range of.Walk() {
		if n.ID != "" {
			c.oldNames[n.ID] = true
		}
		if n.Set != nil {
			for _, b := range n.Set.Bindings {
				c.oldNames[b.Name] = true
			}
		}
	}
	return c
}

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
	return k.IsQuestion() || k == dsl.KindAll || k == dsl.KindStep
}

// level is the verdict of a change that matters to replays when
// critical, and to nothing else.
func level(critical bool) Verdict {
	if critical {
		return NewCallsOnly
	}
	return Compatible
}

// The consequences reasons name.
const (
	afterAll  = "it comes after every question and step of the old version"
	mayStray  = "runs in flight may take another way when they replay"
	noReplays = "replays do not depend on it"
)

// say adds a reason about node n (nil for the tool).
func (c *comparer) say(n *dsl.Node, ch Change, v Verdict, pos, at dsl.Pos, what, why string) {
	node := ""
	if n != nil {
		node = n.Name()
	}
	c.rep.Reasons = append(c.rep.Reasons, reason(node, ch, v, pos, at, what, why))
}

// sayNew adds a reason at node s of new.
func (c *comparer) sayNew(s int, ch Change, v Verdict, what, why string) {
	n := c.ng.Node(s)
	c.spoken[s] = true
	c.say(n, ch, v, n.Pos, n.Pos, what, why)
}

// newPos is the position in new of the counterpart of old node o, or
// new's first line.
func (c *comparer) newPos(o int) dsl.Pos {
	if o >= 0 && c.pair[o] >= 0 {
		return c.ng.Node(c.pair[o]).Pos
	}
	return filePos(c.nf)
}

// desc names a node for messages: its kind and id, or its number.
func desc(n *dsl.Node) string {
	if n.ID != "" {
		return fmt.Sprintf("%s %q", n.Kind, n.ID)
	}
	return n.Kind.String() + " " + n.Name()
}

// tool compares what callers see of the tool: how it is served, its
// schemas, its task mode and expression language, its texts.
func (c *comparer) tool() {
	of, nf := c.of, c.nf
	orTool := func(p dsl.Pos) dsl.Pos {
		if p.IsValid() {
			return p
		}
		return toolPos(nf)
	}
	if of.IsPrompt() != nf.IsPrompt() {
		pos := orTool(nf.Kind.Pos)
		c.say(nil, ChangeServedAs, Breaking, pos, pos,
			fmt.Sprintf("the flow was served as a %s and is now a %s", servedAs(of), servedAs(nf)), "callers of the "+servedAs(of)+" break")
	}
	if om, nm := of.TaskMode(), nf.TaskMode(); om != nm {
		pos := orTool(nf.Task.Pos)
		if nm == dsl.TaskRequired {
			c.say(nil, ChangeTask, Breaking, pos, pos, fmt.Sprintf("task is now required (it was %s)", om),
				"clients that do not declare the tasks extension are refused")
		} else {
			c.say(nil, ChangeTask, Compatible, pos, pos, fmt.Sprintf("task is now %s (it was %s)", nm, om), "")
		}
	}
	if ol, nl := language(of), language(nf); ol != nl {
		pos := orTool(nf.Expressions.Pos)
		critical := false
		for i, in := range c.replay {
			k := c.og.Node(i).Kind
			critical = critical || in && (k == dsl.KindBranch || k == dsl.KindSet)
		}
		why := "no branch or set on the way to a question or step reads them"
		if critical {
			why = mayStray
		}
		c.say(nil, ChangeLanguage, level(critical), pos, pos, fmt.Sprintf("the expressions are now %s (they were %s)", nl, ol), why)
	}
	c.text(of.Title, nf.Title, "the title")
	c.text(of.Description, nf.Description, "the description")
	c.input()
	c.output()
}

// language returns the expression language of f.
func language(f *dsl.File) string {
	if f.Expressions.Value == "" {
		return "cel"
	}
	return f.Expressions.Value
}

// text adds a reason when a text of the tool changed.
func (c *comparer) text(o, nw dsl.String, what string) {
	if o.Value == nw.Value {
		return
	}
	pos := nw.Pos
	if !pos.IsValid() {
		pos = toolPos(c.nf)
	}
	verb := "changed"
	switch {
	case o.Value == "":
		verb = "is new"
	case nw.Value == "":
		verb = "was removed"
	}
	c.say(nil, ChangeText, Compatible, pos, pos, what+" "+verb, "")
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

// compare compares the definitions of old node o and new node n, and
// pairs the targets of their edges.
func (c *comparer) compare(o, n int) {
	if c.done[o] {
		return
	}
	c.done[o] = true
	on, nn := c.og.Node(o), c.ng.Node(n)
	critical := c.replay[o]
	if on.Kind != nn.Kind {
		why := afterAll + ", so no replay reaches it"
		if critical {
			why = "runs in flight that reached it cannot replay their journal"
		}
		c.sayNew(n, ChangeRedefined, level(critical), fmt.Sprintf("%s was %s %s", desc(nn), article(on.Kind.String()), on.Kind), why)
		return
	}
	switch on.Kind {
	case dsl.KindAsk, dsl.KindSample, dsl.KindRoots, dsl.KindStep:
		c.journaledNode(o, on, n, nn)
	case dsl.KindAll:
		c.allNode(o, on, n, nn)
	case dsl.KindSet:
		if setSource(on) != setSource(nn) {
			why := afterAll
			if critical {
				why = mayStray
			}
			c.sayNew(n, ChangeControl, level(critical), desc(nn)+" binds other names or values", why)
		}
	case dsl.KindReturn:
		if returnSource(on.Return) != returnSource(nn.Return) {
			c.sayNew(n, ChangeText, Compatible, desc(nn)+" returns a different result", noReplays)
		}
	case dsl.KindFail:
		if tsrc(on.Fail) != tsrc(nn.Fail) {
			c.sayNew(n, ChangeText, Compatible, desc(nn)+" fails with a different message", noReplays)
		}
	}
	if on.Kind == dsl.KindBranch {
		c.branch(o, n)
		return
	}
	for _, e := range c.og.Succ(o) {
		r := roleOf(e)
		if ne, ok := edgeOf(c.ng, n, r); ok {
			c.link(o, r, e.To, ne.To)
			continue
		}
		crit := valid(c.og, e.To) && c.replay[e.To]
		why := "no run in flight took it on its way to a question or step"
		if crit {
			why = "runs in flight that took it cannot replay"
		}
		c.sayNew(n, ChangeControl, level(crit), fmt.Sprintf("%s no longer has its %s", desc(nn), r.name()), why)
	}
	for _, e := range c.ng.Succ(n) {
		r := roleOf(e)
		if _, ok := edgeOf(c.og, o, r); !ok && valid(c.ng, e.To) {
			c.say(nn, ChangeControl, Compatible, nn.Pos, nn.Pos,
				fmt.Sprintf("%s has a new %s (%s)", desc(nn), r.name(), desc(c.ng.Node(e.To))), "no run of the old version took it")
		}
	}
}

// article returns "a" or "an" for a word.
func article(w string) string {
	if w != "" && strings.ContainsRune("aeiou", rune(w[0])) {
		return "an"
	}
	return "a"
}

// journaledNode compares an ask, sample, roots or step node.
func (c *comparer) journaledNode(o int, on *dsl.Node, n int, nn *dsl.Node) {
	if !sameFingerprint(on, nn) {
		what := fmt.Sprintf("%s asks a different question (%s)", desc(nn), fingerprintChange(on, nn))
		why := "runs in flight that answered it cannot replay their journal"
		if on.Kind == dsl.KindStep {
			what = fmt.Sprintf("%s is defined differently (%s)", desc(nn), fingerprintChange(on, nn))
			why = "runs in flight that ran it cannot replay their journal"
		}
		c.sayNew(n, ChangeRedefined, level(c.replay[o]), what, why)
	}
	if parts := detailChanges(on, nn); len(parts) > 0 {
		why := "replays use the journaled answer"
		if on.Kind == dsl.KindStep {
			why = "replays use the journaled result"
		}
		c.say(nn, ChangeDetail, Compatible, nn.Pos, nn.Pos, fmt.Sprintf("%s of %s changed", list(parts), desc(nn)), why)
	}
}

// sameFingerprint reports whether two nodes have the same fingerprint but
// for their ids (a renamed node has a reason of its own).
func sameFingerprint(a, b *dsl.Node) bool {
	renamed := *a
	renamed.ID = b.ID
	return fingerprint(&renamed) == fingerprint(b)
}

// allNode compares the questions of two all nodes.
func (c *comparer) allNode(o int, on *dsl.Node, n int, nn *dsl.Node) {
	old := map[string]*dsl.Node{}
	for _, q := range on.All.Questions {
		old[q.ID] = q
	}
	var changes []string
	now := map[string]bool{}
	for _, q := range nn.All.Questions {
		now[q.ID] = true
		switch oq := old[q.ID]; {
		case oq == nil:
			changes = append(changes, desc(q)+" is new")
		case fingerprint(oq) != fingerprint(q):
			changes = append(changes, fmt.Sprintf("%s asks a different question (%s)", desc(q), fingerprintChange(oq, q)))
		}
	}
	for _, q := range on.All.Questions {
		if !now[q.ID] {
			changes = append(changes, desc(q)+" was removed")
		}
	}
	if len(changes) > 0 {
		c.sayNew(n, ChangeRedefined, level(c.replay[o]), fmt.Sprintf("the questions of %s changed (%s)", desc(nn), strings.Join(changes, "; ")),
			"runs in flight that answered them cannot replay their journal")
	}
}

// branch compares the cases of two branch nodes and pairs their targets.
func (c *comparer) branch(o, n int) {
	oc, od := caseEdges(c.og, o)
	nc, nd := caseEdges(c.ng, n)
	nn := c.ng.Node(n)
	// The cases up to the last one that leads into the replay region
	// decide the way a replay takes; all of them do when the else does.
	elseCritical := valid(c.og, od.To) && c.replay[od.To]
	last := -1
	for i, e := range oc {
		if valid(c.og, e.To) && c.replay[e.To] {
			last = i
		}
	}
	if elseCritical {
		last = len(oc)
	}
	why := func(critical bool) string {
		if critical {
			return mayStray
		}
		return "the ways runs in flight replay do not change"
	}
	at := func(e dsl.Edge) dsl.Pos {
		c.spoken[n] = true
		return caseAt(nn, e)
	}
	for i, e := range oc {
		critical := i <= last
		switch {
		case i >= len(nc):
			c.sayNew(n, ChangeControl, level(critical), fmt.Sprintf("%s no longer has case %d (if: %s)", desc(nn), i+1, condSource(e)), why(critical))
		default:
			if condSource(e) != condSource(nc[i]) {
				pos := at(nc[i])
				c.say(nn, ChangeControl, level(critical), pos, pos,
					fmt.Sprintf("case %d of %s now tests %s (it tested %s)", i+1, desc(nn), condSource(nc[i]), condSource(e)), why(critical))
			}
			c.link(o, role{kind: caseRole, k: i}, e.To, nc[i].To)
		}
	}
	for i := len(oc); i < len(nc); i++ {
		pos := at(nc[i])
		w := "the old version's else leads to no question or step"
		if elseCritical {
			w = "runs in flight that took the else may take the new case when they replay"
		}
		c.say(nn, ChangeControl, level(elseCritical), pos, pos, fmt.Sprintf("%s has a new case %d (if: %s)", desc(nn), i+1, condSource(nc[i])), w)
	}
	c.link(o, role{kind: elseRole}, od.To, nd.To)
}

// caseEdges returns the case edges of branch i and its else (or fall
// through) edge.
func caseEdges(g *dsl.CFG, i int) (cases []dsl.Edge, orElse dsl.Edge) {
	orElse = dsl.Edge{To: -1}
	for _, e := range g.Succ(i) {
		switch e.Kind {
		case dsl.EdgeCase:
			cases = append(cases, e)
		case dsl.EdgeElse, dsl.EdgeOtherwise:
			orElse = e
		}
	}
	return cases, orElse
}

// condSource returns a case's condition as quoted source.
func condSource(e dsl.Edge) string {
	if e.Cond == nil {
		return `""`
	}
	return strconv.Quote(strings.TrimSpace(e.Cond.Src))
}

// caseAt returns the position of a case of branch node n.
func caseAt(n *dsl.Node, e dsl.Edge) dsl.Pos {
	if n.Branch != nil && e.Case >= 0 && e.Case < len(n.Branch.Cases) {
		return n.Branch.Cases[e.Case].Pos
	}
	return n.Pos
}

// fingerprintChange says which parts of a node's fingerprint differ.
func fingerprintChange(a, b *dsl.Node) string {
	var parts []string
	switch a.Kind {
	case dsl.KindAsk:
		if tsrc(a.Ask.Message) != tsrc(b.Ask.Message) {
			parts = append(parts, "its message")
		}
		if formSource(a.Ask.Form) != formSource(b.Ask.Form) {
			parts = append(parts, "its form")
		}
		if tsrc(a.Ask.URL) != tsrc(b.Ask.URL) {
			parts = append(parts, "its URL")
		}
		if a.Ask.Approval() != b.Ask.Approval() {
			parts = append(parts, "whether someone else answers it")
		}
	case dsl.KindStep:
		if a.Step.Action.Value != b.Step.Action.Value {
			parts = append(parts, fmt.Sprintf("its action, now %s (it was %s),", b.Step.Action.Value, a.Step.Action.Value))
		}
		if jsonSource(valueSource(a.Step.With)) != jsonSource(valueSource(b.Step.With)) {
			parts = append(parts, "its with")
		}
	case dsl.KindSample:
		parts = append(parts, "its request")
	}
	if len(parts) == 0 {
		return "its definition changed"
	}
	return strings.TrimSuffix(list(parts), ",") + " changed"
}

// detailChanges lists what changed in a journaled node that replays do
// not read.
func detailChanges(a, b *dsl.Node) []string {
	var parts []string
	if a.Ask != nil && b.Ask != nil {
		if rulesSource(a.Ask.Validate) != rulesSource(b.Ask.Validate) {
			parts = append(parts, "the validate rules")
		}
		if a.Ask.Retries != b.Ask.Retries {
			parts = append(parts, "the retries")
		}
		if tsrc(a.Ask.To) != tsrc(b.Ask.To) || notifySource(a.Ask.Notify) != notifySource(b.Ask.Notify) {
			parts = append(parts, "who is asked")
		}
		if a.Ask.Timeout != b.Ask.Timeout {
			parts = append(parts, "the timeout")
		}
	}
	if a.Step != nil && b.Step != nil {
		if a.Step.Timeout != b.Step.Timeout {
			parts = append(parts, "the timeout")
		}
		if retrySource(a.Step.Retry) != retrySource(b.Step.Retry) {
			parts = append(parts, "the retry")
		}
		if a.Step.Long != b.Step.Long {
			parts = append(parts, "long")
		}
	}
	return parts
}

// list joins words as "a, b and c".
func list(parts []string) string {
	if len(parts) < 2 {
		return strings.Join(parts, "")
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}

// tsrc returns a template's source, or NUL for none.
func tsrc(t *dsl.Template) string {
	if t == nil {
		return "\x00"
	}
	return t.Src
}

func jsonSource(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func formSource(f *dsl.Form) string {
	if f == nil {
		return ""
	}
	return jsonSource(f.Schema)
}

func rulesSource(rs []*dsl.Rule) string {
	var out []string
	for _, r := range rs {
		src := ""
		if r.Rule != nil {
			src = r.Rule.Src
		}
		out = append(out, src, tsrc(r.Message))
	}
	return jsonSource(out)
}

func notifySource(n *dsl.Notify) string {
	if n == nil {
		return ""
	}
	return tsrc(n.Webhook)
}

func retrySource(r *dsl.Retry) string {
	if r == nil || r.Attempts <= 1 {
		return ""
	}
	return fmt.Sprintf("%d/%s", r.Attempts, r.Backoff)
}

// setSource returns a set node's bindings as JSON.
func setSource(n *dsl.Node) string {
	var out []any
	for _, b := range n.Set.Bindings {
		out = append(out, b.Name, valueSource(b.Value))
	}
	return jsonSource(out)
}

// returnSource returns what a return node returns, as JSON.
func returnSource(r *dsl.Return) string {
	if r == nil {
		return ""
	}
	var content []any
	for _, b := range r.Content {
		content = append(content, valueSource(b))
	}
	var msgs []any
	for _, m := range r.Messages {
		msgs = append(msgs, m.Role.Value, tsrc(m.Text), valueSource(m.Content))
	}
	return jsonSource([]any{tsrc(r.Text), valueSource(r.Structured), content, tsrc(r.Description), msgs})
}

// input compares the input schemas: new must accept every call old
// accepted, and give runs in flight the same arguments.
func (c *comparer) input() {
	od, nd := schemaDoc(c.of.Input), schemaDoc(c.nf.Input)
	c.accepts(od, nd, "")
	c.defaults(od, nd)
}

// output compares the output schemas: what new returns must be what
// callers of old expect.
func (c *comparer) output() {
	switch {
	case c.of.Output == nil:
		if c.nf.Output != nil {
			c.schemaSay("", Compatible, "the tool now declares an output schema", "")
		}
	case c.nf.Output == nil:
		pos := toolPos(c.nf)
		c.say(nil, ChangeOutput, Breaking, pos, pos, "the tool no longer declares an output schema",
			"callers that read its structured content break")
	default:
		c.produces(c.of.Output.Value, c.nf.Output.Value, "")
	}
}

// schemaDoc returns the JSON Schema of the arguments.
func schemaDoc(s *dsl.Schema) map[string]any {
	if s == nil {
		return map[string]any{"type": "object"}
	}
	return s.Value
}

// subject names the input (or output) schema at path: the schema itself,
// or a property ("a.b", "a[]" for its items).
func subject(schema, path string) string {
	if path == "" {
		return "the " + schema
	}
	return fmt.Sprintf("%s property %q", schema, path)
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// propPos returns the position in f of the schema (input or output) at
// path: its top-level property, or the schema.
func propPos(f *dsl.File, s *dsl.Schema, path string) dsl.Pos {
	if s == nil {
		return toolPos(f)
	}
	top, _, _ := strings.Cut(path, ".")
	top = strings.TrimSuffix(top, "[]")
	for _, p := range s.Properties {
		if p.Value == top && path != "" {
			return p.Pos
		}
	}
	return s.Pos
}

// schemaSay adds a reason about the output schema at path.
func (c *comparer) schemaSay(path string, v Verdict, what, why string) {
	pos := propPos(c.nf, c.nf.Output, path)
	c.say(nil, ChangeOutput, v, pos, pos, what, why)
}

// inputSay adds a reason about the input schema at path.
func (c *comparer) inputSay(path string, ch Change, v Verdict, what, why string) {
	pos := propPos(c.nf, c.nf.Input, path)
	c.say(nil, ch, v, pos, pos, what, why)
}

// The JSON Schema keywords whose changes Compat does not work out: any
// change to them is taken to break callers.
var uncompared = []string{"allOf", "anyOf", "oneOf", "not", "if", "then", "else", "$ref", "$dynamicRef",
	"$defs", "definitions", "dependentRequired", "dependentSchemas", "dependencies", "patternProperties",
	"propertyNames", "prefixItems", "contains", "minContains", "maxContains", "unevaluatedProperties",
	"unevaluatedItems"}

// accepts reports each way input schema nd (new) accepts less than od
// (old) at path.
func (c *comparer) accepts(od, nd map[string]any, path string) {
	subj := subject("input", path)
	const refused = "calls the old version accepted are refused"
	stricter := func(what string) { c.inputSay(path, ChangeInput, Breaking, what, refused) }
	if ot, nt := types(od), types(nd); nt != nil && !covers(nt, ot) {
		stricter(fmt.Sprintf("%s is now %s (it was %s)", subj, typeText(nt), typeText(ot)))
	}
	if ne, ok := nd["enum"].([]any); ok {
		oe, had := od["enum"].([]any)
		if lost := absent(oe, ne); !had || len(lost) > 0 {
			what := fmt.Sprintf("%s now allows only %s", subj, values(ne))
			if had {
				what = fmt.Sprintf("%s no longer allows %s", subj, values(lost))
			}
			stricter(what)
		}
	}
	if nc, ok := nd["const"]; ok {
		if oc, had := od["const"]; !had || jsonSource(oc) != jsonSource(nc) {
			stricter(fmt.Sprintf("%s must now be %s", subj, jsonSource(nc)))
		}
	}
	for _, k := range []string{"minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties"} {
		if nv, ok := num(nd[k]); ok {
			if ov, had := num(od[k]); !had || nv > ov {
				stricter(fmt.Sprintf("%s has %s %s (%s)", subj, k, jsonSource(nd[k]), was(od, k)))
			}
		}
	}
	for _, k := range []string{"maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties"} {
		if nv, ok := num(nd[k]); ok {
			if ov, had := num(od[k]); !had || nv < ov {
				stricter(fmt.Sprintf("%s has %s %s (%s)", subj, k, jsonSource(nd[k]), was(od, k)))
			}
		}
	}
	for _, k := range []string{"pattern", "format", "multipleOf"} {
		if nv, ok := nd[k]; ok && jsonSource(nv) != jsonSource(od[k]) {
			stricter(fmt.Sprintf("%s has %s %s (%s)", subj, k, jsonSource(nv), was(od, k)))
		}
	}
	if nd["uniqueItems"] == true && od["uniqueItems"] != true {
		stricter(subj + " now needs unique items")
	}
	for _, k := range uncompared {
		if jsonSource(od[k]) != jsonSource(nd[k]) {
			stricter(fmt.Sprintf("%s changed its %s, which diff does not compare", subj, k))
		}
	}
	op, np := properties(od), properties(nd)
	oreq := stringList(od["required"])
	for _, name := range stringList(nd["required"]) {
		if slices.Contains(oreq, name) {
			continue
		}
		if _, has := np[name]["default"]; has && path == "" {
			continue // the default is applied first (see defaults)
		}
		p := join(path, name)
		what := fmt.Sprintf("%s is now required", subject("input", p))
		if _, had := op[name]; !had {
			what = fmt.Sprintf("%s is new and required", subject("input", p))
		}
		c.inputSay(p, ChangeInput, Breaking, what, "calls without it are refused")
	}
	closed := nd["additionalProperties"] == false
	for _, name := range sortedKeys(op) {
		p := join(path, name)
		if ns, ok := np[name]; ok {
			c.accepts(op[name], ns, p)
			continue
		}
		pos := propPos(c.of, c.of.Input, p)
		at := propPos(c.nf, c.nf.Input, path)
		if closed {
			c.say(nil, ChangeInput, Breaking, pos, at, subject("input", p)+" was removed, and the input takes no other properties",
				"calls that send it are refused")
		} else {
			c.say(nil, ChangeInput, Compatible, pos, at, subject("input", p)+" was removed", "calls that send it are still accepted")
		}
	}
	for _, name := range sortedKeys(np) {
		if _, ok := op[name]; !ok && !slices.Contains(stringList(nd["required"]), name) {
			p := join(path, name)
			c.inputSay(p, ChangeInput, Compatible, subject("input", p)+" is new and optional", "")
		}
	}
	oa, na := od["additionalProperties"], nd["additionalProperties"]
	om, oIsMap := oa.(map[string]any)
	nm, nIsMap := na.(map[string]any)
	switch {
	case closed && oa != false:
		stricter(subj + " no longer takes properties it does not list")
	case nIsMap && oIsMap:
		c.accepts(om, nm, join(path, "*"))
	case nIsMap && oa != false:
		stricter(subj + " now constrains properties it does not list")
	}
	oi, oIs := od["items"].(map[string]any)
	ni, nIs := nd["items"].(map[string]any)
	switch {
	case oIs && nIs:
		c.accepts(oi, ni, path+"[]")
	case nIs:
		stricter(subj + " now constrains its items")
	}
}

// defaults reports the top-level input defaults that changed. A run's
// arguments are bound to its state with the defaults applied, so a run
// in flight that left such a property out no longer matches its state.
func (c *comparer) defaults(od, nd map[string]any) {
	op, np := properties(od), properties(nd)
	names := sortedKeys(op)
	for _, n := range sortedKeys(np) {
		if _, ok := op[n]; !ok {
			names = append(names, n)
		}
	}
	for _, name := range names {
		ov, oHas := op[name]["default"]
		nv, nHas := np[name]["default"]
		if oHas == nHas && (!oHas || jsonSource(ov) == jsonSource(nv)) {
			continue
		}
		var what string
		switch {
		case !nHas:
			what = fmt.Sprintf("%s no longer has a default (it was %s)", subject("input", name), jsonSource(ov))
		case !oHas:
			what = fmt.Sprintf("%s now has a default (%s)", subject("input", name), jsonSource(nv))
		default:
			what = fmt.Sprintf("%s has a new default, %s (it was %s)", subject("input", name), jsonSource(nv), jsonSource(ov))
		}
		if _, ok := np[name]; ok {
			c.inputSay(name, ChangeDefault, NewCallsOnly, what, "runs in flight that left it out no longer match the arguments their state was sealed with")
		} else {
			pos := propPos(c.of, c.of.Input, name)
			c.say(nil, ChangeDefault, NewCallsOnly, pos, propPos(c.nf, c.nf.Input, ""), what,
				"runs in flight that left it out no longer match the arguments their state was sealed with")
		}
	}
}

// produces reports each way output schema nd (new) promises less than
// od (old) at path.
func (c *comparer) produces(od, nd map[string]any, path string) {
	subj := subject("output", path)
	const breaks = "callers that read it break"
	if ot, nt := types(od), types(nd); ot != nil && (nt == nil || !covers(ot, nt)) {
		c.schemaSay(path, Breaking, fmt.Sprintf("%s is now %s (it was %s)", subj, typeText(nt), typeText(ot)), breaks)
	}
	if oe, ok := od["enum"].([]any); ok {
		ne, has := nd["enum"].([]any)
		if extra := absent(ne, oe); !has || len(extra) > 0 {
			what := subj + " may now hold any value"
			if has {
				what = fmt.Sprintf("%s may now be %s", subj, values(extra))
			}
			c.schemaSay(path, Breaking, what, breaks)
		}
	}
	op, np := properties(od), properties(nd)
	nreq := stringList(nd["required"])
	for _, name := range stringList(od["required"]) {
		if _, still := np[name]; still && !slices.Contains(nreq, name) {
			p := join(path, name)
			c.schemaSay(p, Breaking, subject("output", p)+" is no longer required", "callers that rely on it break")
		}
	}
	for _, name := range sortedKeys(op) {
		p := join(path, name)
		if ns, ok := np[name]; ok {
			c.produces(op[name], ns, p)
			continue
		}
		pos := propPos(c.of, c.of.Output, p)
		c.say(nil, ChangeOutput, Breaking, pos, propPos(c.nf, c.nf.Output, path), subject("output", p)+" was removed", breaks)
	}
	for _, name := range sortedKeys(np) {
		if _, ok := op[name]; !ok {
			p := join(path, name)
			c.schemaSay(p, Compatible, subject("output", p)+" is new", "")
		}
	}
	if oi, ok := od["items"].(map[string]any); ok {
		if ni, ok := nd["items"].(map[string]any); ok {
			c.produces(oi, ni, path+"[]")
		}
	}
}

// types returns the types a schema allows, nil for any.
func types(s map[string]any) []string {
	switch t := s["type"].(type) {
	case string:
		return []string{t}
	case []any:
		var out []string
		for _, e := range t {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// covers reports whether the types outer allow every value the types
// inner allow (nil is any type; a number covers an integer).
func covers(outer, inner []string) bool {
	if outer == nil {
		return true
	}
	if inner == nil {
		return false
	}
	for _, t := range inner {
		if !slices.Contains(outer, t) && !(t == "integer" && slices.Contains(outer, "number")) {
			return false
		}
	}
	return true
}

func typeText(ts []string) string {
	if ts == nil {
		return "of any type"
	}
	return article(ts[0]) + " " + strings.Join(ts, " or ")
}

// absent returns the values of want that have lacks.
func absent(want, have []any) []any {
	var out []any
	for _, w := range want {
		if !slices.ContainsFunc(have, func(h any) bool { return jsonSource(h) == jsonSource(w) }) {
			out = append(out, w)
		}
	}
	return out
}

func values(vs []any) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = jsonSource(v)
	}
	return list(parts)
}

// was says what a schema had for keyword k: "it was 3" or "it had none".
func was(s map[string]any, k string) string {
	if v, ok := s[k]; ok {
		return "it was " + jsonSource(v)
	}
	return "it had none"
}

func num(v any) (float64, bool) {
	switch v := v.(type) {
	case int64:
		return float64(v), true
	case int:
		return float64(v), true
	case float64:
		return v, true
	}
	return 0, false
}

// properties returns a schema's properties, each as a schema.
func properties(s map[string]any) map[string]map[string]any {
	out := map[string]map[string]any{}
	ps, _ := s["properties"].(map[string]any)
	for k, v := range ps {
		m, _ := v.(map[string]any)
		if m == nil {
			m = map[string]any{}
		}
		out[k] = m
	}
	return out
}

func stringList(v any) []string {
	var out []string
	l, _ := v.([]any)
	for _, e := range l {
		if s, ok := e.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
