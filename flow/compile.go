package flow

import (
	"crypto/sha256"
	"time"

	"github.com/flowserve/flowserve/actions"
	"github.com/flowserve/flowserve/check"
	"github.com/flowserve/flowserve/check/codes"
	"github.com/flowserve/flowserve/dsl"
	"github.com/flowserve/flowserve/schemas"
)

// Env is what a flow is compiled against: the actions its steps may
// call, the cost limit its expressions are checked under and the flows
// its calls name (see check.Env). An Env holds nothing a run needs at run
// time; that belongs to the [Engine].
type Env = check.Env

// Program is a compiled flow: pure data, immutable and safe for concurrent
// use. An [Engine] runs it; a Program owns no key, store or clock, so any
// number of Programs (and successive versions of one flow) run on one
// Engine.
type Program struct {
	file  *dsl.File
	names int // the variables of its scope, a round's names to bind
	// principal is set when some expression may read principal: rounds
	// of other flows do not bind it.
	principal bool
	nodes     []*cnode
	input     *schemas.Schema
	output    *schemas.Schema
	long      bool // some step is `long: true`, in this flow or one it calls (once linked)
	calls     bool // some node is a call or link
	// scopes are Scopes once Link has joined the callees; nil before.
	scopes []string
}

// HasLongSteps reports whether the flow has a `long: true` step.
func (p *Program) HasLongSteps() bool { return p.long }

// File returns the parsed flow the program was compiled from.
func (p *Program) File() *dsl.File { return p.file }

// Name returns the tool (or prompt) name.
func (p *Program) Name() string { return p.file.Name.Value }

// Title returns the tool (or prompt) title, or "".
func (p *Program) Title() string { return p.file.Title.Value }

// Description returns the tool (or prompt) description.
func (p *Program) Description() string { return p.file.Description.Value }

// InputSchema returns the JSON Schema of the tool's arguments.
func (p *Program) InputSchema() map[string]any { return p.input.Doc() }

// OutputSchema returns the JSON Schema of the tool's structured content,
// or nil when the flow declares none.
func (p *Program) OutputSchema() map[string]any {
	if p.output == nil {
		return nil
	}
	return p.output.Doc()
}

// cnode is a node with everything it needs at run time compiled.
type cnode struct {
	n    *dsl.Node
	name string // n.Name(), for traces
	next int    // index of the node that follows; len(nodes) = end of list
	fp   uint64

	// ask
	message     *ctemplate
	url         *ctemplate
	form        *schemas.Schema
	formDoc     map[string]any
	formJSON    []byte // formDoc encoded once, for servers
	defaults    map[string]any
	rules       []crule
	retries     int
	unavailable int // -1 when none (also of an all node)
	mode        string
	sample      *csample
	// an approval (`to`): who is asked, the webhook, the timeout and its
	// target (-1 when none)
	to, webhook     *ctemplate
	approvalTimeout time.Duration
	onTimeout       int

	// all: its questions, each compiled as a node of its own
	group []*cnode

	// step
	action  *actions.Action
	with    *cvalue
	timeout time.Duration
	long    bool // `long: true`: a detaching round stops before it
	retry   dsl.Retry
	onError int // -1 when none

	// branch
	cases  []ccase
	orElse int // the else target, or the node after the branch

	// set
	binds []cbind

	// return
	text        *ctemplate
	structured  *cvalue
	content     []*cvalue
	description *ctemplate // prompt flows
	messages    []cmessage // prompt flows

	// fail
	fail *ctemplate

	// call and link: the callee's name, and its program once linked (nil
	// until then, or when no program has that name); with is as for a step
	callee     *Program
	calleeName string
	resultDoc  map[string]any // the schema of a call's result (dsl.CalleeResult), nil when unknown
}

// csample is a sample node's request.
type csample struct {
	messages []cmessage
	system   *ctemplate
	// static holds the params that do not depend on the run: maxTokens,
	// temperature, stopSequences, modelPreferences.
	static map[string]any
}

type cmessage struct {
	role    string
	text    *ctemplate
	content *cvalue
}

type crule struct {
	cond    *cexpr
	message *ctemplate
}

