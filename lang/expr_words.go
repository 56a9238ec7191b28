package lang

import (
	"fmt"
	"reflect"
	"sort"

	"cel.dev/cel-go/common/types"
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/builtin"
	"github.com/expr-lang/expr/checker"
	"github.com/expr-lang/expr/checker/nature"
	"github.com/expr-lang/expr/compiler"
	"github.com/expr-lang/expr/conf"
	"github.com/expr-lang/expr/file"
	"github.com/expr-lang/expr/parser"
	"github.com/expr-lang/expr/vm"
)

// This file gathers the facts expr has about a failing expression and
// words its errors from them (see words.go): the checked syntax tree,
// whose nodes carry their natures (types), for compile errors, and the
// values of the failing node's operands for run-time errors. expr's errors
// give a location and a text; the location finds the node, and the node's
// natures and operands give the facts. It never reads expr's messages; an
// error it has no facts for keeps expr's message.

// config returns a fresh configuration with e's options, made the way
// expr.Compile makes its own (a configuration caches types as it is used,
// so each compilation gets its own).
func (e *exprEnv) config() *conf.Config {
	c := conf.CreateNew()
	for _, op := range e.opts {
		op(c)
	}
	for name := range c.Disabled {
		delete(c.Builtins, name)
	}
	c.Check()
	return c
}

// exprFacts is a checked expr syntax tree, with each node's parent.
type exprFacts struct {
	env     *exprEnv
	cfg     *conf.Config
	nodes   []ast.Node // in pre-order
	parents map[ast.Node]ast.Node
}

func newExprFacts(e *exprEnv, cfg *conf.Config, root ast.Node) *exprFacts {
	f := &exprFacts{env: e, cfg: cfg, parents: map[ast.Node]ast.Node{}}
	var walk func(n ast.Node)
	walk = func(n ast.Node) {
		f.nodes = append(f.nodes, n)
		for _, c := range exprChildren(n) {
			f.parents[c] = n
			walk(c)
		}
	}
	walk(root)
	return f
}

// compileFacts parses and checks src again, the way expr.Compile does,
// keeping the tree it drops when the check fails. The checker stops
// wording at its first error but gives every node it visits its nature.
// A syntax error has no facts: compileFacts returns nil.
func (e *exprEnv) compileFacts(src string) *exprFacts {
	cfg := e.config()
	tree, err := parser.ParseWithConfig(src, cfg)
	if err != nil || tree == nil || tree.Node == nil {
		return nil
	}
	_, _ = new(checker.Checker).PatchAndCheck(tree, cfg)
	return newExprFacts(e, cfg, tree.Node)
}

func exprChildren(n ast.Node) []ast.Node {
	var cs []ast.Node
	switch n := n.(type) {
	case *ast.UnaryNode:
		cs = []ast.Node{n.Node}
	case *ast.BinaryNode:
		cs = []ast.Node{n.Left, n.Right}
	case *ast.ChainNode:
		cs = []ast.Node{n.Node}
	case *ast.MemberNode:
		cs = []ast.Node{n.Node, n.Property}
	case *ast.SliceNode:
		cs = []ast.Node{n.Node, n.From, n.To}
	case *ast.CallNode:
		cs = append([]ast.Node{n.Callee}, n.Arguments...)
	case *ast.BuiltinNode:
		cs = n.Arguments
	case *ast.PredicateNode:
		cs = []ast.Node{n.Node}
	case *ast.ConditionalNode:
		cs = []ast.Node{n.Cond, n.Exp1, n.Exp2}
	case *ast.VariableDeclaratorNode:
		cs = []ast.Node{n.Value, n.Expr}
	case *ast.SequenceNode:
		cs = n.Nodes
	case *ast.ArrayNode:
		cs = n.Nodes
	case *ast.MapNode:
		cs = n.Pairs
	case *ast.PairNode:
		cs = []ast.Node{n.Key, n.Value}
	}
	out := cs[:0:0]
	for _, c := range cs {
		if c != nil {
			out = append(out, c)
		}
	}
	return out
}

