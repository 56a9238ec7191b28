package lang

import (
	"errors"
	"strings"

	"cel.dev/cel-go/cel"
	celast "cel.dev/cel-go/common/ast"
	"cel.dev/cel-go/common/decls"
	"cel.dev/cel-go/common/operators"
	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/common/types/ref"
	"cel.dev/cel-go/common/types/traits"
	"cel.dev/cel-go/interpreter"
)

// This file words the run-time errors of CEL expressions from the
// evaluation state; cel_words.go words the compile errors and holds the
// facts both read.

// tracking returns p's program with evaluation state tracking, built once.
func (p *celProgram) tracking() cel.Program {
	p.trackOnce.Do(func() {
		p.track, _ = p.env.env.Program(p.ast, cel.EvalOptions(cel.OptTrackState), cel.CostLimit(p.env.costLimit))
	})
	return p.track
}

// evalError words an evaluation error. Evaluations are deterministic, so
// evaluating again with state tracking shows the value of every
// sub-expression: the error is worded from the innermost failing one and
// the values of its operands.
func (p *celProgram) evalError(vars map[string]any, err error) error {
	var te *types.Err
	if !errors.As(err, &te) {
		return err // cel-go's own failure, such as its cost limit
	}
	ev := &EvalError{Offset: -1, Message: err.Error(), Err: err}
	prg := p.tracking()
	if prg == nil {
		return ev
	}
	_, det, _ := prg.Eval(vars)
	if det == nil || det.State() == nil {
		return ev
	}
	f := newCELFacts(p.env, p.ast.NativeRep())
	n := celOrigin(celast.NavigateAST(f.ast), det.State())
	if n == nil {
		return ev
	}
	if r, ok := f.ast.SourceInfo().GetOffsetRange(n.ID()); ok {
		ev.Offset = int(r.Start)
	}
	if msg, ok := f.runtimeMessage(n, celValues{st: det.State(), vars: vars}); ok {
		ev.Message = msg
	}
	return ev
}

// celOrigin returns the innermost expression whose value is an error and
// whose operands have none, following the error down from root.
func celOrigin(root celast.NavigableExpr, st interpreter.EvalState) celast.NavigableExpr {
	if !celFailed(st, root.ID()) {
		return nil
	}
	n := root
	for {
		var next celast.NavigableExpr
		for _, c := range n.Children() {
			// A comprehension's accumulator holds the error too.
			if c.Kind() == celast.IdentKind && strings.HasPrefix(c.AsIdent(), "@") {
				continue
			}
			if celFailed(st, c.ID()) {
				next = c
				break
			}
		}
		if next == nil {
			return n
		}
		n = next
	}
}

func celFailed(st interpreter.EvalState, id int64) bool {
	v, ok := st.Value(id)
	return ok && types.IsError(v)
}

// celValues gives the values of sub-expressions in a failed evaluation:
// those the evaluation state recorded, and those of the chains of fields
// and indexes CEL evaluates as one attribute (input.tags[0]), read from
// the variables.
type celValues struct {
	st   interpreter.EvalState
	vars map[string]any
}

// value returns the value of e, or false when it is not known or is an
// error.
func (vs celValues) value(e celast.Expr) (ref.Val, bool) {
	if v, ok := vs.st.Value(e.ID()); ok {
		return v, !types.IsError(v)
	}
	switch e.Kind() {
	case celast.LiteralKind:
		return e.AsLiteral(), true
	case celast.IdentKind:
		v, ok := vs.vars[e.AsIdent()]
		if !ok {
			return nil, false
		}
		return types.DefaultTypeAdapter.NativeToValue(v), true
	case celast.SelectKind:
		base, ok := vs.value(e.AsSelect().Operand())
		if m, isMap := base.(traits.Mapper); ok && isMap {
			return m.Find(types.String(e.AsSelect().FieldName()))
		}
	case celast.CallKind:
		call := e.AsCall()
		if call.FunctionName() != operators.Index || len(call.Args()) != 2 {
			return nil, false
		}
		c, ok := vs.value(call.Args()[0])
		i, known := vs.value(call.Args()[1])
		if !ok || !known {
			return nil, false
		}
		if _, isList := c.(traits.Lister); isList {
			if _, out := celIndexMessage(operand{}, c, i); out {
				return nil, false
			}
		}
		if m, isMap := c.(traits.Mapper); isMap {
			return m.Find(i)
		}
		if l, isList := c.(traits.Lister); isList {
			v := l.Get(i)
			return v, !types.IsError(v)
		}
	}
	return nil, false
}

