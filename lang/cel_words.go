package lang

import (
	"sort"
	"strings"
	"sync"

	"cel.dev/cel-go/checker"
	celast "cel.dev/cel-go/common/ast"
	"cel.dev/cel-go/common/decls"
	"cel.dev/cel-go/common/operators"
	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/parser"
)

// This file and cel_eval_words.go gather the facts cel-go has about a
// failing expression and word its errors from them (see words.go): here
// the checker's types for compile errors, there the evaluation state for
// run-time errors. They never read cel-go's messages; an error they have
// no facts for keeps cel-go's message.

// celFacts is a checked syntax tree, navigable by expression id.
type celFacts struct {
	env  *celEnv
	ast  *celast.AST
	byID map[int64]celast.NavigableExpr
}

func newCELFacts(e *celEnv, a *celast.AST) *celFacts {
	f := &celFacts{env: e, ast: a, byID: map[int64]celast.NavigableExpr{}}
	for _, n := range celast.MatchDescendants(celast.NavigateAST(a), celast.AllMatcher()) {
		f.byID[n.ID()] = n
	}
	return f
}

// checker returns a type checker with the declarations of e's CEL
// environment. cel.Env.Check keeps the checked tree of an expression it
// rejects to itself; checking again with the same declarations gives that
// tree, with the type of every sub-expression it could type.
func (e *celEnv) checker() (*checker.Env, error) {
	e.chkOnce.Do(func() {
		chk, err := checker.NewEnv(e.env.Container, e.env.CELTypeProvider(),
			checker.CrossTypeNumericComparisons(true))
		if err == nil {
			err = chk.AddIdents(e.env.Variables()...)
		}
		for _, fn := range e.env.Functions() {
			if err == nil && !fn.IsDeclarationDisabled() {
				err = chk.AddFunctions(fn)
			}
		}
		e.chk, e.chkErr = chk, err
	})
	return e.chk, e.chkErr
}

// compileFacts checks src again and returns the checked tree, or nil.
func (e *celEnv) compileFacts(src string) *celFacts {
	parsed, iss := e.env.Parse(src)
	if iss.Err() != nil {
		return nil
	}
	chk, err := e.checker()
	if err != nil {
		return nil
	}
	checked, _ := checker.Check(parsed.NativeRep(), parsed.Source(), chk)
	return newCELFacts(e, checked)
}

func (f *celFacts) typeOf(id int64) *types.Type {
	if t, ok := f.ast.TypeMap()[id]; ok {
		return t
	}
	return types.DynType
}

// operand returns e as messages show it, typed by the checker.
func (f *celFacts) operand(e celast.Expr) operand {
	return newOperand(f.typeOf(e.ID()), f.text(e))
}

func (f *celFacts) text(e celast.Expr) string {
	s, err := parser.Unparse(e, f.ast.SourceInfo())
	if err != nil {
		return ""
	}
	return s
}

// compileMessage words the checker's error at expression id.
func (f *celFacts) compileMessage(id int64) (celWording, bool) {
	n, ok := f.byID[id]
	if !ok {
		return celWording{}, false
	}
	if msg, ok := f.inContext(n); ok {
		return celWording{msg: msg}, true
	}
	switch n.Kind() {
	case celast.IdentKind:
		if n.Type().Kind() == types.ErrorKind {
			return unknownName(n.AsIdent(), f.env.scope.names), true
		}
	case celast.SelectKind:
		sel := n.AsSelect()
		return f.selectMessage(sel.Operand(), sel.FieldName(), sel.IsTestOnly())
	case celast.CallKind:
		return f.callMessage(n)
	}
	return celWording{}, false
}

