package lang

import (
	"fmt"
	"strings"

	"cel.dev/cel-go/common/operators"
	"cel.dev/cel-go/common/types"
)

// opKind is what an operator does, for its wording.
type opKind uint8

const (
	opEqual    opKind = iota // == !=
	opOrder                  // < <= > >=
	opAdd                    // binary +
	opSubtract               // binary -
	opMultiply               // *
	opDivide                 // /
	opModulo                 // %
	opPower                  // expr's ** and ^
	opLogic                  // && ||, expr's and, or
	opNot                    // !, expr's not
	opNegate                 // unary - (and expr's unary +)
	opIn                     // in
	opIndex                  // x[i]
	opCond                   // c ? a : b
	opText                   // expr's matches, contains, startsWith, endsWith
	opRange                  // expr's ..
)

// op is an operator as the source writes it.
type op struct {
	kind opKind
	sym  string
}

// celOps maps CEL's operator functions to their wording.
var celOps = map[string]op{
	operators.Equals: {opEqual, "=="}, operators.NotEquals: {opEqual, "!="},
	operators.Less: {opOrder, "<"}, operators.LessEquals: {opOrder, "<="},
	operators.Greater: {opOrder, ">"}, operators.GreaterEquals: {opOrder, ">="},
	operators.Add: {opAdd, "+"}, operators.Subtract: {opSubtract, "-"},
	operators.Multiply: {opMultiply, "*"}, operators.Divide: {opDivide, "/"},
	operators.Modulo: {opModulo, "%"}, operators.LogicalAnd: {opLogic, "&&"},
	operators.LogicalOr: {opLogic, "||"}, operators.LogicalNot: {opNot, "!"},
	operators.Negate: {opNegate, "-"}, operators.In: {opIn, "in"}, operators.OldIn: {opIn, "in"},
	operators.Index: {opIndex, "[]"}, operators.OptIndex: {opIndex, "[?]"},
	operators.Conditional: {opCond, "?:"},
}

// exprBinaryOps and exprUnaryOps map expr's operators to their wording.
var (
	exprBinaryOps = map[string]opKind{
		"==": opEqual, "!=": opEqual, "<": opOrder, "<=": opOrder, ">": opOrder, ">=": opOrder,
		"+": opAdd, "-": opSubtract, "*": opMultiply, "/": opDivide, "%": opModulo,
		"**": opPower, "^": opPower, "&&": opLogic, "||": opLogic, "and": opLogic, "or": opLogic,
		"in": opIn, "matches": opText, "contains": opText, "startsWith": opText, "endsWith": opText,
		"..": opRange,
	}
	exprUnaryOps = map[string]opKind{"!": opNot, "not": opNot, "-": opNegate, "+": opNegate}
)

// opMessage words an operator applied to operands it does not take, in
// the order the source writes them (for opIn: the item, then the list or
// map; for opIndex: the list or map, then the index).
func (d *dialect) opMessage(o op, args []operand) string {
	if len(args) == 0 {
		return "cannot use " + o.sym + " here"
	}
	a := args[0]
	b := a
	if len(args) > 1 {
		b = args[1]
	}
	switch o.kind {
	case opEqual, opOrder:
		if o.kind == opOrder && sameTypeName(a.t, b.t) {
			return fmt.Sprintf("cannot order %s with %s", pluralName(a.t), o.sym)
		}
		return fmt.Sprintf("cannot compare %s with %s", a, b) + d.hintFor(a, b, d.convertHint(a, b))
	case opAdd, opSubtract, opMultiply, opDivide, opModulo, opPower:
		return d.arithmetic(o, a, b)
	case opLogic, opNot:
		bad := a
		if a.t.Kind() == types.BoolKind || isDynLike(a.t) {
			bad = b
		}
		if o.kind == opNot {
			return fmt.Sprintf("%s needs a boolean, not %s", o.sym, bad) + d.boolHint(bad)
		}
		return fmt.Sprintf("%s needs a boolean on each side, not %s", o.sym, bad) + d.boolHint(bad)
	case opNegate:
		return fmt.Sprintf("cannot negate %s: %s applies to numbers", a, o.sym) + d.nullHint(a, "0")
	case opIn:
		return d.in(a, b)
	case opIndex:
		return d.index(a, b)
	case opCond:
		if a.t.Kind() != types.BoolKind && len(args) == 3 {
			return fmt.Sprintf("the condition of ?: must be a boolean, not %s", a) + d.boolHint(a)
		}
		if len(args) == 3 {
			return fmt.Sprintf("the two branches of ?: must have the same type, not %s and %s", b, args[2])
		}
	case opText:
		return fmt.Sprintf("%s needs a string on each side, not %s", o.sym, firstNot(types.StringKind, a, b)) +
			d.nullHint(firstNot(types.StringKind, a, b), `""`)
	case opRange:
		return fmt.Sprintf("%s needs an integer on each side, not %s", o.sym, firstNot(types.IntKind, a, b)) +
			d.nullHint(firstNot(types.IntKind, a, b), "0")
	}
	return fmt.Sprintf("cannot use %s with %s", o.sym, joinOperands(args))
}

