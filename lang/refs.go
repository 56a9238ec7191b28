package lang

import (
	"slices"

	celast "cel.dev/cel-go/common/ast"
	exprast "github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/parser"
)

// Ref is a read of a variable by an expression.
type Ref struct {
	// Name is the variable read.
	Name string
	// Offset is the rune offset of the name in the expression's source.
	Offset int
	// Guarded reports that the read happens only where the expression
	// has tested that the variable is bound: inside has() in CEL (or
	// after such a test in the left of && or the condition of ? :), and
	// after x != nil or through x?. in expr.
	Guarded bool
}

// Reads is what an expression reads: its variable reads, in source order;
// the variables whose being bound it tests, such that the expression is
// true only when they are (has(x.f) or x != nil, alone or in a chain of
// &&: Tests); and those it is false only when they are (!has(x.f) or
// x == nil, alone or in a chain of ||: Untests).
type Reads struct {
	Refs    []Ref
	Tests   []string
	Untests []string
}

// ReadsOf returns what src, an expression of language ("cel", "" or
// "expr"), reads; ok is false when it does not parse. Names bound inside
// the expression (comprehension and closure variables, expr's let) are
// not reads.
func ReadsOf(language, src string) (Reads, bool) {
	switch language {
	case "", "cel":
		return celReads(src)
	case "expr":
		return exprReads(src)
	}
	return Reads{}, false
}

// celReads walks a CEL expression's parsed (not checked) AST.
func celReads(src string) (Reads, bool) {
	base, err := celBase()
	if err != nil {
		return Reads{}, false
	}
	a, iss := base.Parse(src)
	if iss.Err() != nil {
		return Reads{}, false
	}
	return celReadsOf(a.NativeRep()), true
}

// celReadsOf walks a parsed or checked CEL AST.
func celReadsOf(native *celast.AST) Reads {
	root := native.Expr()
	return Reads{Refs: celRefs(native.SourceInfo(), root), Tests: celTests(root), Untests: celUntests(root)}
}

// SyntaxAndReads returns the syntax errors of src in language l, as
// l.Syntax does, and, when it has none, what it reads (ReadsOf), parsing
// it once.
func SyntaxAndReads(l Language, src string) ([]Error, *Reads) {
	if _, isCEL := l.(*celLanguage); !isCEL {
		errs := l.Syntax(src)
		if len(errs) > 0 {
			return errs, nil
		}
		r, ok := ReadsOf(l.Name(), src)
		if !ok {
			return nil, nil
		}
		return nil, &r
	}
	base, err := celBase()
	if err != nil {
		return []Error{{Message: err.Error()}}, nil
	}
	a, iss := base.Parse(src)
	if errs := celErrors(src, iss, nil); len(errs) > 0 {
		return errs, nil
	}
	r := celReadsOf(a.NativeRep())
	return nil, &r
}

// refList collects the reads of an expression for a scan: ctx is the
// names tested bound where a read is evaluated.
type refList struct{ out []Ref }

func (r *refList) read(name string, offset int, guarded []string) {
	r.out = append(r.out, Ref{Name: name, Offset: offset, Guarded: slices.Contains(guarded, name)})
}

// celRefVisitor collects the reads of a CEL expression: has(x.f) tests x, and
// && and ? : carry the tests of their left operand (condition) to what
// they evaluate only when it is true.
type celRefVisitor struct{ refList }

// celRefs returns the reads of e, a CEL expression with info.
func celRefs(info *celast.SourceInfo, e celast.Expr) []Ref {
	r := &celRefVisitor{}
	(&celScan[[]string]{info: info, local: map[string]int{}, v: r}).walk(e, nil)
	return r.out
}

func (r *celRefVisitor) tested(root string, guarded []string) []string { return append(guarded, root) }

func (r *celRefVisitor) and(left celast.Expr, guarded []string) []string {
	return append(guarded, celTests(left)...)
}

func (r *celRefVisitor) or(_ celast.Expr, guarded []string) []string { return guarded }

func (r *celRefVisitor) cond(c celast.Expr, guarded []string) (then, els []string) {
	return append(guarded, celTests(c)...), guarded
}

// celTests returns the variables a CEL condition tests bound: has(x.f),
// or a chain of && holding such tests.
func celTests(e celast.Expr) []string {
	switch e.Kind() {
	case celast.SelectKind:
		if s := e.AsSelect(); s.IsTestOnly() {
			if root := celRootIdent(s.Operand()); root != "" {
				return []string{root}
			}
		}
	case celast.CallKind:
		if c := e.AsCall(); c.FunctionName() == "_&&_" && len(c.Args()) == 2 {
			return append(celTests(c.Args()[0]), celTests(c.Args()[1])...)
		}
	}
	return nil
}

