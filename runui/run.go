package runui

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/flowserve/flowserve/dsl"
	"github.com/flowserve/flowserve/flow"
	"github.com/flowserve/flowserve/flow/drive"
)

// The actions of an elicitation result, as the engine's (flow.Accept…).
const (
	ActionAccept  = string(flow.Accept)
	ActionDecline = string(flow.Decline)
	ActionCancel  = string(flow.Cancel)
)

// Answer is a reply to a question: an elicitation result. An approval's
// answer also says who gave it (By), or is a timeout (ActionTimeout).
type Answer struct {
	Action  string         `json:"action" yaml:"action"`
	Content map[string]any `json:"content,omitempty" yaml:"content,omitempty"`
	// By is who answered an approval (its answered_by); "" for other
	// questions, and for the default name (ApprovalInfo.By).
	By string `json:"-" yaml:"by,omitempty"`
}

// Question is one question of a round, as the terminal shows it.
type Question struct {
	// ID is the ask's id.
	ID string
	// Mode is "form" or "url".
	Mode string
	// Message is the question, without the reason a previous answer was
	// not accepted.
	Message string
	// Schema is the requestedSchema (form mode).
	Schema map[string]any
	// URL is the page to open (URL mode).
	URL string
	// Order lists the form's properties in the flow file's order.
	Order []string
	// Rejected is why the engine did not accept the previous answer to
	// this question, or "".
	Rejected string
	// Previous is the answer given the last time this question was asked
	// in this run, or nil.
	Previous *Answer
	// Approval is set when the question is an approval (an ask with
	// to:): someone other than the caller answers it, with their name,
	// by accepting or declining it, or lets it time out when it has a
	// timeout; it cannot be cancelled.
	Approval *ApprovalInfo
}

// Answerer answers questions: a person at a terminal, or a script.
type Answerer interface {
	// Answer returns the answer to q. An error ends the run; a context
	// error means the user interrupted it.
	Answer(ctx context.Context, q *Question) (*Answer, error)
}

// Config configures Run.
type Config struct {
	// Arguments are the tool arguments (a JSON object); empty means {}.
	Arguments json.RawMessage
	// Client is what the run tells the flow about its client; its Form
	// and URL say which questions can be asked.
	Client flow.Client
	// Answerer answers the questions.
	Answerer Answerer
	// Out receives the transcript: each question, the answer used, each
	// step run.
	Out io.Writer
	// Engine runs the rounds; nil means a new engine with an ephemeral
	// key (a run in the terminal lives as long as the process).
	Engine *flow.Engine
	// Approver answers the approvals the run reaches (asks with to:);
	// nil asks them of Answerer, as questions with a prompt for who
	// answers. NewPage serves them on an approval page instead.
	Approver Approver
	// Name is who answers approvals asked of Answerer unless the answer
	// says otherwise (answered_by); "" means $USER.
	Name string
}

// Run runs p round by round until it completes, as an MCP client would:
// each round's questions go to cfg.Answerer and the answers, with the
// sealed request state, to the next round. It returns the final round's
// result: a tool result (Complete), or a prompt flow's messages (Prompt;
// a prompt flow that fails ends with Complete, an error result); errors
// are the engine's (an invalid request, a question the client cannot be
// asked) or the answerer's.
func Run(ctx context.Context, p *flow.Program, cfg Config) (*flow.Result, error) {
	if cfg.Out == nil {
		cfg.Out = io.Discard
	}
	engine := cfg.Engine
	if engine == nil {
		e, err := flow.NewEngine(flow.EngineOptions{})
		if err != nil {
			return nil, err
		}
		engine = e
	}
	t := &terminal{p: p, cfg: cfg, approver: cfg.Approver, name: cfg.Name, tr: &taskReporter{out: cfg.Out, p: p},
		previous: map[string]*Answer{}}
	if t.approver == nil {
		t.approver = askApprover{cfg.Answerer}
	}
	if t.name == "" {
		t.name = defaultName()
	}
	// States must outlive the approvals' waits.
	req := &flow.Request{Arguments: cfg.Arguments, Client: cfg.Client, OnStep: t.tr.onStep, StateTTL: approvalStateTTL(p)}
	t.inTask, req.Detach = t.tr.start()
	defer t.tr.stop()
	d := drive.Driver{Engine: engine, Answerer: t, Approver: t, Observer: t, RunTasks: true}
	out, err := d.Drive(ctx, p, req)
	switch {
	case out.Err != nil && ctx.Err() != nil:
		return nil, ctx.Err()
	case out.Err != nil:
		return nil, out.Err
	case err != nil:
		return nil, err
	}
	if t.inTask {
		t.tr.status("completed", "")
	}
	return out.Result, nil
}

