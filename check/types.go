package check

import (
	"fmt"
	"maps"

	"github.com/flowserve/flowserve/actions"
	"github.com/flowserve/flowserve/check/codes"
	"github.com/flowserve/flowserve/dsl"
	"github.com/flowserve/flowserve/lang"
	"github.com/flowserve/flowserve/schemas"
)

// Info is what Types works out of a flow file for the engine to build a
// program on, as go/types.Info is for a compiler: the scope, every
// expression compiled against it, the schemas compiled and the control
// flow. It is read-only once Types returns it.
type Info struct {
	// Vars is the scope the expressions were compiled in (see Scope).
	Vars []lang.Var
	// Programs holds every expression of the file compiled: a condition
	// (a branch case, a validate rule) to a boolean, the others to any
	// type.
	Programs map[*dsl.Expr]lang.Program
	// Input is the input schema compiled ({type: object} when the flow
	// declares none); Output the output schema, nil when there is none.
	Input, Output *schemas.Schema
	// Forms are the forms of the file's asks, compiled.
	Forms map[*dsl.Form]*Form
	// CFG is the file's control flow (dsl.BuildCFG).
	CFG *dsl.CFG
}

// Form is a form as the engine asks it.
type Form struct {
	// Doc is the requested schema as sent when no templated default is
	// rendered: the form's, without the defaults that are templates.
	Doc map[string]any
	// Schema is Doc compiled.
	Schema *schemas.Schema
	// Defaults are the defaults that are templates
	// (dsl.File.DefaultTemplate), by property name; their expressions
	// are in Info.Programs.
	Defaults map[string]*dsl.Template
}

// typer compiles the expressions and schemas of one file for their
// types, collecting what it finds.
type typer struct {
	f       *dsl.File
	env     lang.Env
	info    *Info
	diags   dsl.Diagnostics
	flagged map[dsl.Pos]bool // schemas File (or Parse) found errors in
	callees dsl.Callees
	tree    *dsl.Tree // built when a form default needs it
}

func (t *typer) errorf(pos dsl.Pos, code, format string, args ...any) {
	t.diags = append(t.diags, dsl.Diagnostic{Pos: pos, Severity: dsl.Error, Code: code, Message: fmt.Sprintf(format, args...)})
}

// Types type-checks f, a file Parse read in full, against env: every
// expression against the typed scope (bad-expression, type-error), each
// whole-expression value against the schema it flows into (a step's or a
// call's with, a return's structured), each templated form default
// against its property (form-default), and the set names bound again to
// another type; it compiles the input, output and form schemas
// (bad-schema) and reports an unknown expression language. It returns
// what it worked out for the engine (flow.Compile builds its Program on
// it), or nil when f has errors, and the diagnostics of every check f
// has not yet had.
//
// File cannot be skipped: when f has not been checked with env's
// registry, Types checks it first and returns File's diagnostics with
// its own. Each finding is reported once, by the check that owns it. A
// nil f is a no-flow error, a partial one (Parse found errors) a
// partial-file error: see Partial for what can be typed of it.
func Types(f *dsl.File, env Env) (*Info, dsl.Diagnostics) {
	if f == nil {
		return nil, dsl.Diagnostics{{Severity: dsl.Error, Code: codes.NoFlow, Message: "no flow to compile"}}
	}
	if f.Partial() {
		return nil, dsl.Diagnostics{{Pos: dsl.Pos{File: f.Path, Line: 1, Col: 1}, Severity: dsl.Error, Code: codes.PartialFile,
			Message: "the flow has syntax errors (dsl.Parse reported them) and cannot be compiled"}}
	}
	reg := env.registry()
	t, checks := newTyper(f, env, reg)
	t.flagged = flaggedForms(f, checks)
	flaggedSchemas(f, checks, t.flagged)
	info, err := t.types(reg, env)
	if err != nil {
		t.errorf(dsl.Pos{File: f.Path, Line: 1, Col: 1}, codes.Compile, "%v", err)
		info = nil
	}
	t.diags.Sort()
	if t.diags.HasErrors() || checks.HasErrors() {
		info = nil
	}
	return info, t.diags
}

