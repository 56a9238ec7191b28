package wire

import (
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/flowserve/flowserve/internal/jsonx"
)

// plainAnswer reports whether go-sdk decodes an inputResponses entry as
// an elicitation answer and encodes it back to the same JSON, up to
// spacing, member order and the float64 rounding of its numbers: an
// object with a string action, and maybe an object content and an
// object _meta, once each, and nothing else. Other entries go through
// the SDK's own decoder (Responses).
func plainAnswer(raw []byte) bool {
	if len(raw) == 0 || raw[0] != '{' {
		return false
	}
	var action, content, meta int
	err := jsonx.Fields(raw, func(k, v []byte) error {
		switch string(k) {
		case "action":
			action++
			if v[0] != '"' {
				return errNotLean
			}
		case "content":
			content++
			if v[0] != '{' {
				return errNotLean
			}
		case "_meta":
			meta++
			if v[0] != '{' {
				return errNotLean
			}
		default:
			return errNotLean
		}
		return nil
	})
	return err == nil && action == 1 && content <= 1 && meta <= 1
}

// Responses returns the answers of a request as the engine gets
// them on the SDK's path: decoded into go-sdk's types (its
// InputResponseMap, with encoding/json) and encoded again, except that
// plain elicitation answers, which that leaves as they are, are not
// decoded at all. An error means the SDK cannot decode them (see
// Validate).
func Responses(responses map[string]json.RawMessage) (map[string]json.RawMessage, error) {
	plain := true
	for _, r := range responses {
		if !plainAnswer(r) {
			plain = false
			break
		}
	}
	if plain {
		return responses, nil
	}
	// The object the answers came in, but for repeated keys, which count
	// as their last value both here and in the SDK's decoding.
	raw := []byte{'{'}
	for id, r := range responses {
		if len(raw) > 1 {
			raw = append(raw, ',')
		}
		raw = jsonx.AppendString(raw, id, false)
		raw = append(append(raw, ':'), r...)
	}
	raw = append(raw, '}')
	var m mcp.InputResponseMap
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	out := make(map[string]json.RawMessage, len(m))
	for id, r := range m {
		b, err := json.Marshal(r)
		if err != nil {
			return nil, err
		}
		out[id] = b
	}
	return out, nil
}

// promptArguments returns a prompt's arguments as the engine gets them
// on the SDK's path, where they are a map of strings (encoded again when
// present): raw itself when it is an object of strings, nil when absent
// or null. An error means the SDK cannot decode them (see Validate).
func promptArguments(raw []byte) (json.RawMessage, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	strs := true
	if err := jsonx.Fields(raw, func(_, v []byte) error {
		strs = strs && v[0] == '"'
		return nil
	}); err == nil && strs {
		return raw, nil
	}
	var m map[string]string
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	return json.Marshal(m)
}
