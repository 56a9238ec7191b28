package check

import (
	"fmt"
	"reflect"

	"github.com/flowserve/flowserve/actions"
	"github.com/flowserve/flowserve/check/codes"
	"github.com/flowserve/flowserve/dsl"
	"github.com/flowserve/flowserve/lang"
)

// The schemas of the variables every flow has.
var (
	runSchema = object(map[string]any{
		"id":      typed("string"),
		"started": typed("string"),
		"round":   typed("integer"),
	})
	clientSchema = object(map[string]any{
		"name":     typed("string"),
		"version":  typed("string"),
		"protocol": typed("string"),
		"form":     typed("boolean"),
		"url":      typed("boolean"),
		"sampling": typed("boolean"),
		"roots":    typed("boolean"),
	})
	sampleSchema = object(map[string]any{
		"action":     typed("string"),
		"accepted":   typed("boolean"),
		"role":       typed("string"),
		"text":       typed("string"),
		"model":      typed("string"),
		"stopReason": typed("string"),
		"content":    map[string]any{},
	})
	rootsSchema = object(map[string]any{
		"action":   typed("string"),
		"accepted": typed("boolean"),
		"roots": map[string]any{"type": "array", "items": object(map[string]any{
			"uri":  typed("string"),
			"name": typed("string"),
		})},
	})
	errorSchema = typed("string")
)

func typed(t string) map[string]any { return map[string]any{"type": t} }

func object(props map[string]any) map[string]any {
	return map[string]any{"type": "object", "properties": props}
}

// Scope returns every variable an expression of f may use, each with a
// JSON Schema of its values, in this order: input, run, client,
// principal, error, vars and secrets when the flow declares any, then
// each ask, step and call id and set name in file order (a name bound
// again keeps its first place). Types type-checks every expression of f
// against these variables (so lint reports what they do not allow), and
// the engine binds the same names at run time; tools such as an editor's
// completion can call Scope for the same list.
//
//   - input: the input schema ({type: object} when the flow has none);
//   - an ask id: {action: string, accepted: bool, content}, where content
//     is an object of the form's properties (a map of dyn for URL asks);
//     inside the ask's own validate rules the id is the answer being
//     checked, with the same type;
//   - a step id: its action's output schema (dyn for an unknown action;
//     env.Actions nil means actions.Default());
//   - a call id: what its callee returns (dsl.CalleeResult): the
//     callee's output schema, or a string (its result's text) when it
//     declares none; dyn when env.Callees does not find the callee;
//   - a set name: the type of its first binding: a template that is one
//     whole expression has the expression's type, any other template is
//     a string, a literal has its own type, a map or list is built from
//     its entries. Bindings are type-checked in file order, with the set
//     names bound earlier in the file typed and later ones dyn;
//   - a sample id: {action, role, text, model, stopReason: string,
//     accepted: bool, content: dyn}: the client model's reply (text joins
//     its text blocks); a roots id: {action: string, accepted: bool,
//     roots: [{uri, name: string}]};
//   - run: {id: string, started: string, round: int}; client: {name,
//     version, protocol: string, form, url, sampling, roots: bool};
//     error: string; principal: {sub: string, scopes: [string], claims:
//     map of dyn}, the authenticated caller (empty when there is none);
//   - vars and secrets: objects of the names the flow declares under
//     vars and secrets, each a string, and no other field: an undeclared
//     name is an error with a did-you-mean. A flow that declares none
//     has no such variable.
//
// A set name bound again to a value of another type is an error, which
// Types reports; Scope types the name by its first binding regardless.
func Scope(f *dsl.File, env Env) []lang.Var {
	vars, _ := scope(f, env.Actions, env.Callees)
	return vars
}