// newTyper returns a typer of f and File's findings with reg (env's
// registry): f's own when f has been checked with reg, or new ones, which
// the typer reports too (File cannot be skipped).
func newTyper(f *dsl.File, env Env, reg *actions.Registry) (*typer, dsl.Diagnostics) {
	t := &typer{f: f, callees: env.Callees}
	checks, checked := Checked(f, reg)
	if !checked {
		checks = File(f, reg)
		t.diags = append(t.diags, checks...)
	}
	return t, checks
}

// types types every part of the file; err is for failures that are not
// the flow's. The Info is nil when the language is unknown.
func (t *typer) types(reg *actions.Registry, env Env) (*Info, error) {
	f := t.f
	l, ok := t.language()
	if !ok {
		return nil, nil
	}
	// Every expression is type-checked against the typed scope.
	vars, diags := scope(f, reg, env.Callees)
	t.diags = append(t.diags, diags...)
	if err := t.begin(l, vars, env); err != nil {
		return nil, fmt.Errorf("compile %s: %w", f.Path, err)
	}
	inputDoc := map[string]any{"type": "object"}
	inputPos := dsl.Pos{File: f.Path, Line: 1, Col: 1}
	if f.Input != nil {
		inputDoc, inputPos = f.Input.Value, f.Input.Pos
	}
	t.info.Input = t.schema(inputDoc, inputPos, "input")
	if f.Output != nil {
		t.info.Output = t.schema(f.Output.Value, f.Output.Pos, "output")
	}
	t.nodes(reg)
	return t.info, nil
}

// language returns the file's expression language, reporting one that
// is not supported.
func (t *typer) language() (lang.Language, bool) {
	l, ok := lang.Lookup(t.f.Expressions.Value)
	if !ok {
		t.errorf(t.f.Expressions.Pos, codes.UnknownLanguage, "unknown expression language %q", t.f.Expressions.Value)
	}
	return l, ok
}

// begin makes the environment the expressions are compiled in, from the
// scope vars, and the Info that collects them.
func (t *typer) begin(l lang.Language, vars []lang.Var, env Env) error {
	cost := env.CostLimit
	if cost == 0 {
		cost = lang.DefaultCostLimit
	}
	lenv, err := l.NewEnv(vars, lang.Options{CostLimit: cost})
	if err != nil {
		return err
	}
	t.env = lenv
	t.info = &Info{Vars: vars, Programs: map[*dsl.Expr]lang.Program{}, Forms: map[*dsl.Form]*Form{}, CFG: dsl.BuildCFG(t.f)}
	return nil
}

// nodes types every node of the file, the questions of all nodes among
// them.
func (t *typer) nodes(reg *actions.Registry) {
	for i, n := range t.f.Nodes {
		t.node(n, i, reg)
	}
}

// node types the node at index i of the file's node list, or a question
// of an all node (i < 0).
func (t *typer) node(n *dsl.Node, i int, reg *actions.Registry) {
	switch n.Kind {
	case dsl.KindSample:
		t.sample(n.Ask.Sample)
	case dsl.KindAll:
		for _, q := range n.All.Questions {
			t.node(q, -1, reg)
		}
	case dsl.KindAsk:
		t.ask(n.Ask)
	case dsl.KindStep:
		s := n.Step
		t.value(s.With)
		// File reports an unknown action (unknown-action).
		if act, ok := reg.Lookup(s.Action.Value); ok {
			t.typeValue(s.With, valueTarget{schema: act.Input, root: "with", by: "action " + act.Name})
		}
	case dsl.KindBranch:
		for _, e := range t.info.CFG.Succ(i) {
			if e.Kind == dsl.EdgeCase {
				t.expr(e.Cond, true)
			}
		}
	case dsl.KindSet:
		for _, b := range n.Set.Bindings {
			t.value(b.Value)
		}
	case dsl.KindReturn:
		t.ret(n.Return)
	case dsl.KindFail:
		t.template(n.Fail)
	case dsl.KindCall, dsl.KindLink:
		t.value(n.Call.With)
		t.typeWith(n.Call)
	}
}

