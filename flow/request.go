package flow

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/flowserve/flowserve/dsl"
)

// Request is one round of a tool call.
type Request struct {
	// Arguments are the tool arguments as sent (a JSON object); empty
	// means {}.
	Arguments json.RawMessage
	// State is the requestState of the previous round, or "" on the first.
	State string
	// Responses are the client's answers (inputResponses), keyed by
	// question id.
	Responses map[string]json.RawMessage
	// Client describes the caller and what it can do in this request.
	Client Client
	// Principal identifies the authenticated caller ("" when there is
	// none, as on stdio). A state only opens for the principal it was
	// sealed for.
	Principal string
	// Identity is the authenticated caller as expressions see it
	// (principal), or nil when there is none.
	Identity *Identity
	// OnStep, when set, is called before (done false) and after (done
	// true) each step the round runs, with the step's journal position;
	// replayed steps are not reported. Servers use it for progress
	// notifications.
	OnStep func(node, action string, position int, done bool)
	// Detach, when set, lets the round hand the rest of the run over to a
	// task: it ends with Result.Detached instead of running a `long` step
	// (one the journal does not hold yet), or instead of asking questions
	// in a round numbered above Detach.Rounds. Servers set it for a
	// 2026-07-28 client that declared the tasks extension, calling a flow
	// that may run as a task.
	Detach *Detach
	// StateTTL is how long the state this round seals can be opened; 0
	// means the codec's TTL. Task rounds set the task's lifetime.
	StateTTL time.Duration
	// Task is the id of the task this round runs for ("" for a call's
	// round); steps get it in actions.Call.
	Task string
	// Checkpoint, when set, is called after each step the round runs, once
	// it is journaled, with a state sealed (for StateTTL) that holds the
	// journal so far: the round run again from it with the same answers
	// replays that step instead of running it. Task workers store it, so
	// that a worker taking over from one that died runs only the step that
	// had not finished. An error from Checkpoint ends the round with it.
	Checkpoint func(state string) error
	// Approval, when set, is the answer to the approval the run waits for
	// (Result.Approval), from its page or its timeout: the round checks it
	// (the form's schema and validate rules), journals it with who gave it
	// and when, and ends with Result.Detached, the state the run goes on
	// from; or, when it is not accepted, with Result.Approval again, its
	// Question saying why. Servers set it; an approval is never answered
	// by the client's Responses.
	Approval *ApprovalAnswer
	// Stats, when set, is filled in with figures about the round for the
	// server's logs and metrics, whatever the round's outcome (a result or
	// an error).
	Stats *RoundStats
}

// RoundStats describes one round as far as it got.
type RoundStats struct {
	// RunID identifies the run (32 hex digits) once it is known: minted
	// on the first round, read from the request state on later ones.
	RunID string
	// Round is the round's number once it is known, 1 for the first.
	Round int
	// Node is the last node the round reached, or "".
	Node string
	// Answers counts the answers the round took, by action: "accept",
	// "decline", "cancel", "unavailable" (the client could not be asked and
	// the ask has an unavailable node) and "invalid" (accepted content that
	// failed the form's schema or its validate rules). Nil when none.
	Answers map[string]int
	// StepErrors counts the steps the round ran that failed, after their
	// retries, whether or not an on_error node took over.
	StepErrors int
	// FlowChanged reports that the round runs on another version of the
	// flow than the run began on: that version was not to be found (see
	// EngineOptions.Versions), and the journal replays on this one.
	FlowChanged bool
	// Version is the version of the flow the round ran on, once known:
	// the one the run began on when the engine found it.
	Version dsl.Version
}

// answer counts one answer taken with the given action.
func (s *RoundStats) answer(action string) {
	if s == nil {
		return
	}
	if s.Answers == nil {
		s.Answers = make(map[string]int, 2)
	}
	s.Answers[action]++
}

// stepFailed counts one failed step.
func (s *RoundStats) stepFailed() {
	if s != nil {
		s.StepErrors++
	}
}

// DefaultRoundBudget is the round budget servers and lint use when not
// told otherwise: the TypeScript and go-sdk clients stop after 10 multi
// round-trip rounds, so the 10th must not ask again.
const DefaultRoundBudget = 9

