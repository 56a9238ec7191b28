package flow

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/flowserve/flowserve/internal/content"
	"github.com/flowserve/flowserve/internal/jsonx"
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
	p := compile(t, "charge.yaml", src, testOptions{Actions: testRegistry(t, cnt), Codec: testCodec(t, clk), Now: clk.now, Replies: store})
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
	text := func(r *Result) string { return blockText(r.Complete.Content[0]).(string) }
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

// replyKeyDecoded is replyKeyOf as it was first written: each answer
// decoded and encoded again. Keys in reply stores must not change.
func replyKeyDecoded(stateToken string, responses map[string]json.RawMessage) [32]byte {
	h := sha256.New()
	h.Write([]byte(stateToken))
	h.Write([]byte{0})
	ids := make([]string, 0, len(responses))
	for id := range responses {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		h.Write([]byte(id))
		h.Write([]byte{0})
		if v, err := jsonx.Parse(responses[id]); err == nil {
			if b, err := marshal(v); err == nil {
				h.Write(b)
			}
		} else {
			h.Write(responses[id])
		}
		h.Write([]byte{0})
	}
	var k [32]byte
	h.Sum(k[:0])
	return k
}

func TestReplyKeyUnchanged(t *testing.T) {
	answers := []string{
		`{"action":"accept","content":{"topic":"Planning","attendees":4,"day":"2026-01-02"}}`,
		` {"content" : {"day":"2026-01-02", "attendees":4.0, "topic":"Plann\u0069ng"}, "action":"accept"}`,
		`{"action":"decline"}`, `{"a":1,"a":2}`, `not json`, `{"x":"<&>\u2028"}`, `[1,2]`, ``,
		`{"action":"accept","content":{"tags":["a","b"],"n":1e300,"f":0.5}}`,
	}
	for _, a := range answers {
		for _, b := range answers {
			for _, responses := range []map[string]json.RawMessage{
				nil, {}, {"q": json.RawMessage(a)}, {"q": json.RawMessage(a), "p": json.RawMessage(b)},
				{"q": json.RawMessage(a), "p": json.RawMessage(b), "z": json.RawMessage(a), "a": nil, "m": json.RawMessage(b)},
			} {
				if got, want := replyKeyOf("k1.state", responses), replyKeyDecoded("k1.state", responses); got != want {
					t.Errorf("%v: key %x, want %x", responses, got, want)
				}
			}
		}
	}
	same := replyKeyOf("s", map[string]json.RawMessage{"q": json.RawMessage(answers[0])})
	if got := replyKeyOf("s", map[string]json.RawMessage{"q": json.RawMessage(answers[1])}); got != same {
		t.Errorf("the same answer spaced and ordered otherwise has another key")
	}
}

// BenchmarkReplyKey compares the reply key of a round's answer with the
// key computed by decoding and encoding it again.
func BenchmarkReplyKey(b *testing.B) {
	state := strings.Repeat("k1.QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo", 30)
	responses := map[string]json.RawMessage{"meeting": json.RawMessage(
		`{"action":"accept","content":{"topic":"Planning the next quarter","attendees":4,"day":"2026-01-02"}}`)}
	for _, impl := range []struct {
		name string
		fn   func(string, map[string]json.RawMessage) [32]byte
	}{{"canonical", replyKeyOf}, {"decoded", replyKeyDecoded}} {
		b.Run(impl.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				impl.fn(state, responses)
			}
		})
	}
}

// TestEncodeReplyDecodesAsMarshal checks that a stored reply reads back
// as the one encoding/json made of it, its content blocks as the maps they
// are built from.
func TestEncodeReplyDecodesAsMarshal(t *testing.T) {
	for _, m := range []struct {
		content    []map[string]any
		structured any
		isError    bool
	}{
		{content: []map[string]any{{"type": "text", "text": "Booked <the> \"small\" room & more\u2028"}}},
		{content: []map[string]any{}, isError: true},
		{content: nil},
		{content: []map[string]any{nil, {"type": "image", "data": "AAAA", "mimeType": "image/png"}}},
		{content: []map[string]any{{"type": "text", "text": "{}"}}, structured: map[string]any{
			"n": int64(3), "x": 1.5, "l": []any{"a", nil, true}, "m": map[string]any{"k": "v"}}},
		{content: []map[string]any{{"type": "text", "text": "7"}}, structured: int64(7)},
	} {
		c := &ToolResult{Structured: m.structured, IsError: m.isError}
		var maps []any
		if m.content != nil {
			c.Content, maps = []mcp.Content{}, []any{}
		}
		for _, block := range m.content {
			maps = append(maps, block)
			if block == nil {
				c.Content = append(c.Content, nil)
				continue
			}
			typed, err := content.FromValue(block)
			if err != nil {
				t.Fatal(err)
			}
			c.Content = append(c.Content, typed)
		}
		for _, round := range []int{1, 12} {
			want, err := json.Marshal(storedReply{Round: round, Content: maps, Structured: c.Structured, IsError: c.IsError})
			if err != nil {
				t.Fatal(err)
			}
			got, err := encodeReply(round, c)
			if err != nil {
				t.Fatal(err)
			}
			var a, b storedReply
			if err := json.Unmarshal(got, &a); err != nil {
				t.Fatalf("%s: %v", got, err)
			}
			if err := json.Unmarshal(want, &b); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(a, b) {
				t.Errorf("%s reads back as %+v, want %+v (from %s)", got, a, b, want)
			}
		}
	}
}