// ask types an ask's message, url, form, validate rules and approval.
func (t *typer) ask(a *dsl.Ask) {
	t.template(a.Message)
	t.template(a.URL)
	if a.Form != nil {
		fm := t.form(a.Form)
		fm.Schema = t.schema(fm.Doc, a.Form.Pos, "form")
		t.info.Forms[a.Form] = fm
	}
	for _, r := range a.Validate {
		t.expr(r.Rule, true)
		t.template(r.Message)
	}
	if a.Approval() {
		t.template(a.To)
		if a.Notify != nil {
			t.template(a.Notify.Webhook)
		}
	}
}

// sample types a sample node's request.
func (t *typer) sample(s *dsl.Sample) {
	if s == nil {
		return
	}
	for _, m := range s.Messages {
		t.template(m.Text)
		t.value(m.Content)
	}
	t.template(s.System)
}

// ret types a return: its text, its structured value against the output
// schema (tool flows), its content and, in a prompt flow, its
// description and messages.
func (t *typer) ret(r *dsl.Return) {
	t.template(r.Text)
	t.value(r.Structured)
	if f := t.f; f.Output != nil && !f.IsPrompt() {
		t.typeValue(r.Structured, valueTarget{schema: f.Output.Value, root: "structured", by: "the output schema"})
	}
	for _, b := range r.Content {
		t.value(b)
	}
	t.template(r.Description)
	for _, m := range r.Messages {
		t.template(m.Text)
		t.value(m.Content)
	}
}

// expr compiles e (to a boolean when wantBool), reporting what the
// language finds wrong, and records its program.
func (t *typer) expr(e *dsl.Expr, wantBool bool) lang.Program {
	if e == nil {
		return nil
	}
	prg, errs := t.env.Compile(e.Src, wantBool)
	for _, le := range errs {
		t.diags = append(t.diags, dsl.ExprDiagnostic(e, le))
	}
	t.info.Programs[e] = prg
	return prg
}

// template compiles the expressions of tm.
func (t *typer) template(tm *dsl.Template) {
	for _, e := range tm.Exprs() {
		t.expr(e, false)
	}
}

// value compiles the expressions of v.
func (t *typer) value(v *dsl.Value) {
	for _, e := range v.Exprs() {
		t.expr(e, false)
	}
}

// schema compiles a schema, reporting one that does not compile unless
// File found what is wrong in it (flagged).
func (t *typer) schema(doc map[string]any, pos dsl.Pos, what string) *schemas.Schema {
	s, err := schemas.Compile(doc)
	if err != nil && !t.flagged[pos] {
		t.errorf(pos, codes.BadSchema, "%s schema: %s", what, schemas.ErrorText(err))
	}
	return s
}

// form types the defaults of a form that are templates, and returns the
// form as asked: its schema without them.
func (t *typer) form(fm *dsl.Form) *Form {
	out := &Form{Doc: fm.Schema}
	for _, prop := range fm.Properties {
		if _, ok := prop.Schema["default"]; !ok {
			continue
		}
		if t.tree == nil {
			t.tree = t.f.Tree()
		}
		tm, _ := t.f.ReadDefaultTemplate(prop, t.tree) // File reports its syntax
		if !hasExpr(tm) {
			continue
		}
		t.template(tm)
		t.typeDefault(prop, tm)
		if out.Defaults == nil {
			out.Defaults = map[string]*dsl.Template{}
		}
		out.Defaults[prop.Name] = tm
		bare := maps.Clone(prop.Schema)
		delete(bare, "default")
		out.Doc = schemas.WithProperty(out.Doc, prop.Name, bare)
	}
	return out
}