// runtimeMessage words the failure of n from its operands' values.
func (f *celFacts) runtimeMessage(n celast.NavigableExpr, vs celValues) (string, bool) {
	if name, ok := f.unbound(n, vs); ok {
		return name + " has no value yet: the node that sets it has not run", true
	}
	switch n.Kind() {
	case celast.SelectKind:
		sel := n.AsSelect()
		v, ok := vs.value(sel.Operand())
		if !ok {
			return "", false
		}
		o := f.valueOperand(sel.Operand(), v)
		m, isMap := v.(traits.Mapper)
		if !isMap {
			return celDialect.noFields(o, sel.FieldName(), sel.IsTestOnly()), true
		}
		if _, found := m.Find(types.String(sel.FieldName())); found || sel.IsTestOnly() {
			return "", false
		}
		how := missField
		if f.typeOf(sel.Operand().ID()).Kind() == types.StructKind {
			how = missOptional
		}
		return missingField(o, sel.FieldName(), how), true
	case celast.CallKind:
		return f.runtimeCall(n.AsCall(), vs)
	}
	return "", false
}

// unbound returns the declared variable without a value that the chain
// of fields and indexes e reads from, if there is one.
func (f *celFacts) unbound(e celast.Expr, vs celValues) (string, bool) {
	for {
		switch e.Kind() {
		case celast.SelectKind:
			e = e.AsSelect().Operand()
			continue
		case celast.CallKind:
			if call := e.AsCall(); call.FunctionName() == operators.Index && len(call.Args()) == 2 {
				e = call.Args()[0]
				continue
			}
		case celast.IdentKind:
			_, declared := f.env.scope.vars[e.AsIdent()]
			_, bound := vs.vars[e.AsIdent()]
			return e.AsIdent(), declared && !bound
		}
		return "", false
	}
}

// runtimeCall words a call that failed: an index out of range or a
// missing key, or argument values none of the function's overloads take.
// A call whose arguments an overload takes failed for another reason
// (division by zero, overflow) and keeps cel-go's message.
func (f *celFacts) runtimeCall(call celast.CallExpr, vs celValues) (string, bool) {
	exprs := call.Args()
	if call.IsMemberFunction() {
		exprs = append([]celast.Expr{call.Target()}, exprs...)
	}
	vals := make([]ref.Val, len(exprs))
	args := make([]operand, len(exprs))
	for i, e := range exprs {
		v, ok := vs.value(e)
		if !ok {
			return "", false
		}
		vals[i], args[i] = v, f.valueOperand(e, v)
	}
	fn := call.FunctionName()
	if (fn == operators.Index || fn == operators.OptIndex) && len(vals) == 2 {
		if msg, ok := celIndexMessage(args[0], vals[0], vals[1]); ok {
			return msg, true
		}
	}
	decl := f.env.env.Functions()[fn]
	if decl == nil || celAccepts(decl, call.IsMemberFunction(), vals) {
		return "", false
	}
	return celCallMessage(decl, call.IsMemberFunction(), args), true
}

// celIndexMessage words an index past a list's end or a key a map does
// not have.
func celIndexMessage(c operand, container, index ref.Val) (string, bool) {
	if l, ok := container.(traits.Lister); ok {
		i, isInt := index.(types.Int)
		size, _ := l.Size().(types.Int)
		if isInt && (i < 0 || i >= size) {
			return indexOutOfRange(c, int64(i), int(size)), true
		}
	}
	if m, ok := container.(traits.Mapper); ok {
		k, isString := index.(types.String)
		if _, found := m.Find(index); isString && !found {
			return missingField(c, string(k), missKey), true
		}
	}
	return "", false
}

// celAccepts reports whether an overload of decl, called the same way,
// takes values of the types of vals.
func celAccepts(decl *decls.FunctionDecl, member bool, vals []ref.Val) bool {
	for _, o := range decl.OverloadDecls() {
		ats := o.ArgTypes()
		if o.IsMemberFunction() != member || len(ats) != len(vals) {
			continue
		}
		ok := true
		for i, at := range ats {
			ok = ok && celTakesValue(at, vals[i])
		}
		if ok {
			return true
		}
	}
	return false
}

// celTakesValue reports whether a parameter of type t takes v, comparing
// kinds (a list takes any list).
func celTakesValue(t *types.Type, v ref.Val) bool {
	if isDynLike(t) {
		return true
	}
	switch t.Kind() {
	case types.ListKind:
		_, ok := v.(traits.Lister)
		return ok
	case types.MapKind:
		_, ok := v.(traits.Mapper)
		return ok
	}
	vt, ok := v.Type().(*types.Type)
	return ok && vt.Kind() == t.Kind()
}

// valueOperand returns e as messages show it, typed by its value v.
func (f *celFacts) valueOperand(e celast.Expr, v ref.Val) operand {
	t := types.DynType
	if n, err := celNative(v); err == nil {
		t = valueCELType(n)
	} else if vt, ok := v.Type().(*types.Type); ok {
		t = vt
	}
	return newOperand(t, f.text(e))
}