// scope builds Scope and reports set names bound to values of different
// types.
func scope(f *dsl.File, reg *actions.Registry, callees dsl.Callees) ([]lang.Var, dsl.Diagnostics) {
	if reg == nil {
		reg = actions.Default()
	}
	sc := newScopeVars(f)
	fromSet := map[string]bool{} // names a set binds first
	var binds []*dsl.Binding
	for n := range f.Walk() {
		switch n.Kind {
		case dsl.KindAsk:
			sc.add(n.ID, askSchema(n.Ask))
		case dsl.KindSample:
			sc.add(n.ID, sampleSchema)
		case dsl.KindRoots:
			sc.add(n.ID, rootsSchema)
		case dsl.KindStep:
			var out map[string]any
			if n.Step != nil {
				if a, ok := reg.Lookup(n.Step.Action.Value); ok {
					out = a.Output
				}
			}
			sc.add(n.ID, out)
		case dsl.KindCall:
			var out map[string]any
			if n.Call != nil && callees != nil {
				out = dsl.CalleeResult(callees(n.Call.Flow.Value))
			}
			sc.add(n.ID, out)
		case dsl.KindSet:
			if n.Set == nil {
				continue
			}
			for _, b := range n.Set.Bindings {
				if sc.add(b.Name, nil) {
					fromSet[b.Name] = true
				}
				binds = append(binds, b)
			}
		}
	}
	if len(binds) == 0 {
		return sc.vars, nil
	}
	l, ok := lang.Lookup(f.Expressions.Value)
	if !ok {
		return sc.vars, nil // every set name stays dyn; Types reports the language
	}
	return sc.vars, sc.typeSets(l, binds, fromSet)
}

// scopeVars is a scope being built: its variables, and where each is.
type scopeVars struct {
	vars  []lang.Var
	index map[string]int
}

// newScopeVars returns the scope of the names every flow has: input, run,
// client, principal, error, and vars and secrets when f declares any.
func newScopeVars(f *dsl.File) *scopeVars {
	inputSchema := map[string]any{"type": "object"}
	if f.Input != nil && f.Input.Value != nil {
		inputSchema = f.Input.Value
	}
	sc := &scopeVars{vars: []lang.Var{
		{Name: dsl.VarInput, Schema: inputSchema},
		{Name: dsl.VarRun, Schema: runSchema},
		{Name: dsl.VarClient, Schema: clientSchema},
		{Name: dsl.VarPrincipal, Schema: principalSchema},
		{Name: dsl.VarError, Schema: errorSchema},
	}}
	if s := settingsSchema(f.Vars); s != nil {
		sc.vars = append(sc.vars, lang.Var{Name: dsl.VarVars, Schema: s})
	}
	if s := settingsSchema(f.Secrets); s != nil {
		sc.vars = append(sc.vars, lang.Var{Name: dsl.VarSecrets, Schema: s})
	}
	sc.index = make(map[string]int, len(sc.vars))
	for i, v := range sc.vars {
		sc.index[v.Name] = i
	}
	return sc
}

// add adds the variable name with schema, unless the scope has it (or
// name is empty); it reports whether it added it.
func (sc *scopeVars) add(name string, schema map[string]any) bool {
	if _, ok := sc.index[name]; ok || name == "" {
		return false
	}
	sc.index[name] = len(sc.vars)
	sc.vars = append(sc.vars, lang.Var{Name: name, Schema: schema})
	return true
}

// typeSets types the set names of binds in file order (those fromSet
// binds first take the type of their first binding) and reports each
// later binding of another type. The environment is rebuilt only when
// a name gets a type other than dyn.
func (sc *scopeVars) typeSets(l lang.Language, binds []*dsl.Binding, fromSet map[string]bool) dsl.Diagnostics {
	var (
		env   lang.Env
		diags dsl.Diagnostics
		first = map[string]*dsl.Binding{}
	)
	exprSchema := func(e *dsl.Expr) map[string]any {
		if env == nil {
			var err error
			if env, err = l.NewEnv(sc.vars, lang.Options{}); err != nil {
				return nil
			}
		}
		prg, errs := env.Compile(e.Src, false)
		if len(errs) > 0 {
			return nil // Types reports the errors
		}
		return prg.Schema()
	}
	vars := sc.vars
	for _, b := range binds {
		s := valueSchema(b.Value, exprSchema)
		i := sc.index[b.Name]
		fb, seen := first[b.Name]
		if !seen && fromSet[b.Name] {
			first[b.Name] = b
			if len(s) > 0 {
				vars[i].Schema = s
				env = nil
			}
			continue
		}
		if lang.Assignable(vars[i].Schema, s) {
			continue
		}
		var msg string
		if seen {
			msg = fmt.Sprintf("%s is %s here, but its first binding (line %d) made it %s; a set name keeps the type of its first binding",
				b.Name, lang.TypeName(s), fb.Pos.Line, lang.TypeName(vars[i].Schema))
		} else {
			msg = fmt.Sprintf("%s is %s here, but %s is %s", b.Name, lang.TypeName(s), b.Name, lang.TypeName(vars[i].Schema))
		}
		diags = append(diags, dsl.Diagnostic{Pos: valuePos(b), Severity: dsl.Error, Code: codes.TypeError, Message: msg})
	}
	return diags
}

