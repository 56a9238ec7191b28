package lang

import (
	"strings"
	"unicode"

	"cel.dev/cel-go/common/ast"
	"cel.dev/cel-go/common/operators"
	"cel.dev/cel-go/common/types"
	exprast "github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/parser"
)

// Comparison is a test of a field against a literal in an expression:
// `confirm.content.plan == 'team'`, `input.size in ['s', 'm']` (one
// Comparison for each literal of the list), `'x' in q.content.tags`.
// Lint uses them to find a field compared with a value it can never hold.
type Comparison struct {
	// Field is the path of the field: a variable and the fields selected
	// from it, by dot or by a string index ("confirm", "content", "plan").
	Field []string
	// Op is the test: "==" or "!=" (the field and the literal, either
	// side), "in" (the field is tested against a list of literals) or
	// "contains" (the literal is tested as an element of the field).
	Op string
	// Literal is the value compared with: a string, int64, float64 or
	// bool.
	Literal any
	// Offset counts runes from the start of the expression to the
	// literal, and End to the rune after it: src's runes from Offset to
	// End spell the literal (quotes, escapes and a minus sign included).
	Offset, End int
}

// Comparisons returns the comparisons of a field with a literal in src,
// an expression of the named language ("cel", "" or "expr"), in the
// order they are written; none when src does not parse. Fields are
// paths from the expression's variables: a name that a comprehension
// (CEL) or a let (expr) binds is not one of them.
func Comparisons(language, src string) []Comparison {
	switch language {
	case "", "cel":
		return celComparisons(src)
	case "expr":
		return exprComparisons(src)
	}
	return nil
}

// celComparisons returns the comparisons of a CEL expression.
func celComparisons(src string) []Comparison {
	base, err := celBase()
	if err != nil {
		return nil
	}
	parsed, iss := base.Parse(src)
	if iss.Err() != nil {
		return nil
	}
	native := parsed.NativeRep()
	w := &celCompareWalk{src: []rune(src), info: native.SourceInfo(), bound: map[string]int{}}
	w.walk(native.Expr())
	return w.out
}

// celCompareWalk collects comparisons from a parsed CEL expression.
type celCompareWalk struct {
	src   []rune
	info  *ast.SourceInfo
	bound map[string]int // comprehension variables in scope
	out   []Comparison
}

func (w *celCompareWalk) walk(e ast.Expr) {
	if e == nil {
		return
	}
	switch e.Kind() {
	case ast.CallKind:
		call := e.AsCall()
		args := call.Args()
		if len(args) == 2 && !call.IsMemberFunction() {
			w.compare(call.FunctionName(), args[0], args[1])
		}
		w.walk(call.Target())
		for _, a := range args {
			w.walk(a)
		}
	case ast.SelectKind:
		w.walk(e.AsSelect().Operand())
	case ast.ListKind:
		for _, el := range e.AsList().Elements() {
			w.walk(el)
		}
	case ast.MapKind:
		for _, en := range e.AsMap().Entries() {
			if en.Kind() == ast.MapEntryKind {
				w.walk(en.AsMapEntry().Key())
				w.walk(en.AsMapEntry().Value())
			}
		}
	case ast.StructKind:
		for _, f := range e.AsStruct().Fields() {
			if f.Kind() == ast.StructFieldKind {
				w.walk(f.AsStructField().Value())
			}
		}
	case ast.ComprehensionKind:
		c := e.AsComprehension()
		w.walk(c.IterRange())
		w.walk(c.AccuInit())
		names := []string{c.IterVar(), c.AccuVar()}
		if c.HasIterVar2() {
			names = append(names, c.IterVar2())
		}
		for _, n := range names {
			w.bound[n]++
		}
		w.walk(c.LoopCondition())
		w.walk(c.LoopStep())
		w.walk(c.Result())
		for _, n := range names {
			if w.bound[n]--; w.bound[n] == 0 {
				delete(w.bound, n)
			}
		}
	}
}

// compare records the comparison a call of fn with a and b makes, if it
// is one.
func (w *celCompareWalk) compare(fn string, a, b ast.Expr) {
	switch fn {
	case operators.Equals, operators.NotEquals:
		op := "=="
		if fn == operators.NotEquals {
			op = "!="
		}
		if path, ok := w.path(a); ok {
			w.add(path, op, b)
		} else if path, ok := w.path(b); ok {
			w.add(path, op, a)
		}
	case operators.In:
		if path, ok := w.path(a); ok && b.Kind() == ast.ListKind {
			for _, el := range b.AsList().Elements() {
				w.add(path, "in", el)
			}
		} else if path, ok := w.path(b); ok {
			w.add(path, "contains", a)
		}
	}
}

// add records a comparison of path with lit when lit is a literal.
func (w *celCompareWalk) add(path []string, op string, lit ast.Expr) {
	v, ok := celLiteral(lit)
	if !ok {
		return
	}
	r, _ := w.info.GetOffsetRange(lit.ID())
	off := int(r.Start)
	w.out = append(w.out, Comparison{Field: path, Op: op, Literal: v, Offset: off, End: celLiteralEnd(w.src, off)})
}

// path returns the field path e selects, when it is one: a variable
// with fields selected by name or by a string index.
func (w *celCompareWalk) path(e ast.Expr) ([]string, bool) {
	switch e.Kind() {
	case ast.IdentKind:
		name := e.AsIdent()
		if w.bound[name] > 0 {
			return nil, false
		}
		return []string{name}, true
	case ast.SelectKind:
		s := e.AsSelect()
		if s.IsTestOnly() {
			return nil, false
		}
		p, ok := w.path(s.Operand())
		return append(p, s.FieldName()), ok
	case ast.CallKind:
		call := e.AsCall()
		args := call.Args()
		switch call.FunctionName() {
		case operators.Index, operators.OptIndex, operators.OptSelect:
		default:
			return nil, false
		}
		if len(args) != 2 || args[1].Kind() != ast.LiteralKind {
			return nil, false
		}
		key, isStr := args[1].AsLiteral().(types.String)
		if !isStr {
			return nil, false
		}
		p, ok := w.path(args[0])
		return append(p, string(key)), ok
	}
	return nil, false
}

