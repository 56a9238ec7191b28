// Package peer is the book_meeting flow (flows/book_meeting.yaml) written
// by hand, the way a developer would without flowserve: the three
// questions, their answers checked by hand, and the answers so far sealed
// with ChaCha20-Poly1305 into requestState. The two peer servers in
// bench/ serve it, one on go-sdk and one on bare net/http, so the
// performance comparison measures flowserve against hand-written code
// doing the same work (docs/performance.md).
package peer

import (
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"

	"golang.org/x/crypto/chacha20poly1305"
)

// Tool is the tool's name.
const Tool = "book_meeting"

// Question is one elicitation request.
type Question struct {
	Mode            string         `json:"mode"`
	Message         string         `json:"message"`
	RequestedSchema map[string]any `json:"requestedSchema"`
}

// Answer is one elicitation result.
type Answer struct {
	Action  string         `json:"action"`
	Content map[string]any `json:"content,omitempty"`
}

// Outcome of a round: either questions and a state, or a final text.
type Outcome struct {
	Key   string // the question's key, when asking
	Ask   *Question
	State string
	Text  string
}

// ErrBadState is returned for a requestState that does not open.
var ErrBadState = errors.New("requestState is not valid for this call")

// Sealer seals and opens the answers so far.
type Sealer struct{ aead cipher.AEAD }

// NewSealer returns a sealer with a random key.
func NewSealer() (*Sealer, error) {
	key := make([]byte, chacha20poly1305.KeySize)
	if _, err := rand.Read(key); err != nil {
		return nil, err
	}
	a, err := chacha20poly1305.New(key)
	if err != nil {
		return nil, err
	}
	return &Sealer{aead: a}, nil
}

type sealed struct {
	Tool    string            `json:"tool"`
	Answers map[string]Answer `json:"answers"`
}

func (s *Sealer) seal(answers map[string]Answer) (string, error) {
	plain, err := json.Marshal(sealed{Tool: Tool, Answers: answers})
	if err != nil {
		return "", err
	}
	nonce := make([]byte, s.aead.NonceSize(), s.aead.NonceSize()+len(plain)+s.aead.Overhead())
	if _, err := rand.Read(nonce); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(s.aead.Seal(nonce, nonce, plain, []byte(Tool))), nil
}

func (s *Sealer) open(token string) (map[string]Answer, error) {
	b, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil || len(b) < s.aead.NonceSize() {
		return nil, ErrBadState
	}
	plain, err := s.aead.Open(nil, b[:s.aead.NonceSize()], b[s.aead.NonceSize():], []byte(Tool))
	if err != nil {
		return nil, ErrBadState
	}
	var st sealed
	if err := json.Unmarshal(plain, &st); err != nil || st.Tool != Tool {
		return nil, ErrBadState
	}
	return st.Answers, nil
}

var (
	meetingSchema = map[string]any{"type": "object", "properties": map[string]any{
		"topic":     map[string]any{"type": "string", "title": "Topic", "minLength": 3, "maxLength": 100},
		"attendees": map[string]any{"type": "integer", "title": "Attendees", "minimum": 2, "maximum": 40, "default": 4},
		"day":       map[string]any{"type": "string", "title": "Day", "format": "date"},
	}, "required": []string{"topic", "day"}}
	roomSchema = map[string]any{"type": "object", "properties": map[string]any{
		"room": map[string]any{"type": "string", "title": "Room", "oneOf": []any{
			map[string]any{"const": "small", "title": "Small room (up to 4)"},
			map[string]any{"const": "large", "title": "Large room (up to 12)"},
			map[string]any{"const": "hall", "title": "Hall (up to 40)"},
		}},
	}, "required": []string{"room"}}
	confirmSchema = map[string]any{"type": "object", "properties": map[string]any{
		"book": map[string]any{"type": "boolean", "title": "Book it", "default": true},
	}, "required": []string{"book"}}
)

// Round runs one round: the sealed answers so far plus this round's
// answers give the next question or the final text.
func (s *Sealer) Round(state string, responses map[string]json.RawMessage) (*Outcome, error) {
	answers := map[string]Answer{}
	if state != "" {
		var err error
		if answers, err = s.open(state); err != nil {
			return nil, err
		}
	}
	for _, key := range []string{"meeting", "room", "confirm"} {
		if _, done := answers[key]; done {
			continue
		}
		if raw, ok := responses[key]; ok {
			var a Answer
			if err := json.Unmarshal(raw, &a); err != nil || (a.Action != "accept" && a.Action != "decline" && a.Action != "cancel") {
				return nil, fmt.Errorf("inputResponses[%q] is not a valid elicitation result", key)
			}
			if a.Action == "accept" && valid(key, a.Content, answers) {
				answers[key] = a
				continue
			}
			if a.Action != "accept" {
				answers[key] = a
				continue
			}
		}
		q := question(key, answers)
		st, err := s.seal(answers)
		if err != nil {
			return nil, err
		}
		return &Outcome{Key: key, Ask: q, State: st}, nil
	}
	m, r, c := answers["meeting"].Content, answers["room"].Content, answers["confirm"]
	if c.Action == "accept" && c.Content["book"] == true {
		return &Outcome{Text: fmt.Sprintf("Booked the %v room on %v for %q.", r["room"], m["day"], m["topic"])}, nil
	}
	return &Outcome{Text: "Not booked."}, nil
}

func question(key string, answers map[string]Answer) *Question {
	m := answers["meeting"].Content
	switch key {
	case "meeting":
		return &Question{Mode: "form", Message: "What is the meeting?", RequestedSchema: meetingSchema}
	case "room":
		return &Question{Mode: "form", Message: fmt.Sprintf("Which room for %q (%v people)?", m["topic"], attendees(m)), RequestedSchema: roomSchema}
	}
	return &Question{Mode: "form", Message: fmt.Sprintf("Book the %v room on %v for %q?", answers["room"].Content["room"], m["day"], m["topic"]), RequestedSchema: confirmSchema}
}

func attendees(m map[string]any) float64 {
	if n, ok := m["attendees"].(float64); ok {
		return n
	}
	return 4
}

// valid checks an accepted answer by hand, as the flow's schema and rule do.
func valid(key string, c map[string]any, answers map[string]Answer) bool {
	switch key {
	case "meeting":
		topic, ok := c["topic"].(string)
		day, ok2 := c["day"].(string)
		n := attendees(c)
		return ok && ok2 && len(topic) >= 3 && len(topic) <= 100 && len(day) == 10 && n >= 2 && n <= 40
	case "room":
		room, _ := c["room"].(string)
		if room == "small" && attendees(answers["meeting"].Content) > 4 {
			return false
		}
		return room == "small" || room == "large" || room == "hall"
	}
	_, ok := c["book"].(bool)
	return ok
}
