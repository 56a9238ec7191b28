package lsp

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/flowserve/flowserve/actions"
	"github.com/flowserve/flowserve/dsl"
)

// completion answers textDocument/completion: what may be written at the
// cursor, worked out from the text before it on its line (and the lines
// around it for keys), with names and types from the parsed flow.
func (s *Server) completion(p *CompletionParams) (CompletionList, error) {
	snap, err := s.docSnapshot(p.TextDocument.URI)
	if err != nil {
		return CompletionList{}, err
	}
	items := complete(snap, p.Position)
	if p.Context != nil && p.Context.TriggerCharacter == " " && !afterKey(snap.text, p.Position) {
		items = nil // a space typed elsewhere than after a key: no list pops up
	}
	if items == nil {
		items = []CompletionItem{}
	}
	return CompletionList{Items: items}, nil
}

// complete returns the completion items at pos.
func complete(snap *snapshot, pos Position) []CompletionItem {
	t := snap.text
	a := snap.analysis()
	off := t.offset(pos)
	line := t.linePrefix(off)
	c := completer{a: a, t: t, off: off, reg: snap.reg, path: snap.path}
	if src, ok := exprPrefix(a, t, off, line); ok {
		return c.expression(src)
	}
	if m := refKeyRE.FindStringSubmatch(line); m != nil {
		return c.nodeIDs(m[2])
	}
	if m := callKeyRE.FindStringSubmatch(line); m != nil {
		return c.flowNames(m[2])
	}
	if m := stepKeyRE.FindStringSubmatch(line); m != nil {
		return c.actionNames(m[1])
	}
	if m := flowWithRE.FindStringSubmatch(line); m != nil {
		var key, value string
		if sm := runsValueRE.FindStringSubmatch(t.lineAt(pos.Line)); sm != nil {
			key, value = sm[1], sm[2]
		} else {
			sib, _ := mapping(t, pos.Line, readLine(t.lineAt(pos.Line)).keyCol)
			key, value = runs(sib)
		}
		return c.withKeys(key, value, m[1], nil)
	}
	if m := blockKeyRE.FindStringSubmatch(line); m != nil {
		return c.keys(pos.Line, len(m[1]), m[2])
	}
	return nil
}

// afterKey reports whether the cursor at pos follows "key: " or an
// expression's opening, where a typed space asks for completion.
func afterKey(t *text, pos Position) bool {
	line := strings.TrimRight(t.linePrefix(t.offset(pos)), " ")
	return strings.HasSuffix(line, ":") || strings.HasSuffix(line, "{{") || strings.HasSuffix(line, "{") || strings.HasSuffix(line, ",")
}

// completer makes the items of one completion request.
type completer struct {
	a    *analysis
	t    *text
	off  int
	reg  *actions.Registry
	path string // the document's
}

// edit replaces the word being typed, the partial bytes before the
// cursor, with text.
func (c completer) edit(partial, text string) *TextEdit {
	return &TextEdit{Range: c.t.rangeOf(c.off-len(partial), c.off), NewText: text}
}

// item returns an item that replaces partial with insert.
func (c completer) item(label string, kind CompletionItemKind, detail, doc, partial, insert string) CompletionItem {
	it := CompletionItem{Label: label, Kind: kind, Detail: detail, TextEdit: c.edit(partial, insert), FilterText: label}
	if doc != "" {
		it.Documentation = &MarkupContent{Kind: "markdown", Value: doc}
	}
	return it
}

// expression completes the expression src (up to the cursor): the fields
// of the value before a dot, else the names in scope.
func (c completer) expression(src string) []CompletionItem {
	if m := chainRE.FindStringSubmatchIndex(src); m != nil {
		if m[0] > 0 && identCharsRE.MatchString(src[m[0]-1:m[0]]) || m[0] > 0 && strings.ContainsAny(src[m[0]-1:m[0]], ".)]") {
			return nil
		}
		return c.fields(src[m[2]:m[3]], src[m[4]:m[5]])
	}
	partial := trailWordRE.FindString(src)
	if before := src[:len(src)-len(partial)]; strings.HasSuffix(before, ".") {
		return nil
	}
	var out []CompletionItem
	for _, v := range c.a.scope {
		detail := describe(v.Schema)
		if n := c.node(v.Name); n != nil {
			detail = n.Kind.String() + " " + n.ID + ": " + detail
		}
		out = append(out, c.item(v.Name, KindVariable, detail, "", partial, v.Name))
	}
	return out
}

// node returns the node of the flow with id, or nil.
func (c completer) node(id string) *dsl.Node {
	if c.a.good == nil {
		return nil
	}
	return c.a.good.ByID[id]
}

// fields completes the fields of the value of the path receiver.
func (c completer) fields(receiver, partial string) []CompletionItem {
	s, ok := c.a.pathSchema(receiver)
	if !ok {
		return nil
	}
	fs := fields(s)
	settings := c.settings(receiver)
	var out []CompletionItem
	for _, name := range slices.Sorted(maps.Keys(fs)) {
		f := fs[name]
		doc := schemaDoc(f)
		if d, ok := settings[name]; ok {
			doc = d
		}
		out = append(out, c.item(name, KindField, describe(f), doc, partial, name))
	}
	return out
}

