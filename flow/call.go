package flow

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/flowserve/flowserve/actions"
	"github.com/flowserve/flowserve/dsl"
	"github.com/flowserve/flowserve/flow/state"
	"github.com/flowserve/flowserve/internal/content"
)

// DefaultCallDepth is how deep calls may nest when Limits.CallDepth does
// not say: a flow that calls a flow that calls a flow is depth 2.
const DefaultCallDepth = 8

// frame is where a runner's flow runs in the run: at the top (the zero
// frame), or inside the call nodes named by prefix.
type frame struct {
	// prefix is the call path of the frame's questions and nodes, each
	// call node's id followed by "/": "" at the top, "confirm/" inside
	// call node confirm. Input request keys, pending questions, traces and
	// run errors name a callee's nodes with it, so that they stay unique
	// in a round and over a task's life.
	prefix string
	// depth counts the calls the frame is inside.
	depth int
	// base is the journal position of the frame's first entry, and path
	// its call entry's position as a path followed by "/" ("" at the top):
	// a position in the frame reads as path + (position - base).
	base int
	path string
}

// key returns the key of cn in this frame: its id, after the frame's
// call path.
func (r *runner) key(cn *cnode) string {
	if r.prefix == "" {
		return cn.n.ID
	}
	return r.prefix + cn.n.ID
}

// posPath returns journal position pos as a path ("3", or "3/1" inside
// the frame of the call at position 3).
func (r *runner) posPath(pos int) string {
	return r.path + strconv.Itoa(pos-r.base)
}

// mismatch is the error of a journal that no longer matches the flow at
// position pos, whose entry (or pending question) node made.
func (r *runner) mismatch(pos int, node, reason string) *MismatchError {
	e := &MismatchError{Position: pos, Node: node, Reason: reason}
	if r.prefix != "" {
		e.Path = r.posPath(pos)
		if !strings.Contains(node, "/") {
			e.Node = r.prefix + node
		}
	}
	return e
}

// call handles a call or link node: replay the result of a finished call,
// go on inside the callee's frame, or start the callee. A callee that
// finishes in this round has its frame replaced by its result; one that
// asks ends the round with its questions.
func (r *runner) call(cn *cnode) (int, *Result, error) {
	callee, pinned, done, err := r.enter(cn)
	if err != nil {
		return 0, nil, err
	}
	if callee == nil { // a finished call
		return r.returned(cn, done.value, done.failed)
	}
	start := r.pos - 1 // the frame's call entry
	args, err := r.calleeArgs(cn, callee)
	if err != nil {
		return 0, nil, err
	}
	if r.mocks != nil && r.mocks.Call != nil && start == len(r.journal)-1 {
		// A call that starts now may be mocked; one whose frame a round
		// opened before goes on as it began.
		if m := r.mocks.Call(r.key(cn), callee.Name(), args); m != nil {
			value, failed, err := mockedCall(callee, m)
			if err != nil {
				return 0, nil, err
			}
			if cn.n.Kind == dsl.KindLink {
				res, err := r.handOver(cn, &Result{Complete: mockedResult(cn, value, failed)})
				return 0, res, err
			}
			if err := r.collapse(cn, start, value, failed); err != nil {
				return 0, nil, err
			}
			return r.returned(cn, value, failed)
		}
	}
	settings, err := r.e.settings(callee)
	if err != nil {
		return 0, nil, err
	}
	// The callee runs on this runner, in its frame; the caller's flow,
	// variables and frame come back when it stops.
	caller, vars, at := r.p, r.vars, r.frame
	r.p, r.frame = callee, frame{prefix: r.prefix + cn.n.ID + "/", depth: r.depth + 1, base: start + 1, path: r.posPath(start) + "/"}
	r.bind(args, settings)
	res, err := r.run()
	r.p, r.vars, r.frame = caller, vars, at
	var mismatch *MismatchError
	if err != nil && r.e.versions != nil && callee.Version() != pinned && errors.As(err, &mismatch) {
		// The version the frame began on is not here, and this one does
		// not replay its journal: retryable, as for the caller's own.
		return 0, nil, &VersionError{Tool: callee.Name(), Version: pinned, Err: err}
	}
	var value any
	var failed string
	switch {
	case err != nil:
		var re *RunError
		if !errors.As(err, &re) || IsInvalidParams(err) || cn.onError < 0 || cn.n.Kind == dsl.KindLink {
			return 0, nil, err
		}
		// The callee failed on its own (an expression, a step with no
		// on_error): the call's on_error takes it, with error naming the
		// callee's node (not its file: error may reach the user).
		failed = fmt.Sprintf("%s: %v", re.Node, re.Err)
	case res.Complete == nil:
		return 0, res, nil // the callee asks, waits or detached: so does the run
	case cn.n.Kind == dsl.KindLink:
		res, err := r.handOver(cn, res)
		return 0, res, err
	default:
		value, failed = calleeResult(callee, res.Complete)
	}
	if err := r.collapse(cn, start, value, failed); err != nil {
		return 0, nil, err
	}
	return r.returned(cn, value, failed)
}

