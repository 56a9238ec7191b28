package graph

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/flowserve/flowserve/dsl"
	"github.com/flowserve/flowserve/internal/golden"
)

var update = flag.Bool("update", false, "rewrite golden files")

func parse(t *testing.T, path string, src []byte) *dsl.File {
	t.Helper()
	f, diags := dsl.Parse(path, src)
	if diags.HasErrors() || f == nil {
		t.Fatalf("parse %s:\n%v", path, diags.Err())
	}
	return f
}

// flowFiles lists the example flows (without their test files) and the
// flows of testdata, each group a project whose flows call each other.
func flowFiles(t *testing.T) [][]string {
	t.Helper()
	var groups [][]string
	n := 0
	for _, pattern := range []string{"../flows/*.yaml", "testdata/*.yaml"} {
		m, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		var files []string
		for _, f := range m {
			if !strings.HasSuffix(f, "_test.yaml") {
				files = append(files, f)
			}
		}
		groups = append(groups, files)
		n += len(files)
	}
	if n < 5 {
		t.Fatalf("found only %d flows", n)
	}
	return groups
}

// formats are the formats goldens are drawn in, by file extension.
var formats = []struct {
	ext  string
	draw func(*dsl.File, dsl.Callees) string
}{{"mmd", MermaidWith}, {"dot", DOTWith}}

// TestGoldens draws every example flow and the testdata flows in both
// formats, with the flows beside them as their callees, and compares
// with testdata/golden (rewritten with -update).
func TestGoldens(t *testing.T) {
	for _, group := range flowFiles(t) {
		var files []*dsl.File
		for _, file := range group {
			src, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, parse(t, file, src))
		}
		callees := dsl.NewFlowTable(files).Callees()
		for _, f := range files {
			name := strings.TrimSuffix(filepath.Base(f.Path), ".yaml")
			for _, format := range formats {
				t.Run(name+"."+format.ext, func(t *testing.T) {
					got := format.draw(f, callees)
					path := filepath.Join("testdata", "golden", name+"."+format.ext)
					if *update {
						if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
							t.Fatal(err)
						}
						if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
							t.Fatal(err)
						}
						return
					}
					want, err := os.ReadFile(path)
					if err != nil {
						t.Fatalf("%v (run with -update to create it)", err)
					}
					if got != string(want) {
						t.Errorf("%s differs (run with -update to accept)\n--- got\n%s--- want\n%s", path, got, want)
					}
				})
			}
		}
	}
}

// TestCallGoldens draws the flows of the txtar archives of
// testdata/calls: the first file of each is the flow drawn, the others
// the flows it may call. The drawings are the archive's mmd and dot
// sections (rewritten with -update).
func TestCallGoldens(t *testing.T) {
	archives, err := filepath.Glob("testdata/calls/*.txtar")
	if err != nil || len(archives) == 0 {
		t.Fatalf("no archives in testdata/calls (%v)", err)
	}
	for _, file := range archives {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			a, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var files []*dsl.File
			for _, af := range a.Files {
				if strings.HasSuffix(af.Name, ".yaml") {
					files = append(files, parse(t, af.Name, af.Data))
				}
			}
			if len(files) == 0 {
				t.Fatal("the archive holds no flow")
			}
			callees := dsl.NewFlowTable(files).Callees()
			for _, format := range formats {
				golden.CheckSection(t, file, a, format.ext, format.draw(files[0], callees), *update)
			}
		})
	}
}

// edges renders a graph's edges as "from->to kind label" lines.
func edges(g *Graph) string {
	var b strings.Builder
	for _, e := range g.Edges {
		fmt.Fprintf(&b, "%s->%s %d %s\n", e.From, e.To, e.Kind, e.Label)
	}
	return b.String()
}

