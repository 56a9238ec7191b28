package flow

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestFinishedCallStateSize measures the sealed state of a run that
// called a sub-flow which finished (asking a question and running a step
// on the way) against that of the same run with a step whose result is
// the callee's: the finished frame collapses to one entry, so the state is
// no larger.
func TestFinishedCallStateSize(t *testing.T) {
	const callee = `
name: confirm
description: Confirms.
expose: false
output:
  type: object
  properties:
    ok: {type: boolean}
    note: {type: string}
nodes:
  - id: look
    step: test.echo
    with: {padding: "` + "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx" + `"}
  - id: q
    ask: Sure?
    form:
      ok: {type: boolean}
  - return:
      structured: {ok: "{{ q.content.ok }}", note: fine}
`
	const caller = `
name: tool
description: Calls confirm, then asks.
nodes:
  - id: c
    call: confirm
  - id: after
    ask: "After {{ c.note }}?"
    form:
      v: {type: string}
  - return: done
`
	// The same tool, with a step in place of the call whose output is what
	// the call returns.
	const stepped = `
name: tool
description: A step, then asks.
nodes:
  - id: c
    step: test.echo
    with: {ok: true, note: fine}
  - id: after
    ask: "After {{ c.note }}?"
    form:
      v: {type: string}
  - return: done
`
	clk := &clock{t: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)}
	opts := testOptions{Actions: testRegistry(t, &counters{}), Codec: testCodec(t, clk), Now: clk.now}
	e, err := NewEngine(EngineOptions{Codec: opts.Codec, Now: opts.Now})
	if err != nil {
		t.Fatal(err)
	}
	progs := compileSet(t, map[string]string{"tool.yaml": caller, "confirm.yaml": callee}, opts)
	client := Client{Name: "t", Form: true}
	ctx := context.Background()

	res, err := e.Run(ctx, progs["tool.yaml"], &Request{Client: client})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := res.Input.Requests["c/q"]; !ok {
		t.Fatalf("round 1 asks %v, want c/q", res.Input.Requests)
	}
	inFrame := res.Input.State
	res, err = e.Run(ctx, progs["tool.yaml"], &Request{Client: client, State: inFrame,
		Responses: map[string]json.RawMessage{"c/q": json.RawMessage(`{"action":"accept","content":{"ok":true}}`)}})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := res.Input.Requests["after"]; !ok {
		t.Fatalf("round 2 asks %v, want after", res.Input.Requests)
	}
	called := res.Input.State

	sp := compile(t, "tool.yaml", stepped, opts)
	res, err = sp.e.Run(ctx, sp.Program, &Request{Client: client})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Input.Requests["after"].Message, "fine") {
		t.Fatalf("the stepped flow asks %q", res.Input.Requests["after"].Message)
	}
	withStep := res.Input.State
	t.Logf("sealed state: inside the frame %d bytes; after the finished call %d bytes; with a step instead %d bytes",
		len(inFrame), len(called), len(withStep))
	if len(called) > len(withStep) {
		t.Errorf("after a finished call the state is %d bytes, more than the %d bytes of the same run with a step", len(called), len(withStep))
	}
	st, err := opts.Codec.OpenUnbound(called)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Journal) != 1 || st.Journal[0].Node != "c" {
		t.Errorf("journal after the call: %+v, want one entry for c", st.Journal)
	}
}

