package dsl

import (
	"fmt"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/flowserve/flowserve/internal/yamlx"
)

// checkScalars decodes src with yaml.v3 and checks that the position of
// every rune of every scalar is worked out exactly (no approximation) and
// points at that rune in the source, or at the backslash or quote of an
// escape, or (for folded line breaks) just after a line's content.
func checkScalars(t *testing.T, src string) {
	t.Helper()
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	p := &parser{path: "flow.yaml", src: []byte(src)}
	lines := p.source().lines
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		for _, c := range n.Content {
			walk(c)
		}
		if n.Kind != yaml.ScalarNode || n.Value == "" {
			return
		}
		value := []rune(n.Value)
		ps := p.exactScalarPos(n, value)
		if ps == nil {
			t.Errorf("no exact positions for %q at %d:%d in\n%s", n.Value, n.Line, n.Column, src)
			return
		}
		for i, r := range value {
			pos := ps[i]
			var got rune = -1
			if pos.Line <= len(lines) && pos.Col <= len(lines[pos.Line-1]) {
				got = lines[pos.Line-1][pos.Col-1]
			}
			switch {
			case got == r, got == '\\', r == '\'' && got == '\'':
			case (r == ' ' || r == '\n' || r == 0x2028 || r == 0x2029) && (got == -1 || isBlank(got)):
			default:
				t.Errorf("%q: rune %d %q at %v holds %q in\n%s", n.Value, i, r, pos, got, src)
				return
			}
		}
	}
	walk(&doc)
}

func TestScalarPositionsGolden(t *testing.T) {
	for _, file := range goldenFiles(t) {
		_, src, _ := readGolden(t, file)
		if _, err := yamlx.DecodeDocs(src); err != nil || strings.Contains(string(src), "---") {
			continue
		}
		checkScalars(t, string(src))
	}
}

// TestScalarPositionsEncoded encodes awkward strings in every scalar style
// yaml.v3 can emit, at several depths, and checks their positions.
func TestScalarPositionsEncoded(t *testing.T) {
	values := []string{
		"plain {{ x }}",
		"a\nb",
		"a\n\nb\n",
		"a\n  indented\nb",
		"  leading spaces",
		"trailing spaces   ",
		"tab\there",
		"quote ' and \" and \\ backslash",
		"unicode é ü 日本 {{ y }}",
		"line one\nline two {{ a +\n  b }}\n\n\nlast\n\n",
		strings.Repeat("long words wrap when emitted ", 8) + "{{ z }}",
		strings.Repeat("x", 100) + " " + strings.Repeat("y", 100),
		"\x07 control",
		"ends with newline\n",
		"- looks like a list",
		"# looks like a comment",
		"key: value",
		"{{ a }}",
		"",
	}
	styles := []yaml.Style{0, yaml.SingleQuotedStyle, yaml.DoubleQuotedStyle, yaml.LiteralStyle, yaml.FoldedStyle}
	for _, v := range values {
		for _, style := range styles {
			for depth := range 3 {
				scalar := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v, Style: style}
				var n *yaml.Node = scalar
				for range depth {
					n = &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{
						{Kind: yaml.ScalarNode, Value: "k"}, n,
					}}
					n = &yaml.Node{Kind: yaml.SequenceNode, Content: []*yaml.Node{n}}
				}
				out, err := yaml.Marshal(n)
				if err != nil {
					t.Fatal(err)
				}
				t.Run(fmt.Sprintf("%.10q/%d/%d", v, style, depth), func(t *testing.T) {
					checkScalars(t, string(out))
				})
			}
		}
	}
}

// TestScalarPositionsHandWritten covers forms the encoder does not write.
func TestScalarPositionsHandWritten(t *testing.T) {
	for _, src := range []string{
		"a: plain\n  continued\n\n  after blank\n",
		"a: 'single\n\n   multi  \n   line'\n",
		"a: \"double \\\n   escaped break\"\n",
		"a: \"double \\t\\x41\\u00e9\\U0001F600 \\N\\_\\L\\P\\ \"\n",
		"a: |+\n  keep\n\n\nb: 1\n",
		"a: >-\n  strip\n  folded\n\n  para\n    more\n  back\n",
		"a: |2-\n    two extra\n   one extra\n",
		"- >\n\n  leading blank\n",
		"a: &x !!str   tagged\n",
		"a: !!str\n  on next line\n",
		"{a: flow, b: [x, \"y\", 'z'], c: multi\n  line}\n",
		"a: plain # comment\nb: 'q' # comment\n",
		"\ufeffa: bom\n",
		"a: x\r\nb: |\r\n  crlf\r\n  lines\r\n",
		"a: \"crlf\r\n  folded\"\r\n",
		"? complex key\n: value\n",
		"a: \"ls\u2028in quotes\"\nb: c\n",
		"a: |\n  nel\u0085  line\n",
		"a: >\n  ps\u2029  folded\n",
	} {
		checkScalars(t, src)
	}
}
