package yamlx

import (
	"fmt"
	"testing"

	"go.yaml.in/yaml/v3"
)

// scalar returns the first scalar of src whose value is value.
func scalar(t *testing.T, src, value string) *yaml.Node {
	t.Helper()
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
		t.Fatal(err)
	}
	var found *yaml.Node
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		if found == nil && n.Kind == yaml.ScalarNode && n.Value == value {
			found = n
		}
		for _, c := range n.Content {
			walk(c)
		}
	}
	walk(&doc)
	if found == nil {
		t.Fatalf("no scalar %q in %q", value, src)
	}
	return found
}

// TestPosAt checks positions inside scalars, in runes: each case names
// the rune of the value (by its index) and where it is in the file.
func TestPosAt(t *testing.T) {
	tests := []struct {
		src, value string
		index      int
		want       Pos
	}{
		{"k: héllo {x\n", "héllo {x", 6, Pos{1, 10}},
		{"日本: 'ça {x'\n", "ça {x", 3, Pos{1, 9}},
		{"k: \"\\u00e9\\t{x\"\n", "é\t{x", 2, Pos{1, 13}}, // after two escapes
		{"k: |\n  ünï\n  cödé {x\n", "ünï\ncödé {x\n", 9, Pos{3, 8}},
		{"k: >\n  ä\n  ö {x\n", "ä ö {x\n", 4, Pos{3, 5}},
		{"k: plain ü\n  continued {x\n", "plain ü continued {x", 18, Pos{2, 13}},
		{"k: 'ü''s {x'\n", "ü's {x", 4, Pos{1, 10}},
		{"k: ab\n", "ab", 2, Pos{1, 6}}, // the end of the value
		{"k: ''\n", "", 0, Pos{1, 5}},
	}
	for _, tt := range tests {
		n := scalar(t, tt.src, tt.value)
		s := NewSource([]byte(tt.src))
		if got := s.PosAt(n, tt.index); got != tt.want {
			t.Errorf("%q: rune %d at %v, want %v", tt.src, tt.index, got, tt.want)
		}
		if ps, exact := s.ScalarPos(n); !exact || len(ps) != len([]rune(tt.value)) {
			t.Errorf("%q: %d positions, exact %v", tt.src, len(ps), exact)
		}
	}
}

// TestScalarPosRunes encodes non-ASCII values in every scalar style
// yaml.v3 writes and checks that each rune's position holds that rune
// (or the backslash of its escape).
func TestScalarPosRunes(t *testing.T) {
	values := []string{"日本語 {{ x }}", "ça va\nbien", "émoji 😀 and ü", "a\n\nü\n"}
	styles := []yaml.Style{0, yaml.SingleQuotedStyle, yaml.DoubleQuotedStyle, yaml.LiteralStyle, yaml.FoldedStyle}
	for _, v := range values {
		for _, style := range styles {
			n := &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{
				{Kind: yaml.ScalarNode, Value: "ключ"},
				{Kind: yaml.ScalarNode, Tag: TagStr, Value: v, Style: style},
			}}
			out, err := yaml.Marshal(n)
			if err != nil {
				t.Fatal(err)
			}
			t.Run(fmt.Sprintf("%q/%d", v, style), func(t *testing.T) {
				s := NewSource(out)
				ps, exact := s.ScalarPos(scalar(t, string(out), v))
				if !exact {
					t.Fatalf("not exact in\n%s", out)
				}
				for i, r := range []rune(v) {
					line, _ := s.Line(ps[i].Line)
					var got rune = -1
					if ps[i].Col <= len(line) {
						got = line[ps[i].Col-1]
					}
					// An escape maps to its backslash, a folded break to a blank.
					if got != r && got != '\\' && r != '\n' && r != ' ' {
						t.Errorf("rune %d %q at %v holds %q in\n%s", i, r, ps[i], got, out)
					}
				}
			})
		}
	}
}

// TestSource checks how a file is split into lines.
func TestSource(t *testing.T) {
	s := NewSource([]byte("\ufeffa\r\nb\rc\u2028d\u0085e"))
	want := []string{"a", "b", "c", "d", "e"}
	if len(s.Lines()) != len(want) {
		t.Fatalf("%d lines, want %d", len(s.Lines()), len(want))
	}
	for i, w := range want {
		if got, _ := s.Line(i + 1); string(got) != w {
			t.Errorf("line %d = %q, want %q", i+1, string(got), w)
		}
	}
	if _, ok := s.Line(6); ok {
		t.Error("line 6 exists")
	}
	if got := s.End(1); got != 6 { // BOM (3) + "a" + CR LF
		t.Errorf("End(1) = %d, want 6", got)
	}
	if got := s.End(5); got != 16 {
		t.Errorf("End(5) = %d, want the file's length 16", got)
	}
}
