package dsl

import (
	"testing"
)

// FuzzParse checks that Parse never panics and that every diagnostic has a
// position. It is seeded with every flow of testdata/parse.
func FuzzParse(f *testing.F) {
	for _, file := range goldenFiles(f) {
		_, src, _ := readGolden(f, file)
		f.Add(src)
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		file, ds := Parse("flow.yaml", src)
		for _, d := range ds {
			if d.Pos.Line < 1 || d.Pos.Col < 1 || d.Pos.File != "flow.yaml" {
				t.Errorf("diagnostic without position: %v", d)
			}
			if d.Code == "" || d.Message == "" {
				t.Errorf("diagnostic without code or message: %#v", d)
			}
		}
		if file == nil && !ds.HasErrors() {
			t.Errorf("nil file without errors")
		}
		for _, e := range exprsOf(file) {
			for i := range len([]rune(e.Src)) + 1 {
				if p := e.PosAt(i); p.Line < 1 || p.Col < 1 {
					t.Errorf("expression %q: PosAt(%d) = %v", e.Src, i, p)
				}
			}
		}
	})
}

// TestParseYAMLCrashers feeds Parse inputs that made earlier yaml.v3
// releases panic.
func TestParseYAMLCrashers(t *testing.T) {
	for _, src := range []string{
		"0: [:!00 \xef", "! !00 \xf6", "! !!0 \xf7", "#\n-\n{", "a:\n.\n-\n", "{{},<<}",
		"\"\\0\\\r\n", " \ufeff\n", "? \ufeff:\n", "0: \ufeff\n", "?: ?\n",
		"  0: [\n] 0", "? ? \"\n\" 0", "    - {\n000}0", "0:\n  0: [0\n] 0",
		"---\n- - - - - - - - {\n0}0\n---", "---\n ? \"\n\"0\n---",
		"a: &a [*a]", "<<: *x", "? - a\n: b", "*a", "&a *a", "a: !!binary aGk=",
		"a:\n  # comment\n  - b\n  # tail\n", "- a\n# tail\n", "a: b\n#c\n---\n#d\n",
		"nodes:\n  - fail: \"\\U0011FFFF\"\n", "nodes:\n  - fail: \"\\ud800\"\n",
	} {
		_, ds := Parse("flow.yaml", []byte(src))
		for _, d := range ds {
			if d.Pos.Line < 1 {
				t.Errorf("%q: %v", src, d)
			}
		}
	}
}