// TestBuild checks the edges of small flows: fall-through, next, branch
// cases, else and otherwise, unavailable, on_error, on_timeout, and the
// end node.
func TestBuild(t *testing.T) {
	tests := []struct {
		name, src string
		want      string
		hasEnd    bool
	}{
		{
			name: "fall through to the end",
			src: `
nodes:
  - set: {a: 1}
  - set: {b: 2}
`,
			want:   "start->n0 1 \nn0->n1 1 \nn1->done 1 \n",
			hasEnd: true,
		},
		{
			name:   "no nodes (a file that did not parse)",
			src:    "",
			want:   "start->done 1 \n",
			hasEnd: true,
		},
		{
			name: "terminal nodes have no way on",
			src: `
nodes:
  - return: "a"
  - fail: "b"
`,
			want: "start->n0 1 \n",
		},
		{
			name: "next, unavailable and on_error",
			src: `
nodes:
  - id: q
    ask: "Q?"
    form: {v: {type: string}}
    unavailable: no
    next: s
  - id: no
    fail: "cannot ask"
  - id: s
    step: test.echo
    on_error: no
  - return: "ok"
`,
			want: "start->n0 1 \nn0->n2 2 next\nn0->n1 6 unavailable\nn2->n3 1 \nn2->n1 7 on_error\n",
		},
		{
			name: "an approval's on_timeout",
			src: `
vars:
  approver: {description: Who approves}
nodes:
  - id: q
    ask: "Q?"
    to: "{{ vars.approver }}"
    timeout: 2d
    on_timeout: late
    unavailable: late
    form: {v: {type: string}}
  - return: "ok"
  - id: late
    fail: "late"
`,
			want: "start->n0 1 \nn0->n1 1 \nn0->n2 6 unavailable\nn0->n2 8 timeout\n",
		},
		{
			name: "call and link nodes without their callees",
			src: `
nodes:
  - id: c
    call: elsewhere
    on_error: l
  - id: l
    link: other
`,
			want: "start->n0 1 \nn0->n1 1 \nn0->n1 7 on_error\n",
		},
		{
			name: "branch with else",
			src: `
nodes:
  - branch:
      - if: "1 > 2"
        then: b
      - else: a
  - id: a
    return: "a"
  - id: b
    return: "b"
`,
			want: "start->n0 1 \nn0->n2 3 1 > 2\nn0->n1 4 else\n",
		},
		{
			name: "branch without else falls through",
			src: `
nodes:
  - branch:
      - if: "true"
        then: b
  - set: {x: 1}
  - id: b
    return: "b"
`,
			want: "start->n0 1 \nn0->n2 3 true\nn0->n1 5 otherwise\nn1->n2 1 \n",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := &dsl.File{Path: "t.yaml"}
			if tc.src != "" {
				src := "name: t\ndescription: A test.\n" + strings.TrimPrefix(tc.src, "\n")
				f = parse(t, "t.yaml", []byte(src))
			}
			g := Build(f)
			if got := edges(g); got != tc.want {
				t.Errorf("edges:\n%s\nwant:\n%s", got, tc.want)
			}
			last := g.Nodes[len(g.Nodes)-1]
			if (last.Shape == ShapeEnd) != tc.hasEnd {
				t.Errorf("end node drawn: %v, want %v", last.Shape == ShapeEnd, tc.hasEnd)
			}
		})
	}
}

// TestApprovalNode checks how an ask with to is marked: Approval, "(to …)"
// after its message, the approval class in Mermaid and a blue border in
// DOT; an ask without to is not marked.
func TestApprovalNode(t *testing.T) {
	src := "name: t\ndescription: A test.\nnodes:\n" +
		"  - id: a\n    ask: Refund?\n    to: finance@example.com\n    form: {ok: {type: boolean}}\n" +
		"  - id: b\n    ask: Sure?\n    form: {ok: {type: boolean}}\n" +
		"  - return: done\n"
	g := Build(parse(t, "t.yaml", []byte(src)))
	a, b := g.Nodes[1], g.Nodes[2]
	if !a.Approval || a.Text != "ask: Refund? (to finance@example.com)" {
		t.Errorf("approval node: Approval %v, Text %q", a.Approval, a.Text)
	}
	if b.Approval || b.Text != "ask: Sure?" {
		t.Errorf("plain ask: Approval %v, Text %q", b.Approval, b.Text)
	}
	if m := g.Mermaid(); !strings.Contains(m, "    class n0 approval\n") || !strings.Contains(m, "classDef approval stroke:") {
		t.Errorf("Mermaid lacks the approval class:\n%s", m)
	}
	if d := g.DOT(); !strings.Contains(d, `n0 [shape=parallelogram, penwidth=3, color="`+approvalLine+`"`) || strings.Contains(d, `n1 [shape=parallelogram, penwidth`) {
		t.Errorf("DOT marks the wrong asks:\n%s", d)
	}
}

