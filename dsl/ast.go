package dsl

import (
	"iter"
	"strconv"
	"time"

	"github.com/flowserve/flowserve/lang"
	"go.yaml.in/yaml/v3"
)

// File is a parsed flow file. Every node, key and expression keeps its
// position. A File returned with error Diagnostics may be incomplete.
type File struct {
	Path   string   // as given to Parse; used in every Pos
	Source []byte   // the file's bytes
	Hash   [32]byte // SHA-256 of Source
	// Version is the flow's version: the hash of its canonical form (see
	// Version). Servers pin each run to the version it began on.
	Version Version

	Name        String // MCP tool (or prompt) name; defaults to the file's base name without extension
	Title       String // optional
	Description String
	Expressions String // expression language: "cel" (default) or "expr"
	// Kind is what the flow is served as: FlowTool (the default) or
	// FlowPrompt (`kind: prompt`).
	Kind String
	// Task is when a call of the flow may run as an MCP task (`task:`):
	// see TaskMode.
	Task String
	// Auth is what the flow requires of its callers (`auth:`), or nil.
	Auth *Auth
	// Private is set by `expose: false`: the flow is not listed or
	// callable as a tool (or prompt) of its own, only by other flows'
	// call and link nodes. ExposePos is the position of the expose key;
	// zero when absent.
	Private   bool
	ExposePos Pos

	Input  *Schema // JSON Schema of the tool (or prompt) arguments; nil means {type: object}
	Output *Schema // JSON Schema of structuredContent; nil when absent

	// Vars are the settings the flow reads (`vars:`), Secrets the secrets
	// its steps need (`secrets:`), each in file order. The server supplies
	// their values; expressions read them as vars.NAME and secrets.NAME.
	Vars    []*Setting
	Secrets []*Setting

	Nodes []*Node          // in file order
	ByID  map[string]*Node // nodes that have an id

	partial bool       // Parse found errors
	checks  *checks    // what check.File found, once it has run (SetChecks)
	tree    *yaml.Node // the top-level value Parse read, aliases checked; nil when there is none
}

// TaskMode says when a call of a flow runs as an MCP task (DESIGN §11).
type TaskMode string

// The values of the `task` key.
const (
	// TaskNever keeps every call inside the client's conversation.
	TaskNever TaskMode = "never"
	// TaskAuto, the default, turns a call into a task when the client
	// declared the tasks extension and the run reaches a `long` step or an
	// approval (an ask with `to`), or would ask more rounds than the round
	// budget.
	TaskAuto TaskMode = "auto"
	// TaskRequired runs every call as a task; clients without the
	// extension are refused.
	TaskRequired TaskMode = "required"
)

// taskModes lists the values of the `task` key.
func taskModes() []string { return []string{string(TaskNever), string(TaskAuto), string(TaskRequired)} }

// TaskMode returns the flow's task mode: TaskAuto when it does not say.
func (f *File) TaskMode() TaskMode {
	if f.Task.Value == "" {
		return TaskAuto
	}
	return TaskMode(f.Task.Value)
}

// HasApprovals reports whether some ask node of the flow has `to`: is
// answered by someone other than the caller (see Ask.Approval).
func (f *File) HasApprovals() bool {
	if f == nil {
		return false
	}
	for n := range f.Walk() {
		if n.Kind == KindAsk && n.Ask.Approval() {
			return true
		}
	}
	return false
}

// Walk yields every node in file order: each node of Nodes followed by
// the questions of its all node, if it is one.
func (f *File) Walk() iter.Seq[*Node] {
	return func(yield func(*Node) bool) {
		for _, n := range f.Nodes {
			if !yield(n) {
				return
			}
			if n.All == nil {
				continue
			}
			for _, q := range n.All.Questions {
				if !yield(q) {
					return
				}
			}
		}
	}
}

// Setting is one name a flow declares under vars or secrets: a string
// the server supplies (from its environment or a file), never written in
// the flow file.
type Setting struct {
	Name        string
	Pos         Pos    // the position of the name
	Description String // empty when the declaration has none
}

// String is a scalar string value with its position.
type String struct {
	Value string
	Pos   Pos
}

