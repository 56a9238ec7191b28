package check

import (
	"fmt"

	"github.com/flowserve/flowserve/check/codes"
	"github.com/flowserve/flowserve/dsl"
)

// flowWord names what the flow is served as, for messages: "tool" or
// "prompt".
func (c *checker) flowWord() string {
	if c.f.IsPrompt() {
		return dsl.FlowPrompt
	}
	return dsl.FlowTool
}

// checkPromptTop checks what a prompt flow declares at the top level:
// no output schema, no task: required, and string arguments only.
func (c *checker) checkPromptTop() {
	f := c.f
	if f.Output != nil {
		pos := f.Output.Pos
		if e, ok := c.ix.Entry(c.ix.Root(), "output"); ok {
			pos = e.Key
		}
		c.errorf(pos, codes.ToolOnly, "output belongs to tool flows: a prompt returns messages, not structured content")
	}
	if f.TaskMode() == dsl.TaskRequired {
		c.errorf(f.Task.Pos, codes.ToolOnly, "task: required belongs to tool flows: a prompt cannot run as an MCP task")
	}
	if f.Input == nil {
		return
	}
	props, _ := f.Input.Value["properties"].(map[string]any)
	for _, name := range f.Input.Properties {
		schema, _ := props[name.Value].(map[string]any)
		t, has := schema["type"]
		switch {
		case has && t == "string":
		case has:
			_, pos := c.ix.Find(c.ix.Mapping(f.Input.Pos), name.Pos, "properties", name.Value, "type")
			c.errorf(pos, codes.PromptArgument, "prompt argument %q must have type: string, not %s (MCP prompt arguments are strings)", name.Value, jsonText(t))
		default:
			c.errorf(name.Pos, codes.PromptArgument, "prompt argument %q needs type: string (MCP prompt arguments are strings)", name.Value)
		}
	}
}

// checkPromptReturn checks a return of a prompt flow: no tool-only keys,
// text or messages to return, and content blocks of the shapes MCP
// allows.
func (c *checker) checkPromptReturn(r *dsl.Return) {
	entries := c.ix.Entries(c.ix.Mapping(r.Pos))
	gives, why := r.Text != nil || len(r.Messages) > 0, ""
	for _, e := range entries {
		switch e.Name {
		case "structured", "content":
			c.errorf(e.Key, codes.ToolOnly, "%s belongs to tool flows: a prompt returns text or messages", e.Name)
		case "text", "messages":
			gives = true // a value Parse could not read is reported there
		case "description":
			why = " (a description describes the messages; it is not one)"
		}
	}
	if !gives && len(entries) > 0 {
		// An empty mapping, or a return that is not one, Parse reports.
		c.errorf(r.Pos, codes.MissingKey, "return needs text or messages: a prompt's result is its messages, and this return gives none%s", why)
	}
	for i, m := range r.Messages {
		if m.Content != nil {
			c.checkContent(m.Content, fmt.Sprintf("messages[%d].content", i))
		}
	}
}

// checkToolReturn reports the keys of a tool flow's return that belong to
// prompt flows.
func (c *checker) checkToolReturn(r *dsl.Return) {
	for _, e := range c.ix.Entries(c.ix.Mapping(r.Pos)) {
		if e.Name == "description" || e.Name == "messages" {
			c.errorf(e.Key, codes.PromptOnly, "%s belongs to prompt flows: add kind: prompt at the top to serve this flow as a prompt", e.Name)
		}
	}
}
