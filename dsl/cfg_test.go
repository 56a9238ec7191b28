package dsl

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"
)

// cfgText renders a graph's edges as "from>to kind" words (a case as
// caseK, with its condition after a colon; End as E), one per edge in
// the order of Edges.
func cfgText(g *CFG) string {
	var words []string
	for _, e := range g.Edges() {
		to := fmt.Sprint(e.To)
		if e.To == g.End() {
			to = "E"
		}
		kind := e.Kind.String()
		if e.Kind == EdgeCase {
			kind = fmt.Sprintf("case%d", e.Case)
			if e.Cond != nil {
				kind += ":" + e.Cond.Src
			}
		}
		words = append(words, fmt.Sprintf("%d>%s %s", e.From, to, kind))
	}
	return strings.Join(words, ", ")
}

// parseAny parses src, errors and all: the CFG must take partial files.
func parseAny(t *testing.T, src string) *File {
	t.Helper()
	f, _ := Parse("flow.yaml", []byte(src))
	if f == nil {
		t.Fatalf("Parse returned no file for\n%s", src)
	}
	return f
}

// TestBuildCFG checks the edges of every node kind and every edge kind,
// and Resolved on partial files.
func TestBuildCFG(t *testing.T) {
	const form = "    form: {ok: {type: boolean}}\n"
	tests := []struct {
		name, nodes string
		want        string
		unresolved  bool
	}{
		{"ask falls through, set to the end", "  - id: q\n    ask: Sure?\n" + form + "  - set: {x: 1}\n",
			"0>1 fall, 1>E fall", false},
		{"ask next and unavailable", "  - id: q\n    ask: Sure?\n" + form + "    unavailable: no\n    next: ok\n  - id: no\n    fail: x\n  - id: ok\n    return: y\n",
			"0>2 next, 0>1 unavailable", false},
		{"url ask", "  - id: q\n    ask: Sign in\n    url: https://example.com/x\n    unavailable: no\n  - return: y\n  - id: no\n    fail: x\n",
			"0>1 fall, 0>2 unavailable", false},
		{"sample unavailable", "  - id: s\n    sample:\n      messages: [{role: user, text: hi}]\n    unavailable: no\n  - return: y\n  - id: no\n    fail: x\n",
			"0>1 fall, 0>2 unavailable", false},
		{"roots next", "  - id: r\n    roots: {}\n    next: end\n  - fail: x\n  - id: end\n    return: y\n",
			"0>2 next", false},
		{"all: group edges, questions are no nodes", "  - id: g\n    all:\n      - id: a\n        ask: A?\n" + strings.ReplaceAll(form, "    ", "        ") + "      - id: r\n        roots: {}\n    unavailable: no\n  - return: y\n  - id: no\n    fail: x\n",
			"0>1 fall, 0>2 unavailable", false},
		{"approval next, unavailable and on_timeout", "  - id: q\n    ask: Sure?\n    to: finance\n    timeout: 1h\n    on_timeout: late\n    unavailable: no\n    next: ok\n" + form + "  - id: no\n    fail: x\n  - id: ok\n    return: y\n  - id: late\n    fail: z\n",
			"0>2 next, 0>1 unavailable, 0>3 on_timeout", false},
		{"approval on_timeout to the next node", "  - id: q\n    ask: Sure?\n    to: finance\n    timeout: 2d\n    on_timeout: late\n" + form + "  - id: late\n    return: y\n",
			"0>1 fall, 0>1 on_timeout", false},
		{"unknown on_timeout", "  - id: q\n    ask: Sure?\n    to: finance\n    timeout: 1h\n    on_timeout: nowhere\n" + form + "  - return: y\n",
			"0>1 fall, 0>-1 on_timeout", true},
		{"step on_error and next", "  - id: s\n    step: text.shout\n    on_error: bad\n    next: good\n  - id: bad\n    fail: x\n  - id: good\n    return: y\n",
			"0>2 next, 0>1 on_error", false},
		{"step without on_error", "  - id: s\n    step: text.shout\n  - return: y\n",
			"0>1 fall", false},
		{"set next loops", "  - id: a\n    set: {x: 1}\n    next: a\n",
			"0>0 next", false},
		{"branch cases and else", "  - branch:\n      - if: \"1 < 2\"\n        then: a\n      - if: \"true\"\n        then: a\n      - else: b\n  - id: a\n    return: y\n  - id: b\n    fail: x\n",
			"0>1 case0:1 < 2, 0>1 case1:true, 0>2 else", false},
		{"branch otherwise", "  - return: y\n  - branch:\n      - if: \"true\"\n        then: r\n  - id: r\n    return: z\n",
			"1>2 case0:true, 1>2 otherwise", false},
		{"last branch falls to the end", "  - id: r\n    return: y\n  - branch:\n      - if: \"true\"\n        then: r\n",
			"1>0 case0:true, 1>E otherwise", false},
		{"return and fail have no edges", "  - return: y\n  - fail: x\n", "", false},
		{"a case without then", "  - branch:\n      - if: \"true\"\n  - return: y\n",
			"0>-1 case0:true, 0>1 otherwise", false},
		{"unknown next", "  - id: a\n    set: {x: 1}\n    next: nowhere\n  - return: y\n",
			"0>-1 next", true},
		{"unknown then", "  - branch:\n      - if: \"true\"\n        then: nowhere\n  - return: y\n",
			"0>-1 case0:true, 0>1 otherwise", true},
		{"unknown else", "  - branch:\n      - if: \"true\"\n        then: r\n      - else: nowhere\n  - id: r\n    return: y\n",
			"0>1 case0:true, 0>-1 else", true},
		{"unknown unavailable and on_error", "  - id: q\n    roots: {}\n    unavailable: nowhere\n  - id: s\n    step: text.shout\n    on_error: nowhere\n  - return: y\n",
			"0>1 fall, 0>-1 unavailable, 1>2 fall, 1>-1 on_error", true},
		{"a node without a kind", "  - id: a\n  - return: y\n", "0>1 fall", true},
		{"a reference to a question of an all", "  - id: g\n    all:\n      - id: a\n        roots: {}\n      - id: b\n        roots: {}\n  - branch:\n      - if: \"true\"\n        then: b\n  - return: y\n",
			"0>1 fall, 1>0 case0:true, 1>2 otherwise", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := BuildCFG(parseAny(t, "description: d\nnodes:\n"+tc.nodes))
			if got := cfgText(g); got != tc.want {
				t.Errorf("edges\n got %s\nwant %s", got, tc.want)
			}
			if g.Resolved() == tc.unresolved {
				t.Errorf("Resolved() = %v, want %v", g.Resolved(), !tc.unresolved)
			}
		})
	}
}

