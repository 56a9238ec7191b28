package flow

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/flowserve/flowserve/dsl"
	"github.com/flowserve/flowserve/flow/state"
	"github.com/flowserve/flowserve/internal/content"
)

// Run runs one round of a call of p. See the package documentation for
// the meaning of its results and errors.
func (e *Engine) Run(ctx context.Context, p *Program, req *Request) (*Result, error) {
	if req == nil {
		req = &Request{}
	}
	var opened *state.State
	if req.State != "" {
		// The state says which version of the flow the run began on: the
		// round runs on that one, arguments and all.
		st, err := e.codec.OpenUnbound(req.State)
		if err != nil {
			return nil, err
		}
		if p, err = e.versionOf(ctx, p, st.FlowHash); err != nil {
			return nil, err
		}
		opened = st
	}
	args, violations, err := p.arguments(req.Arguments)
	if p.IsPrompt() && (err != nil || len(violations) > 0) {
		return nil, argumentsError(err, violations)
	}
	if err != nil {
		return &Result{Complete: failResult("", err.Error()), Round: 1}, nil
	}
	if len(violations) > 0 {
		return &Result{Complete: failResult("", "invalid arguments: "+violationsText(violations)), Round: 1}, nil
	}
	settings, err := e.settings(p)
	if err != nil {
		return nil, err
	}
	digest, err := argsDigest(args)
	if err != nil {
		return nil, fmt.Errorf("digest arguments: %w", err)
	}
	st := &state.State{Tool: p.Name(), ArgsDigest: digest, Principal: req.Principal, FlowHash: p.file.Version}
	var (
		replyKey [32]byte
		storeErr error
		runID    string // hex, once known
	)
	if opened != nil {
		if err := opened.Check(state.Binding{Tool: p.Name(), ArgsDigest: digest, Principal: req.Principal}); err != nil {
			return nil, err
		}
		st = opened
		runID = hex.EncodeToString(st.RunID[:])
		if req.Stats != nil {
			req.Stats.RunID, req.Stats.Round = runID, st.Round+1
			req.Stats.FlowChanged = st.FlowHash != p.file.Version
		}
		if e.replies != nil {
			replyKey = replyKeyOf(req.State, req.Responses)
			res, err := e.lookupReply(ctx, replyKey)
			if res != nil {
				return res, nil
			}
			// A store that cannot be read does not stop the run: the round
			// runs (a retried final round may then run its last steps
			// again, as without a store), and the server logs StoreErr.
			storeErr = err
		}
	} else {
		if _, err := rand.Read(st.RunID[:]); err != nil {
			return nil, fmt.Errorf("mint run id: %w", err)
		}
		st.Started = e.now().UTC().Truncate(time.Millisecond)
	}
	if runID == "" {
		runID = hex.EncodeToString(st.RunID[:])
	}
	// The runner stays on the stack: bind does not keep it.
	r := &runner{p: p, roundState: roundState{ctx: ctx, e: e, root: p, req: req, mocks: mocksOf(ctx), st: st, number: st.Round + 1, runID: runID,
		journal: st.Journal, pending: st.Pending, used: map[string]bool{}, trace: make([]string, 0, 8)}}
	r.bind(args, settings)
	if req.Stats != nil {
		req.Stats.RunID, req.Stats.Round, req.Stats.Version = r.runID, r.number, p.file.Version
	}
	res, err := r.run()
	var mismatch *MismatchError
	if err != nil && e.versions != nil && opened != nil && st.FlowHash != p.file.Version && errors.As(err, &mismatch) {
		// The version the run began on is not here, and this one does not
		// replay its journal.
		err = &VersionError{Tool: p.Name(), Version: st.FlowHash, Err: err}
	}
	if req.Stats != nil && len(r.trace) > 0 {
		req.Stats.Node = r.trace[len(r.trace)-1]
	}
	if err == nil && (res.Complete != nil || res.Prompt != nil) && req.State != "" && e.replies != nil {
		// A store that fails does not fail the call: the result exists and
		// its effects happened. The server logs StoreErr.
		if putErr := e.storeReply(ctx, replyKey, res, st.Expires); putErr != nil {
			storeErr = errors.Join(storeErr, putErr)
		}
	}
	if err == nil && storeErr != nil {
		res.StoreErr = storeErr
	}
	return res, err
}

