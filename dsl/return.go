package dsl

import (
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/flowserve/flowserve/check/codes"
	"github.com/flowserve/flowserve/internal/yamlx"
)

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
	blocks, _ := p.mappings(e.val, "content must be a list of content blocks", "a content block must be a mapping")
	var out []*Value
	for _, c := range blocks {
		out = append(out, p.block(c))
	}
	return out
}

// block reads a content block, a mapping.
func (p *parser) block(c *yaml.Node) *Value {
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
	return p.value(c)
}

// roles returns the roles of sample and prompt messages.
func roles() []string { return []string{"user", "assistant"} }

// messages reads the messages of a sample: each {role, text} or
// {role, content}.
func (p *parser) messages(e pair) []*Message {
	const list = "messages must be a non-empty list of {role, text} or {role, content}"
	if e.val.Kind == yaml.SequenceNode && len(e.val.Content) == 0 {
		p.errorf(p.pos(e.val), codes.BadType, "%s, not %s", list, yamlx.TypeName(e.val))
		return nil
	}
	entries, _ := p.mappings(e.val, list, "a message must be a mapping {role, text} or {role, content}")
	var out []*Message
	for _, c := range entries {
		out = append(out, p.message(c))
	}
	return out
}

// message reads one message, a mapping.
func (p *parser) message(c *yaml.Node) *Message {
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
			if b, ok := p.mapping(ce.val, "a content block must be a mapping"); ok {
				m.Content = p.block(b)
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
	return m
}

// sample reads the request of a sample node.
func (p *parser) sample(e pair) *Sample {
	s := &Sample{Pos: p.pos(e.val), MaxTokens: DefaultMaxTokens}
	if _, ok := p.mapping(e.val, "sample must be a mapping {messages, system, max_tokens, temperature, stop, model}"); !ok {
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
			if v, ok := p.count(ce, 1); ok {
				s.MaxTokens = v
			}
		case "temperature":
			if !yamlx.IsNumber(ce.val) {
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
			stop, _ := p.stringList(ce, "strings", "strings")
			s.Stop = append(s.Stop, stop...)
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
	if _, ok := p.mapping(e.val, "model must be a mapping {hints, cost, speed, intelligence}"); !ok {
		return nil
	}
	out := map[string]any{}
	for _, ce := range p.pairs(e.val) {
		switch ce.name {
		case "hints":
			names, ok := p.stringList(ce, "model names", "model names (strings)")
			if !ok {
				continue
			}
			var hints []any
			for _, n := range names {
				hints = append(hints, map[string]any{"name": n.Value})
			}
			out["hints"] = hints
		case "cost", "speed", "intelligence":
			var v float64
			if !yamlx.IsNumber(ce.val) || ce.val.Decode(&v) != nil {
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
