package lang

import (
	"fmt"
	"sync"
	"time"

	"cel.dev/cel-go/cel"
	"cel.dev/cel-go/common"
	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/common/types/ref"
	"cel.dev/cel-go/common/types/traits"
	"cel.dev/cel-go/ext"
)

// celLanguage is the CEL implementation of Language, on cel-go. Its
// parsing environment is built on first use and reused.
type celLanguage struct {
	once     sync.Once
	parseEnv *cel.Env
	err      error
}

func (*celLanguage) Name() string { return "cel" }

func celOptions() []cel.EnvOption {
	return []cel.EnvOption{
		cel.CrossTypeNumericComparisons(true),
		cel.OptionalTypes(),
		ext.Strings(),
		ext.Math(),
		ext.Lists(),
	}
}

func (l *celLanguage) Syntax(src string) []Error {
	l.once.Do(func() { l.parseEnv, l.err = cel.NewEnv(celOptions()...) })
	if l.err != nil {
		return []Error{{Message: l.err.Error()}}
	}
	_, iss := l.parseEnv.Parse(src)
	return celErrors(src, iss)
}

func (*celLanguage) NewEnv(vars []string, opts Options) (Env, error) {
	o := celOptions()
	for _, v := range vars {
		o = append(o, cel.Variable(v, cel.DynType))
	}
	env, err := cel.NewEnv(o...)
	if err != nil {
		return nil, fmt.Errorf("cel environment: %w", err)
	}
	limit := opts.CostLimit
	if limit == 0 {
		limit = DefaultCostLimit
	}
	return &celEnv{env: env, costLimit: limit}, nil
}

type celEnv struct {
	env       *cel.Env
	costLimit uint64
}

func (e *celEnv) Compile(src string, wantBool bool) (Program, []Error) {
	ast, iss := e.env.Compile(src)
	if errs := celErrors(src, iss); len(errs) > 0 {
		return nil, errs
	}
	if wantBool {
		t := ast.OutputType()
		if !t.IsAssignableType(cel.BoolType) {
			return nil, []Error{{Message: fmt.Sprintf("condition must be a bool, not %s", t)}}
		}
	}
	prg, err := e.env.Program(ast, cel.CostLimit(e.costLimit), cel.EvalOptions(cel.OptOptimize))
	if err != nil {
		return nil, []Error{{Message: err.Error()}}
	}
	return &celProgram{prg: prg, wantBool: wantBool}, nil
}

type celProgram struct {
	prg      cel.Program
	wantBool bool
}

func (p *celProgram) Eval(vars map[string]any) (any, error) {
	out, _, err := p.prg.Eval(vars)
	if err != nil {
		return nil, err
	}
	v, err := celNative(out)
	if err != nil {
		return nil, err
	}
	if p.wantBool {
		if _, ok := v.(bool); !ok {
			return nil, fmt.Errorf("condition produced %s, not a bool", typeName(v))
		}
	}
	return v, nil
}

// celErrors converts cel-go issues into Errors with rune offsets into src.
func celErrors(src string, iss *cel.Issues) []Error {
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
		out = append(out, Error{Offset: celOffset(e.Location, lineStarts), Message: e.Message})
	}
	return out
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

// typeName names the JSON type of a JSON-like Go value, for messages.
func typeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a bool"
	case int64, int:
		return "an int"
	case float64:
		return "a double"
	case string:
		return "a string"
	case []any:
		return "a list"
	case map[string]any:
		return "a map"
	}
	return fmt.Sprintf("%T", v)
}
