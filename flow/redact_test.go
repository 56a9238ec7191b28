package flow

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/flowserve/flowserve/actions"
	"github.com/flowserve/flowserve/flow/state"
	"github.com/flowserve/flowserve/internal/jsonx"
)

// escapedSecrets are secrets with characters JSON escapes or encodes as
// more than one byte, beside a plain one.
var escapedSecrets = []struct{ name, secret string }{
	{"plain", "s3cr3t-token-value"},
	{"quote and backslash", `k"e\y-42`},
	{"unicode", "pässwörd✓-日本"},
	{"html characters", "<tag>&amp;"},
	{"control characters", "line\nbreak\ttab\x01"},
	{"line separator", "sep\u2028arator"},
}

func TestRedactorJSON(t *testing.T) {
	r := Values{Secrets: map[string]string{"a": "tok", "b": `q"uo\te`, "c": "pä✓", "num": "4242", "list": "1,2"}}.Redactor()
	red := Redacted
	tests := []struct {
		name, raw, want string
		same            bool // want is raw itself, not a copy
	}{
		{"no secret", `{"a":"b","n":1}`, `{"a":"b","n":1}`, true},
		{"a value", `{"a":"x tok y","n":1.5}`, `{"a":"x ` + red + ` y","n":1.5}`, false},
		{"a bare string", `"tok"`, `"` + red + `"`, false},
		{"escaped characters", `{"k":"say q\"uo\\te!"}`, `{"k":"say ` + red + `!"}`, false},
		{"unicode", `["pä✓","pä"]`, `["` + red + `","pä"]`, false},
		{"a key", `{"tok":1,"z":true}`, `{"` + red + `":1,"z":true}`, false},
		{"nested", `{"a":[{"b":["x","tok"]}],"c":null}`, `{"a":[{"b":["x","` + red + `"]}],"c":null}`, false},
		{"keys redacted to one", `{"a-tok":1,"a-pä✓":2}`, `{"a-` + red + `":1}`, false},
		{"only in a number", `{"n":424242,"s":"42"}`, `{"n":424242,"s":"42"}`, true},
		{"only between values", `{"l":[1,2],"s":"1"}`, `{"l":[1,2],"s":"1"}`, true},
		{"split over strings", `["t","ok","x","tok"]`, `["t","ok","x","` + red + `"]`, false},
		{"numbers kept exactly", `{"f":1e+21,"g":0.1,"i":-9007199254740993,"s":"tok"}`, `{"f":1e+21,"g":0.1,"i":-9007199254740993,"s":"` + red + `"}`, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			raw := []byte(tc.raw)
			got, err := r.JSON(raw)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("JSON(%s) = %s, want %s", tc.raw, got, tc.want)
			}
			if same := len(got) > 0 && &got[0] == &raw[0]; same != tc.same {
				t.Errorf("JSON returned the input itself: %v, want %v", same, tc.same)
			}
			if !json.Valid(got) {
				t.Errorf("JSON returned invalid JSON %s", got)
			}
		})
	}
	if _, err := r.JSON([]byte(`{"a":"tok"`)); err == nil {
		t.Error("JSON accepted a truncated document holding a secret")
	}
}

// TestRedactorJSONEscapes redacts secrets JSON escapes from outputs the
// engine encodes, and finds nothing to do in outputs without them.
func TestRedactorJSONEscapes(t *testing.T) {
	for _, tc := range escapedSecrets {
		t.Run(tc.name, func(t *testing.T) {
			r := Values{Secrets: map[string]string{"s": tc.secret}}.Redactor()
			out := map[string]any{"echo": "got " + tc.secret + "!", tc.secret: []any{tc.secret, int64(7)}, "other": "fine"}
			raw, err := marshal(out)
			if err != nil {
				t.Fatal(err)
			}
			got, err := r.JSON(raw)
			if err != nil {
				t.Fatal(err)
			}
			v, err := jsonx.Parse(got)
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]any{"echo": "got " + Redacted + "!", Redacted: []any{Redacted, int64(7)}, "other": "fine"}
			if b, _ := marshal(want); !bytes.Equal(got, b) {
				t.Errorf("JSON = %s, want %s", got, b)
			}
			if strings.Contains(string(got), tc.secret) || strings.Contains(v.(map[string]any)["echo"].(string), tc.secret) {
				t.Errorf("JSON left the secret in %s", got)
			}
			clean, _ := marshal(map[string]any{"echo": "nothing here", "n": int64(1)})
			if same, _ := r.JSON(clean); &same[0] != &clean[0] {
				t.Errorf("JSON re-encoded %s, which holds no secret", clean)
			}
		})
	}
}