type ccase struct {
	cond   *cexpr
	target int
}

type cbind struct {
	name  string
	value *cvalue
}

// compiler builds the Program of one file from what check.Types worked
// out of it.
type compiler struct {
	file *dsl.File
	info *check.Info
	cfg  *dsl.CFG
	// principal is set once an expression spells principal.
	principal bool
	callees   dsl.Callees // Env.Callees
	// untyped is the first part of the file check.Types did not work
	// out (a place it does not walk, which is a bug): the Program is not
	// to be run then.
	untyped *dsl.Diagnostic
}

// notTyped records that check.Types did not work out what (at pos).
func (c *compiler) notTyped(pos dsl.Pos, what string) {
	if c.untyped == nil {
		c.untyped = &dsl.Diagnostic{Pos: pos, Severity: dsl.Error, Code: codes.Compile,
			Message: what + " was not type-checked: check.Types does not know its place"}
	}
}

// Compile compiles a parsed flow, like cel-go's Compile: the result is a
// Program, or nil when the flow has errors, and the diagnostics of every
// check the flow has not yet had. Compile is pure: it reads f and env and
// nothing else, and the same input always gives the same Program.
//
// The checks are package check's: Compile runs check.Types (which runs
// check.File first when f has not been checked with env's registry) and
// returns its diagnostics; it reports nothing of its own. It builds the
// Program on what Types worked out (the scope, every expression compiled,
// the schemas compiled), so nothing is compiled twice. project.Load is
// the usual caller.
func Compile(f *dsl.File, env Env) (*Program, dsl.Diagnostics) {
	info, diags := check.Types(f, env)
	if info == nil {
		return nil, diags
	}
	p, untyped := build(f, info, env)
	if untyped != nil {
		return nil, append(diags, *untyped)
	}
	return p, diags
}

// build builds the Program of f on what check.Types worked out of it.
// untyped is a compile error at the first part of the file Types did not
// work out (a place it does not walk, which is a bug): the Program is not
// to be run then.
func build(f *dsl.File, info *check.Info, env Env) (p *Program, untyped *dsl.Diagnostic) {
	reg := env.Actions
	if reg == nil {
		reg = actions.Default()
	}
	c := &compiler{file: f, info: info, cfg: info.CFG, callees: env.Callees}
	p = &Program{file: f, names: len(info.Vars), input: info.Input, output: info.Output}
	for i, n := range f.Nodes {
		cn := c.node(n, i, reg)
		p.nodes = append(p.nodes, cn)
		p.long = p.long || cn.long
		p.calls = p.calls || n.Kind.IsCall()
	}
	p.principal = c.principal
	return p, c.untyped
}

