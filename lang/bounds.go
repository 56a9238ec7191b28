package lang

import (
	celast "cel.dev/cel-go/common/ast"
	"cel.dev/cel-go/common/types"
	exprast "github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/parser"
)

// Bound is a condition that compares a variable with an integer constant,
// written with the variable on the left: Name Op K, Op one of <, <=, >,
// >=, == and !=.
type Bound struct {
	Name string
	Op   string
	K    int64
}

// BoundOf reads src, an expression of language, as a Bound; ok is false
// when it is anything else.
func BoundOf(language, src string) (Bound, bool) {
	name, op, k, ok := comparison(language, src)
	if !ok {
		return Bound{}, false
	}
	return Bound{Name: name, Op: op, K: k}, true
}

// StepOf reads src as a variable plus or minus an integer constant
// (i + 1, 1 + i, i - 1); ok is false when it is anything else.
func StepOf(language, src string) (name string, step int64, ok bool) {
	name, op, k, ok := arithmetic(language, src)
	if !ok {
		return "", 0, false
	}
	if op == "-" {
		k = -k
	}
	return name, k, true
}

// flipped is the operator of a comparison written the other way round.
var flipped = map[string]string{"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}

// comparison reads name op k, or k op name (flipped).
func comparison(language, src string) (name, op string, k int64, ok bool) {
	op, left, right, ok := intBinary(language, src, func(op string) bool { _, is := flipped[op]; return is })
	if !ok {
		return "", "", 0, false
	}
	if left.name != "" && right.isInt {
		return left.name, op, right.k, true
	}
	if right.name != "" && left.isInt {
		return right.name, flipped[op], left.k, true
	}
	return "", "", 0, false
}

// arithmetic reads name + k, k + name or name - k.
func arithmetic(language, src string) (name, op string, k int64, ok bool) {
	op, left, right, ok := intBinary(language, src, func(op string) bool { return op == "+" || op == "-" })
	switch {
	case !ok:
	case left.name != "" && right.isInt:
		return left.name, op, right.k, true
	case op == "+" && right.name != "" && left.isInt:
		return right.name, op, left.k, true
	}
	return "", "", 0, false
}

// intOperand is a side of a binary expression: a variable or an integer.
type intOperand struct {
	name  string
	isInt bool
	k     int64
}

// intBinary reads src as one binary operation whose operator want accepts,
// with its operands when they are variables or integers.
func intBinary(language, src string, want func(string) bool) (string, intOperand, intOperand, bool) {
	switch language {
	case "", "cel":
		return celBinary(src, want)
	case "expr":
		return exprBinary(src, want)
	}
	return "", intOperand{}, intOperand{}, false
}

// celArith maps cel-go's operator functions onto the operators.
var celArith = map[string]string{"_<_": "<", "_<=_": "<=", "_>_": ">", "_>=_": ">=", "_==_": "==", "_!=_": "!=", "_+_": "+", "_-_": "-"}

func celBinary(src string, want func(string) bool) (string, intOperand, intOperand, bool) {
	base, err := celBase()
	if err != nil {
		return "", intOperand{}, intOperand{}, false
	}
	a, iss := base.Parse(src)
	if iss.Err() != nil {
		return "", intOperand{}, intOperand{}, false
	}
	e := a.NativeRep().Expr()
	if e.Kind() != celast.CallKind {
		return "", intOperand{}, intOperand{}, false
	}
	c := e.AsCall()
	op, known := celArith[c.FunctionName()]
	if !known || !want(op) || len(c.Args()) != 2 {
		return "", intOperand{}, intOperand{}, false
	}
	return op, celOperand(c.Args()[0]), celOperand(c.Args()[1]), true
}

func celOperand(e celast.Expr) intOperand {
	switch e.Kind() {
	case celast.IdentKind:
		return intOperand{name: e.AsIdent()}
	case celast.LiteralKind:
		if v, ok := e.AsLiteral().(types.Int); ok {
			return intOperand{isInt: true, k: int64(v)}
		}
	}
	return intOperand{}
}

func exprBinary(src string, want func(string) bool) (string, intOperand, intOperand, bool) {
	tree, err := parser.Parse(src)
	if err != nil {
		return "", intOperand{}, intOperand{}, false
	}
	b, ok := tree.Node.(*exprast.BinaryNode)
	if !ok || !want(b.Operator) {
		return "", intOperand{}, intOperand{}, false
	}
	return b.Operator, exprOperand(b.Left), exprOperand(b.Right), true
}

func exprOperand(n exprast.Node) intOperand {
	switch n := n.(type) {
	case *exprast.IdentifierNode:
		return intOperand{name: n.Value}
	case *exprast.IntegerNode:
		return intOperand{isInt: true, k: int64(n.Value)}
	}
	return intOperand{}
}

// BoundsOf reads the bounds of a condition: and holds the Bounds among
// the operands of its top-level chain of && (all of which hold when it is
// true), or holds those among the operands of its chain of || (one of
// which holds when it is true). A condition that is one comparison is in
// both.
func BoundsOf(language, src string) (and, or []Bound) {
	switch language {
	case "", "cel":
		return celBounds(src)
	case "expr":
		return exprBounds(src)
	}
	return nil, nil
}

func celBounds(src string) (and, or []Bound) {
	base, err := celBase()
	if err != nil {
		return nil, nil
	}
	a, iss := base.Parse(src)
	if iss.Err() != nil {
		return nil, nil
	}
	root := a.NativeRep().Expr()
	return celChain(root, "_&&_"), celChain(root, "_||_")
}

// celChain returns the Bounds among the operands of a chain of fn.
func celChain(e celast.Expr, fn string) []Bound {
	if e.Kind() != celast.CallKind {
		return nil
	}
	c := e.AsCall()
	if c.FunctionName() == fn && len(c.Args()) == 2 {
		return append(celChain(c.Args()[0], fn), celChain(c.Args()[1], fn)...)
	}
	op, known := celArith[c.FunctionName()]
	if !known || len(c.Args()) != 2 {
		return nil
	}
	if b, ok := boundOf(op, celOperand(c.Args()[0]), celOperand(c.Args()[1])); ok {
		return []Bound{b}
	}
	return nil
}

func exprBounds(src string) (and, or []Bound) {
	tree, err := parser.Parse(src)
	if err != nil {
		return nil, nil
	}
	return exprChain(tree.Node, "&&", "and"), exprChain(tree.Node, "||", "or")
}

// exprChain returns the Bounds among the operands of a chain of op (or
// its word).
func exprChain(n exprast.Node, op, word string) []Bound {
	b, ok := n.(*exprast.BinaryNode)
	if !ok {
		return nil
	}
	if b.Operator == op || b.Operator == word {
		return append(exprChain(b.Left, op, word), exprChain(b.Right, op, word)...)
	}
	if bd, ok := boundOf(b.Operator, exprOperand(b.Left), exprOperand(b.Right)); ok {
		return []Bound{bd}
	}
	return nil
}

// boundOf makes a Bound of a comparison's operands, the variable on the
// left.
func boundOf(op string, left, right intOperand) (Bound, bool) {
	if _, cmp := flipped[op]; !cmp {
		return Bound{}, false
	}
	switch {
	case left.name != "" && right.isInt:
		return Bound{Name: left.name, Op: op, K: right.k}, true
	case right.name != "" && left.isInt:
		return Bound{Name: right.name, Op: flipped[op], K: left.k}, true
	}
	return Bound{}, false
}
