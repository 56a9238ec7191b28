package flow

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// driver runs a flow to completion, answering each question with answer;
// an empty answer leaves the question unanswered for that round.
type driver struct {
	p      *testProgram
	args   string
	answer func(id string, round int) string
}

type round struct {
	state     string
	responses map[string]json.RawMessage
}

// drive runs rounds from start until the call completes, returning the
// final result as JSON and the request of every round.
func (d *driver) drive(t *testing.T, start round) (string, []round) {
	t.Helper()
	req := &Request{
		Arguments: json.RawMessage(d.args),
		State:     start.state,
		Responses: start.responses,
		Client:    Client{Name: "t", Form: true, URL: true, Sampling: true, Roots: true},
	}
	var rounds []round
	for i := 0; i < 200; i++ {
		rounds = append(rounds, round{req.State, req.Responses})
		res, err := d.p.Run(context.Background(), req)
		if err != nil {
			t.Fatalf("round %d: %v", i+1, err)
		}
		if res.Complete != nil {
			b, err := json.Marshal(res.Complete)
			if err != nil {
				t.Fatal(err)
			}
			return string(b), rounds
		}
		req.State = res.Input.State
		req.Responses = map[string]json.RawMessage{}
		for id := range res.Input.Requests {
			if a := d.answer(id, res.Round+1); a != "" {
				req.Responses[id] = json.RawMessage(a)
			}
		}
	}
	t.Fatal("no result after 200 rounds")
	return "", nil
}

// TestReplayFromEveryRound checks the replay property: resuming a run from
// the state of any round, with that round's answers, gives the same final
// result as the uninterrupted run.
func TestReplayFromEveryRound(t *testing.T) {
	flows := []struct {
		name, src, args string
		answer          func(id string, round int) string
		callees         map[string]string // other flows, by file name
	}{
		{"confirm", confirmFlow, `{"path":"a.txt"}`, func(id string, round int) string {
			return `{"action":"accept","content":{"proceed":true}}`
		}, nil},
		{"ten-asks", tenAsks(), `{}`, func(id string, round int) string {
			return fmt.Sprintf(`{"action":"accept","content":{"v":"%s-%d"}}`, id, round)
		}, nil},
		{"loop", loopFlow(8), `{}`, func(id string, round int) string {
			if round%3 == 0 {
				return `{"action":"accept","content":{"v":"bad"}}` // fails validation: re-asked
			}
			return fmt.Sprintf(`{"action":"accept","content":{"v":"r%d"}}`, round)
		}, nil},
		{"groups", groupFlow, `{}`, func(id string, round int) string {
			switch {
			case id == "m" && round%2 == 0:
				return "" // not answered this round: asked again alone
			case id == "m":
				return fmt.Sprintf(`{"role":"assistant","content":{"type":"text","text":"m%d"},"model":"x"}`, round)
			case id == "r":
				return fmt.Sprintf(`{"roots":[{"uri":"file:///r%d"}]}`, round)
			case round%3 == 0:
				return `{"action":"accept","content":{"v":"bad"}}`
			}
			return fmt.Sprintf(`{"action":"accept","content":{"v":"a%d"}}`, round)
		}, nil},
		{"steps-and-declines", stepsFlow, `{}`, func(id string, round int) string {
			if round%2 == 0 {
				return `{"action":"decline"}`
			}
			return `{"action":"accept","content":{"v":"yes"}}`
		}, nil},
		{"calls", callerFlow, `{}`, func(id string, round int) string {
			switch {
			case round%4 == 0:
				return "" // not answered this round: asked again
			case round%3 == 0:
				return `{"action":"accept","content":{"v":"bad"}}`
			}
			return fmt.Sprintf(`{"action":"accept","content":{"v":"%s-%d"}}`, id, round)
		}, map[string]string{"pair.yaml": pairFlow, "one.yaml": oneFlow}},
	}
	for _, tc := range flows {
		t.Run(tc.name, func(t *testing.T) {
			clk := &clock{t: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)}
			opts := testOptions{Actions: testRegistry(t, &counters{}), Codec: testCodec(t, clk), Now: clk.now}
			var p *testProgram
			if tc.callees == nil {
				p = compile(t, tc.name+".yaml", tc.src, opts)
			} else {
				srcs := map[string]string{"flow.yaml": tc.src}
				for name, src := range tc.callees {
					srcs[name] = src
				}
				e, err := NewEngine(EngineOptions{Codec: opts.Codec, Now: opts.Now})
				if err != nil {
					t.Fatal(err)
				}
				p = &testProgram{Program: compileSet(t, srcs, opts)["flow.yaml"], e: e}
			}
			d := &driver{p: p, args: tc.args, answer: tc.answer}
			want, rounds := d.drive(t, round{})
			if len(rounds) < 2 {
				t.Fatalf("only %d rounds: the flow must ask something", len(rounds))
			}
			for k, r := range rounds {
				got, _ := d.drive(t, r)
				if got != want {
					t.Errorf("resumed from round %d:\n got %s\nwant %s", k+1, got, want)
				}
			}
		})
	}
}

// callerFlow calls pair in a loop; pair calls one in an all-free chain
// of a step, a call and an ask with a validate rule.
const callerFlow = `
name: caller
description: Calls pair three times.
nodes:
  - set: {i: 0}
  - id: again
    set: {i: "{{ i + 1 }}"}
  - id: p
    call: pair
    with: {n: "{{ i }}"}
  - branch:
      - if: i < 3
        then: again
  - return: "{{ p }}"
`