// returned binds a call's result to its id, or, when the callee failed,
// takes the call's on_error with error bound to the callee's message; a
// failure with no on_error ends the run with an error result of that
// message, as the callee's own would.
func (r *runner) returned(cn *cnode, value any, failed string) (int, *Result, error) {
	if failed == "" {
		r.vars[cn.n.ID] = value
		return cn.next, nil, nil
	}
	if cn.onError < 0 {
		return 0, &Result{Complete: failResult(r.prefix+cn.name, failed)}, nil
	}
	r.vars[varError] = failed
	return cn.onError, nil, nil
}

// enter checks the journal at the call node: a finished call gives its
// result (callee nil); an open frame the callee on the version it began
// on (pinned), or the one linked when the engine cannot find it; no entry
// starts the call, journaling its frame. The position is then past the
// frame's call entry.
func (r *runner) enter(cn *cnode) (callee *Program, pinned dsl.Version, done finished, err error) {
	if r.pos < len(r.journal) {
		e := &r.journal[r.pos]
		if e.Node != cn.n.ID || e.Kind != state.EntryCall && e.Kind != state.EntryReturn {
			return nil, pinned, done, r.mismatch(r.pos, e.Node, fmt.Sprintf("the run now reaches %s %q there", cn.n.Kind, cn.n.Name()))
		}
		if e.Fingerprint != cn.fp {
			return nil, pinned, done, r.mismatch(r.pos, e.Node, "the call is defined differently")
		}
		r.pos++
		if e.Kind == state.EntryReturn {
			done.failed = e.Err
			if done.value, err = decodeCallResult(e.Value, cn.resultDoc); err != nil {
				return nil, pinned, done, fmt.Errorf("journaled result: %w", err)
			}
			return nil, pinned, done, nil
		}
		v, ok := dsl.ParseVersion(string(e.Value))
		if !ok {
			return nil, pinned, done, fmt.Errorf("journaled call: not a flow version")
		}
		if callee, err = r.linked(cn); err != nil {
			return nil, pinned, done, err
		}
		// The callee goes on on the version its frame began on.
		callee, err = r.e.versionOf(r.ctx, callee, v)
		return callee, v, done, err
	}
	if callee, err = r.linked(cn); err != nil {
		return nil, pinned, done, err
	}
	if r.depth+1 > r.e.limits.CallDepth {
		return nil, pinned, done, fmt.Errorf("calls nest more than %d deep (Limits.CallDepth)", r.e.limits.CallDepth)
	}
	v := callee.Version().String()
	err = r.record(state.Entry{Kind: state.EntryCall, Node: cn.n.ID, Fingerprint: cn.fp, Value: []byte(v)})
	return callee, callee.Version(), done, err
}

// finished is the journaled result of a finished call.
type finished struct {
	value  any
	failed string // the callee's failure message, or ""
}

// linked returns the program cn calls.
func (r *runner) linked(cn *cnode) (*Program, error) {
	if cn.callee == nil {
		return nil, fmt.Errorf("no flow named %q is loaded with %s", cn.calleeName, r.p.Name())
	}
	return cn.callee, nil
}

// calleeArgs renders the call's with and prepares it as the callee's
// arguments: its input schema's defaults added, checked against it.
func (r *runner) calleeArgs(cn *cnode, callee *Program) (map[string]any, error) {
	args, err := r.with(cn)
	if err != nil {
		return nil, err
	}
	args = cloneJSON(args).(map[string]any)
	args, violations := callee.prepare(args)
	if len(violations) > 0 {
		return nil, fmt.Errorf("the with of %s %s does not match the input of flow %s: %s", cn.n.Kind, cn.n.ID, callee.Name(), violationsText(violations))
	}
	return args, nil
}