// The values of File.Kind.
const (
	FlowTool   = "tool"
	FlowPrompt = "prompt"
)

// IsPrompt reports whether the flow is served as an MCP prompt.
func (f *File) IsPrompt() bool { return f != nil && f.Kind.Value == FlowPrompt }

// Schema is a JSON Schema written in YAML.
type Schema struct {
	Pos   Pos
	Value map[string]any // JSON-compatible: maps, []any, string, bool, int64, float64, nil
	// Properties names the schema's top-level properties (the keys of its
	// properties mapping) in file order, each at the position of its key.
	Properties []String
}

// Kind is the kind of a flow node.
type Kind int

// The node kinds of DSL v1.
const (
	KindAsk Kind = iota + 1
	KindStep
	KindBranch
	KindSet
	KindReturn
	KindFail
	KindSample
	KindRoots
	KindAll
	KindCall
	KindLink
)

// String returns the kind's key as written in flow files.
func (k Kind) String() string {
	switch k {
	case KindAsk:
		return "ask"
	case KindStep:
		return "step"
	case KindBranch:
		return "branch"
	case KindSet:
		return "set"
	case KindReturn:
		return "return"
	case KindFail:
		return "fail"
	case KindSample:
		return "sample"
	case KindRoots:
		return "roots"
	case KindAll:
		return "all"
	case KindCall:
		return "call"
	case KindLink:
		return "link"
	}
	return "unknown"
}

// IsQuestion reports whether nodes of kind k ask the client for input:
// ask (elicitation), sample (sampling/createMessage) and roots
// (roots/list). Each such node takes a journal position for its answer.
func (k Kind) IsQuestion() bool {
	return k == KindAsk || k == KindSample || k == KindRoots
}

// IsCall reports whether nodes of kind k run another flow: call (which
// returns to the caller) and link (which hands the run over). Each such
// node takes a journal position for the callee's frame.
func (k Kind) IsCall() bool { return k == KindCall || k == KindLink }

// Node is one entry of a flow's node list, or one question of an all
// node. Exactly one of Ask (for the kinds ask, sample and roots), Step,
// Branch, Set, Return, Fail, All and Call (for call and link) is set,
// matching Kind.
type Node struct {
	Index int    // position in File.Nodes; a question of an all node has its group's Index
	ID    string // "" when the node has no id
	IDPos Pos
	Pos   Pos // position of the node's mapping
	Kind  Kind
	Next  *Ref // explicit successor; nil means fall through

	Ask    *Ask
	Step   *Step
	Branch *Branch
	Set    *Set
	Return *Return
	Fail   *Template
	All    *All
	Call   *Call

	// Group is the all node this node is a question of, or nil.
	Group *Node
}

// Name returns the node's id, or "#N" (its 1-based index) when it has none,
// for messages.
func (n *Node) Name() string {
	if n.ID != "" {
		return n.ID
	}
	return "#" + strconv.Itoa(n.Index+1)
}

// Ref is a reference to another node by id.
type Ref struct {
	ID     string
	Pos    Pos
	Target int // index of the node in File.Nodes; -1 when it does not exist
}

// Call runs another flow of the same project (a sub-flow, DESIGN §2): a
// call node binds the callee's result to its own id and goes on; a link
// node hands the run over, so the callee's result is the run's.
type Call struct {
	// Flow names the callee: the name of a tool flow loaded with this one.
	Flow String
	// With is the callee's arguments, a map of templates checked against
	// the callee's input schema; nil when absent (the callee gets {}).
	With *Value
	// OnError is where a call goes when the callee fails (its fail node,
	// or a failure of its own); error is then bound to the callee's
	// message. Nil: the caller fails with that message. Link nodes have
	// none.
	OnError *Ref
}

