package lang

import (
	"fmt"
	"regexp"
	"slices"
	"sync"
	"time"

	"cel.dev/cel-go/cel"
	"cel.dev/cel-go/checker"
	"cel.dev/cel-go/common"
	celast "cel.dev/cel-go/common/ast"
	"cel.dev/cel-go/common/cost"
	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/common/types/ref"
	"cel.dev/cel-go/common/types/traits"
	"cel.dev/cel-go/ext"
	"cel.dev/cel-go/interpreter"
)

// celLanguage is the CEL implementation of Language, on cel-go.
type celLanguage struct{}

func (*celLanguage) Name() string { return "cel" }

// The base environment holds the libraries every flow can use; typed
// environments extend it with the flow's variables. It is immutable and
// built once per process.
var (
	celBaseOnce sync.Once
	celBaseEnv  *cel.Env
	celBaseErr  error
)

func celBase() (*cel.Env, error) {
	celBaseOnce.Do(func() {
		celBaseEnv, celBaseErr = cel.NewEnv(
			cel.CrossTypeNumericComparisons(true),
			cel.OptionalTypes(),
			// Messages quote sub-expressions, macros as written.
			cel.EnableMacroCallTracking(),
			ext.Strings(),
			ext.Math(),
			ext.Lists(),
		)
		if celBaseErr != nil {
			celBaseErr = fmt.Errorf("cel environment: %w", celBaseErr)
		}
	})
	return celBaseEnv, celBaseErr
}

func (*celLanguage) Syntax(src string) []Error {
	base, err := celBase()
	if err != nil {
		return []Error{{Message: err.Error()}}
	}
	_, iss := base.Parse(src)
	return celErrors(src, iss, nil)
}

func (*celLanguage) NewEnv(vars []Var, opts Options) (Env, error) {
	base, err := celBase()
	if err != nil {
		return nil, err
	}
	prov := &celProvider{base: base.CELTypeProvider(), objects: map[string]*celObject{}}
	scope := &scope{vars: map[string]*typ{}}
	o := []cel.EnvOption{cel.CustomTypeProvider(prov)}
	for _, v := range vars {
		if _, dup := scope.vars[v.Name]; dup {
			continue
		}
		t := fromSchema(v.Schema, v.Name)
		scope.add(v.Name, t)
		o = append(o, cel.Variable(v.Name, prov.celType(t)))
	}
	env, err := base.Extend(o...)
	if err != nil {
		return nil, fmt.Errorf("cel environment: %w", err)
	}
	limit := opts.CostLimit
	if limit == 0 {
		limit = DefaultCostLimit
	}
	return &celEnv{env: env, prov: prov, scope: scope, costLimit: limit}, nil
}

// celProvider declares the object types of a flow's variables to CEL, on
// top of cel-go's own types. The checker sees each object as a struct
// type whose fields are the schema's properties, so an unknown field is a
// compile error; its fields have no accessors, so at run time CEL selects
// them from the map[string]any value like map keys.
type celProvider struct {
	base    types.Provider
	objects map[string]*celObject // by CEL type name
}

// celObject is an object type declared to CEL.
type celObject struct {
	t      *typ
	self   *types.Type
	fields map[string]*types.FieldType
}

// celScalar returns the CEL type of a boolean, integer, number or string
// kind.
func celScalar(k kind) (*types.Type, bool) {
	switch k {
	case kindBool:
		return types.BoolType, true
	case kindInt:
		return types.IntType, true
	case kindDouble:
		return types.DoubleType, true
	case kindString:
		return types.StringType, true
	}
	return nil, false
}