// TestCallDepthLimit checks that calls nest no deeper than
// Limits.CallDepth, with an error naming the limit.
func TestCallDepthLimit(t *testing.T) {
	srcs := map[string]string{}
	names := []string{"a", "b", "c", "d"}
	for i, n := range names {
		src := "name: " + n + "\ndescription: x\nnodes:\n"
		if i+1 < len(names) {
			src += "  - id: next\n    call: " + names[i+1] + "\n  - return: \"{{ next }}\"\n"
		} else {
			src += "  - return: bottom\n"
		}
		srcs[n+".yaml"] = src
	}
	clk := &clock{t: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)}
	opts := testOptions{Actions: testRegistry(t, &counters{}), Codec: testCodec(t, clk), Now: clk.now}
	progs := compileSet(t, srcs, opts)
	for _, tc := range []struct {
		depth int
		want  string
	}{{3, "bottom"}, {2, "calls nest more than 2 deep"}} {
		e, err := NewEngine(EngineOptions{Codec: opts.Codec, Now: opts.Now, Limits: Limits{CallDepth: tc.depth}})
		if err != nil {
			t.Fatal(err)
		}
		res, err := e.Run(context.Background(), progs["a.yaml"], &Request{})
		got := ""
		switch {
		case err != nil:
			got = err.Error()
		case res.Complete != nil:
			got = blockText(res.Complete.Content[0]).(string)
		}
		if !strings.Contains(got, tc.want) {
			t.Errorf("depth %d: got %q, want %q", tc.depth, got, tc.want)
		}
	}
}

// TestMockCall checks Mocks.Call: a mocked call binds the mock's
// output without running the callee (a structured output is checked
// against the callee's output schema), a mocked error takes on_error, and
// a nil mock runs the callee.
func TestMockCall(t *testing.T) {
	const callee = `
name: confirm
description: Confirms.
expose: false
input:
  type: object
  properties:
    what: {type: string}
output:
  type: object
  properties:
    ok: {type: boolean}
  required: [ok]
nodes:
  - id: q
    ask: "Sure about {{ input.what }}?"
    form:
      ok: {type: boolean}
  - return:
      structured: {ok: "{{ q.content.ok }}"}
`
	const caller = `
name: tool
description: Calls confirm.
nodes:
  - id: c
    call: confirm
    with: {what: it}
    on_error: failed
  - return: "ok={{ c.ok }}"
  - id: failed
    return: "failed: {{ error }}"
`
	clk := &clock{t: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)}
	opts := testOptions{Actions: testRegistry(t, &counters{}), Codec: testCodec(t, clk), Now: clk.now}
	e, err := NewEngine(EngineOptions{Codec: opts.Codec, Now: opts.Now})
	if err != nil {
		t.Fatal(err)
	}
	p := compileSet(t, map[string]string{"tool.yaml": caller, "confirm.yaml": callee}, opts)["tool.yaml"]
	for _, tc := range []struct {
		name string
		mock *StepMock
		want string
	}{
		{"output", &StepMock{Output: map[string]any{"ok": true}}, "ok=true"},
		{"error", &StepMock{Err: errors.New("no")}, "failed: no"},
		{"bad output", &StepMock{Output: map[string]any{"ok": "yes"}}, "does not match its output schema"},
		{"no mock", nil, "c/q"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			req := &Request{Client: Client{Form: true}}
			ctx := WithMocks(context.Background(), &Mocks{Call: func(node, flow string, in map[string]any) *StepMock {
				got = append(got, fmt.Sprintf("%s %s %v", node, flow, in))
				return tc.mock
			}})
			res, err := e.Run(ctx, p, req)
			var out string
			switch {
			case err != nil:
				out = err.Error()
			case res.Input != nil:
				for k := range res.Input.Requests {
					out = k
				}
			default:
				out = blockText(res.Complete.Content[0]).(string)
			}
			if !strings.Contains(out, tc.want) {
				t.Errorf("got %q, want %q", out, tc.want)
			}
			if len(got) != 1 || got[0] != "c confirm map[what:it]" {
				t.Errorf("MockCall saw %q", got)
			}
		})
	}
}

