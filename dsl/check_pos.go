package dsl

import (
	"go.yaml.in/yaml/v3"

	"github.com/flowserve/flowserve/internal/yamlx"
)

// posIndex finds the YAML nodes behind the parts of a File that keep no
// position of their own: the keys of a `with` or `structured` mapping, the
// keywords inside a form property's schema. It indexes the mappings of the
// tree Parse read by position, so Check can point at the offending key or
// value itself, and reads them with the same reader (yamlx), so that it
// sees the keys Parse saw: merge keys expanded, duplicate and non-string
// keys left out. When the file could not be read the index is empty and
// every lookup falls back to the position it was given.
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

// newPosIndex reads src with the shared reader and indexes it. Check uses
// the tree Parse kept instead (see indexTree) once File keeps one.
func newPosIndex(path string, src []byte) *posIndex {
	root, _ := yamlx.Reader{}.Read(src, "")
	return indexTree(path, root)
}

// indexTree indexes root, the top-level value of a file as yamlx.Reader.Read
// returns it (its aliases checked); nil gives an empty index.
func indexTree(path string, root *yaml.Node) *posIndex {
	ix := &posIndex{
		path: path,
		root: root,
		maps: map[lc]*yaml.Node{},
		keys: map[lc]*yaml.Node{},
	}
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
				ix.keys[lc{k.Line, k.Column}] = yamlx.Resolve(v)
				walk(v, depth+1)
			}
		case yaml.SequenceNode:
			for _, c := range n.Content {
				walk(c, depth+1)
			}
		}
	}
	walk(root, 0)
	return ix
}

// pos returns the position of a YAML node in the file.
func (ix *posIndex) pos(n *yaml.Node) Pos {
	return Pos{File: ix.path, Line: max(n.Line, 1), Col: max(n.Column, 1)}
}

// mapping returns the mapping node at p, or nil.
func (ix *posIndex) mapping(p Pos) *yaml.Node { return ix.maps[lc{p.Line, p.Col}] }

// valueOfKey returns the value of the mapping key at p, or nil.
func (ix *posIndex) valueOfKey(p Pos) *yaml.Node { return ix.keys[lc{p.Line, p.Col}] }

// entries returns the keys of the mapping m in file order, as Parse reads
// them: merge keys (<<) expanded after the mapping's own keys, duplicate
// and non-string keys left out. Problems are not reported again.
func (ix *posIndex) entries(m *yaml.Node) []ixEntry {
	var out []ixEntry
	for _, p := range (yamlx.Reader{}).Pairs(m) {
		out = append(out, ixEntry{name: p.Name, key: ix.pos(p.Key), val: p.Value})
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
			n = yamlx.Resolve(n.Content[s])
			key, val = ix.pos(n), ix.pos(n)
		}
	}
	return key, val
}