// celType returns the CEL type of t, declaring the object types it needs.
func (p *celProvider) celType(t *typ) *types.Type {
	if s, ok := celScalar(t.kind); ok {
		return s
	}
	switch t.kind {
	case kindList:
		return types.NewListType(p.celType(t.elem))
	case kindMap:
		return types.NewMapType(types.StringType, p.celType(t.elem))
	case kindObject:
		if !celSelectable(t) {
			return types.NewMapType(types.StringType, p.celType(commonField(t)))
		}
		// "object(...)" cannot be written as a CEL identifier, so the
		// type name never shadows a variable (the checker resolves
		// qualified names to types).
		name := t.String()
		for i := 2; p.objects[name] != nil; i++ {
			name = fmt.Sprintf("object(%s#%d)", t.path, i)
		}
		o := &celObject{t: t, self: types.NewObjectType(name), fields: map[string]*types.FieldType{}}
		p.objects[name] = o
		for _, n := range t.names {
			o.fields[n] = &types.FieldType{Type: p.celType(t.fields[n])}
		}
		return o.self
	}
	return types.DynType
}

// celIdent matches the field names CEL can select with a dot.
var celIdent = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// celReserved lists CEL's reserved words, which cannot be selected with a
// dot either.
var celReserved = map[string]bool{
	"as": true, "break": true, "const": true, "continue": true, "else": true,
	"false": true, "for": true, "function": true, "if": true, "import": true,
	"in": true, "let": true, "loop": true, "package": true, "namespace": true,
	"null": true, "return": true, "true": true, "var": true, "void": true, "while": true,
}

// celSelectable reports whether every field of an object can be selected
// in CEL; objects with other field names are maps, indexed with ['name'].
func celSelectable(t *typ) bool {
	for _, n := range t.names {
		if !celIdent.MatchString(n) || celReserved[n] {
			return false
		}
	}
	return true
}

// commonField returns the type all fields of an object share, or dyn.
func commonField(t *typ) *typ {
	var c *typ
	for _, f := range t.fields {
		if c == nil {
			c = f
		} else if !sameType(c, f) {
			return dynType
		}
	}
	if c == nil {
		return dynType
	}
	return c
}

// typOf maps a CEL type back into the shared type model.
func (p *celProvider) typOf(t *types.Type) *typ {
	if t == nil {
		return dynType
	}
	switch t.Kind() {
	case types.BoolKind:
		return boolType
	case types.IntKind, types.UintKind:
		return intType
	case types.DoubleKind:
		return doubleType
	case types.StringKind, types.BytesKind, types.TimestampKind, types.DurationKind:
		// Bytes, timestamps and durations leave CEL as strings.
		return stringType
	case types.NullTypeKind:
		return nullType
	case types.ListKind:
		return listOf(p.typOf(t.Parameters()[0]))
	case types.MapKind:
		return mapOf(p.typOf(t.Parameters()[1]))
	case types.StructKind:
		if o, ok := p.objects[t.TypeName()]; ok {
			return o.t
		}
	case types.OpaqueKind:
		if t.TypeName() == "optional_type" && len(t.Parameters()) == 1 {
			return p.typOf(t.Parameters()[0])
		}
	}
	return dynType
}

func (p *celProvider) EnumValue(name string) ref.Val { return p.base.EnumValue(name) }

func (p *celProvider) FindIdent(name string) (ref.Val, bool) { return p.base.FindIdent(name) }

func (p *celProvider) FindStructType(name string) (*types.Type, bool) {
	if o, ok := p.objects[name]; ok {
		return types.NewTypeTypeWithParam(o.self), true
	}
	return p.base.FindStructType(name)
}

func (p *celProvider) FindStructFieldNames(name string) ([]string, bool) {
	if o, ok := p.objects[name]; ok {
		return o.t.names, true
	}
	return p.base.FindStructFieldNames(name)
}

func (p *celProvider) FindStructFieldType(name, field string) (*types.FieldType, bool) {
	if o, ok := p.objects[name]; ok {
		ft, ok := o.fields[field]
		return ft, ok
	}
	return p.base.FindStructFieldType(name, field)
}

func (p *celProvider) NewValue(name string, fields map[string]ref.Val) ref.Val {
	if _, ok := p.objects[name]; ok {
		return types.NewErr("cannot create values of %s", name)
	}
	return p.base.NewValue(name, fields)
}

type celEnv struct {
	env       *cel.Env
	prov      *celProvider
	scope     *scope
	costLimit uint64

	chkOnce sync.Once // builds chk, the checker that words errors
	chk     *checker.Env
	chkErr  error
}

