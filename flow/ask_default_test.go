package flow

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/flowserve/flowserve/dsl"
)

// templatedDefaults is a form whose defaults are templates: whole
// expressions keep their type, text is a string, and a rendered value
// that breaks its property's rules is left out.
const templatedDefaults = `
name: prefill
description: Prefills a form from the arguments.
input:
  type: object
  properties:
    email: {type: string}
    n: {type: integer}
nodes:
  - id: q
    ask: "Check these"
    form:
      email: {type: string, format: email, default: "{{ input.email }}"}
      n: {type: integer, minimum: 1, default: "{{ input.n + 1 }}"}
      ratio: {type: number, default: "{{ input.n }}"}
      greet: {type: string, default: "Hi {{ input.email }}"}
      big: {type: integer, maximum: 3, default: "{{ input.n * 10 }}"}
      fixed: {type: string, default: plain}
  - return:
      structured: "{{ q.content }}"
`

// askDefaults runs the first round of the prefill flow with args and
// returns the properties of the form it asks.
func askDefaults(t *testing.T, p *testProgram, args string) (map[string]any, json.RawMessage) {
	t.Helper()
	res, err := p.Run(context.Background(), &Request{Arguments: json.RawMessage(args), Client: Client{Form: true}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Input == nil {
		t.Fatalf("the flow did not ask: %+v", res.Complete)
	}
	q := res.Input.Requests["q"]
	props, _ := q.Schema["properties"].(map[string]any)
	return props, q.SchemaJSON
}

func TestTemplatedDefaults(t *testing.T) {
	clk := &clock{t: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)}
	p := compile(t, "prefill.yaml", templatedDefaults, testOptions{Codec: testCodec(t, clk), Now: clk.now})
	props, raw := askDefaults(t, p, `{"email": "ann@example.com", "n": 2}`)
	want := map[string]any{"email": "ann@example.com", "n": int64(3), "ratio": float64(2), "greet": "Hi ann@example.com", "fixed": "plain"}
	for name, prop := range props {
		d, has := prop.(map[string]any)["default"]
		w, wanted := want[name]
		if has != wanted || has && !jsonEqualForTest(d, w) {
			t.Errorf("default of %s = %#v (%v), want %#v (%v)", name, d, has, w, wanted)
		}
	}
	var sent struct {
		Properties map[string]map[string]any `json:"properties"`
	}
	if err := json.Unmarshal(raw, &sent); err != nil {
		t.Fatal(err)
	}
	if d := sent.Properties["n"]["default"]; d != 3.0 {
		t.Errorf("SchemaJSON: default of n = %#v, want the number 3", d)
	}
	if _, has := sent.Properties["big"]["default"]; has || strings.Contains(string(raw), "{{") {
		t.Errorf("SchemaJSON sends a default that breaks its property, or a template: %s", raw)
	}

	// A value that breaks the property's format is left out, not sent.
	props, _ = askDefaults(t, p, `{"email": "nobody", "n": 2}`)
	if d, has := props["email"].(map[string]any)["default"]; has {
		t.Errorf("default of email = %#v, want none (nobody is not an email address)", d)
	}

	// An accepted answer that leaves the properties out gets the rendered
	// defaults, checked like any answer.
	d := &driver{p: p, args: `{"email": "ann@example.com", "n": 2}`, answer: func(string, int) string {
		return `{"action":"accept","content":{}}`
	}}
	got, _ := d.drive(t, round{})
	for _, w := range []string{`"email":"ann@example.com"`, `"n":3`, `"greet":"Hi ann@example.com"`, `"ratio":2`} {
		if !strings.Contains(got, w) {
			t.Errorf("result %s lacks %s", got, w)
		}
	}
	if strings.Contains(got, `"big"`) {
		t.Errorf("result %s has the default that breaks its property", got)
	}
}

// jsonEqualForTest compares two JSON-like values by their encoding.
func jsonEqualForTest(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// TestTemplatedDefaultsFingerprint checks that a templated default's
// text counts in the node's fingerprint, and what it renders to does
// not.
func TestTemplatedDefaultsFingerprint(t *testing.T) {
	fp := func(src string) uint64 {
		f, ds := dsl.Parse("f.yaml", []byte(src))
		if ds.HasErrors() {
			t.Fatal(ds.Err())
		}
		return f.Nodes[0].Fingerprint()
	}
	a := fp(templatedDefaults)
	if b := fp(strings.Replace(templatedDefaults, "{{ input.n + 1 }}", "{{ input.n + 2 }}", 1)); a == b {
		t.Error("changing a default's template keeps the fingerprint")
	}
	if b := fp(strings.Replace(templatedDefaults, "email: {type: string}", "email: {type: string, title: E}", 1)); a != b {
		t.Error("changing the input schema changes the question's fingerprint")
	}
}
