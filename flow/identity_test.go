package flow

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// principalFlow reads every field of principal, in a branch condition
// and in its return.
const principalFlow = `name: whoami
description: Says who calls.
nodes:
  - branch:
      - if: "'deploy:write' in principal.scopes"
        then: writer
  - return: "reader {{ principal.sub }} {{ size(principal.scopes) }}"
  - id: writer
    return: "writer {{ principal.sub }} {{ has(principal.claims.email) ? principal.claims.email : 'no email' }}"
`

func TestPrincipalInExpressions(t *testing.T) {
	clk := &clock{t: time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)}
	p := compile(t, "whoami.yaml", principalFlow, testOptions{Codec: testCodec(t, clk), Now: clk.now})
	if !p.principal {
		t.Fatal("the program does not bind principal, but its expressions read it")
	}
	tests := []struct {
		name string
		id   *Identity
		want string
	}{
		{"no caller", nil, "reader  0"},
		{"reader", &Identity{Subject: "u-1", Scopes: []string{"deploy:read"}}, "reader u-1 1"},
		{"writer without claims", &Identity{Subject: "u-2", Scopes: []string{"deploy:read", "deploy:write"}}, "writer u-2 no email"},
		{"writer with an email", &Identity{Subject: "u-3", Scopes: []string{"deploy:write"},
			Claims: map[string]any{"email": "ada@example.com"}}, "writer u-3 ada@example.com"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := p.Run(context.Background(), &Request{Principal: "p", Identity: tt.id})
			if err != nil || res.Complete == nil {
				t.Fatalf("Run: %v, %+v", err, res)
			}
			if got := blockText(res.Complete.Content[0]); got != tt.want {
				t.Errorf("text %q, want %q", got, tt.want)
			}
		})
	}
}

func TestPrincipalNotBoundWhenUnread(t *testing.T) {
	clk := &clock{t: time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)}
	p := compile(t, "plain.yaml", "name: plain\ndescription: d\nnodes:\n  - return: \"{{ run.round }}\"\n",
		testOptions{Codec: testCodec(t, clk), Now: clk.now})
	if p.principal {
		t.Error("a flow that never reads principal binds it")
	}
}

// guardedFlow reads an ask that one path skips, guarded: has() must be
// false there at run time, in CEL and in expr.
const guardedFlow = `name: guarded
description: d
input:
  type: object
  properties:
    quick: {type: boolean}
nodes:
  - branch:
      - if: input.quick
        then: done
  - id: confirm
    ask: Sure?
    form:
      ok: {type: boolean}
  - id: done
    return: "{{ has(confirm.content) ? 'asked' : 'skipped' }}"
`

func TestGuardedReadOfASkippedAsk(t *testing.T) {
	clk := &clock{t: time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)}
	for name, src := range map[string]string{
		"cel":  guardedFlow,
		"expr": strings.Replace(strings.Replace(guardedFlow, "has(confirm.content) ? 'asked' : 'skipped'", "confirm != nil ? 'asked' : 'skipped'", 1), "nodes:", "expressions: expr\nnodes:", 1),
	} {
		t.Run(name, func(t *testing.T) {
			p := compile(t, "guarded.yaml", src, testOptions{Codec: testCodec(t, clk), Now: clk.now})
			res, err := p.Run(context.Background(), &Request{Arguments: json.RawMessage(`{"quick": true}`)})
			if err != nil || res.Complete == nil {
				t.Fatalf("Run: %v %+v", err, res)
			}
			if got := blockText(res.Complete.Content[0]); got != "skipped" {
				t.Errorf("text %q, want skipped", got)
			}
		})
	}
}