func (e *celEnv) Compile(src string, wantBool bool) (Program, []Error) {
	ast, iss := e.env.Compile(src)
	if iss.Err() != nil {
		var word func(int64) (celWording, bool)
		if f := e.compileFacts(src); f != nil {
			word = f.compileMessage
		}
		return nil, celErrors(src, iss, word)
	}
	out := e.prov.typOf(ast.OutputType())
	if wantBool && !ast.OutputType().IsAssignableType(cel.BoolType) {
		return nil, []Error{{Message: celDialect.notCondition(newOperand(ast.OutputType(), src))}}
	}
	opts := []cel.ProgramOption{cel.EvalOptions(cel.OptOptimize)}
	if !e.cheap(ast) {
		opts = append(opts, cel.CostLimit(e.costLimit))
	}
	prg, err := e.env.Program(ast, opts...)
	if err != nil {
		return nil, []Error{{Message: err.Error()}}
	}
	return &celProgram{prg: prg, wantBool: wantBool, out: out, env: e, ast: ast, src: src, tested: celTested(ast.NativeRep())}, nil
}

// cheapShare is how small a share of the cost limit an expression's
// worst case must be for its evaluations to go untracked.
const cheapShare = 100

// cheap reports whether the checker proves that every evaluation of ast
// costs at most a hundredth of the cost limit, whatever the variables
// hold: then the limit can never be reached, and tracking the cost of
// each evaluation (a tracker and its bookkeeping per evaluation) buys
// nothing. The margin covers the estimator's known slips (cel-go lists a
// few ext functions whose tracked cost can pass their estimate). Anything
// whose cost grows with the size of a value (a string, a list, a
// comprehension over one) has an unbounded estimate here, since nothing
// bounds the sizes of the variables, and stays tracked.
func (e *celEnv) cheap(ast *cel.Ast) bool {
	est, err := e.env.EstimateCost(ast, unknownSizes{})
	return err == nil && est.Max <= e.costLimit/cheapShare
}

// unknownSizes leaves every size and call cost to cel-go's defaults: the
// size of a variable's value is unbounded.
type unknownSizes struct{}

func (unknownSizes) EstimateSize(cost.AstNode) *cost.SizeEstimate { return nil }

func (unknownSizes) EstimateCallCost(string, string, *cost.AstNode, []cost.AstNode) *cost.CallEstimate {
	return nil
}

type celProgram struct {
	prg      cel.Program
	wantBool bool
	out      *typ
	env      *celEnv
	ast      *cel.Ast
	src      string
	// tested are the variables the expression tests with has(): when one
	// is not bound, it evaluates as an empty object, so that has() is
	// false instead of an error.
	tested []string

	trackOnce sync.Once // builds track, for wording evaluation errors
	track     cel.Program
}

func (p *celProgram) Schema() map[string]any {
	if p.out.kind == kindDyn {
		return nil
	}
	return p.out.schema()
}

func (p *celProgram) Eval(vars map[string]any) (any, error) {
	var in any = vars
	if absent := p.absent(vars); absent != nil {
		in = absentAsEmpty{vars: vars, absent: absent}
	}
	out, _, err := p.prg.Eval(in)
	if err != nil {
		return nil, p.evalError(vars, err)
	}
	v, err := celNative(out)
	if err != nil {
		return nil, &EvalError{Offset: -1, Message: err.Error(), Err: err}
	}
	if p.wantBool {
		if _, ok := v.(bool); !ok {
			msg := celDialect.conditionValue(newOperand(valueCELType(v), p.src))
			return nil, &EvalError{Offset: 0, Message: msg}
		}
	}
	return v, nil
}

// celTested returns the variables a compiled expression tests with
// has(), each once.
func celTested(native *celast.AST) []string {
	r := celReadsOf(native)
	var out []string
	for _, ref := range r.Refs {
		if ref.Guarded && !slices.Contains(out, ref.Name) {
			out = append(out, ref.Name)
		}
	}
	return out
}

