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
	w := &celWalker{info: native.SourceInfo(), local: map[string]int{}}
	root := native.Expr()
	w.walk(root, nil)
	return Reads{Refs: w.refs, Tests: celTests(root), Untests: celUntests(root)}
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

// celWalker collects the reads of a CEL expression.
type celWalker struct {
	info  *celast.SourceInfo
	local map[string]int // comprehension variables in scope, with their depth
	refs  []Ref
}

// walk records the reads of e; guarded are the names tested bound where e
// is evaluated.
func (w *celWalker) walk(e celast.Expr, guarded []string) {
	switch e.Kind() {
	case celast.IdentKind:
		name := e.AsIdent()
		if w.local[name] > 0 {
			return
		}
		w.refs = append(w.refs, Ref{Name: name, Offset: w.offset(e), Guarded: slices.Contains(guarded, name)})
	case celast.SelectKind:
		s := e.AsSelect()
		if s.IsTestOnly() {
			// has(x.f): a test, not a read that can fail for x unbound.
			if root := celRootIdent(s.Operand()); root != "" && w.local[root] == 0 {
				w.walk(s.Operand(), append(guarded, root))
				return
			}
		}
		w.walk(s.Operand(), guarded)
	case celast.CallKind:
		w.call(e, guarded)
	case celast.ListKind:
		for _, el := range e.AsList().Elements() {
			w.walk(el, guarded)
		}
	case celast.MapKind:
		for _, en := range e.AsMap().Entries() {
			me := en.AsMapEntry()
			w.walk(me.Key(), guarded)
			w.walk(me.Value(), guarded)
		}
	case celast.StructKind:
		for _, f := range e.AsStruct().Fields() {
			w.walk(f.AsStructField().Value(), guarded)
		}
	case celast.ComprehensionKind:
		c := e.AsComprehension()
		w.walk(c.IterRange(), guarded)
		w.walk(c.AccuInit(), guarded)
		vars := []string{c.IterVar(), c.AccuVar()}
		if c.HasIterVar2() {
			vars = append(vars, c.IterVar2())
		}
		for _, v := range vars {
			w.local[v]++
		}
		w.walk(c.LoopCondition(), guarded)
		w.walk(c.LoopStep(), guarded)
		w.walk(c.Result(), guarded)
		for _, v := range vars {
			w.local[v]--
		}
	}
}

// call walks a call: && and ? : carry the tests of their left operand
// (condition) to what they evaluate only when it is true.
func (w *celWalker) call(e celast.Expr, guarded []string) {
	c := e.AsCall()
	args := c.Args()
	switch {
	case c.FunctionName() == "_&&_" && len(args) == 2:
		w.walk(args[0], guarded)
		w.walk(args[1], append(guarded, celTests(args[0])...))
		return
	case c.FunctionName() == "_?_:_" && len(args) == 3:
		w.walk(args[0], guarded)
		w.walk(args[1], append(guarded, celTests(args[0])...))
		w.walk(args[2], guarded)
		return
	}
	if c.IsMemberFunction() {
		w.walk(c.Target(), guarded)
	}
	for _, a := range args {
		w.walk(a, guarded)
	}
}

// offset returns the rune offset of e in the source.
func (w *celWalker) offset(e celast.Expr) int {
	if r, ok := w.info.GetOffsetRange(e.ID()); ok {
		return int(r.Start)
	}
	return 0
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
	w := &exprWalker{local: map[string]int{}}
	w.walk(tree.Node, nil)
	return Reads{Refs: w.refs, Tests: exprTests(tree.Node), Untests: exprUntests(tree.Node)}, true
}

// exprWalker collects the reads of an expr expression.
type exprWalker struct {
	local map[string]int // let variables in scope
	refs  []Ref
}

func (w *exprWalker) walk(n exprast.Node, guarded []string) {
	switch n := n.(type) {
	case nil:
	case *exprast.IdentifierNode:
		if w.local[n.Value] == 0 {
			w.refs = append(w.refs, Ref{Name: n.Value, Offset: n.Location().From, Guarded: slices.Contains(guarded, n.Value)})
		}
	case *exprast.MemberNode:
		if n.Optional {
			if root := exprRootIdent(n.Node); root != "" {
				guarded = append(guarded, root)
			}
		}
		w.walk(n.Node, guarded)
		if n.Method || !isStringNode(n.Property) {
			w.walk(n.Property, guarded)
		}
	case *exprast.BinaryNode:
		if n.Operator == "==" || n.Operator == "!=" {
			// x != nil tests x: reading a nil there is the point.
			guarded = append(guarded, exprNilTest(n)...)
		}
		w.walk(n.Left, guarded)
		if n.Operator == "&&" || n.Operator == "and" {
			guarded = append(guarded, exprTests(n.Left)...)
		}
		w.walk(n.Right, guarded)
	case *exprast.ConditionalNode:
		w.walk(n.Cond, guarded)
		w.walk(n.Exp1, append(guarded, exprTests(n.Cond)...))
		w.walk(n.Exp2, guarded)
	case *exprast.VariableDeclaratorNode:
		w.walk(n.Value, guarded)
		w.local[n.Name]++
		w.walk(n.Expr, guarded)
		w.local[n.Name]--
	default:
		for _, c := range exprChildren(n) {
			w.walk(c, guarded)
		}
	}
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