// bind binds the variables of the round: the arguments, run, client,
// principal, error, and the flow's vars and secrets (settings, see Engine.settings).
func (r *runner) bind(args, settings map[string]any) {
	st, req := r.st, r.req
	// Sized for every name the round may bind, so that it never grows.
	r.vars = make(map[string]any, r.p.names)
	r.vars[varInput] = args
	r.vars[varRun] = map[string]any{
		"id":      r.runID,
		"started": st.Started.UTC().Format(time.RFC3339Nano),
		"round":   int64(r.number),
	}
	r.vars[varClient] = clientValue(req.Client)
	if r.p.principal {
		r.vars[varPrincipal] = principalValue(req.Identity)
	}
	r.vars[varError] = ""
	for name, v := range settings {
		r.vars[name] = v
	}
}

// arguments decodes the tool arguments, applies the input schema's
// top-level defaults and validates them.
func (p *Program) arguments(raw json.RawMessage) (map[string]any, []violation, error) {
	var args map[string]any
	if len(raw) == 0 || string(raw) == "null" {
		args = map[string]any{}
	} else {
		v, err := decodeJSON(raw, p.input.Doc())
		if err != nil {
			return nil, nil, fmt.Errorf("invalid arguments: not JSON: %v", err)
		}
		m, ok := v.(map[string]any)
		if !ok {
			return nil, nil, fmt.Errorf("invalid arguments: must be an object")
		}
		args = m
	}
	args, out := p.prepare(args)
	return args, out, nil
}

// prepare applies the input schema's top-level defaults to decoded
// arguments, types their numbers and validates them.
func (p *Program) prepare(args map[string]any) (map[string]any, []violation) {
	if props, ok := p.input.Doc()["properties"].(map[string]any); ok {
		for name, s := range props {
			sm, _ := s.(map[string]any)
			if d, ok := sm["default"]; ok {
				if _, set := args[name]; !set {
					args[name] = cloneJSON(d)
				}
			}
		}
	}
	args = normalize(args, p.input.Doc()).(map[string]any)
	var out []violation
	for _, v := range p.input.Validate(args) {
		out = append(out, violation(v))
	}
	return args, out
}

// runner runs a round: the flow the call is of, and the flows its call
// and link nodes run, each in a frame of its own (see call.go) that
// shares the round's roundState.
type runner struct {
	roundState
	// p, vars and frame are the flow running now, its variables and
	// where its frame is: the call's flow at the top (frame zero), a
	// callee while a call runs it.
	p    *Program
	vars map[string]any
	frame
}

// roundState is the state of one round that all its frames share: the one
// journal, the next position in it, the answers used.
type roundState struct {
	ctx     context.Context
	e       *Engine
	root    *Program // the flow the call is of, whose version the state carries
	req     *Request
	mocks   *Mocks // flowserve test's (WithMocks), or nil
	st      *state.State
	number  int // the round's number, 1 for the first
	runID   string
	journal []state.Entry
	owned   bool            // journal is a copy this round may append to
	pos     int             // the next position
	used    map[string]bool // answers used this round, by key
	// pending are the questions the state was waiting for, less those
	// of frames that finished this round (see collapse).
	pending []state.Pending
	asked   bool // an ask has been reached this round
	trace   []string
}

func (r *runner) result(res *Result) (*Result, error) {
	res.Round = r.number
	res.Trace = r.trace
	return res, nil
}

func (r *runner) fail(n *dsl.Node, err error) (*Result, error) {
	return nil, &RunError{Node: r.prefix + n.Name(), Pos: n.Pos, Err: err}
}

func (r *runner) run() (*Result, error) {
	nodes := r.p.nodes
	visits := 0
	for i := 0; ; {
		if i >= len(nodes) {
			// Ran off the end of the node list: an empty result.
			if r.p.IsPrompt() {
				return r.result(&Result{Prompt: &PromptResult{Messages: []PromptMessage{}}})
			}
			return r.result(&Result{Complete: &ToolResult{Content: []mcp.Content{}}})
		}
		cn := nodes[i]
		n := cn.n
		visits++
		if visits > r.e.limits.Visits {
			return r.fail(n, fmt.Errorf("more than %d node visits in one round; does a loop lack an ask or a step?", r.e.limits.Visits))
		}
		if err := r.ctx.Err(); err != nil {
			return r.fail(n, err)
		}
		if r.prefix == "" {
			r.trace = append(r.trace, cn.name)
		} else {
			r.trace = append(r.trace, r.prefix+cn.name)
		}
		var (
			next int
			res  *Result
			err  error
		)
		switch n.Kind {
		case dsl.KindAsk, dsl.KindSample, dsl.KindRoots:
			next, res, err = r.ask(cn)
		case dsl.KindAll:
			next, res, err = r.all(cn)
		case dsl.KindStep:
			if r.detaches(cn) {
				res, err = r.detach(cn)
				break
			}
			next, err = r.step(cn)
		case dsl.KindBranch:
			next, err = r.branch(cn)
		case dsl.KindSet:
			next, err = cn.next, r.set(cn)
		case dsl.KindReturn:
			res, err = r.ret(cn)
		case dsl.KindFail:
			var msg string
			msg, err = cn.fail.render(r.vars)
			res = &Result{Complete: failResult(r.prefix+cn.name, msg)}
		case dsl.KindCall, dsl.KindLink:
			next, res, err = r.call(cn)
		default:
			err = fmt.Errorf("unknown node kind")
		}
		if err != nil {
			var re *RunError
			var ve *VersionError
			if errors.As(err, &re) || IsInvalidParams(err) || isCapability(err) || errors.As(err, &ve) {
				return nil, err
			}
			return r.fail(n, err)
		}
		if res != nil {
			return r.result(res)
		}
		i = next
	}
}

