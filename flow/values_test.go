package flow

import (
	"reflect"
	"testing"

	"github.com/flowserve/flowserve/internal/jsonx"
)

// Journal records of every shape: accepted, declined, repeated members,
// content of every type, not objects, not JSON.
var answerShapes = []string{
	`{"action":"accept","content":{"topic":"Planning","attendees":4,"day":"2026-01-02"}}`,
	`{"action":"decline"}`, `{"action":"cancel","content":null}`, `{"action":"unavailable"}`,
	`{"content":{"a":1},"action":"accept"}`, ` { "action" : "acc\u0065pt" , "content" : { } } `,
	`{"action":"accept","action":"decline"}`, `{"action":"accept","content":{"a":1},"content":[1]}`,
	`{"action":"accept","content":[1],"content":{"b":2}}`, `{"action":5}`, `{"action":null}`, `{"action":"other"}`,
	`{"action":"accept","content":"text"}`, `{"action":"accept","content":7}`, `{"action":"accept","content":false}`,
	`{}`, `[]`, `"accept"`, `null`, `5`, `{"action":"accept"`, `{"action":"accept"} x`, ``, `{"action":"\ud800"}`,
	"{\"\xffaction\":\"accept\"}",
}

// checkAnswerFields checks decodeAnswerFields against reading the
// members of the whole decoded answer.
func checkAnswerFields(t *testing.T, raw []byte) {
	t.Helper()
	f, err := decodeAnswerFields(raw)
	v, perr := jsonx.Parse(raw)
	if (err != nil) != (perr != nil) {
		t.Fatalf("%q: error %v, want %v", raw, err, perr)
	}
	if err != nil {
		if err.Error() != perr.Error() {
			t.Fatalf("%q: error %q, want %q", raw, err, perr)
		}
		return
	}
	m, _ := v.(map[string]any)
	action, _ := m["action"].(string)
	content, _ := m["content"].(map[string]any)
	want := answerFields{action: Action(action), content: content}
	if !reflect.DeepEqual(f, want) {
		t.Fatalf("%q: %+v, want %+v", raw, f, want)
	}
}

func TestAnswerFieldsMatchDecodedAnswer(t *testing.T) {
	for _, raw := range answerShapes {
		checkAnswerFields(t, []byte(raw))
	}
}

func FuzzAnswerFields(f *testing.F) {
	for _, raw := range answerShapes {
		f.Add([]byte(raw))
	}
	f.Fuzz(checkAnswerFields)
}
