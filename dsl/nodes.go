package dsl

import (
	"slices"
	"strings"
	"time"

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
	if y.Kind != yaml.MappingNode {
		p.errorf(p.pos(y), codes.BadType, "a node must be a mapping, not %s", yamlx.TypeName(y))
		return nil
	}
	n := &Node{Index: index, Pos: p.pos(y)}
	entries := p.pairs(y)
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
	} else {
		n.Kind = kindOf(kindEntries[0].name)
		for _, e := range kindEntries[1:] {
			p.errorf(p.pos(e.key), codes.TwoKinds, "a node has exactly one kind; this one is both %s and %s", n.Kind, e.name)
		}
	}
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
	fields := map[string]pair{}
	hasID := false
	for _, e := range entries {
		switch owners := keyOwners(e.name); {
		case e.name == "id":
			hasID = true
			p.id(n, e)
		case e.name == "next":
			if n.Kind != 0 && !hasNext(n.Kind) {
				why := "it ends the flow"
				if n.Kind == KindBranch {
					why = "its cases choose the next node"
				}
				if n.Kind == KindLink {
					why = "it hands the run over to the flow it links to"
				}
				p.errorf(p.pos(e.key), codes.MisplacedKey, "%s %s node has no next: %s", article(n.Kind), n.Kind, why)
				continue
			}
			n.Next = p.ref(e)
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
	if (n.Kind.IsQuestion() || n.Kind == KindStep || n.Kind.IsCall()) && !hasID {
		p.errorf(n.Pos, codes.MissingKey, "%s %s node needs an id", article(n.Kind), n.Kind)
	}
	return n
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

// before reports whether a comes before b in the file.
func before(a, b *yaml.Node) bool {
	return a.Line < b.Line || a.Line == b.Line && a.Column < b.Column
}

// ask reads the keys of an ask node.
func (p *parser) ask(n *Node, f map[string]pair) *Ask {
	a := &Ask{Retries: DefaultRetries}
	a.Message = p.templateOf(f["ask"])
	form, hasForm := f["form"]
	url, hasURL := f["url"]
	req, hasReq := f["required"]
	var reqp *pair
	if hasReq {
		reqp = &req
	}
	switch {
	case hasForm && hasURL:
		if before(form.key, url.key) {
			p.errorf(p.pos(url.key), codes.ConflictingKeys, "an ask has a form or a url, not both")
			a.Form = p.form(form, reqp)
		} else {
			p.errorf(p.pos(form.key), codes.ConflictingKeys, "an ask has a form or a url, not both")
			a.URL = p.templateOf(url)
		}
	case hasForm:
		a.Form = p.form(form, reqp)
	case hasURL:
		a.URL = p.templateOf(url)
	default:
		p.errorf(n.Pos, codes.MissingKey, "an ask node needs a form or a url")
	}
	if hasReq && hasURL && a.Form == nil {
		p.errorf(p.pos(req.key), codes.ConflictingKeys, "required lists form properties; a url ask has no form")
	}
	if e, ok := f["validate"]; ok {
		a.Validate = p.validate(e)
	}
	if e, ok := f["retries"]; ok {
		if v, ok := p.integer(e); ok {
			if v < 0 {
				p.errorf(p.pos(e.val), codes.BadValue, "retries must be 0 or more, not %d", v)
			} else {
				a.Retries = v
			}
		}
	}
	if e, ok := f["unavailable"]; ok {
		a.Unavailable = p.ref(e)
	}
	p.approval(a, f, hasURL)
	return a
}

// approval reads the keys of an ask that someone other than the caller
// answers (DESIGN §12): to, notify, timeout and on_timeout. The last
// three need to, and timeout and on_timeout need each other.
func (p *parser) approval(a *Ask, f map[string]pair, hasURL bool) {
	to, hasTo := f["to"]
	if hasTo {
		a.To = p.templateOf(to)
		if a.To != nil && strings.TrimSpace(a.To.Src) == "" {
			p.errorf(a.To.Pos, codes.BadValue, "to must name who is asked, not be empty")
		}
		if hasURL {
			p.errorf(p.pos(to.key), codes.ConflictingKeys, "an approval (an ask with to) is a form answered on flowserve's own page, not a url: give it a form, or remove to")
		}
	}
	if e, ok := f["notify"]; ok {
		a.Notify = p.notify(e)
	}
	timeout, hasTimeout := f["timeout"]
	if hasTimeout {
		a.TimeoutPos = p.pos(timeout.key)
		if d, ok := p.duration(timeout, `"24h"`, `"24h", "90m" or "2d"`); ok {
			if d <= 0 {
				p.errorf(p.pos(timeout.val), codes.BadValue, "timeout must be more than 0")
			} else {
				a.Timeout = d
			}
		}
	}
	onTimeout, hasOnTimeout := f["on_timeout"]
	if hasOnTimeout {
		a.OnTimeout = p.ref(onTimeout)
	}
	if !hasTo {
		why := map[string]string{
			"notify":     "it tells that person a question waits for them",
			"timeout":    "only an approval waits for its answer with a timeout",
			"on_timeout": "only an approval times out",
		}
		for _, key := range []string{"notify", "timeout", "on_timeout"} {
			if e, ok := f[key]; ok {
				p.errorf(p.pos(e.key), codes.MissingKey, "%s needs the to key (who is asked): %s", key, why[key])
			}
		}
		return
	}
	switch {
	case hasTimeout && !hasOnTimeout:
		p.errorf(p.pos(timeout.key), codes.MissingKey, "an ask with a timeout needs on_timeout: the node the flow goes to when nobody answers in time")
	case hasOnTimeout && !hasTimeout:
		p.errorf(p.pos(onTimeout.key), codes.MissingKey, "on_timeout needs a timeout: how long the approval waits before the flow goes there")
	}
}

// notify reads the notify mapping of an approval: {webhook}.
func (p *parser) notify(e pair) *Notify {
	if e.val.Kind != yaml.MappingNode {
		p.errorf(p.pos(e.val), codes.BadType, "notify must be a mapping {webhook}, not %s", yamlx.TypeName(e.val))
		return nil
	}
	n := &Notify{Pos: p.pos(e.val)}
	hasWebhook := false
	for _, ce := range p.pairs(e.val) {
		switch ce.name {
		case "webhook":
			hasWebhook = true
			n.Webhook = p.templateOf(ce)
			if n.Webhook != nil && strings.TrimSpace(n.Webhook.Src) == "" {
				p.errorf(n.Webhook.Pos, codes.BadValue, "webhook must be the URL to notify, not empty")
			}
		default:
			p.unknownKey(ce, " in notify", []string{"webhook"})
		}
	}
	if !hasWebhook {
		p.errorf(n.Pos, codes.MissingKey, "notify needs a webhook: the URL flowserve posts the question's link to")
	}
	return n
}

// form reads the form of an ask and its required list.
func (p *parser) form(e pair, req *pair) *Form {
	fm := &Form{Pos: p.pos(e.val)}
	props := map[string]any{}
	switch {
	case yamlx.IsNull(e.val):
	case e.val.Kind != yaml.MappingNode:
		p.errorf(p.pos(e.val), codes.BadType, "form must be a mapping of property names to schemas, not %s", yamlx.TypeName(e.val))
	default:
		for _, pe := range p.pairs(e.val) {
			if pe.val.Kind != yaml.MappingNode {
				p.errorf(p.pos(pe.val), codes.BadType, "form property %q must be a mapping (its schema), not %s", pe.name, yamlx.TypeName(pe.val))
				continue
			}
			schema, _ := p.json(pe.val).(map[string]any)
			if schema == nil {
				schema = map[string]any{}
			}
			fm.Properties = append(fm.Properties, &Property{Name: pe.name, Pos: p.pos(pe.key), Schema: schema})
			props[pe.name] = schema
		}
	}
	if req != nil {
		fm.Required = p.required(*req, fm)
	}
	fm.Schema = map[string]any{"type": "object", "properties": props}
	if len(fm.Required) > 0 {
		names := make([]any, len(fm.Required))
		for i, r := range fm.Required {
			names[i] = r.Value
		}
		fm.Schema["required"] = names
	}
	return fm
}

// required reads the required list of a form.
func (p *parser) required(e pair, fm *Form) []String {
	if yamlx.IsNull(e.val) {
		return nil
	}
	if e.val.Kind != yaml.SequenceNode {
		p.errorf(p.pos(e.val), codes.BadType, "required must be a list of property names, not %s", yamlx.TypeName(e.val))
		return nil
	}
	var names []string
	for _, prop := range fm.Properties {
		names = append(names, prop.Name)
	}
	var out []String
	for _, c := range e.val.Content {
		c = p.resolve(c)
		if !yamlx.IsString(c) {
			p.errorf(p.pos(c), codes.BadType, "required lists property names (strings), not %s", yamlx.TypeName(c))
			continue
		}
		if slices.ContainsFunc(out, func(s String) bool { return s.Value == c.Value }) {
			p.errorf(p.pos(c), codes.DuplicateKey, "required lists %q twice", c.Value)
			continue
		}
		if !slices.Contains(names, c.Value) {
			p.unknownf(p.pos(c), c.Value, names, codes.UnknownProperty, "required names %q, which is not a property of the form%s", c.Value)
		}
		out = append(out, String{Value: c.Value, Pos: p.pos(c)})
	}
	return out
}

// validate reads the validate list of an ask.
func (p *parser) validate(e pair) []*Rule {
	if yamlx.IsNull(e.val) {
		return nil
	}
	if e.val.Kind != yaml.SequenceNode {
		p.errorf(p.pos(e.val), codes.BadType, "validate must be a list of {rule, message}, not %s", yamlx.TypeName(e.val))
		return nil
	}
	var rules []*Rule
	for _, c := range e.val.Content {
		c = p.resolve(c)
		if c.Kind != yaml.MappingNode {
			p.errorf(p.pos(c), codes.BadType, "a validate entry must be a mapping {rule, message}, not %s", yamlx.TypeName(c))
			continue
		}
		r := &Rule{Pos: p.pos(c)}
		hasRule, hasMessage := false, false
		for _, ce := range p.pairs(c) {
			switch ce.name {
			case "rule":
				hasRule = true
				r.Rule = p.condition(ce)
			case "message":
				hasMessage = true
				r.Message = p.templateOf(ce)
			default:
				p.unknownKey(ce, " in a validate entry", []string{"rule", "message"})
			}
		}
		if !hasRule {
			p.errorf(r.Pos, codes.MissingKey, "a validate entry needs a rule")
		}
		if !hasMessage {
			p.errorf(r.Pos, codes.MissingKey, "a validate entry needs a message")
		}
		rules = append(rules, r)
	}
	return rules
}

// call reads the keys of a call or link node.
func (p *parser) call(k Kind, f map[string]pair) *Call {
	c := &Call{}
	if s, ok := p.str(f[k.String()]); ok {
		if strings.TrimSpace(s.Value) == "" {
			p.errorf(s.Pos, codes.BadValue, "%s needs the name of a flow", k)
		}
		c.Flow = s
	}
	c.With = p.with(f)
	c.OnError = p.optRef(f, "on_error")
	return c
}

// with reads the with mapping of a step, call or link node; nil when
// absent or empty.
func (p *parser) with(f map[string]pair) *Value {
	e, ok := f["with"]
	if !ok {
		return nil
	}
	switch {
	case yamlx.IsNull(e.val):
	case e.val.Kind == yaml.MappingNode:
		return p.value(e.val)
	default:
		p.errorf(p.pos(e.val), codes.BadType, "with must be a mapping, not %s", yamlx.TypeName(e.val))
	}
	return nil
}

// step reads the keys of a step node.
func (p *parser) step(f map[string]pair) *Step {
	s := &Step{Timeout: DefaultStepTimeout}
	if a, ok := p.str(f["step"]); ok {
		if strings.TrimSpace(a.Value) == "" {
			p.errorf(a.Pos, codes.BadValue, "step needs an action name")
		}
		s.Action = a
	}
	s.With = p.with(f)
	if e, ok := f["timeout"]; ok {
		if d, ok := p.duration(e, `"30s"`, `"30s" or "1m30s"`); ok {
			if d <= 0 {
				p.errorf(p.pos(e.val), codes.BadValue, "timeout must be more than 0")
			} else {
				s.Timeout = d
			}
		}
	}
	if e, ok := f["retry"]; ok {
		s.Retry = p.retry(e)
	}
	if e, ok := f["on_error"]; ok {
		s.OnError = p.ref(e)
	}
	if e, ok := f["long"]; ok && !yamlx.IsNull(e.val) {
		if v, ok := p.reader().Bool(e.val, e.name); ok {
			s.Long, s.LongPos = v, p.pos(e.key)
		}
	}
	return s
}

// duration reads a duration string (see ParseDuration). example and
// examples are written in the messages: a quoted duration, and a few.
func (p *parser) duration(e pair, example, examples string) (time.Duration, bool) {
	if !yamlx.IsString(e.val) {
		if t := e.val.ShortTag(); e.val.Kind == yaml.ScalarNode && (t == tagInt || t == tagFloat) {
			p.errorf(p.pos(e.val), codes.BadType, `%s must be a duration string such as %s, not the bare number %s`, e.name, example, e.val.Value)
		} else {
			p.errorf(p.pos(e.val), codes.BadType, `%s must be a duration such as %s, not %s`, e.name, example, yamlx.TypeName(e.val))
		}
		return 0, false
	}
	d, err := ParseDuration(e.val.Value)
	if err != nil {
		p.errorf(p.pos(e.val), codes.BadValue, `%s %q is not a duration such as %s`, e.name, e.val.Value, examples)
		return 0, false
	}
	return d, true
}

// retry reads the retry mapping of a step.
func (p *parser) retry(e pair) *Retry {
	if e.val.Kind != yaml.MappingNode {
		p.errorf(p.pos(e.val), codes.BadType, "retry must be a mapping {attempts, backoff}, not %s", yamlx.TypeName(e.val))
		return nil
	}
	r := &Retry{Pos: p.pos(e.val)}
	hasAttempts := false
	for _, ce := range p.pairs(e.val) {
		switch ce.name {
		case "attempts":
			hasAttempts = true
			if v, ok := p.integer(ce); ok {
				if v < 1 {
					p.errorf(p.pos(ce.val), codes.BadValue, "attempts must be at least 1, not %d", v)
				} else {
					r.Attempts = v
				}
			}
		case "backoff":
			if d, ok := p.duration(ce, `"500ms"`, `"500ms" or "2s"`); ok {
				if d < 0 {
					p.errorf(p.pos(ce.val), codes.BadValue, "backoff must not be negative")
				} else {
					r.Backoff = d
				}
			}
		default:
			p.unknownKey(ce, " in retry", []string{"attempts", "backoff"})
		}
	}
	if !hasAttempts {
		p.errorf(r.Pos, codes.MissingKey, "retry needs attempts")
	}
	return r
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
		c = p.resolve(c)
		if c.Kind != yaml.MappingNode {
			p.errorf(p.pos(c), codes.BadType, "a branch case must be a mapping, not %s", yamlx.TypeName(c))
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
	if e.val.Kind != yaml.MappingNode {
		p.errorf(p.pos(e.val), codes.BadType, "set must be a mapping of names to values, not %s", yamlx.TypeName(e.val))
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

// contentTypes returns the types of MCP content blocks.
func contentTypes() []string {
	return []string{"text", "image", "audio", "resource_link", "resource"}
}

// ret reads a return node: a text template or {text, structured, content}.
func (p *parser) ret(e pair) *Return {
	r := &Return{Pos: p.pos(e.val)}
	switch {
	case yamlx.IsString(e.val):
		r.Text = p.template(e.val)
	case e.val.Kind == yaml.MappingNode:
		entries := p.pairs(e.val)
		for _, ce := range entries {
			switch ce.name {
			case "text":
				r.Text = p.templateOf(ce)
			case "structured":
				if ce.val.Kind == yaml.MappingNode || yamlx.IsString(ce.val) {
					r.Structured = p.value(ce.val)
				} else {
					p.errorf(p.pos(ce.val), codes.BadType, "structured must be a mapping or a template, not %s", yamlx.TypeName(ce.val))
				}
			case "content":
				r.Content = p.content(ce)
			case "description":
				r.Description = p.templateOf(ce)
			case "messages":
				r.Messages = p.messages(ce)
			default:
				p.unknownKey(ce, " in return", p.returnKeys())
			}
		}
		if len(entries) == 0 {
			p.errorf(r.Pos, codes.MissingKey, "return needs %s", p.returnNeeds())
		}
	default:
		p.errorf(p.pos(e.val), codes.BadType, "return must be a text or a mapping {%s}, not %s", strings.Join(p.returnKeys(), ", "), yamlx.TypeName(e.val))
	}
	return r
}

// content reads the content blocks of a return.
func (p *parser) content(e pair) []*Value {
	if e.val.Kind != yaml.SequenceNode {
		p.errorf(p.pos(e.val), codes.BadType, "content must be a list of content blocks, not %s", yamlx.TypeName(e.val))
		return nil
	}
	var out []*Value
	for _, c := range e.val.Content {
		c = p.resolve(c)
		if c.Kind != yaml.MappingNode {
			p.errorf(p.pos(c), codes.BadType, "a content block must be a mapping, not %s", yamlx.TypeName(c))
			continue
		}
		hasType := false
		for _, ce := range p.pairs(c) {
			if ce.name != "type" {
				continue
			}
			hasType = true
			t, ok := p.str(ce)
			if ok && !slices.Contains(contentTypes(), t.Value) {
				p.unknownf(t.Pos, t.Value, contentTypes(), codes.BadValue, "content block type %q must be one of %s%s",
					t.Value, strings.Join(contentTypes(), ", "))
			}
		}
		if !hasType {
			p.errorf(p.pos(c), codes.MissingKey, "a content block needs a type")
		}
		out = append(out, p.value(c))
	}
	return out
}

// optRef reads the reference under key, if present.
func (p *parser) optRef(f map[string]pair, key string) *Ref {
	if e, ok := f[key]; ok {
		return p.ref(e)
	}
	return nil
}

// roles returns the roles of sample and prompt messages.
func roles() []string { return []string{"user", "assistant"} }

// sample reads the request of a sample node.
func (p *parser) sample(e pair) *Sample {
	s := &Sample{Pos: p.pos(e.val), MaxTokens: DefaultMaxTokens}
	if e.val.Kind != yaml.MappingNode {
		p.errorf(p.pos(e.val), codes.BadType, "sample must be a mapping {messages, system, max_tokens, temperature, stop, model}, not %s", yamlx.TypeName(e.val))
		return s
	}
	known := []string{"messages", "system", "max_tokens", "temperature", "stop", "model"}
	hasMessages := false
	for _, ce := range p.pairs(e.val) {
		switch ce.name {
		case "messages":
			hasMessages = true
			s.Messages = p.messages(ce)
		case "system":
			s.System = p.templateOf(ce)
		case "max_tokens":
			if v, ok := p.integer(ce); ok {
				if v < 1 {
					p.errorf(p.pos(ce.val), codes.BadValue, "max_tokens must be at least 1, not %d", v)
				} else {
					s.MaxTokens = v
				}
			}
		case "temperature":
			if ce.val.Kind != yaml.ScalarNode || (ce.val.ShortTag() != tagInt && ce.val.ShortTag() != tagFloat) {
				p.errorf(p.pos(ce.val), codes.BadType, "temperature must be a number, not %s", yamlx.TypeName(ce.val))
				continue
			}
			var v float64
			if err := ce.val.Decode(&v); err != nil || v < 0 {
				p.errorf(p.pos(ce.val), codes.BadValue, "temperature must be a number of 0 or more, not %s", ce.val.Value)
				continue
			}
			s.Temperature = &v
		case "stop":
			if ce.val.Kind != yaml.SequenceNode {
				p.errorf(p.pos(ce.val), codes.BadType, "stop must be a list of strings, not %s", yamlx.TypeName(ce.val))
				continue
			}
			for _, c := range ce.val.Content {
				c = p.resolve(c)
				if !yamlx.IsString(c) {
					p.errorf(p.pos(c), codes.BadType, "stop lists strings, not %s", yamlx.TypeName(c))
					continue
				}
				s.Stop = append(s.Stop, String{Value: c.Value, Pos: p.pos(c)})
			}
		case "model":
			s.Model = p.modelPreferences(ce)
		default:
			p.unknownKey(ce, " in sample", known)
		}
	}
	if !hasMessages {
		p.errorf(s.Pos, codes.MissingKey, "sample needs messages")
	}
	return s
}

// modelPreferences reads the model preferences of a sample:
// {hints: [names], cost, speed, intelligence}, priorities from 0 to 1.
func (p *parser) modelPreferences(e pair) *Schema {
	if e.val.Kind != yaml.MappingNode {
		p.errorf(p.pos(e.val), codes.BadType, "model must be a mapping {hints, cost, speed, intelligence}, not %s", yamlx.TypeName(e.val))
		return nil
	}
	out := map[string]any{}
	for _, ce := range p.pairs(e.val) {
		switch ce.name {
		case "hints":
			if ce.val.Kind != yaml.SequenceNode {
				p.errorf(p.pos(ce.val), codes.BadType, "hints must be a list of model names, not %s", yamlx.TypeName(ce.val))
				continue
			}
			var hints []any
			for _, c := range ce.val.Content {
				c = p.resolve(c)
				if !yamlx.IsString(c) {
					p.errorf(p.pos(c), codes.BadType, "hints lists model names (strings), not %s", yamlx.TypeName(c))
					continue
				}
				hints = append(hints, map[string]any{"name": c.Value})
			}
			out["hints"] = hints
		case "cost", "speed", "intelligence":
			var v float64
			if ce.val.Kind != yaml.ScalarNode || (ce.val.ShortTag() != tagInt && ce.val.ShortTag() != tagFloat) || ce.val.Decode(&v) != nil {
				p.errorf(p.pos(ce.val), codes.BadType, "%s must be a number from 0 to 1, not %s", ce.name, yamlx.TypeName(ce.val))
				continue
			}
			if v < 0 || v > 1 {
				p.errorf(p.pos(ce.val), codes.BadValue, "%s must be from 0 to 1, not %s", ce.name, ce.val.Value)
				continue
			}
			out[ce.name+"Priority"] = v
		default:
			p.unknownKey(ce, " in model", []string{"hints", "cost", "speed", "intelligence"})
		}
	}
	return &Schema{Pos: p.pos(e.val), Value: out}
}

// messages reads the messages of a sample: each {role, text} or
// {role, content}.
func (p *parser) messages(e pair) []*Message {
	if e.val.Kind != yaml.SequenceNode || len(e.val.Content) == 0 {
		p.errorf(p.pos(e.val), codes.BadType, "messages must be a non-empty list of {role, text} or {role, content}, not %s", yamlx.TypeName(e.val))
		return nil
	}
	var out []*Message
	for _, c := range e.val.Content {
		c = p.resolve(c)
		if c.Kind != yaml.MappingNode {
			p.errorf(p.pos(c), codes.BadType, "a message must be a mapping {role, text} or {role, content}, not %s", yamlx.TypeName(c))
			continue
		}
		m := &Message{Pos: p.pos(c)}
		hasRole := false
		for _, ce := range p.pairs(c) {
			switch ce.name {
			case "role":
				hasRole = true
				if r, ok := p.str(ce); ok {
					if !slices.Contains(roles(), r.Value) {
						p.unknownf(r.Pos, r.Value, roles(), codes.BadValue, "role must be user or assistant, not %q%s", r.Value)
					}
					m.Role = r
				}
			case "text":
				if m.Content != nil {
					p.errorf(p.pos(ce.key), codes.ConflictingKeys, "a message has text or content, not both")
					continue
				}
				m.Text = p.templateOf(ce)
			case "content":
				if m.Text != nil {
					p.errorf(p.pos(ce.key), codes.ConflictingKeys, "a message has text or content, not both")
					continue
				}
				blocks := p.content(pair{name: ce.name, key: ce.key, val: &yaml.Node{Kind: yaml.SequenceNode, Content: []*yaml.Node{ce.val}, Line: ce.val.Line, Column: ce.val.Column}})
				if len(blocks) == 1 {
					m.Content = blocks[0]
				}
			default:
				p.unknownKey(ce, " in a message", []string{"role", "text", "content"})
			}
		}
		if !hasRole {
			p.errorf(m.Pos, codes.MissingKey, "a message needs a role (user or assistant)")
		}
		if m.Text == nil && m.Content == nil {
			p.errorf(m.Pos, codes.MissingKey, "a message needs text or content")
		}
		out = append(out, m)
	}
	return out
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
