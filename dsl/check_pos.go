package dsl

import (
	"bytes"

	"go.yaml.in/yaml/v3"
)

// posIndex finds the YAML nodes behind the parts of a File that keep no
// position of their own: the keys of a `with` or `structured` mapping, the
// keywords inside a form property's schema. It decodes the file again and
// indexes its mappings by position, so Check can point at the offending
// key or value itself. When the file cannot be decoded the index is empty
// and every lookup falls back to the position it was given.
type posIndex struct {
	path string
	root *yaml.Node        // the top-level value; nil when absent
	maps map[lc]*yaml.Node // mapping nodes by their position
	keys map[lc]*yaml.Node // the (resolved) value of each key, by the key's position
}

// lc is a line and column.
type lc struct{ line, col int }

// ixEntry is one key of a mapping with the position of the key and its
// resolved value.
type ixEntry struct {
	name string
	key  Pos
	val  *yaml.Node
}

// newPosIndex indexes the first YAML document of src.
func newPosIndex(path string, src []byte) *posIndex {
	ix := &posIndex{
		path: path,
		maps: map[lc]*yaml.Node{},
		keys: map[lc]*yaml.Node{},
	}
	var doc yaml.Node
	if err := yaml.NewDecoder(bytes.NewReader(src)).Decode(&doc); err != nil || len(doc.Content) == 0 {
		return ix
	}
	ix.root = resolveAlias(doc.Content[0])
	var walk func(n *yaml.Node, depth int)
	walk = func(n *yaml.Node, depth int) {
		if n == nil || depth > 1000 {
			return
		}
		at := lc{n.Line, n.Column}
		switch n.Kind {
		case yaml.MappingNode:
			if _, ok := ix.maps[at]; !ok {
				ix.maps[at] = n
			}
			for i := 0; i+1 < len(n.Content); i += 2 {
				k, v := n.Content[i], n.Content[i+1]
				ix.keys[lc{k.Line, k.Column}] = resolveAlias(v)
				walk(v, depth+1)
			}
		case yaml.SequenceNode:
			for _, c := range n.Content {
				walk(c, depth+1)
			}
		}
	}
	walk(ix.root, 0)
	return ix
}

// resolveAlias follows aliases to the node they name.
func resolveAlias(n *yaml.Node) *yaml.Node {
	for range 8 {
		if n == nil || n.Kind != yaml.AliasNode {
			return n
		}
		n = n.Alias
	}
	return nil
}

// pos returns the position of a YAML node in the file.
func (ix *posIndex) pos(n *yaml.Node) Pos {
	return Pos{File: ix.path, Line: max(n.Line, 1), Col: max(n.Column, 1)}
}

// mapping returns the mapping node at p, or nil.
func (ix *posIndex) mapping(p Pos) *yaml.Node { return ix.maps[lc{p.Line, p.Col}] }

// valueOfKey returns the value of the mapping key at p, or nil.
func (ix *posIndex) valueOfKey(p Pos) *yaml.Node { return ix.keys[lc{p.Line, p.Col}] }

// entries returns the keys of the mapping m in file order, merge keys (<<)
// expanded after the mapping's own keys, as Parse reads them.
func (ix *posIndex) entries(m *yaml.Node) []ixEntry {
	return ix.mergedEntries(m, 0)
}

func (ix *posIndex) mergedEntries(m *yaml.Node, depth int) []ixEntry {
	if m == nil || m.Kind != yaml.MappingNode || depth > 32 {
		return nil
	}
	var out, merged []ixEntry
	seen := map[string]bool{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := resolveAlias(m.Content[i]), resolveAlias(m.Content[i+1])
		if k == nil || v == nil || k.Kind != yaml.ScalarNode {
			continue
		}
		if k.ShortTag() == tagMerge {
			switch v.Kind {
			case yaml.MappingNode:
				merged = append(merged, ix.mergedEntries(v, depth+1)...)
			case yaml.SequenceNode:
				for _, c := range v.Content {
					merged = append(merged, ix.mergedEntries(resolveAlias(c), depth+1)...)
				}
			}
			continue
		}
		if seen[k.Value] {
			continue
		}
		seen[k.Value] = true
		out = append(out, ixEntry{name: k.Value, key: ix.pos(k), val: v})
	}
	for _, e := range merged {
		if !seen[e.name] {
			seen[e.name] = true
			out = append(out, e)
		}
	}
	return out
}

// entry returns the entry name of the mapping m.
func (ix *posIndex) entry(m *yaml.Node, name string) (ixEntry, bool) {
	for _, e := range ix.entries(m) {
		if e.name == name {
			return e, true
		}
	}
	return ixEntry{}, false
}

// keyPos returns the position of key name in the mapping at mapPos, or
// mapPos when it cannot be found.
func (ix *posIndex) keyPos(mapPos Pos, name string) Pos {
	if e, ok := ix.entry(ix.mapping(mapPos), name); ok {
		return e.key
	}
	return mapPos
}

// find walks from n along path (strings are mapping keys, ints list
// indexes) and returns the position of the last key found and of the value
// it reaches. When the path cannot be followed to its end, both are the
// positions of the deepest node reached; fallback is used when n is nil.
func (ix *posIndex) find(n *yaml.Node, fallback Pos, path ...any) (key, val Pos) {
	if n == nil {
		return fallback, fallback
	}
	key, val = ix.pos(n), ix.pos(n)
	for _, step := range path {
		switch s := step.(type) {
		case string:
			e, ok := ix.entry(n, s)
			if !ok {
				return key, val
			}
			n = e.val
			key, val = e.key, ix.pos(n)
		case int:
			if n.Kind != yaml.SequenceNode || s < 0 || s >= len(n.Content) {
				return key, val
			}
			n = resolveAlias(n.Content[s])
			if n == nil {
				return key, val
			}
			key, val = ix.pos(n), ix.pos(n)
		}
	}
	return key, val
}
