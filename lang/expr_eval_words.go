package lang

import (
	"reflect"

	"cel.dev/cel-go/common/types"
	"github.com/expr-lang/expr/ast"
)

// runtimeMessage words the failure of n at run time from the values of
// its operands. A node whose operands have types it takes failed for
// another reason and keeps expr's message.
func (f *exprFacts) runtimeMessage(p *exprProgram, n ast.Node, vars map[string]any) (string, bool) {
	switch n := n.(type) {
	case *ast.BinaryNode:
		return f.binaryRuntime(p, n, vars)
	case *ast.UnaryNode:
		k, ok := exprUnaryOps[n.Operator]
		v, known := f.value(p, n.Node, vars)
		if !ok || !known {
			return "", false
		}
		o := valueOperand(n.Node, v)
		if exprTakesValues(k, o.t, o.t) {
			return "", false
		}
		return exprDialect.opMessage(op{k, n.Operator}, []operand{o}), true
	case *ast.MemberNode:
		return f.memberRuntime(p, n, vars)
	case *ast.CallNode:
		if id, ok := n.Callee.(*ast.IdentifierNode); ok {
			return f.callRuntime(p, id.Value, n.Arguments, vars)
		}
	case *ast.BuiltinNode:
		return f.callRuntime(p, n.Name, n.Arguments, vars)
	}
	return "", false
}

func (f *exprFacts) binaryRuntime(p *exprProgram, n *ast.BinaryNode, vars map[string]any) (string, bool) {
	k, ok := exprBinaryOps[n.Operator]
	lv, known := f.value(p, n.Left, vars)
	if !ok || !known {
		return "", false
	}
	l := valueOperand(n.Left, lv)
	o := op{k, n.Operator}
	if k == opLogic && l.t.Kind() != types.BoolKind {
		// The right side may not have been evaluated.
		return exprDialect.opMessage(o, []operand{l}), true
	}
	rv, known := f.value(p, n.Right, vars)
	if !known {
		return "", false
	}
	r := valueOperand(n.Right, rv)
	if exprTakesValues(k, l.t, r.t) {
		if k == opModulo && rv == int64(0) {
			return "division by zero: the right side of % is 0", true
		}
		return "", false
	}
	return exprDialect.opMessage(o, []operand{l, r}), true
}

// exprTakesValues reports whether expr's operator of kind k takes values
// of types a and b (for a unary operator, a).
func exprTakesValues(k opKind, a, b *types.Type) bool {
	num := isNumber(a) && isNumber(b)
	both := func(ks ...types.Kind) bool { return isKind(a, ks...) && a.Kind() == b.Kind() }
	pair := func(x, y types.Kind) bool { return a.Kind() == x && b.Kind() == y }
	switch k {
	case opEqual:
		return true
	case opOrder:
		return num || both(types.StringKind, types.TimestampKind, types.DurationKind)
	case opAdd:
		return num || both(types.StringKind, types.ListKind, types.DurationKind) ||
			pair(types.TimestampKind, types.DurationKind) || pair(types.DurationKind, types.TimestampKind)
	case opSubtract:
		return num || both(types.TimestampKind, types.DurationKind) || pair(types.TimestampKind, types.DurationKind)
	case opMultiply:
		return num || pair(types.DurationKind, types.IntKind) || pair(types.IntKind, types.DurationKind)
	case opDivide, opPower:
		return num
	case opModulo, opRange:
		return both(types.IntKind)
	case opLogic, opNot:
		return both(types.BoolKind)
	case opNegate:
		return isNumber(a)
	case opIn:
		return b.Kind() == types.ListKind || (b.Kind() == types.MapKind && a.Kind() == types.StringKind)
	case opText:
		return both(types.StringKind)
	}
	return true
}

// memberRuntime words a field or index a value does not have.
func (f *exprFacts) memberRuntime(p *exprProgram, n *ast.MemberNode, vars map[string]any) (string, bool) {
	bv, known := f.value(p, n.Node, vars)
	if !known || n.Method {
		return "", false
	}
	pv, known := f.value(p, n.Property, vars)
	if !known {
		return "", false
	}
	b, pr := valueOperand(n.Node, bv), valueOperand(n.Property, pv)
	field, isField := n.Property.(*ast.StringNode)
	index := exprDialect.opMessage(op{opIndex, "[]"}, []operand{b, pr})
	switch bv := bv.(type) {
	case []any:
		i, isInt := pv.(int64)
		switch {
		case !isInt:
			return index, true
		case i >= int64(len(bv)) || i < -int64(len(bv)):
			return indexOutOfRange(b, i, len(bv)), true
		}
		return "", false
	case map[string]any:
		if _, isString := pv.(string); isString {
			return "", false
		}
		return index, true
	case string:
		if _, isInt := pv.(int64); isInt {
			return "", false
		}
	}
	if isField {
		return exprDialect.noFields(b, field.Value, false), true
	}
	return index, true
}

// callRuntime words a call of a function whose signatures take none of
// the argument values. Functions without signatures (len, which checks
// its own arguments) keep expr's message.
func (f *exprFacts) callRuntime(p *exprProgram, name string, argNodes []ast.Node, vars map[string]any) (string, bool) {
	fn := f.function(name)
	if fn == nil || len(fn.Types) == 0 {
		return "", false
	}
	vals := make([]any, len(argNodes))
	args := make([]operand, len(argNodes))
	for i, a := range argNodes {
		v, known := f.value(p, a, vars)
		if !known {
			return "", false
		}
		vals[i], args[i] = v, valueOperand(a, v)
	}
	for _, t := range fn.Types {
		if fitsSignature(t, vals) {
			return "", false
		}
	}
	return exprDialect.callMessage(fn.Name, nil, args, exprTakes(fn, len(args)), ""), true
}

// fitsSignature reports whether a function of type t takes vals; a
// variadic signature is taken to fit.
func fitsSignature(t reflect.Type, vals []any) bool {
	if t.Kind() != reflect.Func || t.IsVariadic() {
		return true
	}
	if t.NumIn() != len(vals) {
		return false
	}
	for i, v := range vals {
		in := t.In(i)
		if v == nil {
			switch in.Kind() {
			case reflect.Interface, reflect.Pointer, reflect.Slice, reflect.Map, reflect.Func:
				continue
			}
			return false
		}
		if !reflect.TypeOf(v).AssignableTo(in) {
			return false
		}
	}
	return true
}
