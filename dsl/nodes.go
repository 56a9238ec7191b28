package dsl

import (
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/flowserve/flowserve/check/codes"
	"github.com/flowserve/flowserve/internal/yamlx"
)

// kinds returns the node kinds of DSL v1 in the order of their keys.
func kinds() []Kind {
	return []Kind{KindAsk, KindStep, KindBranch, KindSet, KindReturn, KindFail, KindSample, KindRoots, KindAll, KindCall, KindLink}
}

// kindKeys returns the keys a node of kind k accepts besides id and next,
// its kind key first.
func kindKeys(k Kind) []string {
	switch k {
	case KindAsk:
		return []string{"ask", "form", "required", "url", "validate", "retries", "unavailable", "to", "notify", "timeout", "on_timeout"}
	case KindStep:
		return []string{"step", "with", "timeout", "retry", "on_error", "long"}
	case KindSample:
		return []string{"sample", "unavailable"}
	case KindRoots:
		return []string{"roots", "unavailable"}
	case KindAll:
		return []string{"all", "unavailable"}
	case KindCall:
		return []string{"call", "with", "on_error"}
	case KindLink:
		return []string{"link", "with"}
	case KindBranch, KindSet, KindReturn, KindFail:
		return []string{k.String()}
	}
	return nil
}

// kindOf returns the kind whose kind key is key, or 0.
func kindOf(key string) Kind {
	for _, k := range kinds() {
		if k.String() == key {
			return k
		}
	}
	return 0
}

// keyOwners returns the kinds that accept key (other than id and next),
// in the order of kinds(); none for a key no kind accepts. Some keys
// belong to several kinds: unavailable to the questions and all, timeout
// to step and ask.
func keyOwners(key string) []Kind {
	var out []Kind
	for _, k := range kinds() {
		if slices.Contains(kindKeys(k), key) {
			out = append(out, k)
		}
	}
	return out
}

