package flow

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"
)

// BenchmarkRound measures one round of a 10-question flow at rounds 1, 5
// and 10, and of a looping flow with a 100-entry journal: opening the
// state, replaying the journal, validating the answer and sealing the
// next state. state-bytes is the size of the sealed state the round
// receives (for round 1: produces).
func BenchmarkRound(b *testing.B) {
	clk := &clock{t: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)}
	opts := testOptions{Actions: testRegistry(b, &counters{}), Codec: testCodec(b, clk), Now: clk.now}
	answer := json.RawMessage(`{"action":"accept","content":{"v":"an answer of some thirty bytes"}}`)
	cases := []struct {
		name  string
		src   string
		round int
	}{
		{"ten-asks/round=1", tenAsks(), 1},
		{"ten-asks/round=5", tenAsks(), 5},
		{"ten-asks/round=10", tenAsks(), 10},
		{"loop/journal=10", counterLoop, 11},
		{"loop/journal=100", counterLoop, 101},
		{"loop/journal=250", counterLoop, 251},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			p := compile(b, "bench.yaml", tc.src, opts)
			req := &Request{Client: Client{Form: true}}
			// Drive the run to the state the benchmarked round receives.
			for r := 1; r < tc.round; r++ {
				res, err := p.Run(context.Background(), req)
				if err != nil || res.Input == nil {
					b.Fatalf("round %d: %v %+v", r, err, res)
				}
				req.State = res.Input.State
				req.Responses = map[string]json.RawMessage{}
				for id := range res.Input.Requests {
					req.Responses[id] = answer
				}
			}
			b.ReportAllocs()
			b.ResetTimer()
			var size int
			for i := 0; i < b.N; i++ {
				res, err := p.Run(context.Background(), req)
				if err != nil {
					b.Fatal(err)
				}
				if res.Input != nil {
					size = len(res.Input.State)
				}
			}
			b.StopTimer()
			if req.State != "" {
				size = len(req.State)
			}
			b.ReportMetric(float64(size), "state-bytes")
			if entries := tc.round - 1; entries > 0 {
				b.ReportMetric(float64(size)/float64(entries), "bytes/entry")
			}
		})
	}
}

// counterLoop asks one question in a loop that only counts, so the work
// of a round grows with the journal alone (loopFlow also grows a string).
const counterLoop = `
name: counter
description: Asks in a loop.
nodes:
  - set: {i: 0}
  - id: q
    ask: "Answer {{ i }}?"
    form: {v: {type: string}}
    required: [v]
  - set: {i: "{{ i + 1 }}"}
  - branch:
      - if: i < 1000
        then: q
  - return: "{{ i }}"
`

// BenchmarkCompile measures compiling a 10-question flow.
func BenchmarkCompile(b *testing.B) {
	src := tenAsks()
	opts := testOptions{Actions: testRegistry(b, &counters{})}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		compile(b, fmt.Sprintf("f%d.yaml", i%2), src, opts)
	}
}

// BenchmarkCallRound measures rounds of a flow that asks its ten
// questions through two calls of a five-question sub-flow, to compare
// with ten-asks in BenchmarkRound: round 5 runs inside the first frame,
// round 10 inside the second, after the first collapsed to its result.
func BenchmarkCallRound(b *testing.B) {
	const five = `
name: five
description: Asks five questions.
expose: false
nodes:
  - {id: q1, ask: "Question 1?", form: {v: {type: string}}, required: [v]}
  - {id: q2, ask: "Question 2?", form: {v: {type: string}}, required: [v]}
  - {id: q3, ask: "Question 3?", form: {v: {type: string}}, required: [v]}
  - {id: q4, ask: "Question 4?", form: {v: {type: string}}, required: [v]}
  - {id: q5, ask: "Question 5?", form: {v: {type: string}}, required: [v]}
  - return: "{{ q5.content.v }}"
`
	const caller = `
name: ten
description: Asks ten questions through two calls.
nodes:
  - {id: first, call: five}
  - {id: second, call: five}
  - return: "{{ first }} {{ second }}"
`
	clk := &clock{t: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)}
	opts := testOptions{Actions: testRegistry(b, &counters{}), Codec: testCodec(b, clk), Now: clk.now}
	e, err := NewEngine(EngineOptions{Codec: opts.Codec, Now: opts.Now})
	if err != nil {
		b.Fatal(err)
	}
	p := compileSet(b, map[string]string{"ten.yaml": caller, "five.yaml": five}, opts)["ten.yaml"]
	answer := json.RawMessage(`{"action":"accept","content":{"v":"an answer of some thirty bytes"}}`)
	for _, round := range []int{1, 5, 10} {
		b.Run(fmt.Sprintf("calls/round=%d", round), func(b *testing.B) {
			req := &Request{Client: Client{Form: true}}
			for r := 1; r < round; r++ {
				res, err := e.Run(context.Background(), p, req)
				if err != nil || res.Input == nil {
					b.Fatalf("round %d: %v %+v", r, err, res)
				}
				req.State = res.Input.State
				req.Responses = map[string]json.RawMessage{}
				for id := range res.Input.Requests {
					req.Responses[id] = answer
				}
			}
			b.ReportAllocs()
			b.ResetTimer()
			var size int
			for i := 0; i < b.N; i++ {
				res, err := e.Run(context.Background(), p, req)
				if err != nil {
					b.Fatal(err)
				}
				if res.Input != nil {
					size = len(res.Input.State)
				}
			}
			b.StopTimer()
			if req.State != "" {
				size = len(req.State) // as BenchmarkRound: the state the round receives
			}
			b.ReportMetric(float64(size), "state-bytes")
		})
	}
}