// TestCFGEmpty checks a file without nodes and a nil file: the entry is
// the end, and there are no edges.
func TestCFGEmpty(t *testing.T) {
	for _, f := range []*File{nil, parseAny(t, "description: d\nnodes: []\n")} {
		g := BuildCFG(f)
		if g.Len() != 0 || g.Entry() != g.End() || len(g.Edges()) != 0 || !g.Resolved() {
			t.Errorf("BuildCFG(%v): Len %d, Entry %d, End %d, %d edges, Resolved %v", f, g.Len(), g.Entry(), g.End(), len(g.Edges()), g.Resolved())
		}
	}
}

// TestCFGTargets checks Next and Target, the answers flow.Compile reads.
func TestCFGTargets(t *testing.T) {
	g := BuildCFG(parseAny(t, `description: d
nodes:
  - id: q
    ask: Sure?
    form: {ok: {type: boolean}}
    unavailable: no
  - id: s
    step: text.shout
    on_error: no
    next: b
  - id: no
    fail: x
  - id: b
    branch:
      - if: "true"
        then: q
      - else: no
  - set: {x: 1}
    next: nowhere
`))
	tests := []struct {
		node int
		kind EdgeKind // 0: Next
		want int
	}{
		{0, 0, 1}, {0, EdgeUnavailable, 2}, {0, EdgeOnError, -1},
		{1, 0, 3}, {1, EdgeOnError, 2}, {1, EdgeUnavailable, -1},
		{2, 0, -1},
		{3, 0, -1}, {3, EdgeCase, 0}, {3, EdgeElse, 2}, {3, EdgeOtherwise, -1},
		{4, 0, -1}, {4, EdgeNext, -1},
	}
	for _, tc := range tests {
		got := g.Target(tc.node, tc.kind)
		if tc.kind == 0 {
			got = g.Next(tc.node)
		}
		if got != tc.want {
			t.Errorf("node %d, %v: %d, want %d", tc.node, tc.kind, got, tc.want)
		}
	}
}

