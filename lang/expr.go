package lang

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/checker/nature"
	"github.com/expr-lang/expr/file"
	"github.com/expr-lang/expr/parser"
	exprtypes "github.com/expr-lang/expr/types"
	"github.com/expr-lang/expr/vm"
)

// ExprMaxNodes bounds the size of an expr expression: its syntax tree may
// have at most this many nodes.
const ExprMaxNodes = 10_000

// exprLanguage is the expr-lang implementation of Language, on
// github.com/expr-lang/expr.
type exprLanguage struct{}

func (*exprLanguage) Name() string { return "expr" }

func (*exprLanguage) Syntax(src string) []Error {
	if _, err := parser.Parse(src); err != nil {
		return []Error{exprError(src, err, nil)}
	}
	return nil
}

func (*exprLanguage) NewEnv(vars []Var, opts Options) (Env, error) {
	env := exprtypes.Map{}
	sc := &scope{vars: map[string]*typ{}}
	for _, v := range vars {
		if _, dup := sc.vars[v.Name]; dup {
			continue
		}
		t := fromSchema(v.Schema, v.Name)
		sc.add(v.Name, t)
		env[v.Name] = exprType(t)
	}
	limit := opts.CostLimit
	if limit == 0 {
		limit = DefaultCostLimit
	}
	return &exprEnv{
		opts: []expr.Option{
			expr.Env(env),
			expr.MaxNodes(ExprMaxNodes),
			// Expressions are deterministic: no clock, and dates
			// without a zone are UTC wherever the server runs.
			expr.DisableBuiltin("now"),
			expr.DisableBuiltin("date"),
			expr.Function("date", utcDate,
				new(func(string) time.Time), new(func(string, string) time.Time), new(func(string, string, string) time.Time)),
		},
		scope:  sc,
		budget: uint(min(limit, uint64(^uint(0)))),
	}, nil
}

// utcDate is expr's date() with dates without a zone in UTC wherever the
// server runs: date(text), date(text, layout), date(text, layout, zone).
// It stands in for expr's own date() with expr.Timezone("UTC"), whose
// zone argument reaches the function dereferenced when a method is called
// on its result (date(x).Year() failed with "interface conversion:
// interface {} is time.Location, not string", expr v1.17.8).
func utcDate(args ...any) (any, error) {
	text, _ := args[0].(string)
	switch len(args) {
	case 2:
		layout, _ := args[1].(string)
		return time.ParseInLocation(layout, text, time.UTC)
	case 3:
		layout, _ := args[1].(string)
		zone, _ := args[2].(string)
		loc, err := time.LoadLocation(zone)
		if err != nil {
			return nil, err
		}
		return time.ParseInLocation(layout, text, loc)
	}
	// Without a layout: those expr's own date() tries, in order.
	for _, layout := range [...]string{"2006-01-02", "15:04:05", "2006-01-02 15:04:05", time.RFC3339, time.RFC822, time.RFC850, time.RFC1123} {
		if t, err := time.ParseInLocation(layout, text, time.UTC); err == nil {
			return t, nil
		}
	}
	return nil, fmt.Errorf("invalid date %s", text)
}

// exprType returns the expr type of t. Objects are strict maps (an
// unknown field is a compile error), other maps have typed values. Ints
// are int64 and doubles float64, the Go types of the values at run time.
func exprType(t *typ) exprtypes.Type {
	switch t.kind {
	case kindBool:
		return exprtypes.Bool
	case kindInt:
		return exprtypes.Int64
	case kindDouble:
		return exprtypes.Float64
	case kindString:
		return exprtypes.String
	case kindList:
		return exprtypes.Array(exprType(t.elem))
	case kindMap:
		return exprtypes.Map{exprtypes.Extra: exprType(t.elem)}
	case kindObject:
		m := make(exprtypes.Map, len(t.fields))
		for n, f := range t.fields {
			m[n] = exprType(f)
		}
		return m
	}
	return exprtypes.Any
}

