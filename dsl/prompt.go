package dsl

// Prompt flows (`kind: prompt`) are served as MCP prompts: their input
// schema's properties are the prompt's arguments, all strings, and their
// returns end with messages instead of a tool result.

// returnKeys returns the keys of a return mapping in a flow of the kind
// being parsed.
func (p *parser) returnKeys() []string {
	if p.prompt {
		return []string{"text", "description", "messages"}
	}
	return []string{"text", "structured", "content"}
}

// returnNeeds says what a return mapping needs, for messages.
func (p *parser) returnNeeds() string {
	if p.prompt {
		return "text or messages"
	}
	return "text, structured or content"
}