// TestCFGAllocs checks that building a CFG allocates a fixed number of
// times, whatever the flow, an approval with three edges included.
func TestCFGAllocs(t *testing.T) {
	approval := parseAny(t, `description: d
nodes:
  - id: q
    ask: Sure?
    to: finance
    timeout: 1h
    on_timeout: late
    unavailable: late
    next: ok
    form: {ok: {type: boolean}}
  - id: ok
    return: y
  - id: late
    fail: z
`)
	for _, file := range append(cfgFlows(t), flowFile{"approval", approval}) {
		f := file.f
		if n := testing.AllocsPerRun(20, func() { BuildCFG(f) }); n > 3 {
			t.Errorf("%s: BuildCFG allocates %v times, want at most 3", file.path, n)
		}
	}
}

// flowFile is a parsed flow of the repository.
type flowFile struct {
	path string
	f    *File
}

// cfgFlows parses the example flows and the conformance flows, none of
// which has errors, and the flows of flow's run goldens that have none.
func cfgFlows(t *testing.T) []flowFile {
	t.Helper()
	var out []flowFile
	add := func(path string, src []byte, strict bool) {
		f, ds := Parse(path, src)
		switch {
		case !ds.HasErrors():
			out = append(out, flowFile{path, f})
		case strict:
			t.Fatalf("%s: %v", path, ds.Err())
		}
	}
	for _, pattern := range []string{"../flows/*.yaml", "../testdata/conformance/*.yaml"} {
		files, _ := filepath.Glob(pattern)
		for _, file := range files {
			if !strings.HasSuffix(file, "_test.yaml") {
				src, err := os.ReadFile(file)
				if err != nil {
					t.Fatal(err)
				}
				add(file, src, true)
			}
		}
	}
	// A run golden may hold a flow with errors on purpose: Compile never
	// sees it.
	runs, _ := filepath.Glob("../flow/testdata/run/*.txtar")
	for _, file := range runs {
		a, err := txtar.ParseFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, sec := range a.Files {
			if strings.HasSuffix(sec.Name, ".yaml") {
				add(file+"/"+sec.Name, sec.Data, false)
			}
		}
	}
	if len(out) < 40 {
		t.Fatalf("found only %d flows", len(out))
	}
	return out
}

// compiled is a node's control flow as flow.Compile and the engine's
// run loop work it out (flow/compile.go's node, flow/run.go's run and
// branch), transcribed here without the CFG so the two can be compared.
type compiled struct {
	next, unavailable, onError, orElse int
	onTimeout                          int // an approval's on_timeout
	cases                              []int
	succ                               []int // the indexes run may go to after the node
}

