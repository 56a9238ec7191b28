package flow

import (
	"errors"
	"fmt"
	"strings"

	"github.com/flowserve/flowserve/dsl"
	"github.com/flowserve/flowserve/flow/state"
)

// RunError is a failure of the run at a node.
type RunError struct {
	Node string  // node id, or "#N" for a node without one
	Pos  dsl.Pos // position of the node in its file
	Err  error
}

// Error formats the error as "file:line:col: node X: message", with the
// position of the failing expression when there is one.
func (e *RunError) Error() string {
	var xe *ExprError
	if errors.As(e.Err, &xe) {
		return fmt.Sprintf("%s: node %s: %v", xe.Pos, e.Node, e.Err)
	}
	return fmt.Sprintf("%s: node %s: %v", e.Pos, e.Node, e.Err)
}

// ExprError is an expression that failed to evaluate.
type ExprError struct {
	Pos dsl.Pos // where the expression starts
	Src string
	Err error
}

// Error names the expression and the failure.
func (e *ExprError) Error() string {
	return fmt.Sprintf("evaluating %q: %v", e.Src, e.Err)
}

// Unwrap returns the underlying error.
func (e *ExprError) Unwrap() error { return e.Err }

// Unwrap returns the underlying error.
func (e *RunError) Unwrap() error { return e.Err }

// ErrMalformedResponse is wrapped by every *ResponseError.
var ErrMalformedResponse = errors.New("malformed input response")

// ResponseError says that an entry of inputResponses is not an
// elicitation result. Servers answer it with JSON-RPC -32602.
type ResponseError struct {
	Key    string // the inputResponses key
	Reason string
}

// Error describes the malformed response.
func (e *ResponseError) Error() string {
	return fmt.Sprintf("inputResponses[%q] is not a valid elicitation result: %s", e.Key, e.Reason)
}

// Unwrap returns ErrMalformedResponse.
func (e *ResponseError) Unwrap() error { return ErrMalformedResponse }

// MissingCapabilityError says that the run reached a question the client
// cannot be asked and the question has no `unavailable` node. Servers
// answer it with -32021 (2026-07-28) or an error result naming what is
// missing (older protocol versions).
type MissingCapabilityError struct {
	Node string
	Mode string // "form" or "url"
	// Required is the ClientCapabilities object the client lacks, e.g.
	// {"elicitation": {"url": {}}}.
	Required map[string]any
}

// Error describes what the client lacks.
func (e *MissingCapabilityError) Error() string {
	return fmt.Sprintf("this tool needs to ask the user a question (elicitation in %s mode) at %q, and the client does not support it", e.Mode, e.Node)
}

// MismatchError says that the flow no longer matches the journal carried
// in the request state, usually because the flow file changed between
// rounds. The run is not continued: an answer is never handed to a
// different question.
type MismatchError struct {
	Position int
	Node     string // the journaled node at Position
	Reason   string
}

// Error names the position and the node.
func (e *MismatchError) Error() string {
	return fmt.Sprintf("the flow no longer matches its journal at position %d (%s): %s; call the tool again", e.Position, e.Node, e.Reason)
}

// IsInvalidParams reports whether err is about the request's parameters
// (request state, input responses) and so maps to JSON-RPC -32602.
func IsInvalidParams(err error) bool {
	var mm *MismatchError
	return errors.Is(err, state.ErrInvalid) || errors.Is(err, state.ErrExpired) ||
		errors.Is(err, state.ErrTooLarge) || errors.Is(err, ErrMalformedResponse) ||
		errors.As(err, &mm)
}

// violationsText joins violations for a message.
func violationsText[V fmt.Stringer](vs []V) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = v.String()
	}
	return strings.Join(parts, "; ")
}
