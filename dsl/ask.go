package dsl

import (
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/flowserve/flowserve/check/codes"
	"github.com/flowserve/flowserve/internal/yamlx"
)

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
		if v, ok := p.count(e, 0); ok {
			a.Retries = v
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
		if d, ok := p.timeout(timeout, `"24h"`, `"24h", "90m" or "2d"`); ok {
			a.Timeout = d
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
	if _, ok := p.mapping(e.val, "notify must be a mapping {webhook}"); !ok {
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
	list, _ := p.stringList(e, "property names", "property names (strings)")
	var names []string
	for _, prop := range fm.Properties {
		names = append(names, prop.Name)
	}
	var out []String
	for _, s := range list {
		if slices.ContainsFunc(out, func(o String) bool { return o.Value == s.Value }) {
			p.errorf(s.Pos, codes.DuplicateKey, "required lists %q twice", s.Value)
			continue
		}
		if !slices.Contains(names, s.Value) {
			p.unknownf(s.Pos, s.Value, names, codes.UnknownProperty, "required names %q, which is not a property of the form%s", s.Value)
		}
		out = append(out, s)
	}
	return out
}

// validate reads the validate list of an ask.
func (p *parser) validate(e pair) []*Rule {
	if yamlx.IsNull(e.val) {
		return nil
	}
	entries, _ := p.mappings(e.val, "validate must be a list of {rule, message}", "a validate entry must be a mapping {rule, message}")
	var rules []*Rule
	for _, c := range entries {
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