// settings returns the descriptions of the names the flow declares under
// vars or secrets, when receiver is one of them.
func (c completer) settings(receiver string) map[string]string {
	if c.a.good == nil {
		return nil
	}
	var decls []*dsl.Setting
	switch receiver {
	case "vars":
		decls = c.a.good.Vars
	case "secrets":
		decls = c.a.good.Secrets
	}
	out := map[string]string{}
	for _, d := range decls {
		out[d.Name] = d.Description.Value
	}
	return out
}

// nodeIDs completes a reference to a node.
func (c completer) nodeIDs(partial string) []CompletionItem {
	if c.a.good == nil {
		return nil
	}
	var out []CompletionItem
	for n := range c.a.good.Walk() {
		if n.ID == "" || n.Group != nil {
			continue // a question of an all node is no target
		}
		out = append(out, c.item(n.ID, KindReference, n.Kind.String()+" node", nodeSummary(n), partial, n.ID))
	}
	return out
}

// actionNames completes the action of a step.
func (c completer) actionNames(partial string) []CompletionItem {
	var out []CompletionItem
	for _, act := range c.reg.Actions() {
		out = append(out, c.item(act.Name, KindMethod, act.Summary, actionDoc(act.Name, c.reg), partial, act.Name))
	}
	return out
}

// flowNames completes the flow a call or link node runs: the tool flows
// of the document's scope, expose: false ones included (prompts are no
// callees), but the document's own, which would call itself.
func (c completer) flowNames(partial string) []CompletionItem {
	var out []CompletionItem
	for _, name := range c.a.flows.Names() {
		f := c.a.flows[name]
		if f == c.a.good {
			continue
		}
		out = append(out, c.item(name, KindFunction, flowDetail(f), flowDoc(f, c.path), partial, name))
	}
	return out
}

// withKeys completes a key of the with of a node whose kind key is key,
// written value (a step's action, a call's or link's flow): the
// properties of the action's or flow's input schema that are not there
// yet.
func (c completer) withKeys(key, value, partial string, have []string) []CompletionItem {
	var input map[string]any
	switch key {
	case "step":
		act, ok := c.reg.Lookup(value)
		if !ok {
			return nil
		}
		input = act.Input
	case "call", "link":
		callee := c.a.callee(value)
		if callee == nil {
			return nil
		}
		input = flowInput(callee)
	default:
		return nil
	}
	required := map[string]bool{}
	if req, ok := input["required"].([]any); ok {
		for _, r := range req {
			if s, ok := r.(string); ok {
				required[s] = true
			}
		}
	}
	fs := fields(input)
	var out []CompletionItem
	for _, name := range slices.Sorted(maps.Keys(fs)) {
		if slices.Contains(have, name) {
			continue
		}
		var notes []string
		if _, hasDefault := fs[name]["default"]; required[name] && (key == "step" || !hasDefault) {
			notes = append(notes, "required") // a flow's default fills in what its caller leaves out
		}
		detail := describe(fs[name], notes...)
		out = append(out, c.item(name, KindProperty, detail, schemaDoc(fs[name]), partial, name+": "))
	}
	return out
}

// keys completes a key typed on a line of its own at column col: a
// with key under a step's with, a node key in a node of the list, a
// top-level key at column 0.
func (c completer) keys(line, col int, partial string) []CompletionItem {
	siblings, parent := mapping(c.t, line, col)
	have := keysOf(siblings)
	switch {
	case parent.key == "with":
		key, value := c.runsOf(line, parent)
		return c.withKeys(key, value, partial, have)
	case parent.key == "nodes" && parent.indent == 0 && !parent.item:
		var out []CompletionItem
		for _, k := range nodeKeys(have) {
			out = append(out, c.item(k.name, KindProperty, "node key", k.doc, partial, k.name+": "))
		}
		return out
	case col == 0 && parent.blank:
		var out []CompletionItem
		for _, k := range flowKeys().top {
			if !slices.Contains(have, k.name) {
				out = append(out, c.item(k.name, KindProperty, "flow key", k.doc, partial, k.name+": "))
			}
		}
		return out
	}
	return nil
}

// runsOf returns the kind key and its value (the action of a step, the
// flow of a call or link) of the node whose with: is the line parent,
// found above line.
func (c completer) runsOf(line int, parent lineInfo) (key, value string) {
	for l := line - 1; l >= 0; l-- {
		li := readLine(c.t.lineAt(l))
		if li.key == "with" && li.keyCol == parent.keyCol {
			sib, _ := mapping(c.t, l, li.keyCol)
			return runs(sib)
		}
	}
	return "", ""
}

// runs returns the kind key among lines that takes a with (step, call or
// link) and its value, unquoted.
func runs(lines []lineInfo) (key, value string) {
	for _, k := range []string{"step", "call", "link"} {
		if v := valueOf(lines, k); v != "" {
			return k, strings.Trim(v, `"'`)
		}
	}
	return "", ""
}

// nodeSummary describes a node for documentation: its kind, and its
// message, action or result.
func nodeSummary(n *dsl.Node) string {
	var what string
	switch {
	case n.Ask != nil && n.Ask.Message != nil:
		what = n.Ask.Message.Src
	case n.Step != nil:
		what = n.Step.Action.Value
	case n.Call != nil:
		what = n.Call.Flow.Value
	case n.Return != nil && n.Return.Text != nil:
		what = n.Return.Text.Src
	case n.Fail != nil:
		what = n.Fail.Src
	}
	s := fmt.Sprintf("%s node `%s` (line %d)", n.Kind, n.ID, n.IDPos.Line)
	if what != "" {
		s += ": " + what
	}
	return s
}
