package lsp

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/flowserve/flowserve/dsl"
)

// What the server knows of call and link nodes comes from the flows of
// the document's scope (analysis.flows): their names, after call: and
// link:; their input schemas, for the keys of a call's with; their output
// schemas, through check.Scope, for the fields of a call's id; their
// files, for go to definition.

// flowInput returns the input schema of the flow f: {type: object} when
// it declares none.
func flowInput(f *dsl.File) map[string]any {
	if f.Input != nil && f.Input.Value != nil {
		return f.Input.Value
	}
	return map[string]any{"type": "object"}
}

// flowDetail is the detail of a flow's completion item: its description,
// and that it is not a tool of its own when it says expose: false.
func flowDetail(f *dsl.File) string {
	d := f.Description.Value
	if f.Private {
		d = strings.TrimSpace(d + " (expose: false)")
	}
	return d
}

// flowDoc documents the flow f for a document at from: its name, title
// and description, its file, and the fields of its input (a call's
// with) and of its result (what a call binds to its id).
func flowDoc(f *dsl.File, from string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**%s**", f.Name.Value)
	if f.Title.Value != "" {
		fmt.Fprintf(&b, " — %s", f.Title.Value)
	}
	b.WriteString("\n\n")
	if f.Description.Value != "" {
		b.WriteString(f.Description.Value + "\n\n")
	}
	file := f.Path
	if rel, err := filepath.Rel(filepath.Dir(from), f.Path); err == nil && filepath.IsAbs(f.Path) {
		file = filepath.ToSlash(rel)
	}
	fmt.Fprintf(&b, "flow in `%s`", file)
	if f.Private {
		b.WriteString(", not a tool of its own (`expose: false`)")
	}
	b.WriteString("\n\n**input** (`with`)\n\n" + fieldList(flowInput(f)))
	if f.Output != nil && f.Output.Value != nil {
		b.WriteString("\n**output** (the call's id)\n\n" + fieldList(f.Output.Value))
	} else {
		b.WriteString("\n**output** (the call's id): a string, the text of its result (it declares no `output` schema)\n")
	}
	return b.String()
}

// calleeAt returns the call or link node of the parsed file whose flow
// name holds the byte offset off, and where the name starts.
func (a *analysis) calleeAt(t *text, off int) (*dsl.Node, int, bool) {
	if a.file == nil {
		return nil, 0, false
	}
	for n := range a.file.Walk() {
		if !n.Kind.IsCall() || n.Call == nil || n.Call.Flow.Value == "" {
			continue
		}
		name := n.Call.Flow.Value
		if start, ok := t.nameAt(t.offsetOfPos(n.Call.Flow.Pos), name); ok && start <= off && off <= start+len(name) {
			return n, start, true
		}
	}
	return nil, 0, false
}

// calleeHover describes the flow the call or link node n runs.
func calleeHover(a *analysis, n *dsl.Node, from string) string {
	name := n.Call.Flow.Value
	callee := a.callee(name)
	if callee == nil {
		return fmt.Sprintf("no flow is named `%s` among the flows linted with this one", name)
	}
	return flowDoc(callee, from)
}

// flowLocation returns where the flow f is named: its name: value, or
// the start of its file when the name comes from the file's name.
func flowLocation(f *dsl.File) Range {
	t := newText(f.Source)
	if start, ok := t.nameAt(t.offsetOfPos(f.Name.Pos), f.Name.Value); ok && f.Name.Pos != (dsl.Pos{File: f.Path, Line: 1, Col: 1}) {
		return t.rangeOf(start, start+len(f.Name.Value))
	}
	return Range{}
}