// Ask asks the client for input. An ask node asks the user, in form mode
// (Form set) or URL mode (URL set); a sample node asks the client's model
// (Sample set); a roots node asks for the client's roots (Roots set).
type Ask struct {
	Message     *Template // ask nodes only
	Form        *Form     // nil in URL mode
	URL         *Template // nil in form mode
	Sample      *Sample   // sample nodes only
	Roots       bool      // roots nodes
	Validate    []*Rule
	Retries     int // default DefaultRetries
	Unavailable *Ref

	// To is who is asked when someone other than the caller must answer
	// (`to:`, DESIGN §12): a template rendered when the run reaches the
	// ask, naming the person on the page flowserve serves the question on
	// and in its notification. An ask with To is an approval (see
	// Approval). Nil when absent.
	To *Template
	// Notify is where flowserve announces an approval's link (`notify:`);
	// nil when absent.
	Notify *Notify
	// Timeout is how long an approval waits for its answer (`timeout:`);
	// 0 when absent: as long as the run lives. TimeoutPos is the position
	// of the timeout key; zero when absent.
	Timeout    time.Duration
	TimeoutPos Pos
	// OnTimeout is the node the flow goes to when nobody answers before
	// the timeout (`on_timeout:`); the ask's answer then has the action
	// "timeout". Nil when absent.
	OnTimeout *Ref
}

// Approval reports whether the ask is answered by someone other than the
// caller (it has `to`): the run goes on as a task, and the question is
// served on flowserve's own page instead of to the client. It is false
// for a nil Ask.
func (a *Ask) Approval() bool { return a != nil && a.To != nil }

// Notify is the `notify` mapping of an approval: how flowserve tells the
// person asked that a question waits for them.
type Notify struct {
	Pos Pos // the position of the mapping
	// Webhook is the URL flowserve POSTs a JSON notification with the
	// question's link to, a template; nil when the mapping lacks it
	// (Parse reported it).
	Webhook *Template
}

// Sample is the request of a sample node: sampling/createMessage params.
type Sample struct {
	Pos         Pos
	Messages    []*Message
	System      *Template // systemPrompt; nil when absent
	MaxTokens   int       // default DefaultMaxTokens
	Temperature *float64
	Stop        []String // stopSequences
	Model       *Schema  // modelPreferences as written (JSON-like); nil when absent
}

// DefaultMaxTokens is a sample's maxTokens when the flow does not say.
const DefaultMaxTokens = 1000

// Message is one message of a sample request or of a prompt flow's
// return: a role and either a text template or a content block.
type Message struct {
	Pos     Pos
	Role    String // user or assistant
	Text    *Template
	Content *Value // a content block map with a type; nil when Text is set
}

// All groups questions that are asked in the same round. Each question
// is an ask, sample or roots node with an id; the flow goes on once all
// of them are answered.
type All struct {
	Pos       Pos
	Questions []*Node
	// Unavailable is where the flow goes when the client cannot answer
	// one of the questions; nil means a missing-capability error.
	Unavailable *Ref
}

// DefaultRetries is how many times an ask is asked again after invalid
// answers when the flow does not say.
const DefaultRetries = 2

// Form is the requested schema of a form-mode ask.
type Form struct {
	Pos        Pos
	Properties []*Property // in file order
	Required   []String
	// Schema is the MCP requestedSchema built from the properties:
	// {"type": "object", "properties": {...}, "required": [...]}.
	Schema map[string]any
}

// Property is one field of a form.
type Property struct {
	Name   string
	Pos    Pos
	Schema map[string]any // JSON-compatible
}

// Rule is one `validate` entry of an ask: a boolean expression and the
// message shown when it is false.
type Rule struct {
	Pos     Pos
	Rule    *Expr
	Message *Template
}

// Step runs a Go action.
type Step struct {
	Action  String
	With    *Value        // a map of templates; nil when absent
	Timeout time.Duration // default DefaultStepTimeout
	Retry   *Retry        // nil: one attempt
	OnError *Ref
	// Long marks a step that may take long (`long: true`): a call whose
	// run reaches it goes on as a task, for a client that declared tasks,
	// unless the flow says task: never or is a prompt (Check warns).
	Long    bool
	LongPos Pos // the position of the long key; zero when absent
}

// DefaultStepTimeout is a step's timeout when the flow does not say.
const DefaultStepTimeout = 30 * time.Second

// Retry says how often a failing step is tried again.
type Retry struct {
	Pos      Pos
	Attempts int           // total attempts, at least 1
	Backoff  time.Duration // wait before the second attempt; doubles each time
}

// Branch chooses the next node: the first case whose condition is true,
// else Else, else fall through.
type Branch struct {
	Cases []*Case
	Else  *Ref
}

