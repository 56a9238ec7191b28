package flow

import (
	"context"
	"reflect"
	"testing"
	"time"
)

// TestAnswerRecordEncoding pins the journal encoding of answer records:
// states sealed by an earlier build carry these bytes, so a change here
// breaks every run in flight.
func TestAnswerRecordEncoding(t *testing.T) {
	tests := []struct {
		name string
		mode string
		rec  answerRecord
		want string
	}{
		{"accept with content", ModeForm, answerRecord{Action: Accept, Content: map[string]any{"name": "Ada", "seats": int64(2)}},
			`{"action":"accept","content":{"name":"Ada","seats":2}}`},
		{"accept, empty content left out", ModeForm, answerRecord{Action: Accept, Content: map[string]any{}}, `{"action":"accept"}`},
		{"decline", ModeForm, answerRecord{Action: Decline}, `{"action":"decline"}`},
		{"cancel", ModeURL, answerRecord{Action: Cancel}, `{"action":"cancel"}`},
		{"unavailable", ModeForm, answerRecord{Action: Unavailable}, `{"action":"unavailable"}`},
		{"sampling", ModeSampling, answerRecord{Action: Accept, Result: map[string]any{"role": "assistant", "model": "m",
			"content": map[string]any{"type": "text", "text": "hi"}}},
			`{"action":"accept","result":{"content":{"text":"hi","type":"text"},"model":"m","role":"assistant"}}`},
		{"roots", ModeRoots, answerRecord{Action: Accept, Roots: []any{map[string]any{"uri": "file:///a", "name": "a"}}},
			`{"action":"accept","roots":[{"name":"a","uri":"file:///a"}]}`},
		{"no roots", ModeRoots, answerRecord{Action: Accept, Roots: []any{}}, `{"action":"accept","roots":[]}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, err := tc.rec.encode()
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tc.want {
				t.Errorf("encode = %s, want %s", b, tc.want)
			}
			back, err := decodeAnswerRecord([]byte(tc.want), tc.mode)
			if err != nil {
				t.Fatal(err)
			}
			want := tc.rec
			if len(want.Content) == 0 {
				want.Content = nil
			}
			if !reflect.DeepEqual(back, want) {
				t.Errorf("decode = %#v, want %#v", back, want)
			}
		})
	}
	// What an older or hand-made record may hold: members of the wrong
	// type read as missing, and JSON that is not an object as no answer.
	for _, raw := range []string{`{"action":7,"content":"x"}`, `[]`, `"accept"`} {
		rec, err := decodeAnswerRecord([]byte(raw), ModeForm)
		if err != nil || rec.Action != "" || rec.Content != nil {
			t.Errorf("decode %s = %#v, %v", raw, rec, err)
		}
	}
	if _, err := decodeAnswerRecord([]byte(`{"action":`), ModeSampling); err == nil {
		t.Error("a record that is not JSON decoded")
	}
}

// TestStoredFailure: a failure survives the reply store, so a retried
// final round of a failed prompt answers with the same error.
func TestStoredFailure(t *testing.T) {
	for _, f := range []*Failure{{Node: "stop", Message: `no <way> "out"`}, {Message: "invalid arguments: x"}} {
		b, err := encodeReply(3, failResult(f.Node, f.Message))
		if err != nil {
			t.Fatal(err)
		}
		e, err := NewEngine(EngineOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var key [32]byte
		if err := e.replies.Put(context.Background(), key, b, time.Minute); err != nil {
			t.Fatal(err)
		}
		res, err := e.lookupReply(context.Background(), key)
		if err != nil {
			t.Fatal(err)
		}
		if got := res.Complete.Failure; got == nil || *got != *f || !res.Complete.IsError || res.Round != 3 {
			t.Errorf("stored %s: got %+v, failure %+v", b, res.Complete, got)
		}
	}
}
