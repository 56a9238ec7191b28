package flow

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

const mockFlow = `
name: mocked
description: Steps to mock.
nodes:
  - id: a
    step: test.echo
    with: {path: "{{ input.path }}"}
    on_error: failed
  - id: q
    ask: "Got {{ a.path }}?"
    form: {ok: {type: boolean}}
  - id: b
    step: test.count
    with: {key: "{{ input.path }}"}
  - return: "{{ a.path }} {{ b.n }}"
  - id: failed
    fail: "a failed: {{ error }}"
`

// TestMock checks Mocks.Step: a mocked step does not run its action,
// its output or error is journaled like a real one, replayed steps do not
// consult the mock, and the input and output are still checked.
func TestMock(t *testing.T) {
	tests := []struct {
		name  string
		args  string
		mocks map[string]*StepMock
		// want is the final text, or the error's text when wantErr.
		want    string
		wantErr bool
		isError bool
		// calls are how often the test actions ran, by counter key.
		calls map[string]int
		// consulted is how often the mock was asked, by node.
		consulted map[string]int
	}{
		{
			name:      "no mocks run the actions",
			args:      `{"path":"x"}`,
			want:      "x 1",
			calls:     map[string]int{"echo": 1, "count:x": 1},
			consulted: map[string]int{"a": 1, "b": 1},
		},
		{
			name:      "mocked output",
			args:      `{"path":"x"}`,
			mocks:     map[string]*StepMock{"a": {Output: map[string]any{"path": "mocked"}}, "b": {Output: map[string]any{"n": 41}}},
			want:      "mocked 41",
			calls:     map[string]int{"echo": 0, "count:x": 0},
			consulted: map[string]int{"a": 1, "b": 1},
		},
		{
			name:      "mocked error takes on_error",
			args:      `{"path":"x"}`,
			mocks:     map[string]*StepMock{"a": {Err: errors.New("no such file")}},
			want:      "a failed: no such file",
			isError:   true,
			calls:     map[string]int{"echo": 0},
			consulted: map[string]int{"a": 1},
		},
		{
			name:      "mocked error without on_error fails the run",
			args:      `{"path":"x"}`,
			mocks:     map[string]*StepMock{"b": {Err: errors.New("boom")}},
			want:      "test.count failed: boom",
			wantErr:   true,
			calls:     map[string]int{"count:x": 0},
			consulted: map[string]int{"a": 1, "b": 1},
		},
		{
			name:      "output that breaks the schema",
			args:      `{"path":"x"}`,
			mocks:     map[string]*StepMock{"b": {Output: map[string]any{"n": "many"}}},
			want:      `mocked output: output of action "test.count"`,
			wantErr:   true,
			consulted: map[string]int{"a": 1, "b": 1},
		},
		{
			name:      "input is still checked",
			args:      `{"path":7}`,
			mocks:     map[string]*StepMock{"a": {Output: map[string]any{"path": 7}}, "b": {Output: map[string]any{"n": 1}}},
			want:      `input of action "test.count"`,
			wantErr:   true,
			consulted: map[string]int{"a": 1, "b": 1},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := &counters{}
			clk := &clock{t: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)}
			p := compile(t, "mocked.yaml", mockFlow, testOptions{Actions: testRegistry(t, c), Codec: testCodec(t, clk), Now: clk.now})
			consulted := map[string]int{}
			inputs := map[string]map[string]any{}
			req := &Request{Arguments: json.RawMessage(tc.args), Client: Client{Form: true}}
			ctx := WithMocks(context.Background(), &Mocks{Step: func(node string, in map[string]any) *StepMock {
				consulted[node]++
				inputs[node] = in
				return tc.mocks[node]
			}})
			var (
				res *Result
				err error
			)
			for range 5 {
				res, err = p.Run(ctx, req)
				if err != nil || res.Complete != nil {
					break
				}
				req.State = res.Input.State
				req.Responses = map[string]json.RawMessage{"q": json.RawMessage(`{"action":"accept","content":{"ok":true}}`)}
			}
			switch {
			case tc.wantErr:
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("error %v, want one containing %q", err, tc.want)
				}
			case err != nil:
				t.Fatal(err)
			case res.Complete == nil:
				t.Fatal("no result after 5 rounds")
			default:
				if got := blockText(res.Complete.Content[0]); got != tc.want || res.Complete.IsError != tc.isError {
					t.Errorf("result %q (isError %v), want %q (isError %v)", got, res.Complete.IsError, tc.want, tc.isError)
				}
			}
			for key, n := range tc.calls {
				if got := c.get(key); got != n {
					t.Errorf("%s ran %d times, want %d", key, got, n)
				}
			}
			for node, n := range tc.consulted {
				if consulted[node] != n {
					t.Errorf("mock consulted %d times for %s, want %d", consulted[node], node, n)
				}
			}
			if in := inputs["a"]; in != nil && tc.args == `{"path":"x"}` && in["path"] != "x" {
				t.Errorf("mock got input %v for a, want the rendered with", in)
			}
		})
	}
}
