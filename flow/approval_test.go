package flow

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// approvalFlow asks the caller an amount, then asks a manager to approve
// it, then says who approved.
const approvalFlow = `
name: refund
description: refunds after a manager approves
input:
  type: object
  properties:
    manager: {type: string}
nodes:
  - id: amount
    ask: How much?
    form:
      eur: {type: integer, minimum: 1}
    required: [eur]
  - id: approval
    ask: "Refund {{ amount.content.eur }} EUR?"
    to: "{{ input.manager }}"
    notify: {webhook: "https://hooks.example/{{ input.manager }}"}
    timeout: 24h
    on_timeout: expired
    form:
      approve: {type: boolean}
      note: {type: string, maxLength: 5}
    required: [approve]
    validate:
      - rule: "approval.content.approve || has(approval.content.note)"
        message: say why not
  - branch:
      - if: "approval.action == 'accept' && approval.content.approve"
        then: done
      - else: refused
  - id: done
    return: "approved by {{ approval.answered_by }} at {{ approval.answered_at }}"
  - id: refused
    return: "refused: {{ approval.action }}"
  - id: expired
    return: "expired {{ approval.action }} '{{ approval.answered_by }}'"
`

func TestApprovalRound(t *testing.T) {
	clk := &clock{t: time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)}
	p := compile(t, "refund.yaml", approvalFlow, testOptions{Codec: testCodec(t, clk), Now: clk.now})
	ctx := t.Context()
	args := json.RawMessage(`{"manager":"ana@example.com"}`)
	client := Client{Form: true}

	r1, err := p.Run(ctx, &Request{Arguments: args, Client: client})
	if err != nil || r1.Input == nil {
		t.Fatalf("round 1: %+v, %v", r1, err)
	}
	// The caller's answer to the approval itself is ignored: only the
	// server's page answers it.
	r2, err := p.Run(ctx, &Request{Arguments: args, Client: client, State: r1.Input.State, Responses: map[string]json.RawMessage{
		"amount":   json.RawMessage(`{"action":"accept","content":{"eur":120}}`),
		"approval": json.RawMessage(`{"action":"accept","content":{"approve":true}}`),
	}})
	if err != nil || r2.Approval == nil {
		t.Fatalf("round 2: want the approval: %+v, %v", r2, err)
	}
	ap := r2.Approval
	if ap.Node != "approval" || ap.To != "ana@example.com" || ap.Webhook != "https://hooks.example/ana@example.com" ||
		ap.Timeout != 24*time.Hour || ap.Question.Message != "Refund 120 EUR?" || ap.Question.Mode != ModeForm || ap.Run == "" {
		t.Fatalf("approval: %+v %+v", ap, ap.Question)
	}

	answer := func(state, resp string) (*Result, error) {
		return p.Run(ctx, &Request{Arguments: args, Client: client, State: state,
			Approval: &ApprovalAnswer{Node: "approval", Response: json.RawMessage(resp), By: "Ana", At: clk.now()}})
	}
	// Invalid answers are asked again, as often as the page is sent.
	for range 4 {
		r, err := answer(ap.State, `{"action":"accept","content":{"approve":false}}`)
		if err != nil || r.Approval == nil || r.Approval.Question.Rejected != "say why not" {
			t.Fatalf("invalid answer: %+v, %v", r, err)
		}
	}
	r, err := answer(ap.State, `{"action":"accept","content":{"approve":false,"note":"far too long"}}`)
	if err != nil || r.Approval == nil || !strings.Contains(r.Approval.Question.Rejected, "note") {
		t.Fatalf("schema violation: %+v, %v", r, err)
	}

	r3, err := answer(ap.State, `{"action":"accept","content":{"approve":true}}`)
	if err != nil || r3.Detached == nil {
		t.Fatalf("answer: want the state with it: %+v, %v", r3, err)
	}
	r4, err := p.Run(ctx, &Request{Arguments: args, Client: client, State: r3.Detached.State})
	if err != nil || r4.Complete == nil {
		t.Fatalf("after the answer: %+v, %v", r4, err)
	}
	if got := blockText(r4.Complete.Content[0]); got != "approved by Ana at 2026-12-02T10:00:00Z" {
		t.Errorf("result %q", got)
	}

	// A decline from the page is journaled with who declined.
	rd, err := answer(ap.State, `{"action":"decline"}`)
	if err != nil || rd.Detached == nil {
		t.Fatalf("decline: %+v, %v", rd, err)
	}
	r5, err := p.Run(ctx, &Request{Arguments: args, Client: client, State: rd.Detached.State})
	if err != nil || r5.Complete == nil || blockText(r5.Complete.Content[0]) != "refused: decline" {
		t.Fatalf("after the decline: %+v, %v", r5, err)
	}
}

func TestApprovalTimeout(t *testing.T) {
	clk := &clock{t: time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)}
	p := compile(t, "refund.yaml", approvalFlow, testOptions{Codec: testCodec(t, clk), Now: clk.now})
	ctx := t.Context()
	args := json.RawMessage(`{"manager":"ana"}`)
	r1, _ := p.Run(ctx, &Request{Arguments: args, Client: Client{Form: true}})
	r2, err := p.Run(ctx, &Request{Arguments: args, State: r1.Input.State, Client: Client{Form: true},
		Responses: map[string]json.RawMessage{"amount": json.RawMessage(`{"action":"accept","content":{"eur":5}}`)}})
	if err != nil || r2.Approval == nil {
		t.Fatalf("round 2: %+v, %v", r2, err)
	}
	r3, err := p.Run(ctx, &Request{Arguments: args, State: r2.Approval.State, StateTTL: 48 * time.Hour,
		Approval: &ApprovalAnswer{Node: "approval", TimedOut: true, At: clk.now()}})
	if err != nil || r3.Detached == nil {
		t.Fatalf("timeout: %+v, %v", r3, err)
	}
	r4, err := p.Run(ctx, &Request{Arguments: args, State: r3.Detached.State, StateTTL: 48 * time.Hour})
	if err != nil || r4.Complete == nil || blockText(r4.Complete.Content[0]) != "expired timeout ''" {
		t.Fatalf("after the timeout: %+v, %v", r4, err)
	}

	// An answer for a question the run does not wait for is an error.
	_, err = p.Run(ctx, &Request{Arguments: args, State: r2.Approval.State,
		Approval: &ApprovalAnswer{Node: "amount", Response: json.RawMessage(`{"action":"decline"}`)}})
	if err == nil {
		t.Fatal("an answer to another question was taken")
	}
}
