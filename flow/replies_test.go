package flow

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/flowserve/flowserve/replies"
)

// TestFinalRoundRetried checks DESIGN §4: a client that lost the final
// reply and sends the final round again gets the same result, and the
// final step does not run again; other answers to the same state run.
func TestFinalRoundRetried(t *testing.T) {
	clk := &clock{t: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)}
	cnt := &counters{}
	src := `
name: charge
description: Charges after a confirmation.
nodes:
  - id: ok
    ask: "Charge?"
    form: {yes: {type: boolean}}
  - id: charge
    step: test.count
    with: {key: charge}
  - return: "charged (call {{ charge.n }}, answer {{ ok.content.yes }})"
`
	store := replies.NewMemory(0, clk.now)
	p := compile(t, "charge.yaml", src, Options{Actions: testRegistry(t, cnt), Codec: testCodec(t, clk), Now: clk.now, Replies: store})
	ctx := context.Background()
	first, err := p.Run(ctx, &Request{Client: Client{Form: true}})
	if err != nil {
		t.Fatal(err)
	}
	final := &Request{
		State:     first.Input.State,
		Client:    Client{Form: true},
		Responses: map[string]json.RawMessage{"ok": json.RawMessage(`{"action":"accept","content":{"yes":true}}`)},
	}
	text := func(r *Result) string { return r.Complete.Content[0]["text"].(string) }
	a, err := p.Run(ctx, final)
	if err != nil {
		t.Fatal(err)
	}
	// The same answers, re-encoded with other spacing and key order.
	again := *final
	again.Responses = map[string]json.RawMessage{"ok": json.RawMessage(`{ "content": {"yes": true}, "action": "accept" }`)}
	b, err := p.Run(ctx, &again)
	if err != nil {
		t.Fatal(err)
	}
	if a.Replayed || !b.Replayed || text(a) != text(b) || b.Round != a.Round {
		t.Fatalf("first %q (replayed %v), retry %q (replayed %v)", text(a), a.Replayed, text(b), b.Replayed)
	}
	if n := cnt.get("count:charge"); n != 1 {
		t.Fatalf("the final step ran %d times, want 1", n)
	}
	// Other answers to the same state are a different final round.
	other := *final
	other.Responses = map[string]json.RawMessage{"ok": json.RawMessage(`{"action":"accept","content":{"yes":false}}`)}
	c, err := p.Run(ctx, &other)
	if err != nil {
		t.Fatal(err)
	}
	if c.Replayed || text(c) != "charged (call 2, answer false)" {
		t.Fatalf("other answers: %q (replayed %v)", text(c), c.Replayed)
	}
	// The stored reply lives as long as the state: after expiry the state
	// itself is refused.
	clk.add(2 * time.Hour)
	if _, err := p.Run(ctx, final); !IsInvalidParams(err) {
		t.Fatalf("after expiry: %v, want an invalid-params error", err)
	}
}
