package dsl

import (
	"fmt"

	"go.yaml.in/yaml/v3"

	"github.com/flowserve/flowserve/internal/yamlx"
)

// maxExpandedNodes bounds the size of the document once its aliases are
// expanded, so that a few lines of nested aliases cannot make Parse do
// exponential work.
const maxExpandedNodes = 100_000

// The YAML tags Parse understands.
const (
	tagStr       = yamlx.TagStr
	tagNull      = yamlx.TagNull
	tagBool      = yamlx.TagBool
	tagInt       = yamlx.TagInt
	tagFloat     = yamlx.TagFloat
	tagTimestamp = yamlx.TagTimestamp
	tagBinary    = yamlx.TagBinary
	tagMerge     = "!!merge"
	tagMap       = "!!map"
	tagSeq       = "!!seq"
)

// pos returns the position of a YAML node.
func (p *parser) pos(n *yaml.Node) Pos {
	return p.at(n.Line, n.Column)
}

// at returns a position in the file, clamped to 1:1 at least.
func (p *parser) at(line, col int) Pos {
	return Pos{File: p.path, Line: max(line, 1), Col: max(col, 1)}
}

// errorf records an error diagnostic.
func (p *parser) errorf(pos Pos, code, format string, args ...any) {
	if pos.Line < 1 {
		pos.Line, pos.Col = 1, 1
	}
	if pos.Col < 1 {
		pos.Col = 1
	}
	pos.File = p.path
	p.diags = append(p.diags, Diagnostic{
		Pos:      pos,
		Severity: Error,
		Code:     code,
		Message:  fmt.Sprintf(format, args...),
	})
}

// checkAliases finds aliases that refer to their own anchor (which would
// make the document infinite) and bounds the size of the document with its
// aliases expanded. Aliases that fail either check resolve to null.
func (p *parser) checkAliases(root *yaml.Node) {
	const (
		visiting = 1
		done     = 2
	)
	state := map[*yaml.Node]uint8{}
	size := map[*yaml.Node]int{}
	var first *yaml.Node
	var walk func(n *yaml.Node) int
	walk = func(n *yaml.Node) int {
		switch state[n] {
		case visiting:
			return -1
		case done:
			return size[n]
		}
		state[n] = visiting
		total := 1
		if n.Kind == yaml.AliasNode {
			if first == nil {
				first = n
			}
			if n.Alias == nil {
				p.badAlias[n] = true
			} else if s := walk(n.Alias); s < 0 {
				p.badAlias[n] = true
				p.errorf(p.pos(n), "bad-alias", "alias *%s is inside its own anchor &%s, which would make the value infinite", n.Value, n.Value)
			} else {
				total = min(total+s, maxExpandedNodes+1)
			}
		}
		for _, c := range n.Content {
			if s := walk(c); s > 0 {
				total = min(total+s, maxExpandedNodes+1)
			}
		}
		state[n] = done
		size[n] = total
		return total
	}
	if walk(root) > maxExpandedNodes && first != nil {
		p.noAliases = true
		p.errorf(p.pos(first), "bad-alias", "aliases expand the file to more than %d values; write the values out instead", maxExpandedNodes)
	}
}

// resolve follows an alias to the node it refers to. An alias that cannot
// be used resolves to null at the alias's position.
func (p *parser) resolve(n *yaml.Node) *yaml.Node {
	for range 8 {
		if n == nil {
			return &yaml.Node{Kind: yaml.ScalarNode, Tag: tagNull, Line: 1, Column: 1}
		}
		if n.Kind != yaml.AliasNode {
			return n
		}
		if n.Alias == nil || p.noAliases || p.badAlias[n] {
			break
		}
		n = n.Alias
	}
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: tagNull, Line: n.Line, Column: n.Column}
}

// pair is one key and value of a mapping. The value is resolved.
type pair struct {
	key  *yaml.Node // a string scalar
	name string
	val  *yaml.Node
}

// pairs returns the entries of the mapping m in file order. Keys must be
// strings and appear once; merge keys (<<) are expanded, with the
// mapping's own keys taking precedence and merged keys following them.
func (p *parser) pairs(m *yaml.Node) []pair {
	return p.mergedPairs(m, 0)
}

func (p *parser) mergedPairs(m *yaml.Node, depth int) []pair {
	var out, merged []pair
	seen := map[string]*yaml.Node{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k := p.resolve(m.Content[i])
		v := p.resolve(m.Content[i+1])
		if k.Kind == yaml.ScalarNode && k.ShortTag() == tagMerge {
			merged = append(merged, p.mergeSource(k, v, depth)...)
			continue
		}
		if !yamlx.IsString(k) {
			p.errorf(p.pos(k), "bad-type", "mapping keys must be strings, not %s", yamlx.TypeName(k))
			continue
		}
		if prev, dup := seen[k.Value]; dup {
			p.errorf(p.pos(k), "duplicate-key", "duplicate key %q (first at line %d)", k.Value, prev.Line)
			continue
		}
		seen[k.Value] = k
		out = append(out, pair{key: k, name: k.Value, val: v})
	}
	for _, mp := range merged {
		if seen[mp.name] == nil {
			seen[mp.name] = mp.key
			out = append(out, mp)
		}
	}
	return out
}

// mergeSource returns the entries a merge key (<<) brings in.
func (p *parser) mergeSource(k, v *yaml.Node, depth int) []pair {
	if depth > 32 {
		return nil
	}
	switch v.Kind {
	case yaml.MappingNode:
		return p.mergedPairs(v, depth+1)
	case yaml.SequenceNode:
		var out []pair
		for _, c := range v.Content {
			c = p.resolve(c)
			if c.Kind != yaml.MappingNode {
				p.errorf(p.pos(c), "bad-type", "<< merges mappings, not %s", yamlx.TypeName(c))
				continue
			}
			out = append(out, p.mergedPairs(c, depth+1)...)
		}
		return out
	}
	p.errorf(p.pos(k), "bad-type", "<< merges a mapping or a list of mappings, not %s", yamlx.TypeName(v))
	return nil
}