// celLiteralEnd returns the offset of the rune after the CEL literal
// that starts at offset off of src (cel-go's own end counts bytes).
func celLiteralEnd(src []rune, off int) int {
	i := off
	for i < len(src) && i < off+2 && strings.ContainsRune("rRbB", src[i]) {
		i++
	}
	if i >= len(src) || src[i] != '\'' && src[i] != '"' {
		// A number, a boolean: up to the first rune no number has.
		for i = off; i < len(src); i++ {
			r := src[i]
			sign := (r == '-' || r == '+') && (i == off || src[i-1] == 'e' || src[i-1] == 'E')
			if !sign && r != '.' && !unicode.IsLetter(r) && !unicode.IsDigit(r) {
				break
			}
		}
		return i
	}
	raw := strings.ContainsAny(string(src[off:i]), "rR")
	quote := string(src[i])
	if i+2 < len(src) && string(src[i:i+3]) == strings.Repeat(quote, 3) {
		quote = strings.Repeat(quote, 3)
	}
	for i += len(quote); i < len(src); i++ {
		if src[i] == '\\' && !raw {
			i++
			continue
		}
		if strings.HasPrefix(string(src[i:min(i+len(quote), len(src))]), quote) {
			return i + len(quote)
		}
	}
	return len(src)
}

// celLiteral returns the JSON-like value of a literal CEL expression.
func celLiteral(e ast.Expr) (any, bool) {
	if e.Kind() != ast.LiteralKind {
		return nil, false
	}
	switch v := e.AsLiteral().(type) {
	case types.String:
		return string(v), true
	case types.Int:
		return int64(v), true
	case types.Uint:
		return int64(v), true
	case types.Double:
		return float64(v), true
	case types.Bool:
		return bool(v), true
	}
	return nil, false
}

// exprComparisons returns the comparisons of an expr expression.
func exprComparisons(src string) []Comparison {
	tree, err := parser.Parse(src)
	if err != nil {
		return nil
	}
	w := &exprCompareWalk{bound: map[string]int{}}
	w.walk(tree.Node)
	return w.out
}

// exprCompareWalk collects comparisons from a parsed expr expression.
type exprCompareWalk struct {
	bound map[string]int // let variables in scope
	out   []Comparison
}

func (w *exprCompareWalk) walk(n exprast.Node) {
	if n == nil {
		return
	}
	switch n := n.(type) {
	case *exprast.BinaryNode:
		w.compare(n)
	case *exprast.VariableDeclaratorNode:
		w.walk(n.Value)
		w.bound[n.Name]++
		w.walk(n.Expr)
		if w.bound[n.Name]--; w.bound[n.Name] == 0 {
			delete(w.bound, n.Name)
		}
		return
	}
	for _, c := range exprChildren(n) {
		w.walk(c)
	}
}

// compare records the comparison a binary node makes, if it is one.
func (w *exprCompareWalk) compare(n *exprast.BinaryNode) {
	switch n.Operator {
	case "==", "!=":
		if path, ok := w.path(n.Left); ok {
			w.add(path, n.Operator, n.Right)
		} else if path, ok := w.path(n.Right); ok {
			w.add(path, n.Operator, n.Left)
		}
	case "in":
		if path, ok := w.path(n.Left); ok {
			if list, isList := n.Right.(*exprast.ArrayNode); isList {
				for _, el := range list.Nodes {
					w.add(path, "in", el)
				}
			}
		} else if path, ok := w.path(n.Right); ok {
			w.add(path, "contains", n.Left)
		}
	}
}

// add records a comparison of path with lit when lit is a literal.
func (w *exprCompareWalk) add(path []string, op string, lit exprast.Node) {
	if v, ok := exprLiteral(lit); ok {
		end := lit.Location().To
		if u, neg := lit.(*exprast.UnaryNode); neg {
			end = u.Node.Location().To
		}
		w.out = append(w.out, Comparison{Field: path, Op: op, Literal: v, Offset: lit.Location().From, End: end})
	}
}

// path returns the field path n selects, when it is one: a variable
// with fields selected by name or by a string index.
func (w *exprCompareWalk) path(n exprast.Node) ([]string, bool) {
	switch n := n.(type) {
	case *exprast.IdentifierNode:
		if w.bound[n.Value] > 0 {
			return nil, false
		}
		return []string{n.Value}, true
	case *exprast.ChainNode:
		return w.path(n.Node)
	case *exprast.MemberNode:
		key, isStr := n.Property.(*exprast.StringNode)
		if n.Method || !isStr {
			return nil, false
		}
		p, ok := w.path(n.Node)
		return append(p, key.Value), ok
	}
	return nil, false
}

// exprLiteral returns the JSON-like value of a literal expr node, a
// negated number included.
func exprLiteral(n exprast.Node) (any, bool) {
	switch n := n.(type) {
	case *exprast.StringNode:
		return n.Value, true
	case *exprast.IntegerNode:
		return int64(n.Value), true
	case *exprast.FloatNode:
		return n.Value, true
	case *exprast.BoolNode:
		return n.Value, true
	case *exprast.UnaryNode:
		if n.Operator != "-" {
			return nil, false
		}
		switch v := n.Node.(type) {
		case *exprast.IntegerNode:
			return -int64(v.Value), true
		case *exprast.FloatNode:
			return -v.Value, true
		}
	}
	return nil, false
}