// Detach says when a round hands the run over to a task (see
// Request.Detach).
type Detach struct {
	// Rounds is the round budget: the most rounds that may end asking
	// questions before the run goes on as a task; 0 means no budget.
	Rounds int
	// TTL is the lifetime of the state a detached round seals: the
	// task's.
	TTL time.Duration
}

// Detached is the end of a round that handed the run over to a task.
type Detached struct {
	// State is the sealed state the task goes on from.
	State string
	// Input holds the questions the round ended asking when it detached
	// for the round budget (Input.State is State); nil when it stopped
	// before a long step (Node).
	Input *InputRequired
	// Node is the long step the round stopped before, or "".
	Node string
}

// StepMock is the outcome of a step that Mocks.Step supplies in place
// of running the step's action.
type StepMock struct {
	// Output is the step's output, a JSON-like value (see
	// actions.Normalize) that must match the action's output schema.
	// It is used when Err is nil.
	Output any
	// Err, when set, makes the step fail with this error.
	Err error
}

// Client describes the calling MCP client.
type Client struct {
	Name     string
	Version  string
	Protocol string // negotiated or declared protocol version
	Form     bool   // the client can answer form-mode elicitation
	URL      bool   // the client can answer URL-mode elicitation
	Sampling bool   // the client can answer sampling/createMessage
	Roots    bool   // the client can answer roots/list
	// Tasks reports that the client declared the tasks extension
	// (io.modelcontextprotocol/tasks) on this request: servers may answer
	// the call with a task. Flows do not see it.
	Tasks bool
}

// Result is the outcome of a round: exactly one of Complete, Input,
// Prompt, Detached and Approval is set.
type Result struct {
	Complete *ToolResult
	Input    *InputRequired
	// Detached is set when the round handed the run over to a task (see
	// Request.Detach), or journaled the answer to an approval (see
	// Request.Approval).
	Detached *Detached
	// Approval is set when the round reached an ask with `to`: the run
	// waits for someone other than the caller (see Approval).
	Approval *Approval
	// Prompt is the messages of a prompt flow (see Program.IsPrompt) that
	// finished. A prompt flow that fails (a fail node, an answer that
	// stayed invalid) ends with Complete, an error result, as a tool flow
	// does; servers answer that with a JSON-RPC error, since prompts have
	// no error results.
	Prompt *PromptResult
	// Round is the round's number, 1 for the first.
	Round int
	// Trace lists the nodes visited in this round, in order.
	Trace []string
	// Replayed is true when the result was not computed but taken from
	// the reply store: the client retried a final round whose reply it
	// lost, and no step ran again.
	Replayed bool
	// StoreErr is set when the final result could not be kept in the
	// reply store; the result itself is good.
	StoreErr error
}

// ToolResult is a finished tool call.
type ToolResult struct {
	// Content holds the result's MCP content blocks, as go-sdk's types
	// (*mcp.TextContent, *mcp.ImageContent, *mcp.AudioContent,
	// *mcp.ResourceLink, *mcp.EmbeddedResource), built when the run ended:
	// a block the flow wrote that is not valid ended the run with an error
	// at its return node instead.
	Content []mcp.Content
	// Structured is the structuredContent, or nil.
	Structured any
	// IsError marks a tool error (a `fail` node, an answer that stayed
	// invalid, invalid arguments, a step that failed).
	IsError bool
	// Failure says why, when the engine ended the run with an error
	// result; nil otherwise (a flow may return isError content itself).
	Failure *Failure
}

// Failure is why a run ended with an error result.
type Failure struct {
	// Node is the node that ended it: a fail node, or the question whose
	// answer stayed invalid; "" for invalid arguments.
	Node string
	// Message is the text of the error result.
	Message string
}

// InputRequired asks the client for answers before the call can go on.
type InputRequired struct {
	// Requests maps question ids to the questions: one, or several when
	// the run reached an all node.
	Requests map[string]*InputRequest
	// State is the sealed requestState to send back with the answers.
	State string
}

// The modes of an InputRequest.
const (
	ModeForm     = "form"     // elicitation/create, form mode
	ModeURL      = "url"      // elicitation/create, URL mode
	ModeSampling = "sampling" // sampling/createMessage
	ModeRoots    = "roots"    // roots/list
)