// calleeResult is what a finished callee gives its call: its structured
// value when it declares an output schema, else the text of its result;
// or, for an error result, its message.
func calleeResult(callee *Program, tr *ToolResult) (value any, failed string) {
	var text []string
	for _, b := range tr.Content {
		if s, ok := content.Text(b); ok {
			text = append(text, s)
		}
	}
	if tr.IsError {
		msg := strings.Join(text, "\n")
		if msg == "" {
			msg = fmt.Sprintf("the %s flow failed", callee.Name())
		}
		return nil, msg
	}
	if callee.output != nil {
		return tr.Structured, ""
	}
	return strings.Join(text, "\n"), ""
}

// collapse replaces the frame of the call whose entry is at start with
// one return entry holding its result: a finished call takes one
// position, whatever its callee journaled.
func (r *runner) collapse(cn *cnode, start int, value any, failed string) error {
	e := state.Entry{Kind: state.EntryReturn, Node: cn.n.ID, Fingerprint: cn.fp, Err: failed}
	if failed == "" {
		b, err := marshal(value)
		if err != nil {
			return fmt.Errorf("encode the result of %s: %w", cn.calleeName, err)
		}
		e.Value = b
	}
	if !r.owned {
		j := make([]state.Entry, start, start+4)
		copy(j, r.journal[:start])
		r.journal, r.owned = j, true
	} else {
		clear(r.journal[start:])
		r.journal = r.journal[:start]
	}
	r.pos = start
	// The frame's questions are answered: positions from start on now
	// belong to what follows the call.
	var left []state.Pending
	for _, p := range r.pending {
		if p.Position < start {
			left = append(left, p)
		}
	}
	r.pending = left
	return r.record(e)
}

// handOver ends the run with the result of the flow a link node handed
// it to, checked against the caller's output schema when it has one.
func (r *runner) handOver(cn *cnode, res *Result) (*Result, error) {
	tr := res.Complete
	if r.p.output != nil && !tr.IsError {
		if vs := r.p.output.Validate(tr.Structured); len(vs) > 0 {
			return nil, fmt.Errorf("the result of %s does not match the output schema: %s", cn.calleeName, violationsText(vs))
		}
	}
	return res, nil
}

// mockedCall is the result of a call that Mocks.Call supplied:
// its output, checked against the callee's output schema (a string when
// the callee declares none), or its error as the callee's failure.
func mockedCall(callee *Program, m *StepMock) (value any, failed string, err error) {
	if m.Err != nil {
		msg := m.Err.Error()
		if msg == "" {
			msg = fmt.Sprintf("the %s flow failed", callee.Name())
		}
		return nil, msg, nil
	}
	v, err := actions.Normalize(m.Output)
	if err != nil {
		return nil, "", fmt.Errorf("mocked result of %s: %w", callee.Name(), err)
	}
	if callee.output == nil {
		s, ok := v.(string)
		if !ok {
			return nil, "", fmt.Errorf("mocked result of %s: the flow declares no output schema, so its result is its text: mock it with a string", callee.Name())
		}
		return s, "", nil
	}
	if vs := callee.output.Validate(v); len(vs) > 0 {
		return nil, "", fmt.Errorf("mocked result of %s does not match its output schema: %s", callee.Name(), violationsText(vs))
	}
	return normalize(v, callee.output.Doc()), "", nil
}

// mockedResult is the result a mocked link hands over: the mocked text,
// or the structured value with its JSON as text, or the failure.
func mockedResult(cn *cnode, value any, failed string) *ToolResult {
	if failed != "" {
		return failResult(cn.name, failed)
	}
	if s, ok := value.(string); ok {
		return textResult(s, false)
	}
	b, _ := marshal(value)
	tr := textResult(string(b), false)
	tr.Structured = value
	return tr
}

// decodeCallResult decodes a journaled call result, typing its numbers
// by the callee's result schema.
func decodeCallResult(raw []byte, schema map[string]any) (any, error) {
	if raw == nil {
		return nil, nil
	}
	return decodeJSON(raw, schema)
}
