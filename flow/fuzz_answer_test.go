package flow

import (
	"context"
	"encoding/json"
	"errors"
	"github.com/flowserve/flowserve/internal/jsonx"
	"strings"
	"testing"
	"time"
)

// answersFlow asks for every kind of form field, then a confirmation whose
// message quotes the first answer, so an accepted answer that got lost
// would show.
const answersFlow = `
name: answers
description: Takes one answer of every form field kind.
nodes:
  - id: details
    ask: "Tell us about you."
    form:
      name: {type: string, minLength: 2, maxLength: 40}
      email: {type: string, format: email}
      plan:
        type: string
        oneOf:
          - {const: solo, title: Solo}
          - {const: team, title: Team}
        default: solo
      seats: {type: integer, minimum: 1, maximum: 50, default: 1}
      ratio: {type: number, minimum: 0, maximum: 1}
      tags:
        type: array
        items: {type: string, enum: [a, b, c]}
        minItems: 1
      ok: {type: boolean, default: false}
    required: [name]
    validate:
      - rule: details.content.plan != "team" || details.content.seats >= 5
        message: "the team plan needs 5 seats, not {{ details.content.seats }}"
    retries: 1
  - branch:
      - if: "!details.accepted"
        then: declined
  - id: confirm
    ask: "Confirm [{{ details.content.name }}] on {{ details.content.plan }} with {{ details.content.seats }} seat(s)?"
    form:
      yes: {type: boolean}
  - return: "{{ details.content.name }}: {{ confirm.action }}"
  - id: declined
    return: "declined: {{ details.action }}"
`

// FuzzInputResponses runs a round of a fixed flow with a fuzzed
// inputResponses entry: on a valid state from the first round, or on a
// first call without state. The round must not panic and must end in one
// of the documented ways: a *ResponseError (JSON-RPC -32602) exactly when
// parseAnswer refuses the entry, or a result: the question asked again
// (missing or invalid answer), the next question quoting the accepted
// answer, or the declined result.
func FuzzInputResponses(f *testing.F) {
	for _, raw := range []string{
		`{"action":"accept","content":{"name":"Ada"}}`,
		`{"action":"accept","content":{"name":"Ada","email":"ada@example.com","plan":"team","seats":5,"ratio":0.5,"tags":["a","c"],"ok":true}}`,
		`{"action":"accept","content":{"name":"Ada","plan":"team","seats":2}}`,
		`{"action":"accept","content":{"name":"A"}}`,
		`{"action":"accept","content":{"name":"Ada","seats":1.0}}`,
		`{"action":"accept","content":{"name":"Ada","seats":1.5}}`,
		`{"action":"accept","content":{"name":"Ada","seats":1e2}}`,
		`{"action":"accept","content":{"name":"Ada","seats":-0}}`,
		`{"action":"accept","content":{"name":"Ada","seats":12345678901234567890}}`,
		`{"action":"accept","content":{"name":"Ada","tags":[]}}`,
		`{"action":"accept","content":{"name":"Ada","tags":["z"]}}`,
		`{"action":"accept","content":{"name":"Ada","extra":{"deep":[1,2,{"x":null}]}}}`,
		`{"action":"accept","content":{"name":"\u00e9\u0000\ud800"}}`,
		`{"action":"accept","content":{"name":"{{ input }}"}}`,
		`{"action":"accept","content":null}`,
		`{"action":"accept","content":[]}`,
		`{"action":"accept"}`,
		`{"action":"decline"}`,
		`{"action":"cancel","content":{"name":"x"}}`,
		`{"action":"ACCEPT"}`,
		`{"action":""}`,
		`{"action":1}`,
		`{}`, `[]`, `null`, `"accept"`, `1`, `true`, ``, `{`, `{"action":"accept",}`,
		`{"action":"accept","action":"decline"}`,
		`{"action":"accept","content":{"name":"Ada","name":"Bob"}}`,
		`  {"content":{"name":"Ada"},"action":"accept"}  `,
		"\xff\xfe",
	} {
		f.Add([]byte(raw), "details", true)
		f.Add([]byte(raw), "details", false)
	}
	f.Add([]byte(`{"action":"accept","content":{"yes":true}}`), "confirm", true)
	f.Add([]byte(`{"action":"accept","content":{"name":"Ada"}}`), "unknown", true)

	clk := &clock{t: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)}
	p := compile(f, "answers.yaml", answersFlow, testOptions{Codec: testCodec(f, clk), Now: clk.now})
	ctx := context.Background()
	client := Client{Form: true}
	first, err := p.Run(ctx, &Request{Client: client})
	if err != nil || first.Input == nil {
		f.Fatalf("first round: %+v, %v", first, err)
	}
	state := first.Input.State

	f.Fuzz(func(t *testing.T, raw []byte, key string, withState bool) {
		req := &Request{Client: client, Responses: map[string]json.RawMessage{key: raw}}
		if withState {
			req.State = state
		}
		_ = replyKeyOf(req.State, req.Responses) // the reply store's digest takes any answer
		var content map[string]any
		action, parseErr := Action(""), error(&ResponseError{Key: key, Reason: "it is not valid JSON"})
		if v, err := jsonx.Parse(raw); err == nil {
			action, content, parseErr = parseElicitResult(key, v)
		}
		if parseErr != nil {
			var re *ResponseError
			if action != "" || !errors.As(parseErr, &re) || re.Key != key || re.Reason == "" {
				t.Fatalf("parseElicitResult(%q) = %q, %v", raw, action, parseErr)
			}
		} else if action != Accept && action != Decline && action != Cancel {
			t.Fatalf("parseElicitResult(%q): action %q", raw, action)
		}

		res, err := p.Run(ctx, req)
		used := key == "details" // the only question pending, with or without state
		if err != nil {
			var re *ResponseError
			if !used || parseErr == nil || !errors.As(err, &re) || !IsInvalidParams(err) {
				t.Fatalf("answer %q to %q: error %v (%T); parseElicitResult said %v", raw, key, err, err, parseErr)
			}
			return
		}
		if used && parseErr != nil {
			t.Fatalf("answer %q: a result although parseElicitResult refused it (%v)", raw, parseErr)
		}
		if (res.Complete == nil) == (res.Input == nil) {
			t.Fatalf("answer %q: want exactly one of a complete result and questions: %+v", raw, res)
		}
		if res.Complete != nil {
			text, _ := blockText(res.Complete.Content[0]).(string)
			if !used || action == Accept || text != "declined: "+string(action) {
				t.Fatalf("answer %q to %q: complete %q", raw, key, text)
			}
			return
		}
		if len(res.Input.Requests) != 1 || res.Input.State == "" {
			t.Fatalf("answer %q: questions %+v", raw, res.Input)
		}
		if q := res.Input.Requests["confirm"]; q != nil {
			// Accepted: the next question quotes the name given.
			name, _ := content["name"].(string)
			if !used || action != "accept" || !strings.Contains(q.Message, "["+name+"]") {
				t.Fatalf("answer %q: confirm asked as %q", raw, q.Message)
			}
			return
		}
		q := res.Input.Requests["details"]
		if q == nil {
			t.Fatalf("answer %q: unexpected questions %+v", raw, res.Input.Requests)
		}
		// Asked again: not sent to this question, or not accepted (then the
		// reason is in the message).
		if used && (action != "accept" || q.Message == first.Input.Requests["details"].Message) {
			t.Fatalf("answer %q: asked again as %q without a reason", raw, q.Message)
		}
	})
}
