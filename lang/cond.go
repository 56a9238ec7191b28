package lang

import (
	"math"
	"slices"
	"strconv"
	"strings"

	celast "cel.dev/cel-go/common/ast"
	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/common/types/ref"
	celparser "cel.dev/cel-go/parser"
	exprast "github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/parser"
)

// CondKind is the kind of a Cond.
type CondKind uint8

// The kinds of Cond.
const (
	// CondAtom is a boolean expression taken as a whole: two atoms with
	// the same Key are the same test.
	CondAtom CondKind = iota + 1
	// CondAnd is true when every one of Args is.
	CondAnd
	// CondOr is true when one of Args is.
	CondOr
	// CondNot is true when its one Arg is false.
	CondNot
	// CondCompare compares the operand Key with constants: Op is one of
	// ==, !=, <, <=, >, >= (one of Values) or in (Values is the list). A
	// bare field (input.urgent) is the comparison input.urgent == true.
	CondCompare
	// CondHas is CEL's has(Key): the field is present.
	CondHas
)

// Cond is a boolean expression normalised so that lint can tell which
// branch conditions hold together: && and || chains flattened, !, has()
// and comparisons of one operand with constants taken apart, the rest
// kept whole. Two Conds of the same flow are about the same value when
// their keys are equal, whatever the spacing, parentheses or quoting the
// expressions were written with.
type Cond struct {
	Kind CondKind
	// Args are the operands of CondAnd (two or more), CondOr (two or
	// more) and CondNot (one).
	Args []Cond
	// Key is, for CondCompare, the operand; for CondHas, the field tested;
	// for CondAtom, the whole expression; each in a canonical spelling.
	// It is "" when the expression cannot be spelled again (such a Cond
	// tells nothing).
	Key string
	// Path is Key read as a variable and the fields selected from it, by
	// dot or by a string index ("confirm", "content", "ok"), when it is
	// one; nil otherwise.
	Path []string
	// Op and Values are the comparison of a CondCompare. Values are
	// string, float64 (every number), bool or nil (null).
	Op     string
	Values []any
	// Reads are the variables a CondCompare's operand, a CondHas's field
	// or a CondAtom reads, sorted; names a comprehension or a let binds
	// are not among them.
	Reads []string
	// Volatile reports that the atom may change between two evaluations
	// with no variable changing (expr's now()).
	Volatile bool
}

// CondOf returns src, a boolean expression of language ("cel", "" or
// "expr"), as a Cond; ok is false when it does not parse.
func CondOf(language, src string) (Cond, bool) {
	switch language {
	case "", "cel":
		base, err := celBase()
		if err != nil {
			return Cond{}, false
		}
		a, iss := base.Parse(src)
		if iss.Err() != nil {
			return Cond{}, false
		}
		native := a.NativeRep()
		w := &celCond{info: native.SourceInfo()}
		return w.cond(native.Expr()), true
	case "expr":
		tree, err := parser.Parse(src)
		if err != nil {
			return Cond{}, false
		}
		return exprCond(tree.Node)
	}
	return Cond{}, false
}

// exprCond normalises a parsed expr expression; ok is false if spelling a
// node of it again panics (expr's printer panics on a constant it cannot
// marshal, which its parser does not make).
func exprCond(n exprast.Node) (c Cond, ok bool) {
	defer func() {
		if recover() != nil {
			c, ok = Cond{}, false
		}
	}()
	return exprCondOf(n), true
}