// TestRedactorJSONInvalidUTF8 redacts a secret that is not valid UTF-8
// as an output's string holds it: each invalid byte as U+FFFD.
func TestRedactorJSONInvalidUTF8(t *testing.T) {
	const secret = "ab\xffcd"
	r := Values{Secrets: map[string]string{"s": secret}}.Redactor()
	raw, err := marshal(map[string]any{"k": "x" + secret + "y"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := r.JSON(raw)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"k":"x` + Redacted + `y"}`; string(got) != want {
		t.Errorf("JSON(%s) = %s, want %s", raw, got, want)
	}
}

// TestRedactorJSONFree checks that redaction costs no allocation when
// there are no secrets, or none occurs in the output.
func TestRedactorJSONFree(t *testing.T) {
	raw := []byte(`{"body":"a long response body with nothing secret in it","status":200}`)
	var none *Redactor
	some := Values{Secrets: map[string]string{"a": "tok-1", "b": `q"uo\te`}}.Redactor()
	for name, r := range map[string]*Redactor{"nil": none, "no occurrence": some} {
		allocs := testing.AllocsPerRun(100, func() {
			if out, err := r.JSON(raw); err != nil || &out[0] != &raw[0] {
				t.Fatalf("JSON = %s, %v", out, err)
			}
		})
		if allocs != 0 {
			t.Errorf("%s: %v allocations per output", name, allocs)
		}
	}
}

// echoFlow gives a secret to a step that echoes it in its output, binds
// the output in a question (so that a state is sealed with the output in
// its journal), and returns it.
const echoFlow = `name: echo
description: Echoes the key.
secrets:
  api_key: {description: API key}
nodes:
  - id: who
    step: test.key
    with: {key: "{{ secrets.api_key }}"}
  - id: confirm
    ask: "Use {{ who.key }} ({{ who.n }})?"
    form:
      ok: {type: boolean}
  - return: "key {{ who.key }}; {{ who.echo }}; {{ who.plain }}"
`

// plainFlow is echoFlow with the key from the arguments: no secret.
const plainFlow = `name: plain
description: Echoes the key.
input:
  type: object
  properties:
    key: {type: string}
nodes:
  - id: who
    step: test.key
    with: {key: "{{ input.key }}"}
  - id: confirm
    ask: "Use {{ who.key }} ({{ who.n }})?"
    form:
      ok: {type: boolean}
  - return: "key {{ who.key }}; {{ who.echo }}; {{ who.plain }}"
`

// keyRegistry registers test.key, which echoes the key it is given: in a
// string its schema constrains (a redacted key no longer matches the
// pattern), and inside a longer one.
func keyRegistry(t *testing.T) *actions.Registry {
	t.Helper()
	reg := actions.NewRegistry()
	err := reg.Register(actions.Spec{
		Name: "test.key", Summary: "echoes its key",
		Input: map[string]any{"type": "object", "properties": map[string]any{"key": map[string]any{"type": "string"}}},
		Output: map[string]any{"type": "object", "required": []any{"key"}, "properties": map[string]any{
			"key":  map[string]any{"type": "string", "pattern": `^[^\[\]]+$`},
			"n":    map[string]any{"type": "integer"},
			"echo": map[string]any{"type": "string"}, "plain": map[string]any{"type": "string"}}},
		Func: func(ctx context.Context, in map[string]any) (any, error) {
			key, _ := in["key"].(string)
			return map[string]any{"key": key, "n": 42, "echo": "got " + key + " twice: " + key, "plain": "nothing secret"}, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

// runTwice runs the first round of p with args, checks its question's
// message, then answers it and returns the journal of the sealed state
// between them and the final text.
func runTwice(t *testing.T, p *testProgram, args, message string) ([]state.Entry, string) {
	t.Helper()
	ctx := context.Background()
	req := &Request{Arguments: []byte(args), Client: Client{Form: true}}
	res, err := p.Run(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if res.Input == nil {
		t.Fatalf("round 1 did not ask: %+v", res)
	}
	if got := res.Input.Requests["confirm"].Message; got != message {
		t.Errorf("the question reads %q, want %q", got, message)
	}
	st, err := p.e.codec.OpenUnbound(res.Input.State)
	if err != nil {
		t.Fatal(err)
	}
	req.State = res.Input.State
	req.Responses = map[string]json.RawMessage{"confirm": json.RawMessage(`{"action":"accept","content":{"ok":true}}`)}
	res, err = p.Run(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if res.Complete == nil || res.Complete.IsError {
		t.Fatalf("round 2: %+v", res)
	}
	return st.Journal, blockText(res.Complete.Content[0]).(string)
}

func TestStepOutputRedacted(t *testing.T) {
	clk := &clock{t: time.Date(2026, 7, 28, 0, 0, 0, 0, time.UTC)}
	for _, tc := range escapedSecrets {
		t.Run(tc.name, func(t *testing.T) {
			p := compile(t, "echo.yaml", echoFlow, testOptions{Actions: keyRegistry(t), Codec: testCodec(t, clk), Now: clk.now,
				Values: Values{Secrets: map[string]string{"api_key": tc.secret}}})
			journal, text := runTwice(t, p, `{}`, "Use "+Redacted+" (42)?")
			want := `{"echo":"got ` + Redacted + ` twice: ` + Redacted + `","key":"` + Redacted + `","n":42,"plain":"nothing secret"}`
			if len(journal) != 1 || string(journal[0].Value) != want {
				t.Fatalf("journal %+v, want the step's redacted output %s", journal, want)
			}
			quoted := jsonx.AppendString(nil, tc.secret, false)
			if bytes.Contains(journal[0].Value, []byte(tc.secret)) || bytes.Contains(journal[0].Value, quoted[1:len(quoted)-1]) {
				t.Errorf("the journal holds the secret: %s", journal[0].Value)
			}
			// Round 2 replays the journaled output: the same value.
			if want := "key " + Redacted + "; got " + Redacted + " twice: " + Redacted + "; nothing secret"; text != want {
				t.Errorf("the result reads %q, want %q", text, want)
			}
		})
	}
}

// TestStepOutputWithoutSecretUnchanged: an output that holds no secret
// is journaled as the action gave it, with secrets on the engine or none.
func TestStepOutputWithoutSecretUnchanged(t *testing.T) {
	clk := &clock{t: time.Date(2026, 7, 28, 0, 0, 0, 0, time.UTC)}
	const want = `{"echo":"got k\"\\ü twice: k\"\\ü","key":"k\"\\ü","n":42,"plain":"nothing secret"}`
	for name, values := range map[string]Values{
		"no secrets":          {},
		"a secret not echoed": {Secrets: map[string]string{"other": "zz-not-here"}},
		"a secret in numbers": {Secrets: map[string]string{"other": "42"}},
	} {
		t.Run(name, func(t *testing.T) {
			p := compile(t, "plain.yaml", plainFlow, testOptions{Actions: keyRegistry(t), Codec: testCodec(t, clk), Now: clk.now, Values: values})
			journal, text := runTwice(t, p, `{"key":"k\"\\ü"}`, `Use k"\ü (42)?`)
			if len(journal) != 1 || string(journal[0].Value) != want {
				t.Errorf("journal %+v, want the step's output %s", journal, want)
			}
			if want := `key k"\ü; got k"\ü twice: k"\ü; nothing secret`; text != want {
				t.Errorf("the result reads %q, want %q", text, want)
			}
		})
	}
}

// TestCalleeStepOutputRedacted: a called flow's step runs on the same
// path, so what it echoes is redacted in the callee's result as well.
func TestCalleeStepOutputRedacted(t *testing.T) {
	const secret = `k"e\y-42`
	const callee = `name: lookup
description: Looks the key up.
expose: false
secrets:
  api_key: {description: API key}
nodes:
  - id: who
    step: test.key
    with: {key: "{{ secrets.api_key }}"}
  - return: "{{ who.echo }}"
`
	const caller = `name: tool
description: Calls lookup.
nodes:
  - id: look
    call: lookup
  - return: "looked: {{ look }}"
`
	progs := compileSet(t, map[string]string{"lookup.yaml": callee, "tool.yaml": caller}, testOptions{Actions: keyRegistry(t)})
	e, err := NewEngine(EngineOptions{Values: Values{Secrets: map[string]string{"api_key": secret}}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := e.Run(context.Background(), progs["tool.yaml"], &Request{})
	if err != nil {
		t.Fatal(err)
	}
	if text := blockText(res.Complete.Content[0]).(string); text != "looked: got "+Redacted+" twice: "+Redacted {
		t.Errorf("the result reads %q", text)
	}
}
