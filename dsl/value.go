package dsl

import (
	"math"

	"go.yaml.in/yaml/v3"

	"github.com/flowserve/flowserve/internal/yamlx"
)

// value converts a resolved YAML node into a Value tree whose strings are
// templates.
func (p *parser) value(n *yaml.Node) *Value {
	v := &Value{Pos: p.pos(n)}
	switch n.Kind {
	case yaml.MappingNode:
		p.checkTag(n, tagMap)
		v.Kind = ValueMap
		for _, e := range p.pairs(n) {
			v.Keys = append(v.Keys, e.name)
			v.Map = append(v.Map, p.value(e.val))
		}
	case yaml.SequenceNode:
		p.checkTag(n, tagSeq)
		v.Kind = ValueList
		for _, c := range n.Content {
			v.List = append(v.List, p.value(p.resolve(c)))
		}
	default:
		if yamlx.IsString(n) {
			v.Kind = ValueTemplate
			v.Template = p.template(n)
			return v
		}
		v.Kind = ValueLiteral
		v.Literal = p.literal(n)
	}
	return v
}

// json converts a resolved YAML node into a JSON-compatible Go value:
// map[string]any, []any, string, bool, int64, float64 or nil. Strings are
// plain strings, not templates.
func (p *parser) json(n *yaml.Node) any {
	switch n.Kind {
	case yaml.MappingNode:
		p.checkTag(n, tagMap)
		m := map[string]any{}
		for _, e := range p.pairs(n) {
			m[e.name] = p.json(e.val)
		}
		return m
	case yaml.SequenceNode:
		p.checkTag(n, tagSeq)
		l := make([]any, 0, len(n.Content))
		for _, c := range n.Content {
			l = append(l, p.json(p.resolve(c)))
		}
		return l
	}
	if yamlx.IsString(n) {
		return n.Value
	}
	return p.literal(n)
}

// literal converts a non-string scalar: null, a boolean, an integer
// (int64) or a number (float64). Problems are reported and give nil.
func (p *parser) literal(n *yaml.Node) any {
	switch tag := n.ShortTag(); tag {
	case tagNull:
		return nil
	case tagBool:
		var b bool
		if err := n.Decode(&b); err != nil {
			p.errorf(p.pos(n), "bad-value", "%q is not a boolean", n.Value)
			return nil
		}
		return b
	case tagInt:
		var i int64
		if err := n.Decode(&i); err != nil {
			p.errorf(p.pos(n), "bad-value", "integer %s is out of range or malformed", n.Value)
			return nil
		}
		return i
	case tagFloat:
		var f float64
		if err := n.Decode(&f); err != nil {
			p.errorf(p.pos(n), "bad-value", "%q is not a number", n.Value)
			return nil
		}
		if math.IsInf(f, 0) || math.IsNaN(f) {
			p.errorf(p.pos(n), "bad-value", "%s is not a JSON number", n.Value)
			return nil
		}
		return f
	default:
		p.errorf(p.pos(n), "bad-yaml", "unsupported YAML tag %s", tag)
		return nil
	}
}

// checkTag reports a collection with a tag other than its standard one.
func (p *parser) checkTag(n *yaml.Node, want string) {
	if tag := n.ShortTag(); tag != want {
		p.errorf(p.pos(n), "bad-yaml", "unsupported YAML tag %s", tag)
	}
}
