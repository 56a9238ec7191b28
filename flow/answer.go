package flow

import (
	"github.com/flowserve/flowserve/internal/jsonx"
)

// Action is how a question was answered: the `action` of its id's value
// in expressions, and of its journal record.
type Action string

// The actions of an answer. Accept, Decline and Cancel are the client's
// (an elicitation result's action; a sampling or roots reply is an
// Accept); Unavailable is the engine's, for a question the client could
// not be asked and whose node has an unavailable target.
const (
	Accept      Action = "accept"
	Decline     Action = "decline"
	Cancel      Action = "cancel"
	Unavailable Action = "unavailable"
)

// Timeout (approval.go) is the engine's too, for an approval nobody
// answered in time.

// AnswerInvalid is the key of RoundStats.Answers counting accepted answers
// that failed the form's schema or its validate rules (and were asked
// again).
const AnswerInvalid = "invalid"

// value returns a as an expression value, a plain string. The actions
// there are are constants, which become values without allocating.
func (a Action) value() any {
	switch a {
	case Accept:
		return string(Accept)
	case Decline:
		return string(Decline)
	case Cancel:
		return string(Cancel)
	case Unavailable:
		return string(Unavailable)
	case Timeout:
		return string(Timeout)
	}
	return string(a)
}

// actionOf returns the action a raw JSON string holds, or "" when it is
// not a string; the actions there are need no decoding.
func actionOf(raw []byte) Action {
	switch string(raw) {
	case `"accept"`:
		return Accept
	case `"decline"`:
		return Decline
	case `"cancel"`:
		return Cancel
	case `"unavailable"`:
		return Unavailable
	case `"timeout"`:
		return Timeout
	}
	v, _ := jsonx.Parse(raw)
	s, _ := v.(string)
	return Action(s)
}

// answerRecord is the journal record of an answer: the Value of a
// state.EntryAnswer, encoded as a JSON object with the member "action"
// and at most one of "content" (an elicitation's accepted content, left
// out when empty), "result" (a sampling reply) and "roots" (a roots
// reply); an approval's record (an ask with `to`) also has
// "answered_by" and "answered_at" (RFC 3339), left out when empty. The
// encoding is part of what a run carries between rounds:
// TestAnswerRecordEncoding pins it.
type answerRecord struct {
	Action  Action
	Content map[string]any
	Result  map[string]any
	Roots   []any
	By, At  string
}

// encode encodes the record.
func (rec answerRecord) encode() ([]byte, error) {
	m := make(map[string]any, 2)
	m["action"] = string(rec.Action)
	switch {
	case rec.Result != nil:
		m["result"] = rec.Result
	case rec.Roots != nil:
		m["roots"] = rec.Roots
	case len(rec.Content) > 0:
		m["content"] = rec.Content
	}
	if rec.By != "" {
		m["answered_by"] = rec.By
	}
	if rec.At != "" {
		m["answered_at"] = rec.At
	}
	return marshal(m)
}

// decodeAnswerRecord decodes a record of a question in mode: members that
// are missing or of the wrong type are left zero, as the engine reads
// them. It fails only when raw is not JSON.
func decodeAnswerRecord(raw []byte, mode string) (answerRecord, error) {
	if mode != ModeSampling && mode != ModeRoots {
		// The common case, without building the object.
		f, err := decodeAnswerFields(raw)
		return answerRecord{Action: f.action, Content: f.content, By: f.by, At: f.at}, err
	}
	v, err := jsonx.Parse(raw)
	if err != nil {
		return answerRecord{}, err
	}
	m, _ := v.(map[string]any)
	action, _ := m["action"].(string)
	rec := answerRecord{Action: Action(action)}
	rec.Content, _ = m["content"].(map[string]any)
	rec.Result, _ = m["result"].(map[string]any)
	rec.Roots, _ = m["roots"].([]any)
	return rec, nil
}
