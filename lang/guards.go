package lang

import (
	"slices"

	celast "cel.dev/cel-go/common/ast"
	exprast "github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/parser"
)

// GuardedRead is a read of a variable with the conditions under which
// the expression evaluates it: `c ? x.f : y` reads x only when c holds,
// `a && x.f` only when a does, `a || x.f` only when a does not.
type GuardedRead struct {
	// Name and Offset are those of the Ref that ReadsOf returns for the
	// read.
	Name   string
	Offset int
	// When are the conditions, outermost first, each true wherever the
	// read is evaluated (a condition that must be false is a CondNot).
	When []Cond
}

// GuardsOf returns the reads of src, an expression of language, with
// the conditions that guard each; ok is false when src does not parse.
// Only the conditions of ? :, && and || count, as both languages
// evaluate them from left to right.
func GuardsOf(language, src string) (reads []GuardedRead, ok bool) {
	switch language {
	case "", "cel":
		base, err := celBase()
		if err != nil {
			return nil, false
		}
		a, iss := base.Parse(src)
		if iss.Err() != nil {
			return nil, false
		}
		native := a.NativeRep()
		g := &celGuards{c: &celCond{info: native.SourceInfo()}, w: &celWalker{info: native.SourceInfo(), local: map[string]int{}}}
		g.walk(native.Expr(), nil)
		return g.out, true
	case "expr":
		tree, err := parser.Parse(src)
		if err != nil {
			return nil, false
		}
		defer func() {
			if recover() != nil {
				reads, ok = nil, false
			}
		}()
		g := &exprGuards{local: map[string]int{}}
		g.walk(tree.Node, nil)
		return g.out, true
	}
	return nil, false
}

// also returns when with c added, sharing nothing with when; when
// itself when c reads a variable the expression binds (a comprehension's
// or a let's, which may be bound again inside).
func also(when []Cond, c Cond, local map[string]int) []Cond {
	if readsLocal(c, local) {
		return when
	}
	return append(slices.Clip(when), c)
}

// readsLocal reports whether c reads a variable of local.
func readsLocal(c Cond, local map[string]int) bool {
	for _, a := range c.Args {
		if readsLocal(a, local) {
			return true
		}
	}
	return slices.ContainsFunc(c.Reads, func(v string) bool { return local[v] > 0 })
}

// negated returns the condition that c is false.
func negated(c Cond) Cond { return Cond{Kind: CondNot, Args: []Cond{c}} }

// celGuards collects the guarded reads of a CEL expression.
type celGuards struct {
	c   *celCond
	w   *celWalker // for offsets and the comprehension variables in scope
	out []GuardedRead
}

func (g *celGuards) walk(e celast.Expr, when []Cond) {
	switch e.Kind() {
	case celast.IdentKind:
		if name := e.AsIdent(); g.w.local[name] == 0 {
			g.out = append(g.out, GuardedRead{Name: name, Offset: g.w.offset(e), When: when})
		}
	case celast.SelectKind:
		g.walk(e.AsSelect().Operand(), when)
	case celast.CallKind:
		c := e.AsCall()
		args := c.Args()
		switch {
		case c.FunctionName() == "_&&_" && len(args) == 2:
			g.walk(args[0], when)
			g.walk(args[1], also(when, g.c.cond(args[0]), g.w.local))
			return
		case c.FunctionName() == "_||_" && len(args) == 2:
			g.walk(args[0], when)
			g.walk(args[1], also(when, negated(g.c.cond(args[0])), g.w.local))
			return
		case c.FunctionName() == "_?_:_" && len(args) == 3:
			cond := g.c.cond(args[0])
			g.walk(args[0], when)
			g.walk(args[1], also(when, cond, g.w.local))
			g.walk(args[2], also(when, negated(cond), g.w.local))
			return
		}
		if c.IsMemberFunction() {
			g.walk(c.Target(), when)
		}
		for _, a := range args {
			g.walk(a, when)
		}
	case celast.ListKind:
		for _, el := range e.AsList().Elements() {
			g.walk(el, when)
		}
	case celast.MapKind:
		for _, en := range e.AsMap().Entries() {
			g.walk(en.AsMapEntry().Key(), when)
			g.walk(en.AsMapEntry().Value(), when)
		}
	case celast.StructKind:
		for _, f := range e.AsStruct().Fields() {
			g.walk(f.AsStructField().Value(), when)
		}
	case celast.ComprehensionKind:
		g.comprehension(e.AsComprehension(), when)
	}
}

// comprehension walks a comprehension with its variables in scope, where
// they are.
func (g *celGuards) comprehension(c celast.ComprehensionExpr, when []Cond) {
	g.walk(c.IterRange(), when)
	g.walk(c.AccuInit(), when)
	vars := []string{c.IterVar(), c.AccuVar()}
	if c.HasIterVar2() {
		vars = append(vars, c.IterVar2())
	}
	for _, v := range vars {
		g.w.local[v]++
	}
	g.walk(c.LoopCondition(), when)
	g.walk(c.LoopStep(), when)
	g.walk(c.Result(), when)
	for _, v := range vars {
		g.w.local[v]--
	}
}

// exprGuards collects the guarded reads of an expr expression.
type exprGuards struct {
	local map[string]int // let variables in scope
	out   []GuardedRead
}

func (g *exprGuards) walk(n exprast.Node, when []Cond) {
	switch n := n.(type) {
	case nil:
	case *exprast.IdentifierNode:
		if g.local[n.Value] == 0 {
			g.out = append(g.out, GuardedRead{Name: n.Value, Offset: n.Location().From, When: when})
		}
	case *exprast.MemberNode:
		g.walk(n.Node, when)
		if n.Method || !isStringNode(n.Property) {
			g.walk(n.Property, when)
		}
	case *exprast.BinaryNode:
		g.walk(n.Left, when)
		switch n.Operator {
		case "&&", "and":
			when = also(when, exprCondOf(n.Left), g.local)
		case "||", "or":
			when = also(when, negated(exprCondOf(n.Left)), g.local)
		}
		g.walk(n.Right, when)
	case *exprast.ConditionalNode:
		cond := exprCondOf(n.Cond)
		g.walk(n.Cond, when)
		g.walk(n.Exp1, also(when, cond, g.local))
		g.walk(n.Exp2, also(when, negated(cond), g.local))
	case *exprast.VariableDeclaratorNode:
		g.walk(n.Value, when)
		g.local[n.Name]++
		g.walk(n.Expr, when)
		g.local[n.Name]--
	default:
		for _, c := range exprChildren(n) {
			g.walk(c, when)
		}
	}
}