// hintFor returns the null hint when a or b is null (in expr, an absent
// field), and hint otherwise.
func (d *dialect) hintFor(a, b operand, hint string) string {
	if a.t.Kind() == types.NullTypeKind {
		return d.nullHint(a, zeroOf(b.t))
	}
	if b.t.Kind() == types.NullTypeKind {
		return d.nullHint(b, zeroOf(a.t))
	}
	return hint
}

func firstNot(k types.Kind, a, b operand) operand {
	if a.t.Kind() != k && !isDynLike(a.t) {
		return a
	}
	return b
}

// arithmetic words + - * / % and ** with operands they do not take.
func (d *dialect) arithmetic(o op, a, b operand) string {
	var msg string
	switch o.kind {
	case opAdd:
		msg = fmt.Sprintf("cannot add %s and %s", a, b)
	case opSubtract:
		msg = fmt.Sprintf("cannot subtract %s from %s", b, a)
	case opMultiply:
		msg = fmt.Sprintf("cannot multiply %s by %s", a, b)
	case opDivide:
		msg = fmt.Sprintf("cannot divide %s by %s", a, b)
	case opModulo:
		msg = fmt.Sprintf("cannot take the remainder of %s divided by %s", a, b)
	default:
		msg = fmt.Sprintf("cannot raise %s to the power of %s", a, b)
	}
	var hint string
	switch {
	case isNumber(a.t) && isNumber(b.t) && !d.mixedArithmetic:
		hint = ": integers and numbers do not mix in arithmetic" + strings.Replace(d.convertHint(a, b), ":", ";", 1)
	case o.kind == opAdd && (a.t.Kind() == types.ListKind || b.t.Kind() == types.ListKind):
		hint = d.appendHint(a, b)
	case o.kind == opAdd && (a.t.Kind() == types.StringKind) != (b.t.Kind() == types.StringKind):
		other := a
		if other.t.Kind() == types.StringKind {
			other = b
		}
		if c := d.convert(other, types.StringType); c != "" {
			hint = ": to join them as text, convert the other side, like " + c
		}
	}
	return msg + d.hintFor(a, b, hint)
}

// appendHint says how to join lists, and how to add an item to one.
func (d *dialect) appendHint(a, b operand) string {
	if a.t.Kind() == types.ListKind && b.t.Kind() == types.ListKind {
		if d.concat == "" {
			return ""
		}
		return fmt.Sprintf(": join lists with %s(%s, %s)", d.concat, a.src(), b.src())
	}
	list, item := a, b
	if b.t.Kind() == types.ListKind {
		list, item = b, a
	}
	elem := list.t.Parameters()[0]
	joins := ": + joins two lists"
	if d.concat != "" {
		joins = ": " + d.concat + "() joins lists"
	}
	if item.text == "" || item.t.Kind() == types.NullTypeKind || !(isDynLike(elem) || sameTypeName(elem, item.t)) {
		return joins
	}
	first, second := list.src(), "["+item.text+"]"
	if list != a {
		first, second = second, first
	}
	if d.concat != "" {
		return fmt.Sprintf("%s; to add an item, put it in a list, like %s(%s, %s)", joins, d.concat, first, second)
	}
	return fmt.Sprintf("%s; to add an item, put it in a list, like %s + %s", joins, first, second)
}