// terminal drives a run at the terminal, playing a client that declared
// the tasks extension: it answers the questions with the Answerer, the
// approvals with the Approver, and says each status the task enters.
type terminal struct {
	p        *flow.Program
	cfg      Config
	approver Approver
	name     string // who answers approvals unless the answer says
	tr       *taskReporter
	// inTask is set once the call is a task.
	inTask bool
	// previous holds the last answer given to each question.
	previous map[string]*Answer
}

// StartRound is the drive.Observer's: a round needs nothing more.
func (t *terminal) StartRound(ctx context.Context, _ *flow.Request) context.Context { return ctx }

// EndRound says when the call becomes a task because a round detached.
func (t *terminal) EndRound(req *flow.Request, res *flow.Result, err error) {
	if err != nil || res.Detached == nil || req.Approval != nil {
		return
	}
	t.inTask = true
	t.tr.status("working", fmt.Sprintf("the call goes on as a task (%s)", t.tr.why(res.Detached)))
}

// Answer asks each question of in, in the order of their ids, and
// returns the answers; roots requests are answered with the current
// directory.
func (t *terminal) Answer(ctx context.Context, in *flow.InputRequired) (map[string]json.RawMessage, error) {
	out := t.cfg.Out
	if t.inTask {
		t.tr.status("input_required", "")
	}
	ids := make([]string, 0, len(in.Requests))
	for id := range in.Requests {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	responses := make(map[string]json.RawMessage, len(ids))
	for _, id := range ids {
		ir := in.Requests[id]
		if ir.Mode == flow.ModeRoots {
			raw, err := rootsAnswer(out, id)
			if err != nil {
				return nil, err
			}
			responses[id] = raw
			continue
		}
		q := question(t.p, id, ir, t.previous[id])
		printQuestion(out, q)
		a, err := t.cfg.Answerer.Answer(ctx, q)
		if err != nil {
			return nil, err
		}
		if a.Action == ActionTimeout || a.By != "" {
			return nil, fmt.Errorf("%q is not an approval (an ask with to:): only approvals time out or say who answered", id)
		}
		printAnswer(out, a)
		var raw []byte
		if ir.Mode == flow.ModeSampling {
			raw, err = samplingAnswer(id, a)
		} else {
			raw, err = json.Marshal(a)
		}
		if err != nil {
			return nil, fmt.Errorf("encode the answer to %q: %w", id, err)
		}
		responses[id] = raw
		t.previous[id] = a
	}
	if t.inTask {
		t.tr.status("working", "")
	}
	return responses, nil
}

// samplingField is the one field of the form that stands for a sampling
// request at the terminal: the person plays the client's model.
const samplingField = "reply"

// question describes an input request for the terminal.
func question(p *flow.Program, id string, e *flow.InputRequest, prev *Answer) *Question {
	if e.Mode == flow.ModeSampling {
		return &Question{
			ID:      id,
			Mode:    flow.ModeForm,
			Message: "The flow asks the client's model (you answer as the model):\n" + samplingText(e.Params),
			Schema: map[string]any{"type": "object", "required": []any{samplingField},
				"properties": map[string]any{samplingField: map[string]any{"type": "string", "title": "Model reply"}}},
			Order:    []string{samplingField},
			Previous: prev,
		}
	}
	q := &Question{ID: id, Mode: e.Mode, Message: e.Message, Schema: e.Schema, URL: e.URL}
	if e.Rejected != "" {
		q.Message, q.Rejected = e.Asked(), e.Rejected
		q.Previous = prev
	}
	if _, n := p.Node(id); n != nil && n.Kind == dsl.KindAsk && n.Ask.Form != nil {
		for _, prop := range n.Ask.Form.Properties {
			q.Order = append(q.Order, prop.Name)
		}
	}
	return q
}

// printQuestion writes a question to the transcript; an approval's says
// who is asked and until when.
func printQuestion(w io.Writer, q *Question) {
	if q.Rejected != "" {
		fmt.Fprintf(w, "\n✗ Not accepted: %s\n", q.Rejected)
	}
	if q.Rejected == "" {
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "? [%s] %s\n", q.ID, indent(q.Message, "  "))
	if q.Mode == "url" {
		fmt.Fprintf(w, "  Open: %s\n", q.URL)
	}
	if a := q.Approval; a != nil && q.Rejected == "" {
		wait := "no timeout"
		if a.Timeout > 0 {
			wait = "times out after " + durationText(a.Timeout)
		}
		fmt.Fprintf(w, "  (an approval for %s, not the caller; %s)\n", a.To, wait)
	}
}

// printAnswer writes the answer given to the transcript.
func printAnswer(w io.Writer, a *Answer) {
	by := ""
	if a.By != "" {
		by = " (by " + a.By + ")"
	}
	if a.Action == ActionAccept && len(a.Content) > 0 {
		b, err := json.Marshal(a.Content)
		if err == nil {
			fmt.Fprintf(w, "→ %s %s%s\n", a.Action, b, by)
			return
		}
	}
	fmt.Fprintf(w, "→ %s%s\n", a.Action, by)
}

// indent indents every line after the first.
func indent(s, prefix string) string {
	return strings.ReplaceAll(s, "\n", "\n"+prefix)
}

// PrintResult writes a finished result: each content block (text as is,
// the others summarised), the structured content as indented JSON, and
// whether it is an error.
func PrintResult(w io.Writer, tr *flow.ToolResult) {
	if tr.IsError {
		fmt.Fprintln(w, "\nResult (isError):")
	} else {
		fmt.Fprintln(w, "\nResult:")
	}
	for _, block := range tr.Content {
		fmt.Fprintln(w, blockText(block))
	}
	if tr.Structured != nil {
		b, err := json.MarshalIndent(tr.Structured, "", "  ")
		if err != nil {
			b = []byte(fmt.Sprint(tr.Structured))
		}
		fmt.Fprintf(w, "\nStructured content:\n%s\n", b)
	}
}

// PrintPrompt writes a prompt flow's result: its description, then each
// message with its role, content blocks shown as PrintResult shows them.
func PrintPrompt(w io.Writer, pr *flow.PromptResult) {
	fmt.Fprintln(w, "\nPrompt:")
	if pr.Description != "" {
		fmt.Fprintf(w, "(%s)\n", pr.Description)
	}
	for _, m := range pr.Messages {
		fmt.Fprintf(w, "[%s] %s\n", m.Role, indent(blockText(m.Content), "  "))
	}
}

// blockText shows one content block.
func blockText(block mcp.Content) string {
	switch b := block.(type) {
	case *mcp.TextContent:
		return b.Text
	case *mcp.ImageContent:
		return mediaText("image", b.MIMEType, b.Data)
	case *mcp.AudioContent:
		return mediaText("audio", b.MIMEType, b.Data)
	case *mcp.ResourceLink:
		label := b.Name
		if b.Title != "" {
			label = b.Title
		}
		return fmt.Sprintf("[link %s: %s]", label, b.URI)
	case *mcp.EmbeddedResource:
		r := b.Resource
		if r == nil {
			return "[resource ]"
		}
		if r.Blob == nil {
			return fmt.Sprintf("[resource %s]\n%s", r.URI, r.Text)
		}
		return fmt.Sprintf("[resource %s]", r.URI)
	case nil:
		return "null"
	default:
		raw, _ := block.MarshalJSON()
		return string(raw)
	}
}

// mediaText summarises an image or audio block.
func mediaText(typ, mimeType string, data []byte) string {
	return fmt.Sprintf("[%s %s, %d bytes base64]", typ, mimeType, base64.StdEncoding.EncodedLen(len(data)))
}

// ErrNoAnswer is wrapped by the error of a scripted answerer that has no
// answer left for a question.
var ErrNoAnswer = errors.New("no answer left")

// samplingText renders a sampling request's system prompt and messages.
func samplingText(params map[string]any) string {
	var b strings.Builder
	if sys, ok := params["systemPrompt"].(string); ok && sys != "" {
		fmt.Fprintf(&b, "system: %s\n", sys)
	}
	msgs, _ := params["messages"].([]any)
	for _, m := range msgs {
		mm, _ := m.(map[string]any)
		c, _ := mm["content"].(map[string]any)
		text, ok := c["text"].(string)
		if !ok {
			text = fmt.Sprintf("(%v content)", c["type"])
		}
		fmt.Fprintf(&b, "%v: %s\n", mm["role"], text)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// samplingAnswer turns the person's reply into a sampling result. A
// sampling request cannot be declined: declining ends the run.
func samplingAnswer(id string, a *Answer) ([]byte, error) {
	if a.Action != ActionAccept {
		return nil, fmt.Errorf("the sampling request %q was not answered (%s)", id, a.Action)
	}
	text, _ := a.Content[samplingField].(string)
	return json.Marshal(map[string]any{
		"role":       "assistant",
		"content":    map[string]any{"type": "text", "text": text},
		"model":      "flowserve-run",
		"stopReason": "endTurn",
	})
}

// rootsAnswer answers a roots request with the current directory.
func rootsAnswer(out io.Writer, id string) ([]byte, error) {
	dir, err := os.Getwd()
	if err != nil {
		return nil, fmt.Errorf("answer the roots request %q: %w", id, err)
	}
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(dir)}
	fmt.Fprintf(out, "\n? [%s] roots\n→ %s\n", id, u.String())
	return json.Marshal(map[string]any{"roots": []any{map[string]any{"uri": u.String(), "name": filepath.Base(dir)}}})
}