func isCapability(err error) bool {
	var mc *MissingCapabilityError
	return errors.As(err, &mc)
}

// replayed returns the journal entry at the next position, if the
// journal reaches that far, after checking that this node made it.
func (r *runner) replayed(cn *cnode, kind state.EntryKind) (*state.Entry, error) {
	if r.pos >= len(r.journal) {
		return nil, nil
	}
	e := &r.journal[r.pos]
	if e.Kind != kind || e.Node != cn.n.ID {
		return nil, r.mismatch(r.pos, e.Node, fmt.Sprintf("the run now reaches %s %q there", cn.n.Kind, cn.n.Name()))
	}
	if e.Fingerprint != cn.fp {
		reason := "it asks a different question"
		if kind == state.EntryStep {
			reason = "the step is defined differently"
		}
		return nil, r.mismatch(r.pos, e.Node, reason)
	}
	return e, nil
}

func (r *runner) set(cn *cnode) error {
	for _, b := range cn.binds {
		v, err := b.value.eval(r.vars)
		if err != nil {
			return fmt.Errorf("set %s: %w", b.name, err)
		}
		r.vars[b.name] = v
	}
	return nil
}

func (r *runner) branch(cn *cnode) (int, error) {
	for _, c := range cn.cases {
		ok, err := c.cond.test(r.vars)
		if err != nil {
			return 0, err
		}
		if ok {
			return c.target, nil
		}
	}
	return cn.orElse, nil // the else target, or the next node
}

func (r *runner) ret(cn *cnode) (*Result, error) {
	if r.p.IsPrompt() {
		return r.promptResult(cn)
	}
	tr := &ToolResult{Content: make([]mcp.Content, 0, len(cn.content)+1)}
	if cn.text != nil {
		msg, err := cn.text.render(r.vars)
		if err != nil {
			return nil, err
		}
		tr.Content = append(tr.Content, &mcp.TextContent{Text: msg})
	}
	for i, b := range cn.content {
		v, err := b.eval(r.vars)
		if err != nil {
			return nil, err
		}
		c, err := content.FromValue(v)
		if err != nil {
			return nil, fmt.Errorf("content block %d: %w", i+1, err)
		}
		tr.Content = append(tr.Content, c)
	}
	if cn.structured != nil {
		v, err := cn.structured.eval(r.vars)
		if err != nil {
			return nil, err
		}
		if r.p.output != nil {
			if vs := r.p.output.Validate(v); len(vs) > 0 {
				return nil, fmt.Errorf("structured result does not match the output schema: %s", violationsText(vs))
			}
		}
		tr.Structured = v
		if cn.text == nil && len(cn.content) == 0 {
			// MCP: a tool returning structured content should also
			// return it serialized as text.
			b, err := marshal(v)
			if err != nil {
				return nil, err
			}
			tr.Content = append(tr.Content, &mcp.TextContent{Text: string(b)})
		}
	}
	return &Result{Complete: tr}, nil
}

// record appends an entry to the journal, copying on first write so the
// opened state is never aliased.
func (r *runner) record(e state.Entry) error {
	if len(r.journal) >= r.e.limits.Journal {
		return fmt.Errorf("the run has reached the limit of %d journal entries", r.e.limits.Journal)
	}
	if !r.owned {
		j := make([]state.Entry, len(r.journal), len(r.journal)+4)
		copy(j, r.journal)
		r.journal, r.owned = j, true
	}
	r.journal = append(r.journal, e)
	r.pos++
	return nil
}