// in words `item in container` with operands it does not take.
func (d *dialect) in(item, c operand) string {
	switch c.t.Kind() {
	case types.ListKind:
		return fmt.Sprintf("cannot look for %s in %s", item, c) + d.hintFor(item, c, "")
	case types.MapKind:
		return fmt.Sprintf("cannot look for %s among the keys of %s, which are strings", item, c) +
			d.hintFor(item, c, "")
	}
	return fmt.Sprintf("in needs a list or a map on its right, not %s", c) + d.nullHint(c, "[]")
}

// index words `c[i]` with operands it does not take.
func (d *dialect) index(c, i operand) string {
	switch c.t.Kind() {
	case types.ListKind:
		return fmt.Sprintf("cannot index %s with %s: a list's index is an integer", c, i) +
			d.hintFor(c, i, convertIt(d.convert(i, types.IntType)))
	case types.StructKind:
		if d.dyn != "" {
			return fmt.Sprintf("cannot index %s: select its fields with a dot, or convert it to a map with %s(%s)",
				c, d.dyn, c.src())
		}
		fallthrough
	case types.MapKind:
		return fmt.Sprintf("cannot index %s with %s: its keys are strings", c, i) +
			d.hintFor(c, i, convertIt(d.convert(i, types.StringType)))
	}
	return fmt.Sprintf("cannot index %s: only lists and maps have items", c) + d.nullHint(c, "")
}

// convertIt returns ": convert it, like c", or "" for no c.
func convertIt(c string) string {
	if c == "" {
		return ""
	}
	return ": convert it, like " + c
}

// joinOperands lists operands: "an integer (x)", "an integer (x) and a
// string (y)", "a, b and c".
func joinOperands(args []operand) string {
	parts := make([]string, len(args))
	for i, a := range args {
		parts[i] = a.String()
	}
	switch len(parts) {
	case 0:
		return "no arguments"
	case 1:
		return parts[0]
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}

// conversions are the functions that convert a value to a type, by name
// in either language.
var conversions = map[string]*types.Type{
	"int": types.IntType, "uint": types.IntType, "double": types.DoubleType, "float": types.DoubleType,
	"string": types.StringType, "bool": types.BoolType, "bytes": types.BytesType,
	"timestamp": types.TimestampType, "duration": types.DurationType,
}

// callMessage words a call of a function that takes none of the argument
// types it got. recv is the receiver of a method call (x.f()), or nil;
// takes lists what the function does take ("a string", "a list"), or is
// empty when it is not known; hint is appended as it is.
func (d *dialect) callMessage(name string, recv *operand, args []operand, takes []string, hint string) string {
	if to, ok := conversions[name]; ok && recv == nil && len(args) == 1 {
		return fmt.Sprintf("cannot convert %s to %s", args[0], aTypeName(to)) + d.nullHint(args[0], "")
	}
	var msg string
	if recv != nil {
		msg = fmt.Sprintf("cannot call %s() on %s", name, recv)
		if len(args) > 0 {
			msg += " with " + joinOperands(args)
		}
	} else {
		msg = fmt.Sprintf("cannot call %s() with %s", name, joinOperands(args))
	}
	if len(takes) > 0 {
		verb := "it takes "
		if recv != nil {
			verb = "it is called on "
		}
		msg += ": " + verb + orList(takes)
	}
	for _, a := range append(args, derefOperand(recv)...) {
		if a.t.Kind() == types.NullTypeKind {
			return msg + d.nullHint(a, "")
		}
	}
	return msg + hint
}

func derefOperand(o *operand) []operand {
	if o == nil {
		return nil
	}
	return []operand{*o}
}

// orList joins choices: "a", "a or b", "a, b or c".
func orList(parts []string) string {
	if len(parts) <= 1 {
		return strings.Join(parts, "")
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " or " + parts[len(parts)-1]
}

// signature describes argument types for a list of what a function
// takes: "a string", or "(a string, an integer)" for several.
func signature(ts []*types.Type) string {
	if len(ts) == 0 {
		return "no arguments"
	}
	parts := make([]string, len(ts))
	for i, t := range ts {
		parts[i] = aTypeName(t)
	}
	if len(parts) == 1 {
		return parts[0]
	}
	return "(" + strings.Join(parts, ", ") + ")"
}
