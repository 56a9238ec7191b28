package dsl

import "testing"

func TestPosIndex(t *testing.T) {
	src := "a: &x\n  b: 1\n  c: [p, {d: 2}]\ne:\n  <<: *x\n  f: 3\n"
	ix := newPosIndex("f.yaml", []byte(src))
	at := func(line, col int) Pos { return Pos{File: "f.yaml", Line: line, Col: col} }
	root := ix.root
	tests := []struct {
		path     []any
		key, val Pos
	}{
		{[]any{"a", "b"}, at(2, 3), at(2, 6)},
		{[]any{"a", "c", 1, "d"}, at(3, 11), at(3, 14)},
		{[]any{"e", "f"}, at(6, 3), at(6, 6)},
		{[]any{"e", "b"}, at(2, 3), at(2, 6)},  // through the merge key
		{[]any{"a", "zz"}, at(1, 1), at(1, 4)}, // stops at the deepest node found (a's mapping, at its anchor)
		{[]any{"a", "c", 5}, at(3, 3), at(3, 6)},
	}
	for _, tc := range tests {
		key, val := ix.Find(root, at(9, 9), tc.path...)
		if key != tc.key || val != tc.val {
			t.Errorf("find %v = %v, %v; want %v, %v", tc.path, key, val, tc.key, tc.val)
		}
	}
	if k, v := ix.Find(nil, at(9, 9), "a"); k != at(9, 9) || v != at(9, 9) {
		t.Errorf("find on nil = %v, %v", k, v)
	}
	if got := ix.KeyPos(at(5, 3), "f"); got != at(6, 3) {
		t.Errorf("keyPos = %v", got)
	}
	if bad := newPosIndex("f.yaml", []byte("a: [")); bad.root != nil || bad.Mapping(at(1, 1)) != nil {
		t.Error("an index of a broken file is not empty")
	}
}