// node compiles the node at index i of the file's node list, or a
// question of an all node (i < 0), whose successors are its group's.
func (c *compiler) node(n *dsl.Node, i int, reg *actions.Registry) *cnode {
	cn := &cnode{n: n, name: n.Name(), next: -1, unavailable: -1, onError: -1, orElse: -1, onTimeout: -1}
	if i >= 0 {
		// Compile runs on files Parse read in full, whose references all
		// resolve (Parse reports unknown-target).
		cn.next = c.cfg.Next(i)
		cn.unavailable = c.cfg.Target(i, dsl.EdgeUnavailable)
		cn.onError = c.cfg.Target(i, dsl.EdgeOnError)
		cn.onTimeout = c.cfg.Target(i, dsl.EdgeOnTimeout)
		cn.orElse = c.cfg.Target(i, dsl.EdgeElse)
		if cn.orElse < 0 {
			cn.orElse = c.cfg.Target(i, dsl.EdgeOtherwise)
		}
	}
	switch n.Kind {
	case dsl.KindSample:
		cn.mode = ModeSampling
		cn.sample = c.sample(n.Ask.Sample)
	case dsl.KindRoots:
		cn.mode = ModeRoots
	case dsl.KindAll:
		for _, q := range n.All.Questions {
			cq := c.node(q, -1, reg)
			cq.next = cn.next
			cn.group = append(cn.group, cq)
		}
	case dsl.KindAsk:
		c.ask(cn, n.Ask)
	case dsl.KindStep:
		s := n.Step
		// check.File reports an unknown action (unknown-action); the
		// Program is then not built.
		cn.action, _ = reg.Lookup(s.Action.Value)
		cn.with = c.value(s.With)
		cn.timeout = s.Timeout
		cn.long = s.Long
		if cn.timeout <= 0 {
			cn.timeout = dsl.DefaultStepTimeout
		}
		cn.retry = dsl.Retry{Attempts: 1}
		if s.Retry != nil && s.Retry.Attempts > 1 {
			cn.retry = *s.Retry
		}
	case dsl.KindBranch:
		for _, e := range c.cfg.Succ(i) {
			if e.Kind == dsl.EdgeCase {
				cn.cases = append(cn.cases, ccase{cond: c.cond(e.Cond), target: e.To})
			}
		}
	case dsl.KindSet:
		for _, b := range n.Set.Bindings {
			cn.binds = append(cn.binds, cbind{name: b.Name, value: c.value(b.Value)})
		}
	case dsl.KindReturn:
		r := n.Return
		cn.text = c.template(r.Text)
		cn.structured = c.value(r.Structured)
		for _, b := range r.Content {
			cn.content = append(cn.content, c.value(b))
		}
		c.promptReturn(cn, r)
	case dsl.KindFail:
		cn.fail = c.template(n.Fail)
	case dsl.KindCall, dsl.KindLink:
		cn.calleeName = n.Call.Flow.Value
		cn.with = c.value(n.Call.With)
		if c.callees != nil {
			cn.resultDoc = dsl.CalleeResult(c.callees(cn.calleeName))
		}
	}
	cn.fp = n.Fingerprint()
	return cn
}

// ask compiles an ask node: its message, url, form, validate rules and
// approval.
func (c *compiler) ask(cn *cnode, a *dsl.Ask) {
	cn.mode = ModeForm
	if a.URL != nil {
		cn.mode = ModeURL
	}
	cn.message = c.template(a.Message)
	cn.url = c.template(a.URL)
	cn.retries = a.Retries
	if a.Form != nil {
		// Templated defaults are rendered when the question is asked
		// (see formDefaults); the fingerprint hashes them as written.
		form := c.info.Forms[a.Form]
		if form == nil {
			c.notTyped(a.Form.Pos, "the form")
			form = &check.Form{Doc: a.Form.Schema}
		}
		c.formDefaults(cn, a.Form, form)
		cn.formDoc, cn.form = form.Doc, form.Schema
		cn.formJSON, _ = marshal(cn.formDoc)
	}
	for _, r := range a.Validate {
		cn.rules = append(cn.rules, crule{cond: c.cond(r.Rule), message: c.template(r.Message)})
	}
	if a.Approval() {
		cn.to = c.template(a.To)
		if a.Notify != nil {
			cn.webhook = c.template(a.Notify.Webhook)
		}
		cn.approvalTimeout = a.Timeout
	}
}

// sample compiles a sample node's request.
func (c *compiler) sample(s *dsl.Sample) *csample {
	cs := &csample{static: map[string]any{}}
	if s == nil {
		return cs
	}
	for _, m := range s.Messages {
		cs.messages = append(cs.messages, cmessage{role: m.Role.Value, text: c.template(m.Text), content: c.value(m.Content)})
	}
	cs.system = c.template(s.System)
	cs.static["maxTokens"] = int64(s.MaxTokens)
	if s.Temperature != nil {
		cs.static["temperature"] = *s.Temperature
	}
	if len(s.Stop) > 0 {
		stop := make([]any, len(s.Stop))
		for i, st := range s.Stop {
			stop[i] = st.Value
		}
		cs.static["stopSequences"] = stop
	}
	if s.Model != nil {
		cs.static["modelPreferences"] = s.Model.Value
	}
	return cs
}

// argsDigest digests canonical arguments (encoding/json sorts map keys).
func argsDigest(args map[string]any) ([32]byte, error) {
	b, err := marshal(args)
	if err != nil {
		return [32]byte{}, err
	}
	return sha256.Sum256(b), nil
}
