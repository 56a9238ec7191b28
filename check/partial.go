package check

import (
	"regexp"
	"slices"

	"github.com/flowserve/flowserve/actions"
	"github.com/flowserve/flowserve/check/codes"
	"github.com/flowserve/flowserve/dsl"
	"github.com/flowserve/flowserve/lang"
)

// Partial type-checks what can be type-checked of f, a file Parse found
// errors in (f.Partial()), which Types refuses: it returns the
// diagnostics Types would give for its expressions and schemas, so that
// a structural error (an unknown key, a misplaced one) does not hide the
// type errors of the rest of the file. parsed are Parse's diagnostics of
// f. For a file that is not partial it returns Types' diagnostics.
//
// What Parse could not read is left out: a node of no kind has no
// expressions to check. Nothing is reported twice or because of an error
// already reported: a finding of Parse's code at Parse's position is
// dropped; the schema (input, output or form) Parse found an error in is
// not compiled again; a set name Parse refused is not typed again; and the
// id of a node of no kind, or of an ask whose form Parse did not read in
// full, has any type (dyn) for the expressions that read it, so that a
// misspelt key in a node does not make its readers wrong too. Like
// Types, Partial runs File first when f has not been checked with env's
// registry, and returns its diagnostics too.
func Partial(f *dsl.File, parsed dsl.Diagnostics, env Env) dsl.Diagnostics {
	if f == nil || !f.Partial() {
		_, ds := Types(f, env)
		return ds
	}
	reg := env.registry()
	c, checks := newTyper(f, env, reg)
	errs := parsed.Errors()
	// File's findings are f's own (Checked): the slices are new.
	c.flagged = flaggedForms(f, slices.Concat(checks, asCode(errs, codes.FormKind)))
	flaggedSchemas(f, slices.Concat(checks, asCode(errs, codes.BadValue)), c.flagged)
	c.typecheck(reg, env, errs)
	out := make(dsl.Diagnostics, 0, len(c.diags))
	reported := map[dsl.Pos]map[string]bool{}
	for _, d := range parsed {
		if reported[d.Pos] == nil {
			reported[d.Pos] = map[string]bool{}
		}
		reported[d.Pos][d.Code] = true
	}
	for _, d := range c.diags {
		if !reported[d.Pos][d.Code] {
			out = append(out, d)
		}
	}
	out.Sort()
	return out.Compact()
}

// typecheck types the expressions and schemas of c's partial file, as
// types does a complete one, for their diagnostics only: the ids of the
// nodes Parse found errors in (errs) have any type (see brokenNodes),
// and a set name Parse found wrong is not typed again.
func (c *typer) typecheck(reg *actions.Registry, env Env, errs dsl.Diagnostics) {
	f := c.f
	broken := brokenNodes(f, errs)
	l, ok := c.language()
	if !ok {
		return
	}
	vars, diags := scope(f, reg, env.Callees)
	c.diags = append(c.diags, withoutBadNames(f, diags, errs)...)
	vars = loosened(vars, broken)
	if err := c.begin(l, vars, env); err != nil {
		return // not the flow's fault; Types says so once the file parses
	}
	if f.Input != nil {
		c.schema(f.Input.Value, f.Input.Pos, "input")
	}
	if f.Output != nil {
		c.schema(f.Output.Value, f.Output.Pos, "output")
	}
	c.nodes(reg)
}

// loosened returns vars with the ids of broken as variables of any type:
// in place of their type, or added when the scope lacks them (a node of
// no kind).
func loosened(vars []lang.Var, broken []*dsl.Node) []lang.Var {
	index := make(map[string]int, len(vars))
	for i, v := range vars {
		index[v.Name] = i
	}
	for _, n := range broken {
		if !identPattern.MatchString(n.ID) {
			continue // no expression can read it
		}
		if reservedVars[n.ID] {
			continue
		}
		if i, ok := index[n.ID]; ok {
			vars[i].Schema = nil
			continue
		}
		index[n.ID] = len(vars)
		vars = append(vars, lang.Var{Name: n.ID})
	}
	return vars
}

// identPattern matches the names an expression can read as a variable
// (a node id Parse refused may be one).
var identPattern = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// reservedVars are the variables of every flow's scope, which no node
// id can stand for.
var reservedVars = map[string]bool{dsl.VarInput: true, dsl.VarRun: true, dsl.VarClient: true, dsl.VarPrincipal: true,
	dsl.VarError: true, dsl.VarVars: true, dsl.VarSecrets: true}

// brokenNodes returns the nodes of f (questions of all nodes included)
// whose ids Parse's errors (errs) may have left wrongly typed: a node of
// no kind, which the scope lacks, and an ask node whose form Parse did
// not read (a misspelt form key) or read in part (an error inside it).
// The type of a step, call, sample or roots id does not depend on what
// Parse read.
func brokenNodes(f *dsl.File, errs dsl.Diagnostics) []*dsl.Node {
	var nodes []*dsl.Node
	for n := range f.Walk() {
		nodes = append(nodes, n)
	}
	var out []*dsl.Node
	for k, n := range nodes {
		var next dsl.Pos // where the node's text ends; zero at the last
		if k+1 < len(nodes) {
			next = nodes[k+1].Pos
		}
		if n.Kind == 0 || n.Kind == dsl.KindAsk && askBroken(n.Ask, next, errs) {
			out = append(out, n)
		}
	}
	return out
}

// askBroken reports whether Parse's errors (errs) may have left the form
// of ask a wrong: it has neither form nor url, or an error is inside the
// form, which ends before next (when valid) and goes on over lines
// indented at least as far as it begins.
func askBroken(a *dsl.Ask, next dsl.Pos, errs dsl.Diagnostics) bool {
	if a == nil || a.Form == nil {
		return a == nil || a.URL == nil
	}
	form := a.Form.Pos
	for _, d := range errs {
		p := d.Pos
		if posBefore(p, form) || next.IsValid() && !posBefore(p, next) {
			continue
		}
		if p.Line == form.Line || p.Col >= form.Col {
			return true
		}
	}
	return false
}

// posBefore reports whether p comes before q in the file.
func posBefore(p, q dsl.Pos) bool { return p.Line < q.Line || p.Line == q.Line && p.Col < q.Col }

// asCode returns copies of ds with code as their code, for
// flaggedForms and flaggedSchemas, which flag what holds a finding of
// theirs: any error of Parse in a schema counts as one.
func asCode(ds dsl.Diagnostics, code string) dsl.Diagnostics {
	out := make(dsl.Diagnostics, len(ds))
	for i, d := range ds {
		d.Code = code
		out[i] = d
	}
	return out
}

// withoutBadNames returns the diagnostics of scope, ds, without those
// about the value of a binding whose name Parse reported (errs) as
// wrong: a name that is reserved, or that is also a node id, is one
// problem, which Parse reports.
func withoutBadNames(f *dsl.File, ds, errs dsl.Diagnostics) dsl.Diagnostics {
	if len(ds) == 0 {
		return ds
	}
	bad := map[dsl.Pos]bool{}
	for _, d := range errs {
		bad[d.Pos] = true
	}
	skip := map[dsl.Pos]bool{}
	for n := range f.Walk() {
		if n.Kind != dsl.KindSet || n.Set == nil {
			continue
		}
		for _, b := range n.Set.Bindings {
			if bad[b.Pos] {
				skip[valuePos(b)] = true
			}
		}
	}
	var out dsl.Diagnostics
	for _, d := range ds {
		if !skip[d.Pos] {
			out = append(out, d)
		}
	}
	return out
}
