package flow

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"time"

	"github.com/flowserve/flowserve/actions"
	"github.com/flowserve/flowserve/dsl"
	"github.com/flowserve/flowserve/flow/state"
	"github.com/flowserve/flowserve/lang"
	"github.com/flowserve/flowserve/replies"
	"github.com/flowserve/flowserve/schemas"
)

// Limits bound what one run may do. Zero fields take the defaults.
type Limits struct {
	Journal   int    // journal entries per run; default 256
	Visits    int    // node visits per round; default 10 000
	CostLimit uint64 // cost of one expression evaluation; default lang.DefaultCostLimit
}

// The default limits.
const (
	DefaultJournalLimit = 256
	DefaultVisitLimit   = 10_000
)

func (l Limits) withDefaults() Limits {
	if l.Journal <= 0 {
		l.Journal = DefaultJournalLimit
	}
	if l.Visits <= 0 {
		l.Visits = DefaultVisitLimit
	}
	if l.CostLimit == 0 {
		l.CostLimit = lang.DefaultCostLimit
	}
	return l
}

// Options configure Compile. The zero value is usable.
type Options struct {
	// Actions resolves step actions; nil means actions.Default().
	Actions *actions.Registry
	// Codec seals and opens request states; nil means a codec with an
	// ephemeral key, whose states die with the process.
	Codec *state.Codec
	// Limits bound each run.
	Limits Limits
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Replies keeps final results for retried final rounds; nil means a
	// store in memory for this program alone (replies.NewMemory). Share
	// one store between programs, or a Redis one between instances.
	Replies ReplyStore
}

// Program is a compiled flow. It is immutable and safe for concurrent use.
type Program struct {
	file    *dsl.File
	nodes   []*cnode
	input   *schemas.Schema
	output  *schemas.Schema
	codec   *state.Codec
	limits  Limits
	now     func() time.Time
	replies ReplyStore
}

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

	// all: its questions, each compiled as a node of its own
	group []*cnode

	// step
	action  *actions.Action
	with    *cvalue
	timeout time.Duration
	retry   dsl.Retry
	onError int // -1 when none

	// branch
	cases  []ccase
	orElse int // -1 when none

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
	file  *dsl.File
	env   lang.Env
	diags dsl.Diagnostics
}

func (c *compiler) errorf(pos dsl.Pos, code, format string, args ...any) {
	c.diags = append(c.diags, dsl.Diagnostic{Pos: pos, Severity: dsl.Error, Code: code, Message: fmt.Sprintf(format, args...)})
}

// Compile compiles a parsed flow. Problems in the flow (an expression that
// does not compile, an unknown action, a schema that is not valid) are
// returned as a *dsl.DiagnosticsError with positions. Compile expects a
// file that dsl.Parse returned without errors.
func Compile(f *dsl.File, opts Options) (*Program, error) {
	if f == nil {
		return nil, fmt.Errorf("compile: no flow")
	}
	reg := opts.Actions
	if reg == nil {
		reg = actions.Default()
	}
	limits := opts.Limits.withDefaults()
	codec := opts.Codec
	if codec == nil {
		ring, err := state.EphemeralKeyRing()
		if err != nil {
			return nil, fmt.Errorf("compile %s: %w", f.Path, err)
		}
		codec = state.NewCodec(ring, state.Options{Now: opts.Now})
	}
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	c := &compiler{file: f}
	l, ok := lang.Lookup(f.Expressions.Value)
	if !ok {
		c.errorf(f.Expressions.Pos, "unknown-language", "unknown expression language %q", f.Expressions.Value)
		return nil, c.diags.Err()
	}
	// Every expression is type-checked against the typed scope.
	vars, diags := scope(f, reg)
	c.diags = append(c.diags, diags...)
	env, err := l.NewEnv(vars, lang.Options{CostLimit: limits.CostLimit})
	if err != nil {
		return nil, fmt.Errorf("compile %s: %w", f.Path, err)
	}
	c.env = env

	store := opts.Replies
	if store == nil {
		store = replies.NewMemory(0, now)
	}
	p := &Program{file: f, codec: codec, limits: limits, now: now, replies: store}
	inputDoc := map[string]any{"type": "object"}
	inputPos := dsl.Pos{File: f.Path, Line: 1, Col: 1}
	if f.Input != nil {
		inputDoc, inputPos = f.Input.Value, f.Input.Pos
	}
	p.input = c.schema(inputDoc, inputPos, "input")
	if f.Output != nil {
		p.output = c.schema(f.Output.Value, f.Output.Pos, "output")
	}
	for _, n := range f.Nodes {
		p.nodes = append(p.nodes, c.node(n, reg))
	}
	if c.diags.HasErrors() {
		return nil, c.diags.Err()
	}
	return p, nil
}

func (c *compiler) schema(doc map[string]any, pos dsl.Pos, what string) *schemas.Schema {
	s, err := schemas.Compile(doc)
	if err != nil {
		c.errorf(pos, "bad-schema", "%s schema: %v", what, err)
	}
	return s
}

func (c *compiler) target(r *dsl.Ref) int {
	if r == nil {
		return -1
	}
	if r.Target < 0 || r.Target >= len(c.file.Nodes) {
		c.errorf(r.Pos, "unknown-target", "no node has the id %q", r.ID)
		return -1
	}
	return r.Target
}