var (
	timeType     = reflect.TypeOf(time.Time{})
	durationType = reflect.TypeOf(time.Duration(0))
)

// exprTyp maps an expr nature back into the shared type model.
func exprTyp(n nature.Nature) *typ {
	if n.Type == nil {
		return dynType
	}
	switch n.Type {
	case timeType, durationType:
		// Times and durations leave expr as strings.
		return stringType
	}
	switch n.Kind {
	case reflect.Bool:
		return boolType
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return intType
	case reflect.Float32, reflect.Float64:
		return doubleType
	case reflect.String:
		return stringType
	case reflect.Slice, reflect.Array:
		if n.Ref != nil {
			return listOf(exprTyp(*n.Ref))
		}
		return listOf(exprTyp(nature.Nature{Type: n.Type.Elem(), Kind: n.Type.Elem().Kind()}))
	case reflect.Map:
		if n.TypeData != nil && n.Strict && len(n.Fields) > 0 {
			fields := make(map[string]*typ, len(n.Fields))
			for k, f := range n.Fields {
				fields[k] = exprTyp(f)
			}
			return objectOf("", fields)
		}
		if n.TypeData != nil && n.DefaultMapValue != nil {
			return mapOf(exprTyp(*n.DefaultMapValue))
		}
		e := n.Type.Elem()
		return mapOf(exprTyp(nature.Nature{Type: e, Kind: e.Kind()}))
	case reflect.Interface:
		return dynType
	}
	return dynType
}

type exprEnv struct {
	opts   []expr.Option
	scope  *scope
	budget uint
}

func (e *exprEnv) Compile(src string, wantBool bool) (Program, []Error) {
	prg, err := expr.Compile(src, e.opts...)
	if err != nil {
		var f *exprFacts
		var fe *file.Error
		if errors.As(err, &fe) {
			f = e.compileFacts(src)
		}
		return nil, []Error{exprError(src, err, f)}
	}
	out := dynType
	n := prg.Node().Nature()
	if n != nil {
		out = exprTyp(*n)
	}
	if wantBool && out.kind != kindBool && out.kind != kindDyn {
		return nil, []Error{{Message: exprDialect.notCondition(newOperand(natureType(n), src))}}
	}
	return &exprProgram{prg: prg, budget: e.budget, wantBool: wantBool, out: out, env: e, src: src}, nil
}

// exprError converts an error of expr into an Error with a rune offset,
// worded from the checker's facts f when it has them.
func exprError(src string, err error, f *exprFacts) Error {
	var fe *file.Error
	if !errors.As(err, &fe) {
		return Error{Message: err.Error()}
	}
	n := len([]rune(src))
	off := min(max(fe.From, 0), n)
	if strings.HasSuffix(fe.Message, "token EOF") {
		off = n // the end of the expression, as CEL reports it
	}
	if f != nil {
		if w, ok := f.compileMessage(fe.Location); ok {
			return w.at(src, off)
		}
	}
	return Error{Offset: off, Message: fe.Message}
}

type exprProgram struct {
	prg      *vm.Program
	budget   uint
	wantBool bool
	out      *typ
	env      *exprEnv
	src      string
}

func (p *exprProgram) Schema() map[string]any {
	if p.out.kind == kindDyn {
		return nil
	}
	return p.out.schema()
}