// absent returns the tested variables vars does not bind, or nil.
func (p *celProgram) absent(vars map[string]any) []string {
	var out []string
	for _, name := range p.tested {
		if _, ok := vars[name]; !ok {
			out = append(out, name)
		}
	}
	return out
}

// absentAsEmpty is the activation of an evaluation in which some variable
// the expression tests with has() is not bound (the node that binds it
// has not run): it is an empty object there.
type absentAsEmpty struct {
	vars   map[string]any
	absent []string
}

// ResolveName returns the variable's value, an empty object for an
// absent tested one.
func (a absentAsEmpty) ResolveName(name string) (any, bool) {
	if v, ok := a.vars[name]; ok {
		return v, true
	}
	if slices.Contains(a.absent, name) {
		return map[string]any{}, true
	}
	return nil, false
}

// Parent returns nil: the activation has no parent.
func (absentAsEmpty) Parent() interpreter.Activation { return nil }

// celErrors converts cel-go issues into Errors with rune offsets into
// src. word, when set, words the error at an expression id from the
// checker's facts; errors it has no facts for keep cel-go's message.
func celErrors(src string, iss *cel.Issues, word func(int64) (celWording, bool)) []Error {
	if iss.Err() == nil {
		return nil
	}
	lineStarts := []int{0} // rune offsets of line starts
	n := 0
	for _, r := range src {
		n++
		if r == '\n' {
			lineStarts = append(lineStarts, n)
		}
	}
	var out []Error
	for _, e := range iss.Errors() {
		err := Error{Offset: celOffset(e.Location, lineStarts), Message: e.Message}
		if w, ok := celWord(word, e.ExprID); ok {
			err = w.at(src, err.Offset)
		}
		out = append(out, err)
	}
	return out
}

func celWord(word func(int64) (celWording, bool), id int64) (celWording, bool) {
	if word == nil || id == 0 {
		return celWording{}, false
	}
	return word(id)
}

func celOffset(loc common.Location, lineStarts []int) int {
	if loc == nil || loc.Line() < 1 {
		return 0
	}
	line := loc.Line()
	if line > len(lineStarts) {
		line = len(lineStarts)
	}
	return lineStarts[line-1] + max(loc.Column(), 0)
}

// celNative converts a CEL value into a JSON-like Go value.
func celNative(v ref.Val) (any, error) {
	switch v := v.(type) {
	case types.Bool:
		return bool(v), nil
	case types.Int:
		return int64(v), nil
	case types.Uint:
		return int64(v), nil
	case types.Double:
		return float64(v), nil
	case types.String:
		return string(v), nil
	case types.Bytes:
		return string(v), nil
	case types.Null:
		return nil, nil
	case types.Timestamp:
		return v.Time.UTC().Format(time.RFC3339Nano), nil
	case types.Duration:
		return v.Duration.String(), nil
	case *types.Err:
		return nil, v
	}
	switch n := v.Value().(type) {
	case map[string]any, []any:
		return n, nil
	}
	if l, ok := v.(traits.Lister); ok {
		size := int(l.Size().(types.Int))
		out := make([]any, 0, size)
		for i := 0; i < size; i++ {
			e, err := celNative(l.Get(types.Int(i)))
			if err != nil {
				return nil, err
			}
			out = append(out, e)
		}
		return out, nil
	}
	if m, ok := v.(traits.Mapper); ok {
		out := make(map[string]any, int(m.Size().(types.Int)))
		it := m.Iterator()
		for it.HasNext() == types.True {
			k := it.Next()
			ks, ok := k.(types.String)
			if !ok {
				return nil, fmt.Errorf("map key %v is not a string", k)
			}
			e, err := celNative(m.Get(k))
			if err != nil {
				return nil, err
			}
			out[string(ks)] = e
		}
		return out, nil
	}
	if o, ok := v.(*types.Optional); ok {
		if !o.HasValue() {
			return nil, nil
		}
		return celNative(o.GetValue())
	}
	return nil, fmt.Errorf("unsupported value of type %s", v.Type())
}
