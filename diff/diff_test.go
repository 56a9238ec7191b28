package diff

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/flowserve/flowserve/dsl"
	"github.com/flowserve/flowserve/flow"
	"github.com/flowserve/flowserve/flow/state"
)

// compatBase is the old version most compat cases change: two asks, a
// step between them, and a branch that leads to the second ask or ends.
const compatBase = `name: compat
description: Asks twice.
input:
  type: object
  properties:
    n: {type: integer}
nodes:
  - id: a
    ask: "First?"
    form: {v: {type: string}}
  - id: s
    step: test.echo
    with: {v: "{{ a.content.v }}"}
  - branch:
      - if: a.content.v == "x"
        then: b
      - else: done
  - id: b
    ask: "Second?"
    form: {v: {type: string}}
  - return: "got {{ b.content.v }}"
  - id: done
    return: "no second"
`

// loopBase asks the same question three times.
const loopBase = `name: compat
description: Asks three times.
nodes:
  - set: {i: 0}
  - id: q
    ask: "Again?"
    form: {v: {type: string}}
  - set: {i: "{{ i + 1 }}"}
  - branch:
      - if: i < 3
        then: q
  - return: "asked {{ i }} times"
`

// allBase asks two questions in one round, then a third.
const allBase = `name: compat
description: Asks two, then one.
nodes:
  - id: both
    all:
      - id: x
        ask: X?
        form: {v: {type: string}}
      - id: y
        ask: Y?
        form: {v: {type: string}}
  - id: z
    ask: Z?
    form: {v: {type: string}}
  - return: done
`

// elseAsks is compatBase with a branch whose else leads to the second ask.
var elseAsks = strings.Replace(compatBase, "      - if: a.content.v == \"x\"\n        then: b\n      - else: done",
	"      - if: a.content.v == \"y\"\n        then: done\n      - else: b", 1)

// compatCase is a change of a flow and the verdict it has.
type compatCase struct {
	name    string
	edit    [][2]string // replacements applied to the old version, in order
	verdict Verdict
	changes []Change // the kinds of the reasons, in order
	// old is the old version; compatBase when empty.
	old string
	// unseen marks a new-calls-only verdict that the runs of
	// TestCompatAgainstEngine (every answer "x") do not witness: some
	// other run in flight would not replay.
	unseen bool
}