const pairFlow = `
name: pair
description: A step, a call and an ask.
expose: false
input:
  type: object
  properties:
    n: {type: integer}
nodes:
  - id: s
    step: test.echo
    with: {n: "{{ input.n }}"}
  - id: first
    call: one
    with: {label: "first {{ s.n }}"}
  - id: second
    ask: "Second of {{ input.n }} after {{ first }}?"
    form:
      v: {type: string}
    validate:
      - rule: second.content.v != "bad"
        message: not bad
  - return: "{{ first }} / {{ second.content.v }}"
`

const oneFlow = `
name: one
description: One ask.
expose: false
input:
  type: object
  properties:
    label: {type: string}
nodes:
  - id: q
    ask: "{{ input.label }}?"
    form:
      v: {type: string}
    validate:
      - rule: q.content.v != "bad"
        message: not bad
  - return: "{{ q.content.v }}"
`

const confirmFlow = `
name: delete_file
description: Deletes a file after the user confirms.
input:
  type: object
  properties:
    path: {type: string}
  required: [path]
nodes:
  - id: size
    step: test.echo
    with: {bytes: 2048, path: "{{ input.path }}"}
  - id: confirm
    ask: "Delete {{ input.path }} ({{ size.bytes }} bytes)?"
    form:
      proceed: {type: boolean, default: false}
    required: [proceed]
  - branch:
      - if: confirm.accepted && confirm.content.proceed
        then: delete
      - else: kept
  - id: delete
    step: test.echo
    with: {deleted: "{{ input.path }}"}
  - return: "Deleted {{ delete.deleted }}"
  - id: kept
    return: "Kept {{ input.path }}"
`

const groupFlow = `
name: groups
description: Three questions in one round, three times.
nodes:
  - set: {i: 0, acc: ""}
  - id: group
    all:
      - id: a
        ask: "A {{ i }}?"
        form: {v: {type: string}}
        required: [v]
        validate:
          - {rule: a.content.v != "bad", message: not that one}
      - id: m
        sample:
          messages: [{role: user, text: "Say {{ i }}"}]
      - id: r
        roots: {}
  - set: {i: "{{ i + 1 }}", acc: "{{ acc }}{{ a.content.v }}/{{ m.text }}/{{ r.roots[0].uri }},"}
  - branch:
      - if: i < 3
        then: group
  - return: "{{ acc }}"
`

const stepsFlow = `
name: steps
description: Steps between questions.
nodes:
  - id: a
    ask: "A?"
    form: {v: {type: string}}
  - id: s1
    step: test.echo
    with: {from: "{{ a.action }}"}
  - id: b
    ask: "B after {{ s1.from }}?"
    form: {v: {type: string}}
  - id: s2
    step: test.echo
    with: {from: "{{ b.action }}"}
  - id: c
    ask: "C after {{ s2.from }}?"
    form: {v: {type: string}}
  - return: "{{ a.action }} {{ b.action }} {{ c.action }} {{ s1.from }} {{ s2.from }}"
`

// tenAsks is a flow of ten form questions.
func tenAsks() string {
	var b strings.Builder
	b.WriteString("name: ten\ndescription: Ten questions.\nnodes:\n")
	for i := 1; i <= 10; i++ {
		fmt.Fprintf(&b, "  - id: q%d\n    ask: \"Question %d?\"\n    form:\n      v: {type: string, maxLength: 64}\n    required: [v]\n", i, i)
	}
	b.WriteString("  - return: \"")
	for i := 1; i <= 10; i++ {
		fmt.Fprintf(&b, "{{ q%d.content.v }} ", i)
	}
	b.WriteString("\"\n")
	return b.String()
}

// loopFlow asks one question n times in a loop, with a validate rule.
func loopFlow(n int) string {
	return fmt.Sprintf(`
name: loop
description: Asks in a loop.
nodes:
  - set: {i: 0, acc: ""}
  - id: q
    ask: "Answer {{ i }}?"
    form: {v: {type: string}}
    required: [v]
    validate:
      - rule: q.content.v != "bad"
        message: not that one
  - set: {i: "{{ i + 1 }}", acc: "{{ acc }}{{ q.content.v }},"}
  - branch:
      - if: i < %d
        then: q
  - return: "{{ acc }}"
`, n)
}

// TestConcurrentRuns runs one Program from many goroutines at once; with
// -race it checks that a Program is safe for concurrent use.
func TestConcurrentRuns(t *testing.T) {
	clk := &clock{t: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)}
	src := `
name: defaults
description: Defaults shared by every run.
input:
  type: object
  properties:
    tags: {type: array, default: [a, b]}
    limits: {type: object, default: {n: 1}}
nodes:
  - id: q
    ask: "Pick"
    form:
      many: {type: array, items: {type: string, enum: [x, y]}, default: [x]}
      n: {type: number, default: 2}
  - return: "{{ input.tags }} {{ input.limits }} {{ q.content.many }} {{ q.content.n * 1.5 }}"
`
	p := compile(t, "defaults.yaml", src, testOptions{Codec: testCodec(t, clk), Now: clk.now})
	d := &driver{p: p, args: `{}`, answer: func(string, int) string { return `{"action":"accept","content":{}}` }}
	want, _ := d.drive(t, round{})
	done := make(chan string, 8)
	for i := 0; i < cap(done); i++ {
		go func() {
			got, _ := d.drive(t, round{})
			done <- got
		}()
	}
	for i := 0; i < cap(done); i++ {
		if got := <-done; got != want {
			t.Errorf("concurrent run: got %s, want %s", got, want)
		}
	}
}