// inContext words an expression of a fine type in a place that needs
// another: an operand of && or ||, a macro's predicate, the range of a
// macro.
func (f *celFacts) inContext(n celast.NavigableExpr) (string, bool) {
	t := n.Type()
	p, ok := n.Parent()
	if !ok || t.Kind() == types.ErrorKind {
		return "", false
	}
	boolish := t.Kind() == types.BoolKind || isDynLike(t)
	if name, ok := f.predicateOf(n.ID()); ok && !boolish {
		return celDialect.notPredicate(name, f.operand(n)), true
	}
	switch p.Kind() {
	case celast.CallKind:
		fn := p.AsCall().FunctionName()
		if (fn == operators.LogicalAnd || fn == operators.LogicalOr) && !boolish {
			return celDialect.opMessage(celOps[fn], []operand{f.operand(n)}), true
		}
	case celast.ComprehensionKind:
		iterable := isKind(t, types.ListKind, types.MapKind) || isDynLike(t)
		if p.AsComprehension().IterRange().ID() == n.ID() && !iterable {
			if m, ok := f.ast.SourceInfo().GetMacroCall(p.ID()); ok && m.Kind() == celast.CallKind {
				return notIterable(m.AsCall().FunctionName(), f.operand(n)), true
			}
		}
	}
	return "", false
}

// predicateOf returns the name of the macro whose boolean predicate is
// the expression with the given id.
func (f *celFacts) predicateOf(id int64) (string, bool) {
	for _, m := range f.ast.SourceInfo().MacroCalls() {
		if m.Kind() != celast.CallKind {
			continue
		}
		call := m.AsCall()
		args := call.Args()
		pred := -1
		switch call.FunctionName() {
		case operators.All, operators.Exists, operators.ExistsOne, "existsOne", operators.Filter:
			pred = len(args) - 1
		case operators.Map:
			if len(args) == 3 {
				pred = 1
			}
		}
		if pred >= 0 && pred < len(args) && args[pred].ID() == id {
			return call.FunctionName(), true
		}
	}
	return "", false
}

// selectMessage words selecting field from operand: a field an object
// does not declare, or a value without fields.
func (f *celFacts) selectMessage(operandExpr celast.Expr, field string, test bool) (celWording, bool) {
	t := f.typeOf(operandExpr.ID())
	if isOptional(t) {
		t = t.Parameters()[0]
	}
	switch {
	case t.Kind() == types.StructKind:
		if _, ok := f.env.prov.FindStructFieldType(t.TypeName(), field); ok {
			return celWording{}, false
		}
		names, _ := f.env.prov.FindStructFieldNames(t.TypeName())
		return undefinedField(field, names), true
	case t.Kind() == types.MapKind || isDynLike(t):
		return celWording{}, false
	}
	o := newOperand(t, f.text(operandExpr))
	return celWording{msg: celDialect.noFields(o, field, test)}, true
}

// callMessage words a call the checker rejected: an unknown function, or
// arguments no overload takes.
func (f *celFacts) callMessage(n celast.NavigableExpr) (celWording, bool) {
	call := n.AsCall()
	fn := call.FunctionName()
	if fn == operators.OptSelect && len(call.Args()) == 2 {
		if field, ok := call.Args()[1].AsLiteral().(types.String); ok {
			return f.selectMessage(call.Args()[0], string(field), false)
		}
		return celWording{}, false
	}
	if n.Type().Kind() != types.ErrorKind {
		return celWording{}, false
	}
	decl := f.env.env.Functions()[fn]
	if decl == nil {
		return unknownFunction(fn, celFunctionNames()), true
	}
	exprs := call.Args()
	if call.IsMemberFunction() {
		exprs = append([]celast.Expr{call.Target()}, exprs...)
	}
	args := make([]operand, len(exprs))
	for i, e := range exprs {
		args[i] = f.operand(e)
	}
	return celWording{msg: celCallMessage(decl, call.IsMemberFunction(), args)}, true
}

