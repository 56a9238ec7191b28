package yamlx

import "go.yaml.in/yaml/v3"

// TagMerge is the tag of a merge key (<<).
const TagMerge = "!!merge"

// maxMergeDepth bounds how deep merge keys may bring in mappings that
// themselves merge others.
const maxMergeDepth = 32

// Pair is one entry of a mapping: its key, a string scalar, the key's
// text, and its value, resolved.
type Pair struct {
	Key   *yaml.Node
	Name  string
	Value *yaml.Node
}

// Pairs returns the entries of the mapping m in file order; nil when m is
// not a mapping. Keys must be strings and appear once: other keys are
// reported and left out. Merge keys (<<) are expanded: the mapping's own
// keys take precedence and the merged keys follow them, a mapping merged
// earlier winning over one merged later.
func (r Reader) Pairs(m *yaml.Node) []Pair {
	return r.mergedPairs(m, 0)
}

func (r Reader) mergedPairs(m *yaml.Node, depth int) []Pair {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	var out, merged []Pair
	seen := map[string]*yaml.Node{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k := Resolve(m.Content[i])
		v := Resolve(m.Content[i+1])
		if k.Kind == yaml.ScalarNode && k.ShortTag() == TagMerge {
			merged = append(merged, r.mergeSource(k, v, depth)...)
			continue
		}
		if !IsString(k) {
			r.report(k, CodeBadType, "mapping keys must be strings, not %s", TypeName(k))
			continue
		}
		if prev, dup := seen[k.Value]; dup {
			r.report(k, CodeDuplicateKey, "duplicate key %q (first at line %d)", k.Value, prev.Line)
			continue
		}
		seen[k.Value] = k
		out = append(out, Pair{Key: k, Name: k.Value, Value: v})
	}
	for _, mp := range merged {
		if seen[mp.Name] == nil {
			seen[mp.Name] = mp.Key
			out = append(out, mp)
		}
	}
	return out
}

// mergeSource returns the entries the merge key k with the value v brings
// in.
func (r Reader) mergeSource(k, v *yaml.Node, depth int) []Pair {
	if depth > maxMergeDepth {
		return nil
	}
	switch v.Kind {
	case yaml.MappingNode:
		return r.mergedPairs(v, depth+1)
	case yaml.SequenceNode:
		var out []Pair
		for _, c := range v.Content {
			c = Resolve(c)
			if c.Kind != yaml.MappingNode {
				r.report(c, CodeBadType, "<< merges mappings, not %s", TypeName(c))
				continue
			}
			out = append(out, r.mergedPairs(c, depth+1)...)
		}
		return out
	}
	r.report(k, CodeBadType, "<< merges a mapping or a list of mappings, not %s", TypeName(v))
	return nil
}

// Lookup returns the entry name of the mapping m, read without reporting.
func Lookup(m *yaml.Node, name string) (Pair, bool) {
	for _, p := range (Reader{}).Pairs(m) {
		if p.Name == name {
			return p, true
		}
	}
	return Pair{}, false
}
