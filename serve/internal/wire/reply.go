package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/flowserve/flowserve/flow"
	"github.com/flowserve/flowserve/internal/content"
	"github.com/flowserve/flowserve/internal/jsonx"
)

// The lean path's replies, written without reflection: a round that asks
// (InputRequiredMessage), a finished call or prompt (ResultMessage). The
// bytes are those encoding/json writes for the reply's structs, content
// blocks included (see package internal/content).

// ServerInfo names the server in the _meta of its replies.
type ServerInfo struct {
	Name, Version string
}

// ResultMessage encodes a round's reply.
func (s ServerInfo) ResultMessage(id json.RawMessage, res *flow.Result) []byte {
	if res.Input != nil {
		// The hot reply, written directly: most rounds end asking. The
		// form's schema was encoded once, when the flow was compiled.
		return s.InputRequiredMessage(id, res.Input)
	}
	b := make([]byte, 0, 512)
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = appendID(b, id)
	b = s.appendResultMeta(b)
	b = append(b, ',')
	var err error
	if pr := res.Prompt; pr != nil {
		b, err = appendPromptResult(b, pr)
	} else {
		b, err = appendToolResult(b, res.Complete)
	}
	if err != nil {
		return ErrorMessage(id, &jsonrpc.Error{Code: CodeInternalError, Message: fmt.Sprintf("encode result: %v", err)})
	}
	return append(b, "}}"...)
}

// appendID appends a request's id as encoding/json writes a
// json.RawMessage: as it came, but with <, >, &, U+2028 and U+2029 in a
// string escaped.
func appendID(b []byte, id json.RawMessage) []byte {
	if len(id) == 0 {
		return append(b, "null"...)
	}
	if bytes.ContainsAny(id, "<>&\u2028\u2029") {
		if esc, err := json.Marshal(id); err == nil {
			return append(b, esc...)
		}
	}
	return append(b, id...)
}

// appendResultMeta appends the start of a reply's result through its
// _meta, which names the server and its version.
func (s ServerInfo) appendResultMeta(b []byte) []byte {
	b = append(b, `,"result":{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":`...)
	b = jsonx.AppendString(b, s.Name, true)
	b = append(b, `,"version":`...)
	b = jsonx.AppendString(b, s.Version, true)
	return append(b, "}}"...)
}

// appendToolResult appends the members of a finished call's result after
// _meta: resultType, content, and structuredContent and isError when set.
func appendToolResult(b []byte, c *flow.ToolResult) ([]byte, error) {
	b = append(b, `"resultType":"complete","content":[`...)
	for i, block := range c.Content {
		if i > 0 {
			b = append(b, ',')
		}
		var err error
		if b, err = content.Append(b, block, true); err != nil {
			return nil, err
		}
	}
	b = append(b, ']')
	if c.Structured != nil {
		b = append(b, `,"structuredContent":`...)
		var err error
		if b, err = content.AppendValue(b, c.Structured, true); err != nil {
			return nil, err
		}
	}
	if c.IsError {
		b = append(b, `,"isError":true`...)
	}
	return b, nil
}

// appendPromptResult appends the members of a finished prompt's result
// after _meta: resultType, description when set, and messages.
func appendPromptResult(b []byte, pr *flow.PromptResult) ([]byte, error) {
	b = append(b, `"resultType":"complete"`...)
	if pr.Description != "" {
		b = append(b, `,"description":`...)
		b = jsonx.AppendString(b, pr.Description, true)
	}
	b = append(b, `,"messages":[`...)
	for i, m := range pr.Messages {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"role":`...)
		b = jsonx.AppendString(b, m.Role, true)
		b = append(b, `,"content":`...)
		var err error
		if b, err = content.Append(b, m.Content, true); err != nil {
			return nil, err
		}
		b = append(b, '}')
	}
	return append(b, ']'), nil
}

// toolResultJSON is the JSON of a finished tools/call's result without
// _meta: a completed task's result.
type toolResultJSON struct{ c *flow.ToolResult }

// MarshalJSON writes the result as the lean path writes it.
func (r toolResultJSON) MarshalJSON() ([]byte, error) {
	b, err := appendToolResult(append(make([]byte, 0, 256), '{'), r.c)
	if err != nil {
		return nil, err
	}
	return append(b, '}'), nil
}

// ToolResultBody is the result of a finished call, without _meta: what a
// completed task's result holds.
func ToolResultBody(c *flow.ToolResult) json.Marshaler { return toolResultJSON{c} }

// InputRequiredMessage encodes an input_required reply without
// reflection.
func (s ServerInfo) InputRequiredMessage(id json.RawMessage, in *flow.InputRequired) []byte {
	size := 512 + len(in.State)
	for _, q := range in.Requests {
		size += len(q.Message) + len(q.SchemaJSON) + len(q.URL)
	}
	b := make([]byte, 0, size)
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, id...)
	b = s.appendResultMeta(b)
	b = append(b, `,"resultType":"input_required","inputRequests":{`...)
	keys := make([]string, 0, len(in.Requests))
	for k := range in.Requests {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for i, k := range keys {
		q := in.Requests[k]
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonx.AppendString(b, k, true)
		b = append(b, ':')
		var err error
		if b, err = AppendInputRequest(b, q); err != nil {
			return ErrorMessage(id, &jsonrpc.Error{Code: CodeInternalError, Message: err.Error()})
		}
	}
	b = append(b, `},"requestState":`...)
	b = jsonx.AppendString(b, in.State, true)
	return append(b, "}}"...)
}

// AppendInputRequest appends the input request q, {"method", "params"},
// to b: how the lean path, a task's inputRequests and a stored approval
// write a question.
func AppendInputRequest(b []byte, q *flow.InputRequest) ([]byte, error) {
	switch q.Mode {
	case flow.ModeSampling:
		b = append(b, `{"method":"sampling/createMessage","params":`...)
		params, err := json.Marshal(q.Params)
		if err != nil {
			return nil, fmt.Errorf("encode sampling request: %w", err)
		}
		b = append(b, params...)
		return append(b, '}'), nil
	case flow.ModeRoots:
		return append(b, `{"method":"roots/list","params":{}}`...), nil
	}
	b = append(b, `{"method":"elicitation/create","params":{"mode":`...)
	b = jsonx.AppendString(b, q.Mode, true)
	b = append(b, `,"message":`...)
	b = jsonx.AppendString(b, q.Message, true)
	if len(q.SchemaJSON) > 0 {
		b = append(b, `,"requestedSchema":`...)
		b = append(b, q.SchemaJSON...)
	}
	if q.URL != "" {
		b = append(b, `,"url":`...)
		b = jsonx.AppendString(b, q.URL, true)
	}
	return append(b, "}}"...), nil
}
