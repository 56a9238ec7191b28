package approvals

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/flowserve/flowserve/flow"
)

// TestAnswerEngine: the page's answer becomes an elicitation result with
// who answered and when; content goes only with accept.
func TestAnswerEngine(t *testing.T) {
	at := time.Date(2026, 12, 2, 14, 5, 9, 0, time.UTC)
	tests := []struct {
		name string
		in   Answer
		want string
	}{
		{"accept", Answer{Action: "accept", Content: map[string]any{"approve": true, "note": "ok"}, By: "Ana", At: at},
			`{"action":"accept","content":{"approve":true,"note":"ok"}}`},
		{"accept with an empty form", Answer{Action: "accept", Content: map[string]any{}, By: "Ana", At: at},
			`{"action":"accept","content":{}}`},
		{"decline drops content", Answer{Action: "decline", Content: map[string]any{"note": "typed"}, By: "Bo", At: at},
			`{"action":"decline"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.in.Engine("approval")
			if err != nil {
				t.Fatal(err)
			}
			var gotJSON, wantJSON any
			json.Unmarshal(got.Response, &gotJSON)
			json.Unmarshal([]byte(tt.want), &wantJSON)
			if !reflect.DeepEqual(gotJSON, wantJSON) {
				t.Errorf("Response = %s, want %s", got.Response, tt.want)
			}
			if got.Node != "approval" || got.By != tt.in.By || !got.At.Equal(at) || got.TimedOut {
				t.Errorf("Engine = %+v", got)
			}
		})
	}
	if _, err := (Answer{Action: "accept", Content: map[string]any{"x": func() {}}}).Engine("approval"); err == nil {
		t.Error("an answer that cannot be encoded: want an error")
	}
}

func TestTimeout(t *testing.T) {
	at := time.Date(2026, 12, 2, 14, 5, 9, 0, time.UTC)
	want := &flow.ApprovalAnswer{Node: "approval", TimedOut: true, At: at}
	if got := Timeout("approval", at); !reflect.DeepEqual(got, want) {
		t.Errorf("Timeout = %+v, want %+v", got, want)
	}
}