func (c *compiler) node(n *dsl.Node, reg *actions.Registry) *cnode {
	cn := &cnode{n: n, name: n.Name(), next: n.Index + 1, unavailable: -1, onError: -1, orElse: -1}
	if n.Next != nil {
		if t := c.target(n.Next); t >= 0 {
			cn.next = t
		}
	}
	switch n.Kind {
	case dsl.KindSample:
		cn.mode = ModeSampling
		cn.unavailable = c.target(n.Ask.Unavailable)
		cn.sample = c.sample(n.Ask.Sample)
	case dsl.KindRoots:
		cn.mode = ModeRoots
		cn.unavailable = c.target(n.Ask.Unavailable)
	case dsl.KindAll:
		cn.unavailable = c.target(n.All.Unavailable)
		for _, q := range n.All.Questions {
			cq := c.node(q, reg)
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
		cn.unavailable = c.target(a.Unavailable)
		if a.Form != nil {
			cn.formDoc = a.Form.Schema
			cn.formJSON, _ = marshal(a.Form.Schema)
			cn.form = c.schema(a.Form.Schema, a.Form.Pos, "form")
			for _, prop := range a.Form.Properties {
				if d, ok := prop.Schema["default"]; ok {
					if cn.defaults == nil {
						cn.defaults = map[string]any{}
					}
					cn.defaults[prop.Name] = d
				}
			}
		}
		for _, r := range a.Validate {
			cn.rules = append(cn.rules, crule{cond: c.cond(r.Rule), message: c.template(r.Message)})
		}
	case dsl.KindStep:
		s := n.Step
		act, ok := reg.Lookup(s.Action.Value)
		if !ok {
			c.errorf(s.Action.Pos, "unknown-action", "unknown action %q", s.Action.Value)
		}
		cn.action = act
		cn.with = c.value(s.With)
		cn.timeout = s.Timeout
		if cn.timeout <= 0 {
			cn.timeout = dsl.DefaultStepTimeout
		}
		cn.retry = dsl.Retry{Attempts: 1}
		if s.Retry != nil && s.Retry.Attempts > 1 {
			cn.retry = *s.Retry
		}
		cn.onError = c.target(s.OnError)
	case dsl.KindBranch:
		for _, cs := range n.Branch.Cases {
			cn.cases = append(cn.cases, ccase{cond: c.cond(cs.If), target: c.target(cs.Then)})
		}
		cn.orElse = c.target(n.Branch.Else)
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
	}
	cn.fp = fingerprint(n)
	return cn
}

// fingerprint digests what makes a node's question or step what it is:
// kind, id, message, form, URL, action and inputs. Positions, `next` and
// comments do not count, so moving a node or editing elsewhere keeps
// journaled answers valid.
func fingerprint(n *dsl.Node) uint64 {
	h := fnv.New64a()
	put := func(s string) {
		var l [binary.MaxVarintLen64]byte
		h.Write(l[:binary.PutUvarint(l[:], uint64(len(s)))])
		h.Write([]byte(s))
	}
	put(n.Kind.String())
	put(n.ID)
	switch n.Kind {
	case dsl.KindAsk:
		if n.Ask.Message != nil {
			put(n.Ask.Message.Src)
		}
		if n.Ask.Form != nil {
			b, _ := json.Marshal(n.Ask.Form.Schema)
			put(string(b))
		}
		if n.Ask.URL != nil {
			put("url:" + n.Ask.URL.Src)
		}
	case dsl.KindStep:
		put(n.Step.Action.Value)
		b, _ := json.Marshal(valueSource(n.Step.With))
		put(string(b))
	case dsl.KindSample:
		b, _ := json.Marshal(sampleSource(n.Ask.Sample))
		put(string(b))
	}
	return h.Sum64()
}

// sampleSource returns a sample request as JSON-like data with templates
// as their source text, for fingerprints.
func sampleSource(s *dsl.Sample) any {
	if s == nil {
		return nil
	}
	var msgs []any
	for _, m := range s.Messages {
		msg := map[string]any{"role": m.Role.Value}
		if m.Text != nil {
			msg["text"] = m.Text.Src
		}
		if m.Content != nil {
			msg["content"] = valueSource(m.Content)
		}
		msgs = append(msgs, msg)
	}
	out := map[string]any{"messages": msgs, "maxTokens": s.MaxTokens}
	if s.System != nil {
		out["system"] = s.System.Src
	}
	if s.Temperature != nil {
		out["temperature"] = *s.Temperature
	}
	var stop []string
	for _, st := range s.Stop {
		stop = append(stop, st.Value)
	}
	if stop != nil {
		out["stop"] = stop
	}
	if s.Model != nil {
		out["model"] = s.Model.Value
	}
	return out
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

// valueSource returns a Value as JSON-like data with templates as their
// source text, for fingerprints.
func valueSource(v *dsl.Value) any {
	if v == nil {
		return nil
	}
	switch v.Kind {
	case dsl.ValueLiteral:
		return v.Literal
	case dsl.ValueTemplate:
		return v.Template.Src
	case dsl.ValueMap:
		m := make(map[string]any, len(v.Keys))
		for i, k := range v.Keys {
			m[k] = valueSource(v.Map[i])
		}
		return m
	case dsl.ValueList:
		l := make([]any, len(v.List))
		for i, e := range v.List {
			l[i] = valueSource(e)
		}
		return l
	}
	return nil
}

// argsDigest digests canonical arguments (encoding/json sorts map keys).
func argsDigest(args map[string]any) ([32]byte, error) {
	b, err := marshal(args)
	if err != nil {
		return [32]byte{}, err
	}
	return sha256.Sum256(b), nil
}
