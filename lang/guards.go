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
		g := &celGuards{guardList: guardList{local: map[string]int{}}, c: &celCond{info: native.SourceInfo()}}
		(&celScan[[]Cond]{info: native.SourceInfo(), local: g.local, v: g}).walk(native.Expr(), nil)
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
		g := &exprGuards{guardList{local: map[string]int{}}}
		(&exprScan[[]Cond]{local: g.local, v: g}).walk(tree.Node, nil)
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

// guardList collects the guarded reads of an expression for a scan: ctx
// is the conditions true where a read is evaluated.
type guardList struct {
	local map[string]int // the scan's: the variables the expression binds, in scope
	out   []GuardedRead
}

func (g *guardList) read(name string, offset int, when []Cond) {
	g.out = append(g.out, GuardedRead{Name: name, Offset: offset, When: when})
}

// celGuards collects the guarded reads of a CEL expression.
type celGuards struct {
	guardList
	c *celCond
}

func (g *celGuards) tested(_ string, when []Cond) []Cond { return when }

func (g *celGuards) and(left celast.Expr, when []Cond) []Cond {
	return also(when, g.c.cond(left), g.local)
}

func (g *celGuards) or(left celast.Expr, when []Cond) []Cond {
	return also(when, negated(g.c.cond(left)), g.local)
}

func (g *celGuards) cond(c celast.Expr, when []Cond) (then, els []Cond) {
	cond := g.c.cond(c)
	return also(when, cond, g.local), also(when, negated(cond), g.local)
}

// exprGuards collects the guarded reads of an expr expression.
type exprGuards struct{ guardList }

func (g *exprGuards) optional(_ string, when []Cond) []Cond { return when }

func (g *exprGuards) compare(_ *exprast.BinaryNode, when []Cond) []Cond { return when }

func (g *exprGuards) and(left exprast.Node, when []Cond) []Cond {
	return also(when, exprCondOf(left), g.local)
}

func (g *exprGuards) or(left exprast.Node, when []Cond) []Cond {
	return also(when, negated(exprCondOf(left)), g.local)
}

func (g *exprGuards) cond(c exprast.Node, when []Cond) (then, els []Cond) {
	cond := exprCondOf(c)
	return also(when, cond, g.local), also(when, negated(cond), g.local)
}