var compatCases = []compatCase{
	{"same", nil, Compatible, nil, "", false},
	{"comments and layout", [][2]string{{"nodes:\n", "# the nodes\nnodes:\n"}, {`form: {v: {type: string}}`, "form:\n      v:\n        type: string"}}, Compatible, nil, "", false},
	{"return text", [][2]string{{`"got {{ b.content.v }}"`, `"you said {{ b.content.v }}"`}}, Compatible, []Change{ChangeText}, "", false},
	{"step after the last ask", [][2]string{{"  - return: \"got", "  - id: t\n    step: test.echo\n    with: {}\n  - return: \"got"}}, Compatible, []Change{ChangeInserted}, "", false},
	{"new case, else ends", [][2]string{{"      - else: done", "      - if: a.content.v == \"y\"\n        then: c\n      - else: done"},
		{"  - id: done\n", "  - id: c\n    ask: Third?\n    form: {v: {type: string}}\n  - return: third\n  - id: done\n"}},
		Compatible, []Change{ChangeControl, ChangeAdded, ChangeAdded}, "", false},
	{"fresh set before an ask", [][2]string{{"  - branch:\n", "  - set: {label: second}\n  - branch:\n"}}, Compatible, []Change{ChangeInserted}, "", false},
	{"validate rules", [][2]string{{"  - id: b\n    ask: \"Second?\"\n    form: {v: {type: string}}\n", "  - id: b\n    ask: \"Second?\"\n    form: {v: {type: string}}\n    validate: [{rule: 'b.content.v != \"\"', message: Say something}]\n"}}, Compatible, []Change{ChangeDetail}, "", false},
	{"new unavailable", [][2]string{{"  - id: b\n    ask: \"Second?\"\n    form: {v: {type: string}}\n", "  - id: b\n    ask: \"Second?\"\n    form: {v: {type: string}}\n    unavailable: done\n"}}, Compatible, []Change{ChangeControl}, "", false},
	{"second message", [][2]string{{`"Second?"`, `"Second, please?"`}}, NewCallsOnly, []Change{ChangeRedefined}, "", false},
	{"first message", [][2]string{{`"First?"`, `"First, please?"`}}, NewCallsOnly, []Change{ChangeRedefined}, "", false},
	{"renamed", [][2]string{{"id: b", "id: second"}, {"then: b", "then: second"}, {"b.content.v", "second.content.v"}}, NewCallsOnly, []Change{ChangeRenamed, ChangeText}, "", false},
	{"step before an ask", [][2]string{{"  - branch:\n", "  - id: t\n    step: test.echo\n    with: {}\n  - branch:\n"}}, NewCallsOnly, []Change{ChangeInserted}, "", false},
	{"unreachable new step", [][2]string{{"  - id: b\n", "  - id: t\n    step: test.echo\n    with: {}\n  - id: b\n"}}, Compatible, nil, "", false},
	{"step inputs", [][2]string{{`with: {v: "{{ a.content.v }}"}`, `with: {w: "{{ a.content.v }}"}`}}, NewCallsOnly, []Change{ChangeRedefined}, "", false},
	{"condition", [][2]string{{`if: a.content.v == "x"`, `if: a.content.v != "x"`}}, NewCallsOnly, []Change{ChangeControl}, "", false},
	{"target", [][2]string{{"then: b", "then: done"}}, NewCallsOnly, []Change{ChangeControl}, "", false},
	{"step removed", [][2]string{{"  - id: s\n    step: test.echo\n    with: {v: \"{{ a.content.v }}\"}\n", ""}}, NewCallsOnly, []Change{ChangeRemoved}, "", false},
	{"input default", [][2]string{{"n: {type: integer}", "n: {type: integer, default: 3}"}}, NewCallsOnly, []Change{ChangeDefault}, "", false},
	{"new case before an else that asks", [][2]string{{"      - else: b", "      - if: a.content.v == \"x\"\n        then: done\n      - else: b"}},
		NewCallsOnly, []Change{ChangeControl}, elseAsks, false},
	{"new case before an else that asks, not taken", [][2]string{{"      - else: b", "      - if: a.content.v == \"w\"\n        then: done\n      - else: b"}},
		NewCallsOnly, []Change{ChangeControl}, elseAsks, true},
	{"new case after a case that asks", [][2]string{{"      - else: done", "      - if: a.content.v == \"w\"\n        then: b\n      - else: done"}},
		Compatible, []Change{ChangeControl}, "", false},
	{"loop text", [][2]string{{"asked {{ i }} times", "{{ i }} answers"}}, Compatible, []Change{ChangeText}, loopBase, false},
	{"loop bound", [][2]string{{"i < 3", "i < 2"}}, NewCallsOnly, []Change{ChangeControl}, loopBase, false},
	{"loop counter", [][2]string{{"i + 1", "i + 2"}}, NewCallsOnly, []Change{ChangeControl}, loopBase, false},
	{"all question", [][2]string{{"ask: Y?", "ask: Why?"}}, NewCallsOnly, []Change{ChangeRedefined}, allBase, false},
	{"all new question", [][2]string{{"  - id: z\n", "      - id: w\n        ask: W?\n        form: {v: {type: string}}\n  - id: z\n"}}, NewCallsOnly, []Change{ChangeRedefined}, allBase, false},
	{"all return", [][2]string{{"return: done", "return: finished"}}, Compatible, []Change{ChangeText}, allBase, false},
	{"new required input", [][2]string{{"    n: {type: integer}\n", "    n: {type: integer}\n  required: [n]\n"}}, Breaking, []Change{ChangeInput}, "", false},
	{"input retyped", [][2]string{{"n: {type: integer}", "n: {type: string}"}}, Breaking, []Change{ChangeInput}, "", false},
	{"input widened", [][2]string{{"n: {type: integer}", "n: {type: number, maximum: 10}"}}, Breaking, []Change{ChangeInput}, "", false},
	{"task required", [][2]string{{"description: Asks twice.\n", "description: Asks twice.\ntask: required\n"}}, Breaking, []Change{ChangeTask}, "", false},
	{"scope required", [][2]string{{"description: Asks twice.\n", "description: Asks twice.\nauth: {scopes: [deploy:write]}\n"}}, Breaking, []Change{ChangeScopes}, "", false},
}

