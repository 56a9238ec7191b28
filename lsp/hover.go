package lsp

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/flowserve/flowserve/actions"
	"github.com/flowserve/flowserve/dsl"
)

// pathEndRE matches the path that ends a piece of expression source.
var pathEndRE = regexp.MustCompile(`[A-Za-z_$][\w$]*(?:\??\.[A-Za-z_$][\w$]*|\[[^\[\]]*\])*$`)

// hover answers textDocument/hover: the type of the path (or the
// expression) under the cursor, an action's summary and schemas on a
// step's action, a flow's description and schemas on the flow a call or
// link runs, a node's kind on its id or a reference to it; on a
// diagnostic, the explanation of its code too (what flowserve lint
// --explain prints). The result is nil (null) elsewhere.
func (s *Server) hover(p *TextDocumentPositionParams) (*Hover, error) {
	snap, err := s.docSnapshot(p.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	return withExplanations(hoverAt(snap, p.Position), s.diagnosticsAt(p.TextDocument.URI, p.Position)), nil
}

// hoverAt returns the hover at pos, or nil.
func hoverAt(snap *snapshot, pos Position) *Hover {
	a, t := snap.analysis(), snap.text
	if a.file == nil {
		return nil
	}
	off := t.offset(pos)
	if e, i, ok := exprAt(a, t, off); ok {
		return exprHover(a, t, e, i)
	}
	for n := range a.file.Walk() {
		if n.Step == nil || n.Step.Action.Value == "" {
			continue
		}
		name := n.Step.Action.Value
		if start, ok := t.nameAt(t.offsetOfPos(n.Step.Action.Pos), name); ok && start <= off && off <= start+len(name) {
			r := t.rangeOf(start, start+len(name))
			return &Hover{Contents: markdown(actionDoc(name, snap.reg)), Range: &r}
		}
	}
	if n, start, ok := a.calleeAt(t, off); ok {
		r := t.rangeOf(start, start+len(n.Call.Flow.Value))
		return &Hover{Contents: markdown(calleeHover(a, n, snap.path)), Range: &r}
	}
	if o, ok := a.occurrenceAt(off); ok {
		r := t.rangeOf(o.start, o.end)
		doc := fmt.Sprintf("no node has id `%s`", o.id)
		if n := a.file.ByID[o.id]; n != nil {
			doc = nodeSummary(n)
		}
		return &Hover{Contents: markdown(doc), Range: &r}
	}
	return nil
}

// exprHover describes the path under rune i of e, or the whole
// expression when i is on no name.
func exprHover(a *analysis, t *text, e *dsl.Expr, i int) *Hover {
	offs := exprOffsets(e, t)
	rs := []rune(e.Src)
	for _, id := range idents(e.Src) {
		if i < id.Start || i > id.End {
			continue
		}
		path := pathEndRE.FindString(string(rs[:id.End]))
		if path == "" {
			break
		}
		schema, ok := a.pathSchema(path)
		if !ok {
			break // a function or macro name: the expression's type
		}
		doc := "```\n" + path + ": " + describe(schema) + "\n```"
		if d := schemaDoc(schema); d != "" {
			doc += "\n\n" + d
		}
		if d := settingDoc(a, path); d != "" {
			doc += "\n\n" + d
		}
		if n := a.good.ByID[path]; n != nil {
			doc += "\n\n" + nodeSummary(n)
		}
		r := t.rangeOf(offs[id.Start], offs[id.End])
		return &Hover{Contents: markdown(doc), Range: &r}
	}
	env := a.environment()
	if env == nil {
		return nil
	}
	prg, errs := env.Compile(e.Src, false)
	if len(errs) > 0 || prg == nil {
		return nil
	}
	r := t.rangeOf(offs[0], offs[len(rs)])
	return &Hover{Contents: markdown("```\n" + e.Src + ": " + describe(prg.Schema()) + "\n```"), Range: &r}
}

// settingDoc returns the description of the declaration path names when
// it is vars.NAME or secrets.NAME.
func settingDoc(a *analysis, path string) string {
	var decls []*dsl.Setting
	name, ok := strings.CutPrefix(path, "vars.")
	if ok {
		decls = a.good.Vars
	} else if name, ok = strings.CutPrefix(path, "secrets."); ok {
		decls = a.good.Secrets
	}
	for _, d := range decls {
		if d.Name == name {
			return d.Description.Value
		}
	}
	return ""
}

// markdown wraps text as markdown content.
func markdown(text string) MarkupContent { return MarkupContent{Kind: "markdown", Value: text} }

// actionDoc documents an action: its summary, description and the fields
// of its input and output.
func actionDoc(name string, reg *actions.Registry) string {
	act, ok := reg.Lookup(name)
	if !ok {
		return fmt.Sprintf("no action is named `%s` (`flowserve actions` lists them)", name)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "**%s** — %s\n\n", act.Name, act.Summary)
	if act.Description != "" {
		b.WriteString(act.Description + "\n\n")
	}
	b.WriteString("**input** (`with`)\n\n" + fieldList(act.Input))
	b.WriteString("\n**output**\n\n" + fieldList(act.Output))
	return b.String()
}
