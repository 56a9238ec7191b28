package flow

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/chacha20poly1305"

	"github.com/flowserve/flowserve/actions"
	"github.com/flowserve/flowserve/flow/state"
)

// settingsFlow reads a var in a message and a secret in a step's with,
// asks a question after the step (so a state is sealed with the step's
// output and the question in it), and fails through on_error with the
// step's error message.
const settingsFlow = `name: deploy
description: Deploys.
vars:
  api_base: {description: Base URL}
secrets:
  token: {description: API token}
nodes:
  - id: call
    step: test.capture
    with:
      url: "{{ vars.api_base }}/deploy"
      auth: "Bearer {{ secrets.token }}"
      fail: "{{ input.fail }}"
    on_error: failed
  - id: confirm
    ask: "Deployed to {{ vars.api_base }}; done?"
    form:
      ok: {type: boolean}
  - return: "done: {{ call.status }}"
  - id: failed
    fail: "deploy failed: {{ error }}"
`

// captureRegistry registers test.capture, which records its input in
// *got and fails, echoing its input, when asked to.
func captureRegistry(t *testing.T, got *map[string]any) *actions.Registry {
	t.Helper()
	reg := actions.NewRegistry()
	err := reg.Register(actions.Spec{
		Name: "test.capture", Summary: "records its input", Input: anyObject,
		Output: map[string]any{"type": "object", "properties": map[string]any{"status": map[string]any{"type": "string"}}},
		Func: func(ctx context.Context, in map[string]any) (any, error) {
			*got = in
			if in["fail"] == true {
				return nil, errors.New("401 from " + in["url"].(string) + " with " + in["auth"].(string))
			}
			return map[string]any{"status": "ok"}, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

// plaintext opens a sealed state the way flow/state documents its wire
// format and returns what it holds.
func plaintext(t *testing.T, key state.Key, token string) []byte {
	t.Helper()
	id, payload, ok := strings.Cut(token, ".")
	if !ok || id != key.ID {
		t.Fatalf("state %q is not sealed with key %q", token, key.ID)
	}
	raw, err := base64.RawURLEncoding.DecodeString(payload)
	if err != nil {
		t.Fatal(err)
	}
	aead, err := chacha20poly1305.New(key.Secret[:])
	if err != nil {
		t.Fatal(err)
	}
	n := chacha20poly1305.NonceSize
	plain, err := aead.Open(nil, raw[:n], raw[n:], []byte("flowserve/requestState\x01"+key.ID))
	if err != nil {
		t.Fatalf("open the state: %v", err)
	}
	return plain
}

func TestSettingsReachTheStepOnly(t *testing.T) {
	const token, base = "s3cr3t-token-value", "https://deploy.example"
	var got map[string]any
	clk := &clock{t: time.Date(2026, 7, 28, 0, 0, 0, 0, time.UTC)}
	key := state.Key{ID: "k1"}
	copy(key.Secret[:], "a test key of thirty-two bytes!!")
	ring, err := state.NewKeyRing(key)
	if err != nil {
		t.Fatal(err)
	}
	p := compile(t, "deploy.yaml", settingsFlow, testOptions{
		Actions: captureRegistry(t, &got), Codec: state.NewCodec(ring, state.Options{Now: clk.now}), Now: clk.now,
		Values: Values{Vars: map[string]string{"api_base": base, "unused": "x"}, Secrets: map[string]string{"token": token}},
	})
	ctx := context.Background()

	res, err := p.Run(ctx, &Request{Arguments: []byte(`{"fail": false}`), Client: Client{Form: true}})
	if err != nil {
		t.Fatal(err)
	}
	if got["auth"] != "Bearer "+token || got["url"] != base+"/deploy" {
		t.Errorf("the step got %v", got)
	}
	if res.Input == nil || res.Input.Requests["confirm"].Message != "Deployed to "+base+"; done?" {
		t.Fatalf("round 1: %+v", res)
	}
	plain := plaintext(t, key, res.Input.State)
	if bytes.Contains(plain, []byte(token)) {
		t.Errorf("the sealed state holds the secret: %q", plain)
	}
	if !bytes.Contains(plain, []byte(`"status":"ok"`)) {
		t.Errorf("the sealed state lacks the step's output (is this the plaintext?): %q", plain)
	}

	// A step error that echoes the secret is redacted wherever it goes:
	// the journal, error, the result.
	res, err = p.Run(ctx, &Request{Arguments: []byte(`{"fail": true}`), Client: Client{Form: true}})
	if err != nil {
		t.Fatal(err)
	}
	text := blockText(res.Complete.Content[0]).(string)
	if want := "deploy failed: 401 from " + base + "/deploy with Bearer " + Redacted; text != want {
		t.Errorf("fail text %q, want %q", text, want)
	}
}

func TestStepErrorRedactedWithoutOnError(t *testing.T) {
	var got map[string]any
	src := strings.Replace(settingsFlow, "    on_error: failed\n", "", 1)
	p := compile(t, "deploy.yaml", src, testOptions{Actions: captureRegistry(t, &got),
		Values: Values{Vars: map[string]string{"api_base": "b"}, Secrets: map[string]string{"token": "hunter22"}}})
	_, err := p.Run(context.Background(), &Request{Arguments: []byte(`{"fail": true}`)})
	var re *RunError
	if !errors.As(err, &re) || re.Node != "call" {
		t.Fatalf("err = %v, want a RunError at call", err)
	}
	if strings.Contains(err.Error(), "hunter22") || !strings.Contains(err.Error(), "Bearer "+Redacted) {
		t.Errorf("err = %v", err)
	}
}

func TestMissingValuesStopTheRun(t *testing.T) {
	var got map[string]any
	p := compile(t, "deploy.yaml", settingsFlow, testOptions{Actions: captureRegistry(t, &got),
		Values: Values{Vars: map[string]string{"api_base": ""}}})
	_, err := p.Run(context.Background(), &Request{})
	if err == nil || err.Error() != "the server has no value for var api_base and secret token, which the flow declares" {
		t.Errorf("err = %v", err)
	}
	if got != nil {
		t.Errorf("the step ran with %v", got)
	}
	mv, ms := (Values{Secrets: map[string]string{"token": "t"}}).Missing(p.File())
	if len(mv) != 1 || mv[0].Name != "api_base" || len(ms) != 0 {
		t.Errorf("Missing = %v, %v", mv, ms)
	}
}

func TestSettingsTyped(t *testing.T) {
	const head = "name: t\ndescription: T.\nvars:\n  api_base: {description: x}\nsecrets:\n  token: {description: y}\n"
	tests := []struct {
		name, src string
		// where the one diagnostic is and a piece of its message; "" for
		// none (the wording is lang's)
		at, want string
	}{
		{"declared", head + "nodes:\n  - id: s\n    step: test.echo\n    with: {a: \"{{ secrets.token + vars.api_base }}\"}\n  - return: \"{{ vars.api_base.size() > 0 }}\"\n", "", ""},
		{"a misspelt var", head + "nodes:\n  - return: \"{{ vars.api_bse }}\"\n", "f.yaml:8:22: error: ", `'api_bse' (did you mean "api_base"?)`},
		{"a misspelt secret", head + "nodes:\n  - id: s\n    step: test.echo\n    with: {a: \"{{ secrets.tokn }}\"}\n  - return: x\n", "f.yaml:10:27: error: ", `'tokn' (did you mean "token"?)`},
		{"no vars declared", "name: t\ndescription: T.\nnodes:\n  - return: \"{{ vars.api_base }}\"\n", "f.yaml:4:17: error: ", "'vars'"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := compileDiags(t, tc.src)
			switch {
			case tc.want == "" && len(got) > 0:
				t.Errorf("diagnostics: %v", got)
			case tc.want != "" && (len(got) != 1 || !strings.HasPrefix(got[0], tc.at) || !strings.Contains(got[0], tc.want)):
				t.Errorf("diagnostics %v, want one at %s with %s", got, tc.at, tc.want)
			}
		})
	}
}

func TestRedactor(t *testing.T) {
	var none *Redactor
	if none.Redact("abc") != "abc" || none.Err(nil) != nil {
		t.Error("a nil Redactor changes text")
	}
	if (Values{Secrets: map[string]string{"a": ""}}).Redactor() != nil {
		t.Error("empty secrets make a Redactor")
	}
	r := Values{Secrets: map[string]string{"short": "tok", "long": "token-tok"}}.Redactor()
	if got := r.Redact("x token-tok y tok z"); got != "x "+Redacted+" y "+Redacted+" z" {
		t.Errorf("Redact = %q", got)
	}
	plain := errors.New("no secret here")
	if r.Err(plain) != plain {
		t.Error("Err replaced an error without a secret")
	}
	if got := r.Err(errors.New("with tok")); got.Error() != "with "+Redacted || errors.Unwrap(got) != nil {
		t.Errorf("Err = %v (unwraps to %v)", got, errors.Unwrap(got))
	}
}
