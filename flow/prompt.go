package flow

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/flowserve/flowserve/dsl"
	"github.com/flowserve/flowserve/internal/content"
)

// PromptResult is a finished prompt flow: what prompts/get returns.
type PromptResult struct {
	// Description is the return's description, or "".
	Description string
	// Messages are the prompt's messages in order: the return's text (a
	// user message) first, then its messages.
	Messages []PromptMessage
}

// PromptMessage is one message of a prompt.
type PromptMessage struct {
	Role    string      // "user" or "assistant"
	Content mcp.Content // one MCP content block, as go-sdk's type for it
}

// Argument is one argument of a prompt flow: a property of its input
// schema.
type Argument struct {
	Name        string
	Title       string // the property's title, or ""
	Description string // the property's description, or ""
	Required    bool
	// Values are the string values of the property's enum, then of its
	// examples, without repeats: what completion offers.
	Values []string
}

// ArgumentsError says that the arguments of a prompt flow do not match its
// input schema. Prompts have no error results, so unlike a tool flow's,
// a prompt flow's invalid arguments are an error of the request: servers
// answer it with JSON-RPC -32602.
type ArgumentsError struct {
	// Problems lists each violation ("arg1: missing") or the one reason
	// the arguments could not be read at all.
	Problems []string
}

// Error lists the problems.
func (e *ArgumentsError) Error() string {
	return "invalid arguments: " + strings.Join(e.Problems, "; ")
}

// isArguments reports whether err is an *ArgumentsError.
func isArguments(err error) bool {
	var ae *ArgumentsError
	return errors.As(err, &ae)
}

// argumentsError describes a prompt flow's arguments that could not be
// read (err) or do not match its input schema.
func argumentsError(err error, violations []violation) *ArgumentsError {
	e := &ArgumentsError{}
	if err != nil {
		e.Problems = []string{strings.TrimPrefix(err.Error(), "invalid arguments: ")}
	}
	for _, v := range violations {
		e.Problems = append(e.Problems, v.String())
	}
	return e
}

// IsPrompt reports whether the flow is served as an MCP prompt (its file
// says `kind: prompt`): its rounds end with Result.Prompt instead of a
// tool result.
func (p *Program) IsPrompt() bool { return p.file.IsPrompt() }

// Arguments returns the arguments of a prompt flow: the properties of its
// input schema in file order. Tool flows have none.
func (p *Program) Arguments() []Argument {
	if !p.IsPrompt() || p.file.Input == nil {
		return nil
	}
	doc := p.file.Input.Value
	props, _ := doc["properties"].(map[string]any)
	required := map[string]bool{}
	if l, ok := doc["required"].([]any); ok {
		for _, r := range l {
			if s, ok := r.(string); ok {
				required[s] = true
			}
		}
	}
	out := make([]Argument, 0, len(p.file.Input.Properties))
	for _, name := range p.file.Input.Properties {
		schema, _ := props[name.Value].(map[string]any)
		a := Argument{Name: name.Value, Required: required[name.Value]}
		a.Title, _ = schema["title"].(string)
		a.Description, _ = schema["description"].(string)
		for _, key := range []string{"enum", "examples"} {
			l, _ := schema[key].([]any)
			for _, v := range l {
				if str, ok := v.(string); ok && !slices.Contains(a.Values, str) {
					a.Values = append(a.Values, str)
				}
			}
		}
		out = append(out, a)
	}
	return out
}

// promptReturn compiles the prompt parts of a return.
func (c *compiler) promptReturn(cn *cnode, r *dsl.Return) {
	cn.description = c.template(r.Description)
	for _, m := range r.Messages {
		cn.messages = append(cn.messages, cmessage{role: m.Role.Value, text: c.template(m.Text), content: c.value(m.Content)})
	}
}

// promptResult builds the result of a prompt flow's return node.
func (r *runner) promptResult(cn *cnode) (*Result, error) {
	pr := &PromptResult{Messages: []PromptMessage{}}
	var err error
	if pr.Description, err = cn.description.render(r.vars); err != nil {
		return nil, err
	}
	if cn.text != nil {
		msg, err := cn.text.render(r.vars)
		if err != nil {
			return nil, err
		}
		pr.Messages = append(pr.Messages, PromptMessage{Role: "user", Content: &mcp.TextContent{Text: msg}})
	}
	for i, m := range cn.messages {
		block, err := m.block(r.vars)
		if err != nil {
			return nil, fmt.Errorf("message %d: %w", i+1, err)
		}
		c, err := content.FromValue(block)
		if err != nil {
			return nil, fmt.Errorf("message %d: %w", i+1, err)
		}
		pr.Messages = append(pr.Messages, PromptMessage{Role: m.role, Content: c})
	}
	return &Result{Prompt: pr}, nil
}

// block renders a message's content block: its text as a text block, or
// its content.
func (m cmessage) block(vars map[string]any) (map[string]any, error) {
	if m.text != nil {
		text, err := m.text.render(vars)
		if err != nil {
			return nil, err
		}
		return map[string]any{"type": "text", "text": text}, nil
	}
	v, err := m.content.eval(vars)
	if err != nil {
		return nil, err
	}
	block, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("the content is not a map")
	}
	return block, nil
}