// kindsText names kinds for messages: "ask", "ask and step", "ask,
// sample, roots and all".
func kindsText(ks []Kind) string {
	names := make([]string, len(ks))
	for i, k := range ks {
		names[i] = k.String()
	}
	if len(names) <= 2 {
		return strings.Join(names, " and ")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// accepts reports whether nodes of kind k take key (other than id and next).
func accepts(k Kind, key string) bool {
	return slices.Contains(kindKeys(k), key)
}

// hasNext reports whether nodes of kind k may say `next`.
func hasNext(k Kind) bool {
	return k.IsQuestion() || k == KindStep || k == KindSet || k == KindAll || k == KindCall
}

// article returns "an" or "a" for the kind's name.
func article(k Kind) string {
	if k == KindAsk || k == KindAll {
		return "an"
	}
	return "a"
}

// node reads one entry of the node list. It returns nil when the entry is
// not a mapping.
func (p *parser) node(index int, y *yaml.Node) *Node {
	if _, ok := p.mapping(y, "a node must be a mapping"); !ok {
		return nil
	}
	n := &Node{Index: index, Pos: p.pos(y)}
	entries := p.pairs(y)
	present := p.kind(n, entries)
	fields, hasID := p.fields(n, entries, present)
	p.body(n, fields)
	if (n.Kind.IsQuestion() || n.Kind == KindStep || n.Kind.IsCall()) && !hasID {
		p.errorf(n.Pos, codes.MissingKey, "%s %s node needs an id", article(n.Kind), n.Kind)
	}
	return n
}

// kind sets the kind of n from the first of its kind keys among entries,
// reporting none and more than one; it returns the kinds whose keys are
// present.
func (p *parser) kind(n *Node, entries []pair) map[Kind]bool {
	var kindEntries []pair
	present := map[Kind]bool{}
	for _, e := range entries {
		if k := kindOf(e.name); k != 0 {
			kindEntries = append(kindEntries, e)
			present[k] = true
		}
	}
	if len(kindEntries) == 0 {
		p.errorf(n.Pos, codes.MissingKind, "a node needs one of the keys ask, step, branch, set, return, fail, sample, roots, all, call, link")
		return present
	}
	n.Kind = kindOf(kindEntries[0].name)
	for _, e := range kindEntries[1:] {
		p.errorf(p.pos(e.key), codes.TwoKinds, "a node has exactly one kind; this one is both %s and %s", n.Kind, e.name)
	}
	return present
}

// fields reads the id and next of n and returns its other keys that its
// kind accepts, by name, reporting the keys of other kinds (but of those
// present, which the two-kinds error covers) and unknown keys.
func (p *parser) fields(n *Node, entries []pair, present map[Kind]bool) (fields map[string]pair, hasID bool) {
	where := " in a node"
	known := []string{"id", "next"}
	if n.Kind != 0 {
		where = " in " + article(n.Kind) + " " + n.Kind.String() + " node"
		known = append(known, kindKeys(n.Kind)...)
	} else {
		for _, k := range kinds() {
			known = append(known, kindKeys(k)...)
		}
	}
	fields = map[string]pair{}
	for _, e := range entries {
		switch owners := keyOwners(e.name); {
		case e.name == "id":
			hasID = true
			p.id(n, e)
		case e.name == "next":
			p.next(n, e)
		case len(owners) > 0:
			switch {
			case n.Kind != 0 && accepts(n.Kind, e.name):
				fields[e.name] = e
			case n.Kind != 0 && !slices.ContainsFunc(owners, func(k Kind) bool { return present[k] }):
				// A key of one of the node's other kind keys is left to
				// the two-kinds error.
				p.errorf(p.pos(e.key), codes.MisplacedKey, "%s belongs to %s nodes, not %s nodes", e.name, kindsText(owners), n.Kind)
			}
		default:
			p.unknownKey(e, where, known)
		}
	}
	return fields, hasID
}

// next reads a node's next, which only some kinds take.
func (p *parser) next(n *Node, e pair) {
	if n.Kind != 0 && !hasNext(n.Kind) {
		why := "it ends the flow"
		if n.Kind == KindBranch {
			why = "its cases choose the next node"
		}
		if n.Kind == KindLink {
			why = "it hands the run over to the flow it links to"
		}
		p.errorf(p.pos(e.key), codes.MisplacedKey, "%s %s node has no next: %s", article(n.Kind), n.Kind, why)
		return
	}
	n.Next = p.ref(e)
}

// body reads the keys of n's kind.
func (p *parser) body(n *Node, fields map[string]pair) {
	switch n.Kind {
	case KindAsk:
		n.Ask = p.ask(n, fields)
	case KindStep:
		n.Step = p.step(fields)
	case KindBranch:
		n.Branch = p.branch(fields["branch"])
	case KindSet:
		n.Set = p.set(fields["set"])
	case KindReturn:
		n.Return = p.ret(fields["return"])
	case KindFail:
		n.Fail = p.templateOf(fields["fail"])
		if n.Fail == nil {
			n.Fail = &Template{Pos: p.pos(fields["fail"].val)}
		}
	case KindSample:
		n.Ask = &Ask{Sample: p.sample(fields["sample"]), Unavailable: p.optRef(fields, "unavailable")}
	case KindRoots:
		n.Ask = &Ask{Roots: true, Unavailable: p.optRef(fields, "unavailable")}
		if e := fields["roots"]; !yamlx.IsNull(e.val) && !(e.val.Kind == yaml.MappingNode && len(e.val.Content) == 0) {
			p.errorf(p.pos(e.val), codes.BadType, "roots takes no options: write roots: {} (or leave it empty), not %s", yamlx.TypeName(e.val))
		}
	case KindAll:
		n.All = p.all(n, fields["all"])
		n.All.Unavailable = p.optRef(fields, "unavailable")
	case KindCall, KindLink:
		n.Call = p.call(n.Kind, fields)
	}
}

// id reads a node's id.
func (p *parser) id(n *Node, e pair) {
	s, ok := p.str(e)
	if !ok {
		return
	}
	n.IDPos = s.Pos
	p.checkName("id", s.Value, s.Pos)
	n.ID = s.Value
}

// branch reads the cases of a branch node.
func (p *parser) branch(e pair) *Branch {
	b := &Branch{}
	if e.val.Kind != yaml.SequenceNode {
		p.errorf(p.pos(e.val), codes.BadType, "branch must be a list of cases, not %s", yamlx.TypeName(e.val))
		return b
	}
	if len(e.val.Content) == 0 {
		p.errorf(p.pos(e.val), codes.BadBranch, "a branch needs at least one case")
	}
	last := len(e.val.Content) - 1
	for i, c := range e.val.Content {
		c, ok := p.mapping(c, "a branch case must be a mapping")
		if !ok {
			continue
		}
		var ifE, thenE, elseE *pair
		for _, ce := range p.pairs(c) {
			ce := ce
			switch ce.name {
			case "if":
				ifE = &ce
			case "then":
				thenE = &ce
			case "else":
				elseE = &ce
			default:
				p.unknownKey(ce, " in a branch case", []string{"if", "then", "else"})
			}
		}
		if ifE != nil && elseE != nil {
			later := elseE
			if before(elseE.key, ifE.key) {
				later = ifE
			}
			p.errorf(p.pos(later.key), codes.ConflictingKeys, "a branch case has if or else, not both")
			elseE = nil
		}
		if elseE != nil {
			if thenE != nil {
				p.errorf(p.pos(thenE.key), codes.ConflictingKeys, "an else case has no then: else names its node itself")
			}
			switch {
			case b.Else != nil:
				p.errorf(p.pos(elseE.key), codes.BadBranch, "a branch has at most one else")
			default:
				if i != last {
					p.errorf(p.pos(elseE.key), codes.BadBranch, "else must be the last case of a branch")
				}
				b.Else = p.ref(*elseE)
			}
			continue
		}
		cs := &Case{Pos: p.pos(c)}
		if ifE == nil {
			p.errorf(cs.Pos, codes.MissingKey, "a branch case needs if (or else)")
		} else {
			cs.If = p.condition(*ifE)
		}
		if thenE == nil {
			p.errorf(cs.Pos, codes.MissingKey, "a branch case needs then")
		} else {
			cs.Then = p.ref(*thenE)
		}
		b.Cases = append(b.Cases, cs)
	}
	return b
}

// set reads the bindings of a set node.
func (p *parser) set(e pair) *Set {
	s := &Set{}
	if _, ok := p.mapping(e.val, "set must be a mapping of names to values"); !ok {
		return s
	}
	entries := p.pairs(e.val)
	if len(entries) == 0 {
		p.errorf(p.pos(e.val), codes.BadValue, "set binds no names")
	}
	for _, ce := range entries {
		pos := p.pos(ce.key)
		p.checkName("set name", ce.name, pos)
		s.Bindings = append(s.Bindings, &Binding{Name: ce.name, Pos: pos, Value: p.value(ce.val)})
	}
	return s
}

// all reads the questions of an all node.
func (p *parser) all(n *Node, e pair) *All {
	a := &All{Pos: p.pos(e.val)}
	if e.val.Kind != yaml.SequenceNode {
		p.errorf(p.pos(e.val), codes.BadType, "all must be a list of ask, sample or roots nodes, not %s", yamlx.TypeName(e.val))
		return a
	}
	if len(e.val.Content) < 2 {
		p.errorf(p.pos(e.val), codes.BadValue, "all groups at least two questions; write a single one as a node of its own")
	}
	for _, c := range e.val.Content {
		c = p.resolve(c)
		q := p.node(n.Index, c)
		if q == nil {
			continue
		}
		switch {
		case q.Kind == 0:
		case !q.Kind.IsQuestion():
			p.errorf(q.Pos, codes.BadGroup, "all groups ask, sample and roots nodes, not %s %s node", article(q.Kind), q.Kind)
			continue
		case q.Next != nil:
			p.errorf(q.Next.Pos, codes.BadGroup, "a question of an all node has no next: the flow goes on after the all node")
		case q.Ask != nil && q.Ask.Unavailable != nil:
			p.errorf(q.Ask.Unavailable.Pos, codes.BadGroup, "a question of an all node has no unavailable: put it on the all node")
		case q.Ask.Approval():
			p.errorf(q.Ask.To.Pos, codes.BadGroup, "an approval (an ask with to) is asked on its own, not in an all node: someone else answers it, on a page of its own")
		}
		q.Group = n
		a.Questions = append(a.Questions, q)
	}
	return a
}

// optRef reads the reference under key, if present.
func (p *parser) optRef(f map[string]pair, key string) *Ref {
	if e, ok := f[key]; ok {
		return p.ref(e)
	}
	return nil
}

// before reports whether a comes before b in the file.
func before(a, b *yaml.Node) bool {
	return a.Line < b.Line || a.Line == b.Line && a.Column < b.Column
}