// condOps maps each comparison onto the one with its operands swapped.
var condOps = map[string]string{"==": "==", "!=": "!=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}

// junction returns the CondAnd or CondOr of a and b, flattening chains.
func junction(kind CondKind, a, b Cond) Cond {
	out := Cond{Kind: kind}
	for _, c := range []Cond{a, b} {
		if c.Kind == kind {
			out.Args = append(out.Args, c.Args...)
		} else {
			out.Args = append(out.Args, c)
		}
	}
	return out
}

// pathKey spells a path: identifiers joined by dots, any other field
// name as a quoted index, so that two different paths never share a key.
func pathKey(path []string) string {
	var b strings.Builder
	for i, p := range path {
		switch {
		case i == 0:
			b.WriteString(p)
		case isIdent(p):
			b.WriteString("." + p)
		default:
			b.WriteString("[" + strconv.Quote(p) + "]")
		}
	}
	return b.String()
}

// isIdent reports whether s is an identifier ([A-Za-z_][A-Za-z0-9_]*).
func isIdent(s string) bool {
	for i, r := range s {
		if r != '_' && (r < 'a' || r > 'z') && (r < 'A' || r > 'Z') && (i == 0 || r < '0' || r > '9') {
			return false
		}
	}
	return s != ""
}

// exactFloat returns n as a float64 when the conversion loses nothing.
func exactFloat(n int64) (float64, bool) {
	const limit = 1 << 53
	if n > limit || n < -limit {
		return 0, false
	}
	return float64(n), true
}

// celCond normalises a parsed CEL expression.
type celCond struct {
	info *celast.SourceInfo
}

// celCompareOps maps cel-go's operator functions onto the comparisons.
var celCompareOps = map[string]string{"_==_": "==", "_!=_": "!=", "_<_": "<", "_<=_": "<=", "_>_": ">", "_>=_": ">="}

func (w *celCond) cond(e celast.Expr) Cond {
	switch e.Kind() {
	case celast.CallKind:
		c := e.AsCall()
		args := c.Args()
		fn := c.FunctionName()
		switch {
		case fn == "_&&_" && len(args) == 2:
			return junction(CondAnd, w.cond(args[0]), w.cond(args[1]))
		case fn == "_||_" && len(args) == 2:
			return junction(CondOr, w.cond(args[0]), w.cond(args[1]))
		case fn == "!_" && len(args) == 1:
			return Cond{Kind: CondNot, Args: []Cond{w.cond(args[0])}}
		case celCompareOps[fn] != "" && len(args) == 2:
			if cmp, ok := w.compare(celCompareOps[fn], args[0], args[1]); ok {
				return cmp
			}
		case fn == "@in" && len(args) == 2 && args[1].Kind() == celast.ListKind:
			if vals, ok := celConsts(args[1].AsList().Elements()); ok {
				if _, isConst := celConst(args[0]); !isConst {
					return w.operand(args[0], "in", vals)
				}
			}
		}
	case celast.SelectKind:
		if s := e.AsSelect(); s.IsTestOnly() {
			if path := celPath(s.Operand()); path != nil {
				path = append(path, s.FieldName())
				return Cond{Kind: CondHas, Key: pathKey(path), Path: path, Reads: []string{path[0]}}
			}
		}
	}
	if path := celPath(e); path != nil {
		return w.operand(e, "==", []any{true})
	}
	return Cond{Kind: CondAtom, Key: w.text(e), Reads: w.reads(e)}
}

// compare reads a comparison of an operand with a constant, either way
// round.
func (w *celCond) compare(op string, a, b celast.Expr) (Cond, bool) {
	ka, aConst := celConst(a)
	kb, bConst := celConst(b)
	switch {
	case bConst && !aConst:
		return w.operand(a, op, []any{kb}), true
	case aConst && !bConst:
		return w.operand(b, condOps[op], []any{ka}), true
	}
	return Cond{}, false
}

// operand returns the CondCompare of e with vals.
func (w *celCond) operand(e celast.Expr, op string, vals []any) Cond {
	c := Cond{Kind: CondCompare, Op: op, Values: vals, Key: w.text(e), Reads: w.reads(e)}
	if path := celPath(e); path != nil {
		c.Path, c.Key = path, pathKey(path)
	}
	return c
}

// text spells e as cel-go unparses it; "" when it cannot.
func (w *celCond) text(e celast.Expr) string {
	s, err := celparser.Unparse(e, w.info)
	if err != nil {
		return ""
	}
	return s
}

// reads returns the variables e reads, sorted.
func (w *celCond) reads(e celast.Expr) []string {
	return refNames(celRefs(w.info, e))
}

// refNames returns the names of refs, sorted, each once.
func refNames(refs []Ref) []string {
	var out []string
	for _, r := range refs {
		out = append(out, r.Name)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// celPath returns e as a variable and the fields selected from it (by
// dot or by a string index), or nil.
func celPath(e celast.Expr) []string {
	switch e.Kind() {
	case celast.IdentKind:
		return []string{e.AsIdent()}
	case celast.SelectKind:
		s := e.AsSelect()
		if s.IsTestOnly() {
			return nil
		}
		if p := celPath(s.Operand()); p != nil {
			return append(p, s.FieldName())
		}
	case celast.CallKind:
		c := e.AsCall()
		if c.FunctionName() == "_[_]" && len(c.Args()) == 2 {
			if k, ok := celConst(c.Args()[1]); ok {
				if field, isString := k.(string); isString {
					if p := celPath(c.Args()[0]); p != nil {
						return append(p, field)
					}
				}
			}
		}
	}
	return nil
}

// celConst returns the value of a literal (a negated number included) as
// a string, float64, bool or nil.
func celConst(e celast.Expr) (any, bool) {
	switch e.Kind() {
	case celast.LiteralKind:
		return celConstOf(e.AsLiteral())
	case celast.CallKind:
		if c := e.AsCall(); c.FunctionName() == "-_" && len(c.Args()) == 1 {
			if k, ok := celConst(c.Args()[0]); ok {
				if f, isNum := k.(float64); isNum {
					return -f, true
				}
			}
		}
	}
	return nil, false
}

func celConstOf(v ref.Val) (any, bool) {
	switch v := v.(type) {
	case types.String:
		return string(v), true
	case types.Bool:
		return bool(v), true
	case types.Null:
		return nil, true
	case types.Int:
		return exactFloat(int64(v))
	case types.Uint:
		if v > math.MaxInt64 {
			return nil, false
		}
		return exactFloat(int64(v))
	case types.Double:
		if math.IsNaN(float64(v)) {
			return nil, false
		}
		return float64(v), true
	}
	return nil, false
}

// celConsts returns the values of a list of literals.
func celConsts(es []celast.Expr) ([]any, bool) {
	out := make([]any, 0, len(es))
	for _, e := range es {
		k, ok := celConst(e)
		if !ok {
			return nil, false
		}
		out = append(out, k)
	}
	return out, true
}

// exprCondOf normalises a parsed expr expression.
func exprCondOf(n exprast.Node) Cond {
	switch n := n.(type) {
	case *exprast.BinaryNode:
		switch n.Operator {
		case "&&", "and":
			return junction(CondAnd, exprCondOf(n.Left), exprCondOf(n.Right))
		case "||", "or":
			return junction(CondOr, exprCondOf(n.Left), exprCondOf(n.Right))
		case "in":
			if list, ok := n.Right.(*exprast.ArrayNode); ok {
				if vals, ok := exprConsts(list.Nodes); ok {
					if _, isConst := exprConst(n.Left); !isConst {
						return exprCompareOf(n.Left, "in", vals)
					}
				}
			}
		default:
			if _, isCmp := condOps[n.Operator]; isCmp {
				ka, aConst := exprConst(n.Left)
				kb, bConst := exprConst(n.Right)
				switch {
				case bConst && !aConst:
					return exprCompareOf(n.Left, n.Operator, []any{kb})
				case aConst && !bConst:
					return exprCompareOf(n.Right, condOps[n.Operator], []any{ka})
				}
			}
		}
	case *exprast.UnaryNode:
		if n.Operator == "!" || n.Operator == "not" {
			return Cond{Kind: CondNot, Args: []Cond{exprCondOf(n.Node)}}
		}
	}
	if exprPath(n) != nil {
		return exprCompareOf(n, "==", []any{true})
	}
	return Cond{Kind: CondAtom, Key: n.String(), Reads: exprReadsOf(n), Volatile: exprVolatile(n)}
}

// exprCompareOf returns the CondCompare of n with vals.
func exprCompareOf(n exprast.Node, op string, vals []any) Cond {
	c := Cond{Kind: CondCompare, Op: op, Values: vals, Key: n.String(), Reads: exprReadsOf(n), Volatile: exprVolatile(n)}
	if path := exprPath(n); path != nil {
		c.Path, c.Key = path, pathKey(path)
	}
	return c
}

// exprReadsOf returns the variables n reads, sorted.
func exprReadsOf(n exprast.Node) []string {
	return refNames(exprRefs(n))
}

// exprVolatile reports whether n calls now(), whose value changes with
// no variable changing.
func exprVolatile(n exprast.Node) bool {
	found := false
	exprast.Find(n, func(n exprast.Node) bool {
		if b, ok := n.(*exprast.BuiltinNode); ok && b.Name == "now" {
			found = true
		}
		if c, ok := n.(*exprast.CallNode); ok {
			if id, ok := c.Callee.(*exprast.IdentifierNode); ok && id.Value == "now" {
				found = true
			}
		}
		return found
	})
	return found
}

// exprPath returns n as a variable and the fields selected from it (by
// dot or by a string index), or nil.
func exprPath(n exprast.Node) []string {
	switch n := n.(type) {
	case *exprast.IdentifierNode:
		return []string{n.Value}
	case *exprast.MemberNode:
		if n.Optional || n.Method {
			return nil
		}
		s, ok := n.Property.(*exprast.StringNode)
		if !ok {
			return nil
		}
		if p := exprPath(n.Node); p != nil {
			return append(p, s.Value)
		}
	}
	return nil
}

// exprConst returns the value of a literal (a negated number included)
// as a string, float64, bool or nil.
func exprConst(n exprast.Node) (any, bool) {
	switch n := n.(type) {
	case *exprast.StringNode:
		return n.Value, true
	case *exprast.BoolNode:
		return n.Value, true
	case *exprast.NilNode:
		return nil, true
	case *exprast.IntegerNode:
		return exactFloat(int64(n.Value))
	case *exprast.FloatNode:
		if math.IsNaN(n.Value) {
			return nil, false
		}
		return n.Value, true
	case *exprast.UnaryNode:
		if n.Operator == "-" {
			if k, ok := exprConst(n.Node); ok {
				if f, isNum := k.(float64); isNum {
					return -f, true
				}
			}
		}
	}
	return nil, false
}

// exprConsts returns the values of a list of literals.
func exprConsts(ns []exprast.Node) ([]any, bool) {
	out := make([]any, 0, len(ns))
	for _, n := range ns {
		k, ok := exprConst(n)
		if !ok {
			return nil, false
		}
		out = append(out, k)
	}
	return out, true
}
