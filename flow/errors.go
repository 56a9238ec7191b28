package flow

import (
	"errors"
	"fmt"
	"maps"
	"slices"
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

// ClientMessage formats the error as the client of a call of the flow
// named flow reads it, "flow: node X: message": the flow and the node
// (inside a called flow, its call path, as "pay/charge"), and none of the
// file positions Error gives the server's log and the flow's author,
// which would tell a client where the server keeps its flows.
func (e *RunError) ClientMessage(flow string) string {
	return fmt.Sprintf("%s: node %s: %v", flow, e.Node, e.Err)
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

// ResponseError says that an entry of inputResponses is not the kind of
// result its question asks for (an elicitation, sampling or roots
// result). Servers answer it with JSON-RPC -32602.
type ResponseError struct {
	Key    string // the inputResponses key
	Reason string
	// Kind is "elicitation" (when empty), "sampling" or "roots".
	Kind string
}

// Error describes the malformed response.
func (e *ResponseError) Error() string {
	kind := e.Kind
	if kind == "" {
		kind = "elicitation"
	}
	return fmt.Sprintf("inputResponses[%q] is not a valid %s result: %s", e.Key, kind, e.Reason)
}

// Unwrap returns ErrMalformedResponse.
func (e *ResponseError) Unwrap() error { return ErrMalformedResponse }

// MissingCapabilityError says that the run reached a question the client
// cannot be asked and the question has no `unavailable` node. Servers
// answer it with -32021 (2026-07-28) or an error result naming what is
// missing (older protocol versions).
type MissingCapabilityError struct {
	Node string // the question, or the all node whose questions they are
	// Modes lists what the client cannot do, each an InputRequest mode
	// (ModeForm, ModeURL, ModeSampling, ModeRoots), without repeats.
	Modes []string
	// Required is the ClientCapabilities object the client lacks, e.g.
	// {"elicitation": {"url": {}}} or {"sampling": {}}.
	Required map[string]any
}

// Error describes what the client lacks.
func (e *MissingCapabilityError) Error() string {
	return fmt.Sprintf("this tool needs %s at %q, and the client does not support %s", e.Needs(), e.Node, e.Lacks())
}

// Needs says in words what the tool needs of the client: "to ask the
// user a question", "a reply from the client's model", "the client's
// roots", joined with "and".
func (e *MissingCapabilityError) Needs() string {
	var parts []string
	for _, m := range e.Modes {
		parts = append(parts, modeNeed(m))
	}
	return strings.Join(parts, " and ")
}

// Lacks names the capabilities the client lacks: "elicitation in form
// mode", "sampling", "roots", joined with "and".
func (e *MissingCapabilityError) Lacks() string {
	var parts []string
	for _, m := range e.Modes {
		switch m {
		case ModeSampling, ModeRoots:
			parts = append(parts, m)
		default:
			parts = append(parts, "elicitation in "+m+" mode")
		}
	}
	return strings.Join(parts, " and ")
}

// modeNeed describes what a question of the given mode needs.
func modeNeed(mode string) string {
	switch mode {
	case ModeSampling:
		return "a reply from the client's model"
	case ModeRoots:
		return "the client's roots"
	}
	return "to ask the user a question"
}

// requiredCapability returns the ClientCapabilities entry a mode needs.
func requiredCapability(mode string) (string, map[string]any) {
	switch mode {
	case ModeSampling:
		return "sampling", map[string]any{}
	case ModeRoots:
		return "roots", map[string]any{}
	}
	return "elicitation", map[string]any{mode: map[string]any{}}
}

// missing builds the error for questions the client cannot be asked.
func missing(node string, modes []string) *MissingCapabilityError {
	e := &MissingCapabilityError{Node: node, Required: map[string]any{}}
	for _, m := range modes {
		if slices.Contains(e.Modes, m) {
			continue
		}
		e.Modes = append(e.Modes, m)
		k, v := requiredCapability(m)
		if prev, ok := e.Required[k].(map[string]any); ok {
			maps.Copy(prev, v)
			continue
		}
		e.Required[k] = v
	}
	return e
}

// MismatchError says that the flow no longer matches the journal carried
// in the request state, usually because the flow file changed between
// rounds. The run is not continued: an answer is never handed to a
// different question.
type MismatchError struct {
	Position int
	// Path is the position as a path when it is inside a called flow's
	// frame ("3/1": the callee's position 1 of the call at position 3);
	// "" at the top.
	Path   string
	Node   string // the journaled node at Position (its key, inside a frame: "confirm/ok")
	Reason string
}

// Error names the position and the node.
func (e *MismatchError) Error() string {
	if e.Path != "" {
		return fmt.Sprintf("the flow no longer matches its journal at position %s (%s): %s; call the tool again", e.Path, e.Node, e.Reason)
	}
	return fmt.Sprintf("the flow no longer matches its journal at position %d (%s): %s; call the tool again", e.Position, e.Node, e.Reason)
}

// IsInvalidParams reports whether err is about the request's parameters
// (request state, input responses, a prompt's arguments) and so maps to
// JSON-RPC -32602.
func IsInvalidParams(err error) bool {
	var mm *MismatchError
	return errors.Is(err, state.ErrInvalid) || errors.Is(err, state.ErrExpired) ||
		errors.Is(err, state.ErrTooLarge) || errors.Is(err, ErrMalformedResponse) ||
		errors.As(err, &mm) || isArguments(err)
}

// violationsText joins violations for a message.
func violationsText[V fmt.Stringer](vs []V) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = v.String()
	}
	return strings.Join(parts, "; ")
}
