package dsl

import (
	"go.yaml.in/yaml/v3"

	"github.com/flowserve/flowserve/internal/yamlx"
)

// Tree finds the YAML nodes behind the parts of a File that keep no
// position of their own: the keys of a `with` or `structured` mapping, the
// keywords inside a form property's schema. It indexes the mappings of the
// tree Parse read by position, so that the checks (package check) can
// point at the offending key or value itself, and reads them with the same
// reader (yamlx), so that it sees the keys Parse saw: merge keys expanded,
// duplicate and non-string keys left out. When the file could not be read
// the index is empty and every lookup falls back to the position it was
// given.
type Tree struct {
	path string
	root *yaml.Node        // the top-level value; nil when absent
	maps map[lc]*yaml.Node // mapping nodes by their position
	keys map[lc]*yaml.Node // the (resolved) value of each key, by the key's position
}

// lc is a line and column.
type lc struct{ line, col int }

// MapEntry is one key of a mapping with the position of the key and its
// resolved value.
type MapEntry struct {
	Name  string
	Key   Pos
	Value *yaml.Node
}

// Tree indexes the YAML tree Parse read from f (see [Tree]). Each call
// builds a new index: a caller that looks up many positions keeps one.
func (f *File) Tree() *Tree { return indexTree(f.Path, f.tree) }

// Root returns the top-level value of the file, or nil when it has none.
func (ix *Tree) Root() *yaml.Node { return ix.root }

// newPosIndex reads src with the shared reader and indexes it.
func newPosIndex(path string, src []byte) *Tree {
	root, _ := yamlx.Reader{}.Read(src, "")
	return indexTree(path, root)
}

// indexTree indexes root, the top-level value of a file as yamlx.Reader.Read
// returns it (its aliases checked); nil gives an empty index.
func indexTree(path string, root *yaml.Node) *Tree {
	ix := &Tree{
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

// Pos returns the position of a YAML node in the file.
func (ix *Tree) Pos(n *yaml.Node) Pos {
	return Pos{File: ix.path, Line: max(n.Line, 1), Col: max(n.Column, 1)}
}

// Mapping returns the Mapping node at p, or nil.
func (ix *Tree) Mapping(p Pos) *yaml.Node { return ix.maps[lc{p.Line, p.Col}] }

// ValueOfKey returns the value of the mapping key at p, or nil.
func (ix *Tree) ValueOfKey(p Pos) *yaml.Node { return ix.keys[lc{p.Line, p.Col}] }

// Entries returns the keys of the mapping m in file order, as Parse reads
// them: merge keys (<<) expanded after the mapping's own keys, duplicate
// and non-string keys left out. Problems are not reported again.
func (ix *Tree) Entries(m *yaml.Node) []MapEntry {
	var out []MapEntry
	for _, p := range (yamlx.Reader{}).Pairs(m) {
		out = append(out, MapEntry{Name: p.Name, Key: ix.Pos(p.Key), Value: p.Value})
	}
	return out
}

// Entry returns the Entry name of the mapping m.
func (ix *Tree) Entry(m *yaml.Node, name string) (MapEntry, bool) {
	for _, e := range ix.Entries(m) {
		if e.Name == name {
			return e, true
		}
	}
	return MapEntry{}, false
}

// KeyPos returns the position of key name in the mapping at mapPos, or
// mapPos when it cannot be found.
func (ix *Tree) KeyPos(mapPos Pos, name string) Pos {
	if e, ok := ix.Entry(ix.Mapping(mapPos), name); ok {
		return e.Key
	}
	return mapPos
}

// Find walks from n along path (strings are mapping keys, ints list
// indexes) and returns the position of the last key found and of the value
// it reaches. When the path cannot be followed to its end, both are the
// positions of the deepest node reached; fallback is used when n is nil.
func (ix *Tree) Find(n *yaml.Node, fallback Pos, path ...any) (key, val Pos) {
	if n == nil {
		return fallback, fallback
	}
	key, val = ix.Pos(n), ix.Pos(n)
	for _, step := range path {
		switch s := step.(type) {
		case string:
			e, ok := ix.Entry(n, s)
			if !ok {
				return key, val
			}
			n = e.Value
			key, val = e.Key, ix.Pos(n)
		case int:
			if n.Kind != yaml.SequenceNode || s < 0 || s >= len(n.Content) {
				return key, val
			}
			n = yamlx.Resolve(n.Content[s])
			key, val = ix.Pos(n), ix.Pos(n)
		}
	}
	return key, val
}