// celCallMessage words a call of decl with arguments (the receiver first
// for a method call) that none of its overloads takes.
func celCallMessage(decl *decls.FunctionDecl, member bool, args []operand) string {
	if o, ok := celOps[decl.Name()]; ok {
		return celDialect.opMessage(o, args)
	}
	var recv *operand
	if member && len(args) > 0 {
		recv = &args[0]
		args = args[1:]
	}
	var hint string
	for i, a := range append(derefOperand(recv), args...) {
		if a.t.Kind() == types.StructKind && takesMap(decl, member, i) {
			call := decl.Name() + "(dyn(" + a.src() + "))"
			if member {
				call = "dyn(" + a.src() + ")." + decl.Name() + "(...)"
			}
			hint = "; an object is not a map: convert it with dyn(...), like " + call
			break
		}
	}
	return celDialect.callMessage(decl.Name(), recv, args, celTakes(decl, member, len(args)), hint)
}

// maxTakes is the most overloads a message lists.
const maxTakes = 6

// celTakes describes the overloads of decl callable the same way (as a
// method or not) with n arguments besides the receiver: "a string",
// "(a string, an integer)", or for methods "a string with an integer".
func celTakes(decl *decls.FunctionDecl, member bool, n int) []string {
	var out []string
	seen := map[string]bool{}
	ods := append([]*decls.OverloadDecl(nil), decl.OverloadDecls()...)
	sort.SliceStable(ods, func(i, j int) bool { return firstRank(ods[i]) < firstRank(ods[j]) })
	for _, o := range ods {
		ats := o.ArgTypes()
		if o.IsMemberFunction() != member || (member && len(ats) != n+1) || (!member && len(ats) != n) {
			continue
		}
		var desc string
		if member {
			desc = aTypeName(ats[0])
			if n > 0 {
				desc += " with " + joinTypes(ats[1:])
			}
		} else {
			desc = signature(ats)
		}
		if !seen[desc] {
			seen[desc] = true
			out = append(out, desc)
		}
	}
	if len(out) > maxTakes {
		return nil
	}
	return out
}

// kindOrder orders the types a message lists: the common ones first.
var kindOrder = []types.Kind{types.StringKind, types.IntKind, types.UintKind, types.DoubleKind,
	types.BoolKind, types.ListKind, types.MapKind, types.TimestampKind, types.DurationKind, types.BytesKind}

// firstRank returns the place in kindOrder of an overload's first
// argument type.
func firstRank(o *decls.OverloadDecl) int {
	if ats := o.ArgTypes(); len(ats) > 0 {
		for i, k := range kindOrder {
			if ats[0].Kind() == k {
				return i
			}
		}
	}
	return len(kindOrder)
}

func joinTypes(ts []*types.Type) string {
	parts := make([]string, len(ts))
	for i, t := range ts {
		parts[i] = aTypeName(t)
	}
	return strings.Join(parts, " and ")
}

// takesMap reports whether an overload of decl takes a map as its i-th
// argument (the receiver being the first).
func takesMap(decl *decls.FunctionDecl, member bool, i int) bool {
	for _, o := range decl.OverloadDecls() {
		if ats := o.ArgTypes(); o.IsMemberFunction() == member && i < len(ats) && ats[i].Kind() == types.MapKind {
			return true
		}
	}
	return false
}

var (
	celNamesOnce sync.Once
	celNames     []string
)

// celFunctionNames returns the names of the functions and macros flows
// can call, for did-you-mean.
func celFunctionNames() []string {
	celNamesOnce.Do(func() {
		base, err := celBase()
		if err != nil {
			return
		}
		seen := map[string]bool{}
		for name := range base.Functions() {
			// Operators (_+_, @in) are not called by name.
			if celIdent.MatchString(strings.ReplaceAll(name, ".", "_")) && name[0] != '_' {
				seen[name] = true
			}
		}
		for _, m := range base.Macros() {
			seen[m.Function()] = true
		}
		for name := range seen {
			celNames = append(celNames, name)
		}
		sort.Strings(celNames)
	})
	return celNames
}