// TestLinkedScopesAndLong checks that once linked, a caller requires the
// scopes its callees require and has long steps when a callee does.
func TestLinkedScopesAndLong(t *testing.T) {
	srcs := map[string]string{
		"a.yaml": "name: a\ndescription: x\nauth: {scopes: [read]}\nnodes:\n  - id: b\n    call: b\n  - return: \"{{ b }}\"\n",
		"b.yaml": "name: b\ndescription: x\nexpose: false\nauth: {scopes: [write, read]}\nnodes:\n  - id: c\n    call: c\n  - return: \"{{ c }}\"\n",
		"c.yaml": "name: c\ndescription: x\nexpose: false\nauth: {scopes: [admin]}\nnodes:\n  - id: s\n    step: test.echo\n    long: true\n  - return: done\n",
		"d.yaml": "name: d\ndescription: x\nnodes:\n  - return: done\n",
	}
	progs := compileSet(t, srcs, testOptions{Actions: testRegistry(t, &counters{})})
	if got := strings.Join(progs["a.yaml"].Scopes(), " "); got != "read write admin" {
		t.Errorf("a requires %q, want read write admin", got)
	}
	if !progs["a.yaml"].HasLongSteps() || !progs["b.yaml"].HasLongSteps() || progs["d.yaml"].HasLongSteps() {
		t.Errorf("HasLongSteps: a %v, b %v, d %v", progs["a.yaml"].HasLongSteps(), progs["b.yaml"].HasLongSteps(), progs["d.yaml"].HasLongSteps())
	}
	if progs["d.yaml"].Scopes() != nil || !progs["b.yaml"].Private() || progs["a.yaml"].Private() {
		t.Errorf("d scopes %v, b private %v, a private %v", progs["d.yaml"].Scopes(), progs["b.yaml"].Private(), progs["a.yaml"].Private())
	}
}

// TestCalleeVersionUnavailable checks that a round inside a callee's
// frame whose version the engine cannot find, and whose current version
// does not replay the frame, fails with a retryable *VersionError naming
// the callee.
func TestCalleeVersionUnavailable(t *testing.T) {
	const caller = "name: tool\ndescription: x\nnodes:\n  - id: c\n    call: confirm\n  - return: \"{{ c }}\"\n"
	callee := func(q string) string {
		return "name: confirm\ndescription: x\nexpose: false\nnodes:\n  - id: q\n    ask: " + q + "\n    form: {ok: {type: boolean}}\n  - return: done\n"
	}
	clk := &clock{t: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)}
	opts := testOptions{Actions: testRegistry(t, &counters{}), Codec: testCodec(t, clk), Now: clk.now}
	v1 := compileSet(t, map[string]string{"tool.yaml": caller, "confirm.yaml": callee("Sure?")}, opts)
	v2 := compileSet(t, map[string]string{"tool.yaml": caller, "confirm.yaml": callee("Really sure?")}, opts)
	e, err := NewEngine(EngineOptions{Codec: opts.Codec, Now: opts.Now, Versions: &memVersions{}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	res, err := e.Run(ctx, v1["tool.yaml"], &Request{Client: Client{Form: true}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.Run(ctx, v2["tool.yaml"], &Request{Client: Client{Form: true}, State: res.Input.State,
		Responses: map[string]json.RawMessage{"c/q": json.RawMessage(`{"action":"accept","content":{"ok":true}}`)}})
	var ve *VersionError
	if !errors.As(err, &ve) || ve.Tool != "confirm" || ve.Version != v1["confirm.yaml"].Version() {
		t.Fatalf("round on a changed callee: %v, want a VersionError for confirm %s", err, v1["confirm.yaml"].Version().Short())
	}
}

// TestProgramNode checks that Program.Node finds nodes by key through
// the call nodes of linked callees.
func TestProgramNode(t *testing.T) {
	progs := compileSet(t, map[string]string{
		"a.yaml": "name: a\ndescription: x\nnodes:\n  - id: b\n    call: b\n  - id: done\n    return: \"{{ b }}\"\n",
		"b.yaml": "name: b\ndescription: x\nexpose: false\nnodes:\n  - id: c\n    call: c\n  - return: \"{{ c }}\"\n",
		"c.yaml": "name: c\ndescription: x\nexpose: false\nnodes:\n  - id: q\n    ask: Q?\n    form: {v: {type: string}}\n  - return: done\n",
	}, testOptions{Actions: testRegistry(t, &counters{})})
	a := progs["a.yaml"]
	for key, want := range map[string]string{"done": "a", "b": "a", "b/c": "b", "b/c/q": "c", "b/q": "", "x/q": "", "done/q": ""} {
		p, n := a.Node(key)
		got := ""
		if n != nil {
			got = p.Name()
		}
		if got != want {
			t.Errorf("Node(%q) is in %q, want %q", key, got, want)
		}
	}
}