func (tc compatCase) oldSource() string {
	if tc.old == "" {
		return compatBase
	}
	return tc.old
}

func (tc compatCase) source(t *testing.T) string {
	t.Helper()
	src := tc.oldSource()
	for _, r := range tc.edit {
		if !strings.Contains(src, r[0]) {
			t.Fatalf("%s: the flow has no %q", tc.name, r[0])
		}
		src = strings.ReplaceAll(src, r[0], r[1])
	}
	return src
}

// TestCompatVerdicts checks each case's verdict and reasons, and that
// every reason is a sentence with a position.
func TestCompatVerdicts(t *testing.T) {
	reg := testRegistry(t)
	for _, tc := range compatCases {
		t.Run(tc.name, func(t *testing.T) {
			old := compile(t, "old/compat.yaml", tc.oldSource(), testOptions{Actions: reg})
			nw := compile(t, "new/compat.yaml", tc.source(t), testOptions{Actions: reg})
			r := Compare(old.Program, nw.Program)
			var changes []Change
			for _, x := range r.Reasons {
				changes = append(changes, x.Change)
				if !x.Pos.IsValid() || !x.NewPos.IsValid() || x.NewPos.File != "new/compat.yaml" {
					t.Errorf("reason without a position in new: %+v", x)
				}
				if x.Message == "" || strings.HasSuffix(x.Message, ".") {
					t.Errorf("message %q", x.Message)
				}
			}
			if r.Verdict != tc.verdict || strings.Join(kinds(changes), " ") != strings.Join(kinds(tc.changes), " ") {
				t.Errorf("verdict %s, changes %v; want %s, %v\n%s", r.Verdict, changes, tc.verdict, tc.changes, reasonsText(r))
			}
			ds := r.Diagnostics()
			if (r.Verdict >= NewCallsOnly) != (len(ds) > 0) {
				t.Errorf("verdict %s with %d lint warnings", r.Verdict, len(ds))
			}
		})
	}
}

func kinds(cs []Change) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = string(c)
	}
	return out
}

func reasonsText(r *Report) string {
	var b strings.Builder
	for _, x := range r.Reasons {
		b.WriteString("\t" + x.Pos.String() + ": " + x.Message + " [" + string(x.Change) + ", " + x.Verdict.String() + "]\n")
	}
	return b.String()
}

// TestCompatAgainstEngine checks the verdicts against the engine: a run
// of the old version is stopped after each of its rounds and goes on
// under the new one. When Compare says compatible, every such run
// finishes; when it says new-calls-only, some does not replay.
func TestCompatAgainstEngine(t *testing.T) {
	reg := testRegistry(t)
	clk := &clock{t: time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC)}
	opts := testOptions{Actions: reg, Codec: testCodec(t, clk), Now: clk.now}
	answer := func(string) json.RawMessage { return json.RawMessage(`{"action":"accept","content":{"v":"x"}}`) }
	for _, tc := range compatCases {
		if tc.verdict == Breaking {
			continue
		}
		t.Run(tc.name, func(t *testing.T) {
			old := compile(t, "old/compat.yaml", tc.oldSource(), opts)
			nw := compile(t, "new/compat.yaml", tc.source(t), opts)
			// Its own engine (a new server, with a reply store of its
			// own), over the same codec: it opens the old version's states.
			verdict := Compare(old.Program, nw.Program).Verdict
			broke := 0
			states := runStates(t, old, answer)
			for _, st := range states {
				if err := finishOn(t, nw, st, answer); err != nil {
					var mm *flow.MismatchError
					if !errors.As(err, &mm) && !errors.Is(err, state.ErrInvalid) && err != errDropped {
						t.Fatalf("round on the new version: %v", err)
					}
					broke++
				}
			}
			switch {
			case verdict == Compatible && broke > 0:
				t.Errorf("compatible, and %d of %d runs in flight do not replay", broke, len(states))
			case verdict == NewCallsOnly && broke == 0 && !tc.unseen:
				t.Errorf("new-calls-only, and all %d runs in flight replay", len(states))
			}
		})
	}
}

