package flow

import (
	"crypto/sha256"
	"fmt"
	"slices"
	"time"

	"github.com/flowserve/flowserve/actions"
	"github.com/flowserve/flowserve/check"
	"github.com/flowserve/flowserve/check/codes"
	"github.com/flowserve/flowserve/dsl"
	"github.com/flowserve/flowserve/lang"
	"github.com/flowserve/flowserve/schemas"
)

// Env is what a flow is compiled against: the actions its steps may call
// and the cost limit its expressions are checked under. The zero value is
// usable. An Env holds nothing a run needs at run time; that belongs to the
// [Engine].
type Env struct {
	// Actions resolves step actions; nil means actions.Default().
	Actions *actions.Registry
	// CostLimit bounds the cost of one expression evaluation; zero means
	// lang.DefaultCostLimit.
	CostLimit uint64
	// Callees finds the flows that call and link nodes name, so that
	// their with values are type-checked against the callee's input
	// schema and their results typed by its output schema; nil finds
	// none (their results are then of any type). It gives parsed files:
	// the Programs a run calls are joined to the caller by Link.
	Callees dsl.Callees
}

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

// compiler collects diagnostics while compiling one file.
type compiler struct {
	file    *dsl.File
	env     lang.Env
	diags   dsl.Diagnostics
	flagged map[dsl.Pos]bool // forms Check found problems in
	cfg     *dsl.CFG
	// principal is set once an expression spells principal.
	principal bool
	callees   dsl.Callees // Env.Callees
}

func (c *compiler) errorf(pos dsl.Pos, code, format string, args ...any) {
	c.diags = append(c.diags, dsl.Diagnostic{Pos: pos, Severity: dsl.Error, Code: code, Message: fmt.Sprintf(format, args...)})
}

// Compile compiles a parsed flow, like cel-go's Compile: the result is a
// Program, or nil when the flow has errors, and the diagnostics of every
// check the flow has not yet had. Compile is pure: it reads f and env and
// nothing else, and the same input always gives the same Program.
//
// check.File cannot be skipped: when f has not been checked with env's
// registry, Compile checks it first and returns Check's diagnostics with
// its own. Each finding is reported once, by the stage that owns it:
// Compile reports expressions that do not compile or type-check, schemas
// that do not compile and an unknown expression language; Check reports
// structure, references and actions. project.Load is the usual caller.
func Compile(f *dsl.File, env Env) (*Program, dsl.Diagnostics) {
	if f == nil {
		return nil, dsl.Diagnostics{{Severity: dsl.Error, Code: codes.NoFlow, Message: "no flow to compile"}}
	}
	if f.Partial() {
		return nil, dsl.Diagnostics{{Pos: dsl.Pos{File: f.Path, Line: 1, Col: 1}, Severity: dsl.Error, Code: codes.PartialFile,
			Message: "the flow has syntax errors (dsl.Parse reported them) and cannot be compiled"}}
	}
	reg := env.Actions
	if reg == nil {
		reg = actions.Default()
	}
	c := &compiler{file: f}
	checks, checked := check.Checked(f, reg)
	if !checked {
		checks = check.File(f, reg)
		c.diags = append(c.diags, checks...)
	}
	c.flagged = flaggedForms(f, checks)
	flaggedSchemas(f, checks, c.flagged)
	p, err := c.compile(reg, env)
	if err != nil {
		c.errorf(dsl.Pos{File: f.Path, Line: 1, Col: 1}, codes.Compile, "%v", err)
		p = nil
	}
	c.diags.Sort()
	if c.diags.HasErrors() || checks.HasErrors() {
		p = nil
	}
	return p, c.diags
}

// compile compiles every part of the file, collecting diagnostics; err is
// for failures that are not the flow's fault.
func (c *compiler) compile(reg *actions.Registry, env Env) (*Program, error) {
	f := c.file
	l, ok := lang.Lookup(f.Expressions.Value)
	if !ok {
		c.errorf(f.Expressions.Pos, codes.UnknownLanguage, "unknown expression language %q", f.Expressions.Value)
		return nil, nil
	}
	cost := env.CostLimit
	if cost == 0 {
		cost = lang.DefaultCostLimit
	}
	// Every expression is type-checked against the typed scope.
	vars, diags := scope(f, reg, env.Callees)
	c.diags = append(c.diags, diags...)
	lenv, err := l.NewEnv(vars, lang.Options{CostLimit: cost})
	if err != nil {
		return nil, fmt.Errorf("compile %s: %w", f.Path, err)
	}
	c.env = lenv

	p := &Program{file: f, names: len(vars)}
	inputDoc := map[string]any{"type": "object"}
	inputPos := dsl.Pos{File: f.Path, Line: 1, Col: 1}
	if f.Input != nil {
		inputDoc, inputPos = f.Input.Value, f.Input.Pos
	}
	p.input = c.schema(inputDoc, inputPos, "input")
	if f.Output != nil {
		p.output = c.schema(f.Output.Value, f.Output.Pos, "output")
	}
	// Successors come from the one CFG lint and graph use too.
	c.cfg = dsl.BuildCFG(f)
	c.callees = env.Callees
	for i, n := range f.Nodes {
		cn := c.node(n, i, reg)
		p.nodes = append(p.nodes, cn)
		p.long = p.long || cn.long
		p.calls = p.calls || n.Kind.IsCall()
	}
	p.principal = c.principal
	return p, nil
}

