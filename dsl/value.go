package dsl

import (
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
// map[string]any, []any, string, bool, int64, float64 or nil (see
// yamlx.Reader.Value). Strings are plain strings, not templates.
func (p *parser) json(n *yaml.Node) any {
	v, _ := p.reader().Value(n)
	return v
}

// literal converts a non-string scalar: null, a boolean, an integer
// (int64) or a number (float64). Problems are reported and give nil.
func (p *parser) literal(n *yaml.Node) any {
	return p.reader().Scalar(n)
}

// checkTag reports a collection with a tag other than its standard one.
func (p *parser) checkTag(n *yaml.Node, want string) {
	p.reader().CheckTag(n, want)
}