// Case is one `{if, then}` of a branch.
type Case struct {
	Pos  Pos
	If   *Expr
	Then *Ref
}

// Set binds names to values.
type Set struct {
	Bindings []*Binding // in file order
}

// Binding is one name of a set node.
type Binding struct {
	Name  string
	Pos   Pos
	Value *Value
}

// Return ends the flow with a result. A plain `return: "text"` sets only
// Text. Structured and Content belong to tool flows, Description and
// Messages to prompt flows, whose Text is a first user message.
type Return struct {
	Pos        Pos
	Text       *Template
	Structured *Value
	Content    []*Value // content blocks, each a map with a "type"

	Description *Template  // the prompt's description; nil when absent
	Messages    []*Message // the prompt's messages after Text
}

// ValueKind is the shape of a Value.
type ValueKind int

// The shapes of a Value.
const (
	ValueLiteral  ValueKind = iota + 1 // a non-string scalar (bool, int64, float64) or null
	ValueTemplate                      // a string: a template
	ValueMap
	ValueList
)

// Value is a YAML value whose strings are templates.
type Value struct {
	Pos      Pos
	Kind     ValueKind
	Literal  any       // ValueLiteral
	Template *Template // ValueTemplate
	Keys     []string  // ValueMap, in file order
	Map      []*Value  // ValueMap, parallel to Keys
	List     []*Value  // ValueList
}

// Template is a string with `{{ expr }}` interpolations.
type Template struct {
	Pos   Pos
	Src   string
	Parts []Part
}

// Part is a piece of a template: literal text or an expression.
type Part struct {
	Text string // when Expr is nil
	Expr *Expr
}

// Whole returns the template's expression when the template is exactly one
// `{{ expr }}` and nothing else, so its value keeps the expression's type;
// otherwise nil.
func (t *Template) Whole() *Expr {
	if t != nil && len(t.Parts) == 1 && t.Parts[0].Expr != nil {
		return t.Parts[0].Expr
	}
	return nil
}

// Reads returns what the expression reads, when Parse worked it out with
// its syntax check; ok is false when it did not (lang.ReadsOf works it
// out).
func (e *Expr) Reads() (r lang.Reads, ok bool) {
	if e == nil || e.reads == nil {
		return lang.Reads{}, false
	}
	return *e.reads, true
}

// Expr is an expression's source with its position in the flow file.
type Expr struct {
	Src string
	Pos Pos // position of Src's first rune

	// reads is what the expression reads, when Parse worked it out with
	// its syntax check (nil otherwise: see Reads).
	reads *lang.Reads

	// lines holds, for each line of Src after the first, the position of
	// its first rune (block scalars and multi-line strings).
	lines []Pos

	// segs, when set, maps Src to the file exactly: each segment is a run
	// of runes that follow each other on one line of the file. Parse sets
	// it whenever Src does not sit on one line unchanged (line folding,
	// escape sequences); it takes precedence over lines.
	segs []exprSeg
}

// exprSeg is a run of an expression's runes, from rune offset off in Src,
// that lie one after the other in the file starting at pos.
type exprSeg struct {
	off int
	pos Pos
}

// PosAt returns the file position of the rune at offset (in runes) in Src.
func (e *Expr) PosAt(offset int) Pos {
	if len(e.segs) > 0 {
		offset = max(offset, 0)
		i := len(e.segs) - 1
		for i > 0 && e.segs[i].off > offset {
			i--
		}
		p := e.segs[i].pos
		p.Col += offset - e.segs[i].off
		return p
	}
	line, col := 0, 0
	for i, r := range []rune(e.Src) {
		if i >= offset {
			break
		}
		if r == '\n' {
			line++
			col = 0
			continue
		}
		col++
	}
	if line == 0 || line > len(e.lines) {
		p := e.Pos
		if line == 0 {
			p.Col += col
		}
		return p
	}
	p := e.lines[line-1]
	p.Col += col
	return p
}

// HasCalls reports whether some node of the flow is a call or link.
func (f *File) HasCalls() bool {
	if f == nil {
		return false
	}
	for _, n := range f.Nodes {
		if n.Kind.IsCall() {
			return true
		}
	}
	return false
}
