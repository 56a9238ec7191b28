package loadgen

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/flowserve/flowserve/internal/jsonx"
)

// AutoAnswer builds an accepted answer to a form from its requestedSchema:
// each property gets its default, or else the first allowed value, or a
// value of the right type that satisfies its limits and format.
func AutoAnswer(schema map[string]any) json.RawMessage {
	props, _ := schema["properties"].(map[string]any)
	content := make(map[string]any, len(props))
	for name, p := range props {
		ps, _ := p.(map[string]any)
		content[name] = autoValue(ps)
	}
	b, _ := json.Marshal(map[string]any{"action": "accept", "content": content})
	return b
}

func autoValue(p map[string]any) any {
	if d, ok := p["default"]; ok {
		return d
	}
	if e, ok := p["enum"].([]any); ok && len(e) > 0 {
		return e[0]
	}
	if o, ok := p["oneOf"].([]any); ok && len(o) > 0 {
		if c, ok := o[0].(map[string]any); ok {
			return c["const"]
		}
	}
	switch p["type"] {
	case "boolean":
		return true
	case "integer":
		if m, ok := jsonx.Number(p["minimum"]); ok {
			return int64(m)
		}
		return 1
	case "number":
		if m, ok := jsonx.Number(p["minimum"]); ok {
			return m
		}
		return 1.5
	case "array":
		items, _ := p["items"].(map[string]any)
		var choices []any
		if e, ok := items["enum"].([]any); ok {
			choices = e
		}
		if a, ok := items["anyOf"].([]any); ok {
			for _, c := range a {
				if cm, ok := c.(map[string]any); ok {
					choices = append(choices, cm["const"])
				}
			}
		}
		n := 1
		if m, ok := jsonx.Number(p["minItems"]); ok && int(m) > n {
			n = int(m)
		}
		if n > len(choices) {
			n = len(choices)
		}
		return choices[:n]
	}
	switch p["format"] {
	case "email":
		return "user@example.com"
	case "uri":
		return "https://example.com/"
	case "date":
		return "2026-01-02"
	case "date-time":
		return "2026-01-02T03:04:05Z"
	}
	s := "answer"
	if m, ok := jsonx.Number(p["minLength"]); ok && int(m) > len(s) {
		s += strings.Repeat("x", int(m)-len(s))
	}
	if m, ok := jsonx.Number(p["maxLength"]); ok && int(m) < len(s) {
		s = s[:int(m)]
	}
	return s
}

// Script answers questions by id from a file: a JSON object mapping ask ids
// to a list of answers, used in turn (the last one repeats).
type Script map[string][]json.RawMessage

// answer returns the n-th (0-based) scripted answer for id.
func (s Script) answer(id string, n int) (json.RawMessage, bool) {
	list := s[id]
	if len(list) == 0 {
		return nil, false
	}
	if n >= len(list) {
		n = len(list) - 1
	}
	return list[n], true
}

// ParseScript reads a script.
func ParseScript(data []byte) (Script, error) {
	var s Script
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("answers script: %w", err)
	}
	return s, nil
}