// compileNode transcribes flow.Compile's successors of node n.
func compileNode(f *File, n *Node) compiled {
	target := func(r *Ref) int {
		if r == nil || r.Target < 0 || r.Target >= len(f.Nodes) {
			return -1
		}
		return r.Target
	}
	c := compiled{next: n.Index + 1, unavailable: -1, onError: -1, orElse: -1, onTimeout: -1}
	if t := target(n.Next); t >= 0 {
		c.next = t
	}
	switch n.Kind {
	case KindAsk, KindSample, KindRoots:
		c.unavailable = target(n.Ask.Unavailable)
		c.onTimeout = target(n.Ask.OnTimeout)
		c.succ = []int{c.next, c.unavailable, c.onTimeout}
	case KindAll:
		c.unavailable = target(n.All.Unavailable)
		c.succ = []int{c.next, c.unavailable}
	case KindStep:
		c.onError = target(n.Step.OnError)
		c.succ = []int{c.next, c.onError}
	case KindCall:
		c.onError = target(n.Call.OnError)
		c.succ = []int{c.next, c.onError}
	case KindSet:
		c.succ = []int{c.next}
	case KindBranch:
		for _, cs := range n.Branch.Cases {
			c.cases = append(c.cases, target(cs.Then))
		}
		c.orElse = target(n.Branch.Else)
		c.succ = append(slices.Clone(c.cases), c.orElse)
		if c.orElse < 0 {
			c.succ = append(c.succ, n.Index+1)
		}
	}
	c.succ = slices.DeleteFunc(c.succ, func(i int) bool { return i < 0 })
	slices.Sort(c.succ)
	c.succ = slices.Compact(c.succ)
	return c
}

// TestCFGMatchesCompile checks, for every flow of the repository, that
// the CFG gives each node the successors flow.Compile and the run loop
// give it: next, unavailable, on_error, on_timeout, each case's target, else, a
// branch's fall through, and the questions of an all node at their
// group's index with its next.
func TestCFGMatchesCompile(t *testing.T) {
	for _, file := range cfgFlows(t) {
		f, g := file.f, BuildCFG(file.f)
		if !g.Resolved() || g.Len() != len(f.Nodes) || g.Entry() != 0 {
			t.Errorf("%s: Resolved %v, Len %d, Entry %d", file.path, g.Resolved(), g.Len(), g.Entry())
			continue
		}
		for i, n := range f.Nodes {
			want := compileNode(f, n)
			if err := sameSuccessors(g, i, n, want); err != "" {
				t.Errorf("%s: node %s: %s", file.path, n.Name(), err)
			}
		}
	}
}

// sameSuccessors compares node i of g with what flow.Compile gives it,
// returning what differs or "".
func sameSuccessors(g *CFG, i int, n *Node, want compiled) string {
	if hasNext(n.Kind) && g.Next(i) != want.next {
		return fmt.Sprintf("next %d, compile %d", g.Next(i), want.next)
	}
	for _, k := range []struct {
		kind EdgeKind
		want int
	}{{EdgeUnavailable, want.unavailable}, {EdgeOnError, want.onError}, {EdgeElse, want.orElse}, {EdgeOnTimeout, want.onTimeout}} {
		if got := g.Target(i, k.kind); got != k.want {
			return fmt.Sprintf("%v %d, compile %d", k.kind, got, k.want)
		}
	}
	var cases, succ []int
	for _, e := range g.Succ(i) {
		if e.Kind == EdgeCase {
			cases = append(cases, e.To)
		}
		succ = append(succ, e.To)
	}
	slices.Sort(succ)
	if succ = slices.Compact(succ); !slices.Equal(succ, want.succ) {
		return fmt.Sprintf("successors %v, run %v", succ, want.succ)
	}
	if !slices.Equal(cases, want.cases) {
		return fmt.Sprintf("cases %v, compile %v", cases, want.cases)
	}
	// Compile gives each question its group's next; a reference to a
	// question resolves to its group, at the group's index.
	if n.All != nil {
		for _, q := range n.All.Questions {
			if q.Index != i {
				return fmt.Sprintf("question %s has index %d", q.Name(), q.Index)
			}
		}
	}
	return ""
}