// InputRequest is one question for the client: an elicitation (form or
// URL mode), a sampling request or a roots request.
type InputRequest struct {
	Mode    string // ModeForm, ModeURL, ModeSampling or ModeRoots
	Message string // elicitation: with the reason appended when asked again
	// Rejected is why the previous answer to this question was not
	// accepted, when it is asked again ("" the first time); Message ends
	// with it, for clients, after RejectedPrefix.
	Rejected string
	Schema   map[string]any // requestedSchema (form mode); do not modify
	// SchemaJSON is Schema encoded as JSON, computed once when the flow
	// was compiled.
	SchemaJSON json.RawMessage
	URL        string // url mode
	// Params are the params of sampling/createMessage (sampling mode):
	// messages, systemPrompt, maxTokens and the optional fields, as
	// JSON-like values; do not modify.
	Params map[string]any
	// ID identifies this question within the run (stable across rounds);
	// servers use it as the elicitationId of URL mode on 2025-11-25.
	ID string
}

// RejectedPrefix is what a question's message says before the reason its
// previous answer was not accepted (InputRequest.Rejected).
const RejectedPrefix = "\n\nYour previous answer was not accepted: "

// Asked returns the message as the flow renders it, without the reason a
// previous answer was not accepted.
func (q *InputRequest) Asked() string {
	if q.Rejected == "" {
		return q.Message
	}
	return q.Message[:len(q.Message)-len(RejectedPrefix)-len(q.Rejected)]
}

// Method returns the JSON-RPC method that asks the question.
func (q *InputRequest) Method() string {
	switch q.Mode {
	case ModeSampling:
		return "sampling/createMessage"
	case ModeRoots:
		return "roots/list"
	}
	return "elicitation/create"
}

func textResult(msg string, isError bool) *ToolResult {
	return &ToolResult{
		Content: []mcp.Content{&mcp.TextContent{Text: msg}},
		IsError: isError,
	}
}

// FailureResult is the error result that answers a call of p whose round
// ended with err, an error that is not about the request (see
// IsInvalidParams): a *RunError reads as its ClientMessage ("refund: node
// charge: ...", never the server's path of the flow file), naming the node
// in its Failure; any other error is the server's, "the <name> tool
// failed: ...". Servers and flowserve test answer a failed run with it.
func (p *Program) FailureResult(err error) *ToolResult {
	var re *RunError
	if errors.As(err, &re) {
		return failResult(re.Node, re.ClientMessage(p.Name()))
	}
	kind := dsl.FlowTool
	if p.IsPrompt() {
		kind = dsl.FlowPrompt
	}
	return failResult("", fmt.Sprintf("the %s %s failed: %v", p.Name(), kind, err))
}

// failResult is the error result of a run that failed at node ("" for
// none) with msg.
func failResult(node, msg string) *ToolResult {
	res := textResult(msg, true)
	res.Failure = &Failure{Node: node, Message: msg}
	return res
}

// TaskStart is how a call of a program starts: see Program.StartTask.
type TaskStart int

// The ways a call starts.
const (
	// StartCall: the call runs round by round; it may still detach into
	// a task (Detach).
	StartCall TaskStart = iota
	// StartTask: the call is a task from the start (task: required, a
	// client with tasks).
	StartTask
	// StartRefused: the flow runs only as a task and the client has no
	// tasks.
	StartRefused
)

// StartTask is the one rule for how a call of p starts, for a client that
// declared the tasks extension (tasks) or not: a task: required flow is a
// task from the start, or refused without tasks; a task: auto flow called
// by a client with tasks runs with a Detach of the round budget rounds
// and a task lifetime of ttl; anything else (task: never, prompts) is a
// plain call. Servers, flowserve test and flowserve run decide with it.
func (p *Program) StartTask(tasks bool, rounds int, ttl time.Duration) (TaskStart, *Detach) {
	if p.IsPrompt() {
		return StartCall, nil
	}
	switch mode := p.file.TaskMode(); {
	case mode == dsl.TaskRequired && !tasks:
		return StartRefused, nil
	case mode == dsl.TaskRequired:
		return StartTask, nil
	case mode == dsl.TaskAuto && tasks:
		return StartCall, &Detach{Rounds: rounds, TTL: ttl}
	}
	return StartCall, nil
}
