package flow

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/flowserve/flowserve/dsl"
)

// versions is a Resolver of the programs it holds.
type versions map[dsl.Version]*Program

func (vs versions) Program(_ context.Context, name string, v dsl.Version) (*Program, error) {
	if p, ok := vs[v]; ok && p.Name() == name {
		return p, nil
	}
	return nil, ErrUnknownVersion
}

const pinV1 = `
name: pin
description: v1 asks a name
input:
  type: object
  properties:
    n: {type: integer, maximum: 5}
nodes:
  - id: who
    ask: Your name?
    form:
      name: {type: string}
  - return: "v1 {{ who.content.name }}"
`

// TestRunsStayOnTheirVersion: a round whose state v1 sealed runs on v1
// when the engine's Resolver has it, even when given v2 (which asks
// another question and accepts other arguments); without it, a journal v2
// does not replay is a VersionError.
func TestRunsStayOnTheirVersion(t *testing.T) {
	ctx := t.Context()
	v1 := compile(t, "pin.yaml", pinV1, testOptions{})
	v2src := strings.NewReplacer("Your name?", "Your full name?", "v1 ", "v2 ", "maximum: 5", "maximum: 3").Replace(pinV1)
	f2, _ := dsl.Parse("pin.yaml", []byte(v2src))
	v2, diags := Compile(f2, Env{})
	if err := diags.Err(); err != nil {
		t.Fatal(err)
	}
	if v1.Version() == v2.Version() {
		t.Fatal("the two versions have the same hash")
	}
	answer := map[string]json.RawMessage{"who": json.RawMessage(`{"action":"accept","content":{"name":"Ada"}}`)}
	for _, tc := range []struct {
		name string
		have versions
		args json.RawMessage
		want string // the result's text, or "" for a VersionError
	}{
		// n: 4 is valid for v1 only: a pinned run's arguments are v1's.
		{"pinned", versions{v1.Version(): v1.Program}, json.RawMessage(`{"n": 4}`), "v1 Ada"},
		{"unknown", versions{}, json.RawMessage(`{"n": 1}`), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, err := NewEngine(EngineOptions{Codec: v1.e.codec, Versions: tc.have})
			if err != nil {
				t.Fatal(err)
			}
			args := tc.args
			r1, err := e.Run(ctx, v1.Program, &Request{Arguments: args, Client: Client{Form: true}})
			if err != nil || r1.Input == nil {
				t.Fatalf("round 1: %+v, %v", r1, err)
			}
			var stats RoundStats
			r2, err := e.Run(ctx, v2, &Request{Arguments: args, State: r1.Input.State, Responses: answer, Client: Client{Form: true}, Stats: &stats})
			if tc.want == "" {
				var ve *VersionError
				if !errors.As(err, &ve) || ve.Version != v1.Version() || !strings.Contains(err.Error(), "retry") {
					t.Fatalf("want a VersionError: %+v, %v", r2, err)
				}
				return
			}
			if err != nil || r2.Complete == nil || blockText(r2.Complete.Content[0]) != tc.want {
				t.Fatalf("round 2: %+v, %v", r2, err)
			}
			if stats.Version != v1.Version() || stats.FlowChanged {
				t.Errorf("stats: version %s, changed %v", stats.Version.Short(), stats.FlowChanged)
			}
			// A new call runs on the program given.
			r3, err := e.Run(ctx, v2, &Request{Arguments: json.RawMessage(`{"n": 1}`), Client: Client{Form: true}})
			if err != nil || r3.Input == nil || r3.Input.Requests["who"].Message != "Your full name?" {
				t.Fatalf("new call: %+v, %v", r3, err)
			}
		})
	}
}