func TestEscaping(t *testing.T) {
	tests := []struct {
		in, mermaid, dot string
	}{
		{`plain text`, `plain text`, `"plain text"`},
		{`say "hi"`, `say #34;hi#34;`, `"say \"hi\""`},
		{`a|b & <c> #1 ` + "`x`", `a#124;b #38; #60;c#62; #35;1 #96;x#96;`, `"a|b & <c> #1 ` + "`x`" + `"`},
		{`C:\temp\n`, `C:\temp\n`, `"C:\\temp\\n"`},
		{"two\nlines", "two\nlines", `"two\nlines"`},
	}
	for _, tc := range tests {
		if got := mermaidText(tc.in); got != tc.mermaid {
			t.Errorf("mermaidText(%q) = %q, want %q", tc.in, got, tc.mermaid)
		}
		if got := dotString(tc.in); got != tc.dot {
			t.Errorf("dotString(%q) = %q, want %q", tc.in, got, tc.dot)
		}
	}
}

func TestTruncate(t *testing.T) {
	tests := []struct {
		in   string
		max  int
		want string
	}{
		{"short", 10, "short"},
		{"exactly ten", 11, "exactly ten"},
		{"a bit too long", 10, "a bit too…"},
		{"ünïcödé wörds", 8, "ünïcödé…"},
		{"trailing space here", 10, "trailing…"},
	}
	for _, tc := range tests {
		if got := truncate(tc.in, tc.max); got != tc.want {
			t.Errorf("truncate(%q, %d) = %q, want %q", tc.in, tc.max, got, tc.want)
		}
	}
}

// TestCallNodes checks the summaries and shapes of call and link nodes,
// and when a callee is drawn plainly: not found, with parse errors, in a
// cycle, or nested deeper than MaxCallDepth.
func TestCallNodes(t *testing.T) {
	callerSrc := "name: caller\ndescription: A test.\nnodes:\n" +
		"  - id: c\n    call: callee\n  - id: l\n    link: callee\n"
	caller := parse(t, "caller.yaml", []byte(callerSrc))
	g := Build(caller)
	if c, l := g.Nodes[1], g.Nodes[2]; c.Shape != ShapeCall || c.Text != "call: callee" || l.Shape != ShapeLink || l.Text != "link: callee" || len(g.Clusters) != 0 {
		t.Errorf("plain call and link: %+v, %+v, clusters %v", c, l, g.Clusters)
	}

	broken, _ := dsl.Parse("callee.yaml", []byte("name: callee\ndescription: Broken.\nnodes:\n  - id: x\n    bogus: 1\n"))
	if broken == nil || !broken.Partial() {
		t.Fatal("the broken callee parsed")
	}
	g = BuildWith(caller, dsl.NewFlowTable([]*dsl.File{caller, broken}).Callees())
	if c := g.Nodes[1]; c.Text != "call: callee (it has errors)" || len(g.Clusters) != 0 {
		t.Errorf("a callee with errors: %+v, clusters %v", c, g.Clusters)
	}

	// A chain of calls deeper than MaxCallDepth.
	var files []*dsl.File
	for i := range MaxCallDepth + 3 {
		src := fmt.Sprintf("name: f%d\ndescription: A test.\nnodes:\n  - id: c\n    call: f%d\n  - return: done\n", i, i+1)
		files = append(files, parse(t, fmt.Sprintf("f%d.yaml", i), []byte(src)))
	}
	g = BuildWith(files[0], dsl.NewFlowTable(files).Callees())
	if len(g.Clusters) != MaxCallDepth {
		t.Errorf("%d clusters drawn, want %d", len(g.Clusters), MaxCallDepth)
	}
	var deepest Node
	for _, n := range g.Nodes {
		if n.Shape == ShapeCall {
			deepest = n
		}
	}
	if want := strings.Repeat("c/", MaxCallDepth) + "c"; deepest.Title != want || deepest.Text != fmt.Sprintf("call: f%d (nested too deep to draw)", MaxCallDepth+1) {
		t.Errorf("deepest call: %q %q, want %q", deepest.Title, deepest.Text, want)
	}
	for _, format := range []string{g.Mermaid(), g.DOT()} {
		if strings.Count(format, "subgraph ") != MaxCallDepth {
			t.Errorf("%d subgraphs, want %d:\n%s", strings.Count(format, "subgraph "), MaxCallDepth, format)
		}
	}
}
