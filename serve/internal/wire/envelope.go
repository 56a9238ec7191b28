package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/flowserve/flowserve/internal/jsonx"
)

// A request is decoded once: what the checks before dispatch (the OAuth
// scopes of the flow it calls) read of it is what dispatch reads. go-sdk
// decodes a message's members case-sensitively and keeps the last of
// duplicates; encoding/json matches members ignoring case. A body whose
// envelope or params hold two members whose names are equal ignoring
// case ("name" and "Name", or "name" twice) could be read one way by one
// decoder and another way by the next, so every path refuses it before
// anything reads it: -32600 for the envelope, -32602 for params. What is
// left has one member per name in any case, which every decoder reads
// alike; ReadTargets then reads it case-sensitively, as go-sdk does.

// Target is what one JSON-RPC message of a request names: its method
// and, when its params have one, params.name (the tool or prompt of a
// tools/call or prompts/get).
type Target struct {
	Method, Name string
}

// envelopeNames and paramsNames are the members the checks tell apart
// without allocating; any other member's folded name goes in a map.
var (
	envelopeNames = [...]string{"jsonrpc", "id", "method", "params", "result", "error"}
	paramsNames   = [...]string{"name", "arguments", "_meta", "inputResponses", "requestState", "taskId", "uri", "cursor", "protocolVersion", "capabilities", "clientInfo"}
)

// memberSet finds a member name that repeats, ignoring case, among the
// members of one JSON object.
type memberSet struct {
	known uint32              // bit i: names[i] was seen
	other map[string]struct{} // folded names of the other members seen
}

// add records a member's name (unescaped, as jsonx.Fields hands it) and
// reports whether an equal one, ignoring case, came before.
func (m *memberSet) add(names []string, k []byte) bool {
	for i, n := range names {
		if len(k) >= len(n) && bytes.EqualFold(k, []byte(n)) {
			bit := uint32(1) << i
			if m.known&bit != 0 {
				return true
			}
			m.known |= bit
			return false
		}
	}
	f := foldName(k)
	if _, ok := m.other[f]; ok {
		return true
	}
	if m.other == nil {
		m.other = map[string]struct{}{}
	}
	m.other[f] = struct{}{}
	return false
}

// foldName returns k with each rune replaced by the least rune of its
// case-folding orbit, so that two names equal ignoring case (Unicode
// simple folding, as bytes.EqualFold and encoding/json compare them:
// "K", "k" and the Kelvin sign alike) fold to the same string.
func foldName(k []byte) string {
	out := make([]byte, 0, len(k))
	for len(k) > 0 {
		r, size := utf8.DecodeRune(k)
		k = k[size:]
		least := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			least = min(least, f)
		}
		out = utf8.AppendRune(out, least)
	}
	return string(out)
}

// duplicateError is the error refusing a message whose envelope, or
// whose params, repeat a member name ignoring case.
func duplicateError(name []byte, inParams bool) *jsonrpc.Error {
	n := jsonx.Key(name)
	if inParams {
		return &jsonrpc.Error{Code: CodeInvalidParams,
			Message: fmt.Sprintf("Invalid params: the member %q appears more than once in params (member names are compared ignoring case)", n)}
	}
	return &jsonrpc.Error{Code: CodeInvalidRequest,
		Message: fmt.Sprintf("Invalid Request: the member %q appears more than once in the message (member names are compared ignoring case)", n)}
}

// ReadTargets reads body, one JSON-RPC message or a batch of them, as
// go-sdk does: it returns what each message names, or the error refusing
// the body when a message repeats a member (see above). A body that is
// not JSON, or a message that is no object, names nothing and is no
// error here: whoever dispatches it answers it.
func ReadTargets(body []byte) ([]Target, *jsonrpc.Error) {
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		return nil, nil
	}
	if body[0] != '[' {
		t, rpcErr := readTarget(body)
		if rpcErr != nil {
			return nil, rpcErr
		}
		return []Target{t}, nil
	}
	var msgs []json.RawMessage
	if json.Unmarshal(body, &msgs) != nil {
		return nil, nil
	}
	out := make([]Target, 0, len(msgs))
	for _, m := range msgs {
		t, rpcErr := readTarget(m)
		if rpcErr != nil {
			return nil, rpcErr
		}
		out = append(out, t)
	}
	return out, nil
}

// readTarget reads one message of ReadTargets.
func readTarget(msg []byte) (Target, *jsonrpc.Error) {
	var (
		t      Target
		rpcErr *jsonrpc.Error
		seen   memberSet
	)
	err := jsonx.Fields(msg, func(k, raw []byte) error {
		if seen.add(envelopeNames[:], k) {
			rpcErr = duplicateError(k, false)
			return errDuplicate
		}
		switch string(k) {
		case "method":
			t.Method, _ = leanString(raw)
		case "params":
			name, e := readParams(raw)
			if e != nil {
				rpcErr = e
				return errDuplicate
			}
			t.Name = name
		}
		return nil
	})
	if rpcErr != nil {
		return Target{}, rpcErr
	}
	if err != nil {
		return Target{}, nil
	}
	return t, nil
}

// readParams returns the name member of a message's params, or the error
// refusing params that repeat a member. Params that are no object name
// nothing.
func readParams(raw []byte) (string, *jsonrpc.Error) {
	var (
		name   string
		rpcErr *jsonrpc.Error
		seen   memberSet
	)
	_ = jsonx.Fields(raw, func(k, raw []byte) error {
		if seen.add(paramsNames[:], k) {
			rpcErr = duplicateError(k, true)
			return errDuplicate
		}
		if string(k) == "name" {
			name, _ = leanString(raw)
		}
		return nil
	})
	return name, rpcErr
}

// errDuplicate stops reading a message that repeats a member.
var errDuplicate = fmt.Errorf("a member appears more than once")

// RequestID returns the id of the message body holds, for an error that
// refuses it, or null when it has none or has several.
func RequestID(body []byte) json.RawMessage {
	var (
		id json.RawMessage
		n  int
	)
	_ = jsonx.Fields(body, func(k, raw []byte) error {
		if string(k) == "id" {
			id, n = raw, n+1
		}
		return nil
	})
	if n != 1 || !leanID(id) {
		return json.RawMessage("null")
	}
	return bytes.Clone(id)
}