// celUntests returns the variables a CEL condition is false only when
// they are bound: !has(x.f), or a chain of || holding such tests.
func celUntests(e celast.Expr) []string {
	if e.Kind() != celast.CallKind {
		return nil
	}
	c := e.AsCall()
	switch {
	case c.FunctionName() == "!_" && len(c.Args()) == 1:
		return celTests(c.Args()[0])
	case c.FunctionName() == "_||_" && len(c.Args()) == 2:
		return append(celUntests(c.Args()[0]), celUntests(c.Args()[1])...)
	}
	return nil
}

// celRootIdent returns the variable a chain of selects starts from, or "".
func celRootIdent(e celast.Expr) string {
	for {
		switch e.Kind() {
		case celast.IdentKind:
			return e.AsIdent()
		case celast.SelectKind:
			e = e.AsSelect().Operand()
		default:
			return ""
		}
	}
}

// exprReads walks an expr expression's AST.
func exprReads(src string) (Reads, bool) {
	tree, err := parser.Parse(src)
	if err != nil {
		return Reads{}, false
	}
	return Reads{Refs: exprRefs(tree.Node), Tests: exprTests(tree.Node), Untests: exprUntests(tree.Node)}, true
}

// exprRefVisitor collects the reads of an expr expression: x?.f and x != nil
// (or x == nil) test x, and && and ? : carry the tests of their left
// operand (condition) to what they evaluate only when it is true.
type exprRefVisitor struct{ refList }

// exprRefs returns the reads of n.
func exprRefs(n exprast.Node) []Ref {
	r := &exprRefVisitor{}
	(&exprScan[[]string]{local: map[string]int{}, v: r}).walk(n, nil)
	return r.out
}

func (r *exprRefVisitor) optional(root string, guarded []string) []string {
	return append(guarded, root)
}

// compare takes x != nil as a test of x: reading a nil there is the point.
func (r *exprRefVisitor) compare(b *exprast.BinaryNode, guarded []string) []string {
	return append(guarded, exprNilTest(b)...)
}

func (r *exprRefVisitor) and(left exprast.Node, guarded []string) []string {
	return append(guarded, exprTests(left)...)
}

func (r *exprRefVisitor) or(_ exprast.Node, guarded []string) []string { return guarded }

func (r *exprRefVisitor) cond(c exprast.Node, guarded []string) (then, els []string) {
	return append(guarded, exprTests(c)...), guarded
}

// exprTests returns the variables an expr condition tests bound: x != nil
// (or nil != x), alone or in a chain of &&.
func exprTests(n exprast.Node) []string {
	b, ok := n.(*exprast.BinaryNode)
	if !ok {
		return nil
	}
	switch b.Operator {
	case "&&", "and":
		return append(exprTests(b.Left), exprTests(b.Right)...)
	case "!=":
		return exprNilTest(b)
	}
	return nil
}

// exprUntests returns the variables an expr condition is false only when
// they are bound: x == nil (or nil == x), or a chain of || holding such
// tests.
func exprUntests(n exprast.Node) []string {
	b, ok := n.(*exprast.BinaryNode)
	if !ok {
		return nil
	}
	switch b.Operator {
	case "||", "or":
		return append(exprUntests(b.Left), exprUntests(b.Right)...)
	case "==":
		return exprNilTest(b)
	}
	return nil
}

// exprNilTest returns the variable a comparison with nil is about, as a
// one-name list, or nil.
func exprNilTest(b *exprast.BinaryNode) []string {
	if _, isNil := b.Right.(*exprast.NilNode); isNil {
		if root := exprRootIdent(b.Left); root != "" {
			return []string{root}
		}
	}
	if _, isNil := b.Left.(*exprast.NilNode); isNil {
		if root := exprRootIdent(b.Right); root != "" {
			return []string{root}
		}
	}
	return nil
}

// exprRootIdent returns the variable a chain of member accesses starts
// from, or "".
func exprRootIdent(n exprast.Node) string {
	for {
		switch m := n.(type) {
		case *exprast.IdentifierNode:
			return m.Value
		case *exprast.MemberNode:
			n = m.Node
		case *exprast.ChainNode:
			n = m.Node
		default:
			return ""
		}
	}
}

func isStringNode(n exprast.Node) bool {
	_, ok := n.(*exprast.StringNode)
	return ok
}