// natureType maps an expr nature onto the CEL types messages name.
func natureType(n *nature.Nature) *types.Type {
	switch {
	case n == nil:
		return types.DynType
	case n.Nil:
		return types.NullType
	case n.Type == nil:
		return types.DynType
	case n.Type == timeGoType:
		return types.TimestampType
	case n.Type == durationGoType:
		return types.DurationType
	}
	switch n.Kind {
	case reflect.Bool:
		return types.BoolType
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return types.IntType
	case reflect.Float32, reflect.Float64:
		return types.DoubleType
	case reflect.String:
		return types.StringType
	case reflect.Slice, reflect.Array:
		if n.Ref != nil {
			return types.NewListType(natureType(n.Ref))
		}
		e := nature.FromType(n.Type.Elem())
		return types.NewListType(natureType(&e))
	case reflect.Map:
		if exprObject(n) {
			return types.NewObjectType("object")
		}
		if n.TypeData != nil && n.DefaultMapValue != nil {
			return types.NewMapType(types.StringType, natureType(n.DefaultMapValue))
		}
		e := nature.FromType(n.Type.Elem())
		return types.NewMapType(types.StringType, natureType(&e))
	}
	return types.DynType
}

// exprObject reports whether n is a declared object: a strict map of
// fields.
func exprObject(n *nature.Nature) bool {
	return n.Kind == reflect.Map && n.TypeData != nil && n.Strict && len(n.Fields) > 0
}

func exprUnknown(n *nature.Nature) bool { return n.Type == nil && !n.Nil }

// operand returns n as messages show it, typed by its nature.
func (f *exprFacts) operand(n ast.Node) operand {
	return newOperand(natureType(n.Nature()), n.String())
}

// compileMessage words the checker's error at loc.
func (f *exprFacts) compileMessage(loc file.Location) (celWording, bool) {
	for _, n := range f.nodes {
		if n.Location() != loc {
			continue
		}
		if w, ok := f.nodeMessage(n); ok {
			return w, true
		}
		if w, ok := f.contextMessage(n); ok {
			return w, true
		}
	}
	return celWording{}, false
}

// nodeMessage words an error about n itself: an unknown name, operands
// its operator does not take, a field or index its value does not have,
// arguments its function does not take.
func (f *exprFacts) nodeMessage(n ast.Node) (celWording, bool) {
	switch n := n.(type) {
	case *ast.IdentifierNode:
		if !exprUnknown(n.Nature()) || !f.unknown(n.Value) {
			return celWording{}, false
		}
		if c, ok := f.parents[n].(*ast.CallNode); ok && c.Callee == n {
			return f.unknownFunction(n.Value), true
		}
		return unknownName(n.Value, f.env.scope.names), true
	case *ast.BinaryNode:
		k, ok := exprBinaryOps[n.Operator]
		l, r := n.Left.Nature(), n.Right.Nature()
		if !ok || exprUnknown(l) || exprUnknown(r) {
			return celWording{}, false
		}
		if k == opText && n.Operator == "matches" && l.Kind == reflect.String && r.Kind == reflect.String {
			return celWording{}, false // a bad regular expression, not a type
		}
		return celWording{msg: exprDialect.opMessage(op{k, n.Operator}, []operand{f.operand(n.Left), f.operand(n.Right)})}, true
	case *ast.UnaryNode:
		k, ok := exprUnaryOps[n.Operator]
		if !ok || exprUnknown(n.Node.Nature()) {
			return celWording{}, false
		}
		return celWording{msg: exprDialect.opMessage(op{k, n.Operator}, []operand{f.operand(n.Node)})}, true
	case *ast.MemberNode:
		return f.memberMessage(n)
	case *ast.CallNode:
		return f.callMessage(n)
	case *ast.BuiltinNode:
		if !exprCollections[n.Name] {
			return f.callWording(n.Name, n.Arguments)
		}
	}
	return celWording{}, false
}

