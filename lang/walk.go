package lang

import (
	celast "cel.dev/cel-go/common/ast"
	exprast "github.com/expr-lang/expr/ast"
)

// The reads of an expression are found by one walk per language, which
// keeps the names the expression binds itself (comprehension variables,
// expr's let) out of them. What the walk carries down the tree differs
// with what is collected, so each walk hands the reads, and the operands
// that are evaluated only on a condition, to a visitor: the visitor says
// what holds (ctx) in each such operand. ReadsOf's visitors carry the
// names tested bound there; GuardsOf's, the conditions.

// celVisitor collects what a celScan finds; T is what holds where an
// operand is evaluated.
type celVisitor[T any] interface {
	// read takes a read of the variable name, bound outside the
	// expression, at rune offset, evaluated where ctx holds.
	read(name string, offset int, ctx T)
	// tested returns what holds in the operand of has(x.f), whose root
	// x is root, a variable bound outside the expression.
	tested(root string, ctx T) T
	// and returns what holds in the right operand of left && right;
	// or, in that of left || right.
	and(left celast.Expr, ctx T) T
	or(left celast.Expr, ctx T) T
	// cond returns what holds in the branches of c ? a : b.
	cond(c celast.Expr, ctx T) (then, els T)
}

// celScan walks a CEL expression's parsed (or checked) AST for a visitor.
type celScan[T any] struct {
	info  *celast.SourceInfo
	local map[string]int // comprehension variables in scope, with their depth
	v     celVisitor[T]
}

// walk hands v the reads of e, evaluated where ctx holds.
func (s *celScan[T]) walk(e celast.Expr, ctx T) {
	switch e.Kind() {
	case celast.IdentKind:
		if name := e.AsIdent(); s.local[name] == 0 {
			s.v.read(name, s.offset(e), ctx)
		}
	case celast.SelectKind:
		sel := e.AsSelect()
		if sel.IsTestOnly() {
			// has(x.f): a test, not a read that can fail for x unbound.
			if root := celRootIdent(sel.Operand()); root != "" && s.local[root] == 0 {
				ctx = s.v.tested(root, ctx)
			}
		}
		s.walk(sel.Operand(), ctx)
	case celast.CallKind:
		s.call(e.AsCall(), ctx)
	case celast.ListKind:
		for _, el := range e.AsList().Elements() {
			s.walk(el, ctx)
		}
	case celast.MapKind:
		for _, en := range e.AsMap().Entries() {
			me := en.AsMapEntry()
			s.walk(me.Key(), ctx)
			s.walk(me.Value(), ctx)
		}
	case celast.StructKind:
		for _, f := range e.AsStruct().Fields() {
			s.walk(f.AsStructField().Value(), ctx)
		}
	case celast.ComprehensionKind:
		s.comprehension(e.AsComprehension(), ctx)
	}
}

// call walks a call: &&, || and ? : evaluate an operand only on what
// the one before it gives.
func (s *celScan[T]) call(c celast.CallExpr, ctx T) {
	args := c.Args()
	switch {
	case c.FunctionName() == "_&&_" && len(args) == 2:
		s.walk(args[0], ctx)
		s.walk(args[1], s.v.and(args[0], ctx))
		return
	case c.FunctionName() == "_||_" && len(args) == 2:
		s.walk(args[0], ctx)
		s.walk(args[1], s.v.or(args[0], ctx))
		return
	case c.FunctionName() == "_?_:_" && len(args) == 3:
		s.walk(args[0], ctx)
		then, els := s.v.cond(args[0], ctx)
		s.walk(args[1], then)
		s.walk(args[2], els)
		return
	}
	if c.IsMemberFunction() {
		s.walk(c.Target(), ctx)
	}
	for _, a := range args {
		s.walk(a, ctx)
	}
}

// comprehension walks a comprehension with its variables in scope, where
// they are.
func (s *celScan[T]) comprehension(c celast.ComprehensionExpr, ctx T) {
	s.walk(c.IterRange(), ctx)
	s.walk(c.AccuInit(), ctx)
	vars := []string{c.IterVar(), c.AccuVar()}
	if c.HasIterVar2() {
		vars = append(vars, c.IterVar2())
	}
	for _, v := range vars {
		s.local[v]++
	}
	s.walk(c.LoopCondition(), ctx)
	s.walk(c.LoopStep(), ctx)
	s.walk(c.Result(), ctx)
	for _, v := range vars {
		s.local[v]--
	}
}

// offset returns the rune offset of e in the source.
func (s *celScan[T]) offset(e celast.Expr) int {
	if r, ok := s.info.GetOffsetRange(e.ID()); ok {
		return int(r.Start)
	}
	return 0
}

// exprVisitor collects what an exprScan finds; T is what holds where an
// operand is evaluated.
type exprVisitor[T any] interface {
	// read takes a read of the variable name, bound outside the
	// expression, at rune offset, evaluated where ctx holds.
	read(name string, offset int, ctx T)
	// optional returns what holds in x?.f, whose root x is root.
	optional(root string, ctx T) T
	// compare returns what holds in the operands of a == or != b.
	compare(b *exprast.BinaryNode, ctx T) T
	// and returns what holds in the right operand of left && right;
	// or, in that of left || right.
	and(left exprast.Node, ctx T) T
	or(left exprast.Node, ctx T) T
	// cond returns what holds in the branches of c ? a : b.
	cond(c exprast.Node, ctx T) (then, els T)
}

// exprScan walks an expr expression's AST for a visitor.
type exprScan[T any] struct {
	local map[string]int // let variables in scope
	v     exprVisitor[T]
}

// walk hands v the reads of n, evaluated where ctx holds.
func (s *exprScan[T]) walk(n exprast.Node, ctx T) {
	switch n := n.(type) {
	case nil:
	case *exprast.IdentifierNode:
		if s.local[n.Value] == 0 {
			s.v.read(n.Value, n.Location().From, ctx)
		}
	case *exprast.MemberNode:
		if n.Optional {
			if root := exprRootIdent(n.Node); root != "" {
				ctx = s.v.optional(root, ctx)
			}
		}
		s.walk(n.Node, ctx)
		if n.Method || !isStringNode(n.Property) {
			s.walk(n.Property, ctx)
		}
	case *exprast.BinaryNode:
		if n.Operator == "==" || n.Operator == "!=" {
			ctx = s.v.compare(n, ctx)
		}
		s.walk(n.Left, ctx)
		switch n.Operator {
		case "&&", "and":
			ctx = s.v.and(n.Left, ctx)
		case "||", "or":
			ctx = s.v.or(n.Left, ctx)
		}
		s.walk(n.Right, ctx)
	case *exprast.ConditionalNode:
		s.walk(n.Cond, ctx)
		then, els := s.v.cond(n.Cond, ctx)
		s.walk(n.Exp1, then)
		s.walk(n.Exp2, els)
	case *exprast.VariableDeclaratorNode:
		s.walk(n.Value, ctx)
		s.local[n.Name]++
		s.walk(n.Expr, ctx)
		s.local[n.Name]--
	default:
		for _, c := range exprChildren(n) {
			s.walk(c, ctx)
		}
	}
}