// flaggedForms returns the positions of the forms in which Check found a
// form-* problem: Check says what is wrong there, at the property, so
// Compile does not report the same form again as a schema that does not
// compile.
func flaggedForms(f *dsl.File, checks dsl.Diagnostics) map[dsl.Pos]bool {
	flagged := map[dsl.Pos]bool{}
	before := func(a, b dsl.Pos) bool { return a.Line < b.Line || a.Line == b.Line && a.Col < b.Col }
	for i, n := range f.Nodes {
		if n.Ask == nil || n.Ask.Form == nil {
			continue
		}
		for _, d := range checks {
			if !isFormCode(d.Code) || before(d.Pos, n.Pos) {
				continue
			}
			if i+1 < len(f.Nodes) && !before(d.Pos, f.Nodes[i+1].Pos) {
				continue
			}
			flagged[n.Ask.Form.Pos] = true
		}
	}
	return flagged
}

// flaggedSchemas adds to flagged the positions of the input and output
// schemas in which Check found an error of the schema's own (a repeated
// or unknown required entry, bounds no value fits, a default that breaks
// the schema): Check says what is wrong there, at the keyword, so Compile
// does not report the whole schema again as one that does not compile.
func flaggedSchemas(f *dsl.File, checks dsl.Diagnostics, flagged map[dsl.Pos]bool) {
	var starts []dsl.Pos // where the file's top-level values begin
	for _, p := range []dsl.Pos{f.Name.Pos, f.Title.Pos, f.Description.Pos, f.Expressions.Pos, f.Kind.Pos, f.Task.Pos} {
		starts = append(starts, p)
	}
	for _, sc := range []*dsl.Schema{f.Input, f.Output} {
		if sc != nil {
			starts = append(starts, sc.Pos)
		}
	}
	if f.Auth != nil {
		starts = append(starts, f.Auth.Pos)
	}
	for _, v := range slices.Concat(f.Vars, f.Secrets) {
		starts = append(starts, v.Pos)
	}
	if len(f.Nodes) > 0 {
		starts = append(starts, f.Nodes[0].Pos)
	}
	before := func(a, b dsl.Pos) bool { return a.Line < b.Line || a.Line == b.Line && a.Col < b.Col }
	for _, sc := range []*dsl.Schema{f.Input, f.Output} {
		if sc == nil {
			continue
		}
		var end dsl.Pos
		for _, p := range starts {
			if p.IsValid() && before(sc.Pos, p) && (!end.IsValid() || before(p, end)) {
				end = p
			}
		}
		for _, d := range checks {
			if d.Severity != dsl.Error || before(d.Pos, sc.Pos) || end.IsValid() && !before(d.Pos, end) {
				continue
			}
			switch d.Code {
			case codes.DuplicateKey, codes.BadValue, codes.UnknownProperty:
				flagged[sc.Pos] = true
			}
		}
	}
}

// isFormCode reports whether code is one of Check's findings in a form's
// properties.
func isFormCode(code string) bool {
	switch code {
	case codes.FormDefault, codes.FormEnum, codes.FormFormat, codes.FormKeyword, codes.FormKind, codes.FormValue:
		return true
	}
	return false
}

func (c *compiler) schema(doc map[string]any, pos dsl.Pos, what string) *schemas.Schema {
	s, err := schemas.Compile(doc)
	if err != nil && !c.flagged[pos] {
		c.errorf(pos, codes.BadSchema, "%s schema: %s", what, schemas.ErrorText(err))
	}
	return s
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
		a := n.Ask
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
			cn.formDoc = c.formDefaults(cn, a.Form)
			cn.formJSON, _ = marshal(cn.formDoc)
			cn.form = c.schema(cn.formDoc, a.Form.Pos, "form")
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
	case dsl.KindStep:
		s := n.Step
		// Check reports an unknown action (unknown-action); the Program is
		// then not returned.
		cn.action, _ = reg.Lookup(s.Action.Value)
		cn.with = c.value(s.With)
		if cn.action != nil {
			c.typeValue(s.With, cn.with, valueTarget{schema: cn.action.Input, root: "with", by: "action " + cn.action.Name})
		}
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
		if f := c.file; f.Output != nil && !f.IsPrompt() {
			c.typeValue(r.Structured, cn.structured, valueTarget{schema: f.Output.Value, root: "structured", by: "the output schema"})
		}
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
		c.typeWith(n.Call, cn.with)
	}
	cn.fp = n.Fingerprint()
	return cn
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