// contextMessage words an error the checker reports at an operand: a
// member's property, a call's argument, a builtin's collection or
// predicate, a condition.
func (f *exprFacts) contextMessage(n ast.Node) (celWording, bool) {
	switch p := f.parents[n].(type) {
	case *ast.MemberNode:
		if p.Property == n {
			return f.memberMessage(p)
		}
	case *ast.CallNode:
		if p.Callee != n {
			return f.callMessage(p)
		}
	case *ast.BuiltinNode:
		if !exprCollections[p.Name] {
			return f.callWording(p.Name, p.Arguments)
		}
		return f.builtinMessage(p, n)
	case *ast.ConditionalNode:
		c := n.Nature()
		if p.Cond == n && !exprUnknown(c) && c.Kind != reflect.Bool {
			args := []operand{f.operand(p.Cond), f.operand(p.Exp1), f.operand(p.Exp2)}
			return celWording{msg: exprDialect.opMessage(op{opCond, "?:"}, args)}, true
		}
	}
	return celWording{}, false
}

// unknown reports whether name is neither a variable nor a function.
func (f *exprFacts) unknown(name string) bool {
	_, v := f.env.scope.vars[name]
	_, fn := f.cfg.Functions[name]
	_, b := f.cfg.Builtins[name]
	return !v && !fn && !b && name != "$env"
}

func (f *exprFacts) unknownFunction(name string) celWording {
	if f.cfg.Disabled[name] {
		return celWording{msg: fmt.Sprintf("undefined function '%s': expressions are deterministic and have no clock (use a step, or run.started)", name), name: name}
	}
	var names []string
	for n := range f.cfg.Builtins {
		names = append(names, n)
	}
	for n := range f.cfg.Functions {
		names = append(names, n)
	}
	sort.Strings(names)
	return unknownFunction(name, names)
}

// memberMessage words m.Node.x or m.Node[i] where the value has no such
// field or index, from the natures of both.
func (f *exprFacts) memberMessage(m *ast.MemberNode) (celWording, bool) {
	base, prop := m.Node.Nature(), m.Property.Nature()
	if exprUnknown(base) || m.Method {
		return celWording{}, false
	}
	field, isField := m.Property.(*ast.StringNode)
	bo, po := f.operand(m.Node), f.operand(m.Property)
	switch {
	case base.Nil:
		if isField {
			return celWording{msg: exprDialect.noFields(bo, field.Value, false)}, true
		}
	case exprObject(base):
		if !isField {
			return celWording{}, false
		}
		if _, ok := base.Fields[field.Value]; ok {
			return celWording{}, false
		}
		names := make([]string, 0, len(base.Fields))
		for n := range base.Fields {
			names = append(names, n)
		}
		return undefinedField(field.Value, names), true
	case base.Kind == reflect.Slice || base.Kind == reflect.Array:
		if exprUnknown(prop) || prop.Kind == reflect.Int || prop.Kind == reflect.Int64 {
			return celWording{}, false
		}
	case base.Kind == reflect.Map:
		if exprUnknown(prop) || prop.Kind == reflect.String {
			return celWording{}, false
		}
	case isField:
		return celWording{msg: exprDialect.noFields(bo, field.Value, false)}, true
	}
	return celWording{msg: exprDialect.opMessage(op{opIndex, "[]"}, []operand{bo, po})}, true
}

// callMessage words a call of a function with arguments it does not
// take, listing what it does take when its signatures say.
func (f *exprFacts) callMessage(c *ast.CallNode) (celWording, bool) {
	id, ok := c.Callee.(*ast.IdentifierNode)
	if !ok {
		return celWording{}, false
	}
	return f.callWording(id.Value, c.Arguments)
}

// callWording words a call of the function name with arguments it does
// not take.
func (f *exprFacts) callWording(name string, argNodes []ast.Node) (celWording, bool) {
	fn := f.function(name)
	if fn == nil {
		return celWording{}, false
	}
	args := make([]operand, len(argNodes))
	for i, a := range argNodes {
		args[i] = f.operand(a)
	}
	return celWording{msg: exprDialect.callMessage(fn.Name, nil, args, exprTakes(fn, len(args)), "")}, true
}

func (f *exprFacts) function(name string) *builtin.Function {
	if fn, ok := f.cfg.Functions[name]; ok {
		return fn
	}
	return f.cfg.Builtins[name]
}