func (p *exprProgram) Eval(vars map[string]any) (any, error) {
	if vars == nil {
		vars = map[string]any{}
	}
	m := vm.VM{MemoryBudget: p.budget}
	out, err := m.Run(p.prg, vars)
	if err != nil {
		var fe *file.Error
		if !errors.As(err, &fe) {
			return nil, &EvalError{Offset: -1, Message: err.Error(), Err: err}
		}
		if fe.Message == "memory budget exceeded" {
			msg := fmt.Sprintf("operation limit of %d exceeded (the expression visits or builds too many values)", p.budget)
			return nil, &EvalError{Offset: fe.From, Message: msg, Err: err}
		}
		return nil, p.evalError(vars, err, fe)
	}
	v, err := exprNative(out)
	if err != nil {
		return nil, &EvalError{Offset: -1, Message: err.Error(), Err: err}
	}
	if p.wantBool {
		if _, ok := v.(bool); !ok {
			msg := exprDialect.conditionValue(newOperand(valueCELType(v), p.src))
			return nil, &EvalError{Offset: 0, Message: msg}
		}
	}
	return v, nil
}

// exprNative converts a value expr produced into a JSON-like Go value,
// copying lists and maps only when something in them changes.
func exprNative(v any) (any, error) {
	switch v := v.(type) {
	case nil, bool, string, int64, float64:
		return v, nil
	case int:
		return int64(v), nil
	case float32:
		return float64(v), nil
	case time.Time:
		return v.UTC().Format(time.RFC3339Nano), nil
	case time.Duration:
		return v.String(), nil
	case []any:
		var out []any
		for i, e := range v {
			n, err := exprNative(e)
			if err != nil {
				return nil, err
			}
			if out == nil && !same(n, e) {
				out = make([]any, len(v))
				copy(out, v[:i])
			}
			if out != nil {
				out[i] = n
			}
		}
		if out == nil {
			return v, nil
		}
		return out, nil
	case map[string]any:
		var out map[string]any
		for k, e := range v {
			n, err := exprNative(e)
			if err != nil {
				return nil, err
			}
			if out == nil && !same(n, e) {
				out = make(map[string]any, len(v))
				for k2, e2 := range v {
					out[k2] = e2
				}
			}
			if out != nil {
				out[k] = n
			}
		}
		if out == nil {
			return v, nil
		}
		return out, nil
	}
	return exprNativeReflect(v)
}

// exprNativeReflect converts the values exprNative does not know by type
// (other numeric types, typed slices and maps, pointers) by their kind.
func exprNativeReflect(v any) (any, error) {
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return rv.Int(), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return int64(rv.Uint()), nil
	case reflect.Float32, reflect.Float64:
		return rv.Float(), nil
	case reflect.String:
		return rv.String(), nil
	case reflect.Bool:
		return rv.Bool(), nil
	case reflect.Slice, reflect.Array:
		out := make([]any, rv.Len())
		for i := range out {
			e, err := exprNative(rv.Index(i).Interface())
			if err != nil {
				return nil, err
			}
			out[i] = e
		}
		return out, nil
	case reflect.Map:
		out := make(map[string]any, rv.Len())
		it := rv.MapRange()
		for it.Next() {
			k := it.Key()
			if k.Kind() == reflect.Interface {
				k = k.Elem()
			}
			if k.Kind() != reflect.String {
				return nil, fmt.Errorf("map key %v is not a string", it.Key().Interface())
			}
			e, err := exprNative(it.Value().Interface())
			if err != nil {
				return nil, err
			}
			out[k.String()] = e
		}
		return out, nil
	case reflect.Pointer:
		if rv.IsNil() {
			return nil, nil
		}
		return exprNative(rv.Elem().Interface())
	}
	return nil, fmt.Errorf("unsupported value of type %s", strings.TrimPrefix(fmt.Sprintf("%T", v), "*"))
}

// same reports whether a conversion left a value as it was: scalars
// compare equal, lists and maps are the same object.
func same(a, b any) bool {
	switch av := a.(type) {
	case []any:
		bv, ok := b.([]any)
		return ok && len(av) == len(bv) && (len(av) == 0 || &av[0] == &bv[0])
	case map[string]any:
		bv, ok := b.(map[string]any)
		return ok && reflect.ValueOf(av).UnsafePointer() == reflect.ValueOf(bv).UnsafePointer()
	}
	return a == b
}