// runStates runs p to its end, answering every question, and returns the
// state each round ended with.
func runStates(t *testing.T, p *testProgram, answer func(string) json.RawMessage) []string {
	t.Helper()
	req := &flow.Request{Arguments: json.RawMessage(`{}`), Client: flow.Client{Name: "t", Form: true}}
	var states []string
	for range 20 {
		res, err := p.Run(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		if res.Complete != nil {
			return states
		}
		states = append(states, res.Input.State)
		req = &flow.Request{Arguments: req.Arguments, Client: req.Client, State: res.Input.State, Responses: map[string]json.RawMessage{}}
		for id := range res.Input.Requests {
			req.Responses[id] = answer(id)
		}
	}
	t.Fatal("no result after 20 rounds")
	return nil
}

// errDropped is a run in flight whose answer the new version did not
// take: it ended without reaching the question the run waited for.
var errDropped = errors.New("the answer to the question the run waited for was not taken")

// finishOn goes on with the run whose state is st on p, answering every
// question, until it completes; it returns the first round's error, or
// errDropped.
func finishOn(t *testing.T, p *testProgram, st string, answer func(string) json.RawMessage) error {
	t.Helper()
	ids, err := pending(p, st)
	if err != nil {
		return err
	}
	stats := &flow.RoundStats{}
	req := &flow.Request{Arguments: json.RawMessage(`{}`), Client: flow.Client{Name: "t", Form: true}, State: st, Responses: map[string]json.RawMessage{}, Stats: stats}
	for _, id := range ids {
		req.Responses[id] = answer(id)
	}
	for i := range 20 {
		res, err := p.Run(context.Background(), req)
		if err != nil {
			return err
		}
		if i == 0 && stats.Answers[string(flow.Accept)] == 0 {
			return errDropped
		}
		if res.Complete != nil {
			return nil
		}
		req = &flow.Request{Arguments: req.Arguments, Client: req.Client, State: res.Input.State, Responses: map[string]json.RawMessage{}}
		for id := range res.Input.Requests {
			req.Responses[id] = answer(id)
		}
	}
	t.Fatal("no result after 20 rounds")
	return nil
}

// pending returns the ids of the questions the state st waits for, by
// running the round again without answers.
func pending(p *testProgram, st string) ([]string, error) {
	res, err := p.Run(context.Background(), &flow.Request{Arguments: json.RawMessage(`{}`), Client: flow.Client{Name: "t", Form: true}, State: st})
	if err != nil {
		return nil, err
	}
	var ids []string
	if res.Input != nil {
		for id := range res.Input.Requests {
			ids = append(ids, id)
		}
	}
	return ids, nil
}

// TestCompatAll checks matching by name: removed and added tools.
func TestCompatAll(t *testing.T) {
	reg := testRegistry(t)
	a := compile(t, "old/a.yaml", "description: A.\nnodes:\n  - return: a\n", testOptions{Actions: reg})
	b := compile(t, "old/b.yaml", "description: B.\nnodes:\n  - return: b\n", testOptions{Actions: reg})
	b2 := compile(t, "new/b.yaml", "description: B.\nnodes:\n  - return: b\n", testOptions{Actions: reg})
	c := compile(t, "new/c.yaml", "description: C.\nnodes:\n  - return: c\n", testOptions{Actions: reg})
	rs := CompareAll([]*flow.Program{b.Program, a.Program}, []*flow.Program{c.Program, b2.Program})
	var got []string
	for _, r := range rs {
		got = append(got, r.Name+":"+r.Verdict.String())
	}
	if want := "a:breaking b:compatible c:compatible"; strings.Join(got, " ") != want {
		t.Fatalf("got %v, want %s", got, want)
	}
	if !rs[0].Removed() || rs[0].Added() || !rs[2].Added() || len(rs[1].Reasons) != 0 {
		t.Errorf("reports %+v", rs)
	}
	if ds := rs[0].Diagnostics(); len(ds) != 0 {
		t.Errorf("a removed tool has lint warnings: %v", ds)
	}
}

// TestCompatShippedFlows compares every shipped flow with itself (read
// again under another path: no reasons) and with every other one (no
// panics, a verdict that is its reasons' most severe).
func TestCompatShippedFlows(t *testing.T) {
	var olds, news []*flow.Program
	for _, pattern := range []string{"../flows/*.yaml", "../testdata/conformance/*.yaml", "../examples/*/flows/*.yaml"} {
		files, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		for _, file := range files {
			if strings.HasSuffix(file, "_test.yaml") {
				continue
			}
			src, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			for i, dir := range []string{"old/", "new/"} {
				f, diags := dsl.Parse(dir+file, src)
				p, cdiags := flow.Compile(f, flow.Env{})
				if diags.HasErrors() || p == nil {
					t.Fatalf("%s: %v%v", file, diags.Err(), cdiags.Err())
				}
				if i == 0 {
					olds = append(olds, p)
				} else {
					news = append(news, p)
				}
			}
		}
	}
	if len(olds) < 10 {
		t.Fatalf("found only %d flows", len(olds))
	}
	for i, o := range olds {
		if r := Compare(o, news[i]); r.Verdict != Compatible || len(r.Reasons) > 0 {
			t.Errorf("%s against itself: %s\n%s", o.File().Path, r.Verdict, reasonsText(r))
		}
		for _, n := range news {
			r := Compare(o, n)
			worst := Compatible
			for _, x := range r.Reasons {
				worst = max(worst, x.Verdict)
				if !x.Pos.IsValid() || x.Message == "" {
					t.Errorf("%s against %s: reason %+v", o.File().Path, n.File().Path, x)
				}
			}
			if worst != r.Verdict {
				t.Errorf("%s against %s: verdict %s, reasons up to %s", o.File().Path, n.File().Path, r.Verdict, worst)
			}
		}
	}
}

// callBase calls a sub-flow between two asks.
const callBase = `name: compat
description: Asks, calls, asks.
nodes:
  - id: a
    ask: "First?"
    form: {v: {type: string}}
  - id: c
    call: confirm
    with: {what: "{{ a.content.v }}"}
  - id: b
    ask: "Second?"
    form: {v: {type: string}}
  - return: "got {{ b.content.v }}"
`

// TestCompatCalls checks the verdicts of changes to call and link nodes:
// a call takes a journal position, so one defined differently (another
// callee, another with) keeps runs in flight from replaying, while one
// inserted after every journaled node does not.
func TestCompatCalls(t *testing.T) {
	reg := testRegistry(t)
	for _, tc := range []compatCase{
		{"same", nil, Compatible, nil, callBase, false},
		{"with changed", [][2]string{{`with: {what: "{{ a.content.v }}"}`, `with: {what: "it"}`}}, NewCallsOnly, []Change{ChangeRedefined}, callBase, false},
		{"callee changed", [][2]string{{"call: confirm", "call: approve"}}, NewCallsOnly, []Change{ChangeRedefined}, callBase, false},
		{"call inserted before an ask", [][2]string{{"  - id: b\n", "  - id: d\n    call: other\n  - id: b\n"}}, NewCallsOnly, []Change{ChangeInserted}, callBase, false},
		{"call after the last ask", [][2]string{{"  - return: \"got", "  - id: d\n    call: other\n  - return: \"got"}}, Compatible, []Change{ChangeInserted}, callBase, false},
		{"link at the end", [][2]string{{"  - return: \"got {{ b.content.v }}\"", "  - id: l\n    link: other"}}, Compatible, []Change{ChangeControl}, callBase, false},
		{"call removed", [][2]string{{"  - id: c\n    call: confirm\n    with: {what: \"{{ a.content.v }}\"}\n", ""}}, NewCallsOnly, []Change{ChangeRemoved}, callBase, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			old := compile(t, "old/compat.yaml", tc.oldSource(), testOptions{Actions: reg})
			nw := compile(t, "new/compat.yaml", tc.source(t), testOptions{Actions: reg})
			r := Compare(old.Program, nw.Program)
			var changes []Change
			for _, x := range r.Reasons {
				changes = append(changes, x.Change)
			}
			if r.Verdict != tc.verdict || strings.Join(kinds(changes), " ") != strings.Join(kinds(tc.changes), " ") {
				t.Errorf("verdict %s, changes %v; want %s, %v\n%s", r.Verdict, changes, tc.verdict, tc.changes, reasonsText(r))
			}
		})
	}
}