// exprTakes describes the signatures of fn with n arguments.
func exprTakes(fn *builtin.Function, n int) []string {
	var out []string
	for _, t := range fn.Types {
		if t.Kind() != reflect.Func || t.NumIn() != n {
			continue
		}
		ts := make([]*types.Type, n)
		for i := range ts {
			in := nature.FromType(t.In(i))
			ts[i] = natureType(&in)
		}
		out = append(out, signature(ts))
	}
	if len(out) > maxTakes {
		return nil
	}
	return out
}

// exprCollections are the builtins that take a list first.
var exprCollections = map[string]bool{
	"all": true, "none": true, "any": true, "one": true, "filter": true, "map": true, "count": true,
	"sum": true, "find": true, "findIndex": true, "findLast": true, "findLastIndex": true,
	"groupBy": true, "sortBy": true, "reduce": true,
}

// exprPredicates are the builtins whose predicate must be boolean.
var exprPredicates = map[string]bool{
	"all": true, "none": true, "any": true, "one": true, "filter": true, "count": true,
	"find": true, "findIndex": true, "findLast": true, "findLastIndex": true,
}

// builtinMessage words a builtin (all, filter, map...) whose collection is
// not a list or whose predicate is not boolean.
func (f *exprFacts) builtinMessage(b *ast.BuiltinNode, n ast.Node) (celWording, bool) {
	nt := n.Nature()
	if len(b.Arguments) > 0 && b.Arguments[0] == n {
		if exprUnknown(nt) || nt.Kind == reflect.Slice || nt.Kind == reflect.Array {
			return celWording{}, false
		}
		return celWording{msg: fmt.Sprintf("%s() needs a list, not %s", b.Name, f.operand(n))}, true
	}
	p, ok := n.(*ast.PredicateNode)
	if !ok || len(b.Arguments) < 2 || b.Arguments[1] != n || !exprPredicates[b.Name] {
		return celWording{}, false
	}
	if body := p.Node.Nature(); exprUnknown(body) || body.Kind == reflect.Bool {
		return celWording{}, false
	}
	return celWording{msg: exprDialect.notPredicate(b.Name, f.operand(p.Node))}, true
}

// evalError words an evaluation error from the values of the failing
// node's operands. expr reports only where an evaluation failed; the
// operands there are evaluated again on their own (expressions are
// deterministic) when they are closed: no predicate pointers (#) and no
// names but variables and functions.
func (p *exprProgram) evalError(vars map[string]any, err error, fe *file.Error) error {
	ev := &EvalError{Offset: fe.From, Message: fe.Message, Err: err}
	f := newExprFacts(p.env, p.env.config(), p.prg.Node())
	for _, n := range f.nodes {
		if n.Location() != fe.Location {
			continue
		}
		if msg, ok := f.runtimeMessage(p, n, vars); ok {
			ev.Message = msg
			break
		}
	}
	return ev
}

// value evaluates n on its own, or reports false when it cannot.
func (f *exprFacts) value(p *exprProgram, n ast.Node, vars map[string]any) (any, bool) {
	switch n := n.(type) {
	case *ast.NilNode:
		return nil, true
	case *ast.IntegerNode:
		return int64(n.Value), true
	case *ast.FloatNode:
		return n.Value, true
	case *ast.StringNode:
		return n.Value, true
	case *ast.BoolNode:
		return n.Value, true
	}
	if !f.closed(n) {
		return nil, false
	}
	prg, err := compiler.Compile(&parser.Tree{Node: n, Source: p.prg.Source()}, f.cfg)
	if err != nil {
		return nil, false
	}
	m := vm.VM{MemoryBudget: p.budget}
	v, err := m.Run(prg, vars)
	if err != nil {
		return nil, false
	}
	v, err = exprNative(v)
	return v, err == nil
}

// closed reports whether n can be evaluated on its own.
func (f *exprFacts) closed(n ast.Node) bool {
	switch n := n.(type) {
	case *ast.PointerNode, *ast.VariableDeclaratorNode:
		return false
	case *ast.IdentifierNode:
		if f.unknown(n.Value) {
			return false
		}
	}
	for _, c := range exprChildren(n) {
		if !f.closed(c) {
			return false
		}
	}
	return true
}

// valueOperand returns n as messages show it, typed by its value.
func valueOperand(n ast.Node, v any) operand {
	return newOperand(valueCELType(v), n.String())
}