// settingsSchema is the schema of vars or secrets: an object of the
// declared names, each a string; nil when there are none.
func settingsSchema(decls []*dsl.Setting) map[string]any {
	if len(decls) == 0 {
		return nil
	}
	props := make(map[string]any, len(decls))
	for _, d := range decls {
		props[d.Name] = typed("string")
	}
	return object(props)
}

// askSchema is the schema of an ask id's value.
func askSchema(a *dsl.Ask) map[string]any {
	content := map[string]any{"type": "object"}
	if a != nil && a.Form != nil && len(a.Form.Properties) > 0 {
		props := make(map[string]any, len(a.Form.Properties))
		for _, p := range a.Form.Properties {
			props[p.Name] = p.Schema
		}
		content = object(props)
	}
	props := map[string]any{
		"action":   typed("string"),
		"accepted": typed("boolean"),
		"content":  content,
	}
	if a.Approval() {
		props["answered_by"] = typed("string")
		props["answered_at"] = typed("string")
	}
	return object(props)
}

// valueSchema returns the schema of the values v produces, or nil when it
// is dynamic. exprSchema types a whole-value template's expression.
func valueSchema(v *dsl.Value, exprSchema func(*dsl.Expr) map[string]any) map[string]any {
	if v == nil {
		return nil
	}
	switch v.Kind {
	case dsl.ValueLiteral:
		switch v.Literal.(type) {
		case bool:
			return typed("boolean")
		case int64, int:
			return typed("integer")
		case float64:
			return typed("number")
		}
		return nil // null fits any type
	case dsl.ValueTemplate:
		if w := v.Template.Whole(); w != nil {
			return exprSchema(w)
		}
		return typed("string")
	case dsl.ValueMap:
		props := make(map[string]any, len(v.Keys))
		for i, k := range v.Keys {
			props[k] = orEmpty(valueSchema(v.Map[i], exprSchema))
		}
		if len(props) == 0 {
			return typed("object")
		}
		return object(props)
	case dsl.ValueList:
		var items map[string]any
		for i, e := range v.List {
			s := orEmpty(valueSchema(e, exprSchema))
			if i == 0 {
				items = s
			} else if !reflect.DeepEqual(items, s) {
				items = map[string]any{}
			}
		}
		return map[string]any{"type": "array", "items": orEmpty(items)}
	}
	return nil
}

func orEmpty(s map[string]any) map[string]any {
	if s == nil {
		return map[string]any{}
	}
	return s
}

// valuePos returns the position of a binding's value: its expression when
// it is one whole template.
func valuePos(b *dsl.Binding) dsl.Pos {
	if b.Value == nil {
		return b.Pos
	}
	if b.Value.Kind == dsl.ValueTemplate {
		if w := b.Value.Template.Whole(); w != nil {
			return w.Pos
		}
	}
	return b.Value.Pos
}

// principalSchema is the schema of principal: {sub: string, scopes:
// [string], claims: map of dyn}.
var principalSchema = object(map[string]any{
	"sub":    typed("string"),
	"scopes": map[string]any{"type": "array", "items": typed("string")},
	"claims": typed("object"),
})
