// Package diff compares two versions of a tool (or prompt) as flowserve
// diff and lint --against do, and as servers do when they pin runs in
// flight to the version they began on (DESIGN §13): whether the new
// version serves its callers as the old one did, and whether each run in
// flight on the old version could go on under the new one, node by node.
package diff

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/flowserve/flowserve/check/codes"
	"github.com/flowserve/flowserve/dsl"
	"github.com/flowserve/flowserve/flow"
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

// Change is the kind of change a Reason is about.
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
	// ChangeScopes: the OAuth scopes the flow requires (auth.scopes)
	// changed.
	ChangeScopes Change = "scopes"
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

// Reason is one change between two versions of a tool, and what it
// does.
type Reason struct {
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

// Report compares two versions of one tool (or prompt): whether
// the new version is compatible with the old, and why, node by node.
type Report struct {
	// Name is the tool's (or prompt's) name.
	Name string
	// Old and New are the two versions; Old is nil for a tool that is
	// new, New for a tool that was removed.
	Old, New *flow.Program
	// Verdict is the most severe verdict of the reasons; Compatible when
	// there are none.
	Verdict Verdict
	// Reasons are the changes: those at positions in the new version's
	// file first, then those in the old one's, each group in file order.
	Reasons []Reason
}

// Added reports whether the tool is only in the new version.
func (r *Report) Added() bool { return r.Old == nil && r.New != nil }

// Removed reports whether the tool is only in the old version.
func (r *Report) Removed() bool { return r.New == nil && r.Old != nil }

// Diagnostics returns lint's warnings for the report: a codes.BreaksRuns
// warning, at its NewPos, for each reason that keeps runs in flight on
// the old version from going on under the new one (NewCallsOnly and
// Breaking). None for a removed tool, which has no file to report in.
func (r *Report) Diagnostics() dsl.Diagnostics {
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
		ds = append(ds, dsl.Diagnostic{Pos: x.NewPos, Severity: dsl.Warning, Code: codes.BreaksRuns, Message: msg})
	}
	ds.Sort()
	return ds.Compact()
}

// CompareAll compares two sets of programs tool by tool, matching them by
// name: one report per name in either set, sorted by name. A tool only in
// old is removed (Breaking), one only in new is added (Compatible).
func CompareAll(old, new []*flow.Program) []*Report {
	byName := map[string][2]*flow.Program{}
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
	out := make([]*Report, 0, len(byName))
	for _, n := range slices.Sorted(maps.Keys(byName)) {
		e := byName[n]
		out = append(out, Compare(e[0], e[1]))
	}
	return out
}

// Compare compares two versions of one tool (or prompt). Either may be
// nil: a tool only in new is added (Compatible), one only in old removed
// (Breaking).
//
// The verdict is Breaking when new calls break: the tool was removed; it
// became a prompt or a prompt became a tool; its input schema accepts
// less (a new required property without a default, a property removed
// while additionalProperties is false, a type changed to one that does
// not cover the old, an enum or const narrowed, a bound tightened, a new
// pattern, format or multipleOf, additionalProperties newly false or
// constrained, or any change to a keyword Compare does not work out, such
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
func Compare(old, new *flow.Program) *Report {
	switch {
	case old == nil && new == nil:
		return &Report{}
	case old == nil:
		f := new.File()
		return finish(&Report{Name: new.Name(), New: new, Reasons: []Reason{
			reason("", ChangeToolAdded, Compatible, toolPos(f), toolPos(f), "the "+servedAs(f)+" is new", "")}})
	case new == nil:
		f := old.File()
		return finish(&Report{Name: old.Name(), Old: old, Reasons: []Reason{
			reason("", ChangeToolRemoved, Breaking, toolPos(f), dsl.Pos{}, "the "+servedAs(f)+" was removed", "its callers break")}})
	}
	c := newComparer(old, new)
	c.tool()
	c.nodes()
	return finish(c.rep)
}

// finish sorts the reasons, drops repeats and sets the verdict.
func finish(r *Report) *Report {
	newFile := ""
	if r.New != nil {
		newFile = r.New.File().Path
	}
	inOld := func(x Reason) int {
		if x.Pos.File == newFile {
			return 0
		}
		return 1
	}
	slices.SortStableFunc(r.Reasons, func(a, b Reason) int {
		return cmp.Or(cmp.Compare(inOld(a), inOld(b)), cmp.Compare(a.Pos.Line, b.Pos.Line),
			cmp.Compare(a.Pos.Col, b.Pos.Col), strings.Compare(a.Message, b.Message))
	})
	r.Reasons = slices.CompactFunc(r.Reasons, func(a, b Reason) bool {
		return a.Pos == b.Pos && a.Message == b.Message
	})
	r.Verdict = Compatible
	for _, x := range r.Reasons {
		r.Verdict = max(r.Verdict, x.Verdict)
	}
	return r
}

// reason makes a reason from what changed and why that matters.
func reason(node string, ch Change, v Verdict, pos, newPos dsl.Pos, what, why string) Reason {
	msg := what
	if why != "" {
		msg += ": " + why
	}
	return Reason{Node: node, Change: ch, Verdict: v, Pos: pos, NewPos: newPos, Message: msg, what: what}
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
	rep    *Report
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

func newComparer(old, new *flow.Program) *comparer {
	of, nf := old.File(), new.File()
	c := &comparer{
		rep: &Report{Name: new.Name(), Old: old, New: new},
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
	c.scopes()
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

// scopes compares the scopes the flow requires: a new one breaks the
// callers without it, runs in flight included (every request is
// checked); dropping one does not.
func (c *comparer) scopes() {
	old, cur := c.of.ScopeNames(), c.nf.ScopeNames()
	var added, dropped []string
	for _, s := range cur {
		if !slices.Contains(old, s) {
			added = append(added, s)
		}
	}
	for _, s := range old {
		if !slices.Contains(cur, s) {
			dropped = append(dropped, s)
		}
	}
	pos := toolPos(c.nf)
	if c.nf.Auth != nil {
		pos = c.nf.Auth.Pos
	}
	if len(added) > 0 {
		c.say(nil, ChangeScopes, Breaking, pos, pos, "the flow now requires the scopes "+strings.Join(added, " "),
			"callers whose tokens lack them are refused (403), their runs in flight included")
	}
	if len(dropped) > 0 {
		c.say(nil, ChangeScopes, Compatible, pos, pos, "the flow no longer requires the scopes "+strings.Join(dropped, " "), "")
	}
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
