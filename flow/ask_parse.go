package flow

import (
	"encoding/json"
	"fmt"

	"github.com/flowserve/flowserve/internal/jsonx"
)

// The shapes of the answers a client sends: an elicitation result, a
// sampling result, a roots list. Each is checked before anything of it is
// journaled; a response of the wrong shape is a *ResponseError.

// parseElicitResult checks an elicitation result.
func parseElicitResult(key string, v any) (Action, map[string]any, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return "", nil, &ResponseError{Key: key, Reason: "it must be an object with an action"}
	}
	s, _ := m["action"].(string)
	action := Action(s)
	switch action {
	case Accept, Decline, Cancel:
	case "":
		return "", nil, &ResponseError{Key: key, Reason: "action must be accept, decline or cancel"}
	default:
		return "", nil, &ResponseError{Key: key, Reason: fmt.Sprintf("action must be accept, decline or cancel, not %q", action)}
	}
	switch c := m["content"].(type) {
	case nil:
		return action, nil, nil
	case map[string]any:
		return action, c, nil
	}
	return "", nil, &ResponseError{Key: key, Reason: "content must be an object"}
}

// parseSampling checks a sampling/createMessage result: {role, content,
// model, stopReason}, content a block or a list of blocks with a type.
func parseSampling(key string, v any) (map[string]any, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, &ResponseError{Key: key, Kind: "sampling", Reason: "it must be an object with role, content and model"}
	}
	if role, _ := m["role"].(string); role != "user" && role != "assistant" {
		return nil, &ResponseError{Key: key, Kind: "sampling", Reason: "role must be user or assistant"}
	}
	blocks, ok := m["content"].([]any)
	if !ok {
		blocks = []any{m["content"]}
	}
	if len(blocks) == 0 {
		return nil, &ResponseError{Key: key, Kind: "sampling", Reason: "content must not be empty"}
	}
	for _, b := range blocks {
		bm, ok := b.(map[string]any)
		if t, _ := bm["type"].(string); !ok || t == "" {
			return nil, &ResponseError{Key: key, Kind: "sampling", Reason: "content must be a content block (an object with a type) or a list of them"}
		}
	}
	for _, f := range []string{"model", "stopReason"} {
		if x, ok := m[f]; ok {
			if _, ok := x.(string); !ok {
				return nil, &ResponseError{Key: key, Kind: "sampling", Reason: f + " must be a string"}
			}
		}
	}
	out := map[string]any{"role": m["role"], "content": m["content"]}
	for _, f := range []string{"model", "stopReason"} {
		if x, ok := m[f]; ok {
			out[f] = x
		}
	}
	return out, nil
}

// parseRoots checks a roots/list result: {roots: [{uri, name}]}.
func parseRoots(key string, v any) ([]any, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, &ResponseError{Key: key, Kind: "roots", Reason: "it must be an object with roots"}
	}
	list, ok := m["roots"].([]any)
	if !ok {
		return nil, &ResponseError{Key: key, Kind: "roots", Reason: "roots must be a list of {uri, name}"}
	}
	out := make([]any, 0, len(list))
	for i, e := range list {
		rm, _ := e.(map[string]any)
		uri, _ := rm["uri"].(string)
		if uri == "" {
			return nil, &ResponseError{Key: key, Kind: "roots", Reason: fmt.Sprintf("root %d needs a uri", i+1)}
		}
		root := map[string]any{"uri": uri}
		if name, ok := rm["name"]; ok {
			s, ok := name.(string)
			if !ok {
				return nil, &ResponseError{Key: key, Kind: "roots", Reason: fmt.Sprintf("the name of root %d must be a string", i+1)}
			}
			root["name"] = s
		}
		out = append(out, root)
	}
	return out, nil
}

// CheckResponse checks that raw, the answer under key to a question asked
// with the JSON-RPC method (elicitation/create, sampling/createMessage or
// roots/list), has the shape of that method's result, as a round taking
// it would: a *ResponseError says what is wrong. Whether an accepted
// form's content is valid is for the round to judge (the question is asked
// again with the reason). The run store checks answers with it when they
// arrive, in tasks/update, before keeping them.
func CheckResponse(key, method string, raw json.RawMessage) error {
	v, err := jsonx.Parse(raw)
	if err != nil {
		return &ResponseError{Key: key, Reason: "it is not valid JSON"}
	}
	switch method {
	case "sampling/createMessage":
		_, err = parseSampling(key, v)
	case "roots/list":
		_, err = parseRoots(key, v)
	default:
		_, _, err = parseElicitResult(key, v)
	}
	return err
}
