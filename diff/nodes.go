package diff

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/flowserve/flowserve/dsl"
)

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
	case dsl.KindAsk, dsl.KindSample, dsl.KindRoots, dsl.KindStep, dsl.KindCall, dsl.KindLink:
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
		switch {
		case on.Kind == dsl.KindStep:
			what = fmt.Sprintf("%s is defined differently (%s)", desc(nn), fingerprintChange(on, nn))
			why = "runs in flight that ran it cannot replay their journal"
		case on.Kind.IsCall():
			what = fmt.Sprintf("%s is defined differently (%s)", desc(nn), fingerprintChange(on, nn))
			why = "runs in flight that called it cannot replay their journal"
		}
		c.sayNew(n, ChangeRedefined, level(c.replay[o]), what, why)
	}
	if parts := detailChanges(on, nn); len(parts) > 0 {
		why := "replays use the journaled answer"
		if on.Kind == dsl.KindStep || on.Kind.IsCall() {
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
	return renamed.Fingerprint() == b.Fingerprint()
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
		case oq.Fingerprint() != q.Fingerprint():
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
		if jsonSource(a.Step.With.Source()) != jsonSource(b.Step.With.Source()) {
			parts = append(parts, "its with")
		}
	case dsl.KindSample:
		parts = append(parts, "its request")
	case dsl.KindCall, dsl.KindLink:
		if a.Call.Flow.Value != b.Call.Flow.Value {
			parts = append(parts, fmt.Sprintf("the flow it calls, now %s (it was %s),", b.Call.Flow.Value, a.Call.Flow.Value))
		}
		if jsonSource(a.Call.With.Source()) != jsonSource(b.Call.With.Source()) {
			parts = append(parts, "its with")
		}
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
		out = append(out, b.Name, b.Value.Source())
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
		content = append(content, b.Source())
	}
	var msgs []any
	for _, m := range r.Messages {
		msgs = append(msgs, m.Role.Value, tsrc(m.Text), m.Content.Source())
	}
	return jsonSource([]any{tsrc(r.Text), r.Structured.Source(), content, tsrc(r.Description), msgs})
}
