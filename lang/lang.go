package lang

import (
	"fmt"
	"sort"
)

// Error is a problem in an expression's source. Offset counts runes from
// the start of the expression, so callers can map it into the flow file.
type Error struct {
	Offset int
	// Length is how many runes from Offset the problem's text takes (an
	// undefined name, field or function), or 0 when the language does not
	// say.
	Length  int
	Message string
	// Suggestion is what the Length runes at Offset most likely misspell
	// (the did-you-mean the message gives too), or "". It is set only with
	// a Length, so that replacing that text with it is a mechanical fix.
	Suggestion string
}

// Error returns the message with its offset.
func (e Error) Error() string { return fmt.Sprintf("offset %d: %s", e.Offset, e.Message) }

// EvalError is an expression that failed at run time, worded in the
// flow's terms where the language's facts allow (see the package
// documentation).
type EvalError struct {
	// Offset counts runes from the start of the expression to the part
	// that failed (an operator, a call, a field), or is -1 when it is not
	// known.
	Offset  int
	Message string
	// Err is the language's own error, when there is one.
	Err error
}

// Error returns the message.
func (e *EvalError) Error() string { return e.Message }

// Unwrap returns the language's own error.
func (e *EvalError) Unwrap() error { return e.Err }

// Options tunes an environment. The zero value is usable.
type Options struct {
	// CostLimit bounds the work one evaluation may do, in the language's
	// own units (CEL: its cost units; expr: its memory budget, roughly
	// the elements its loops and ranges visit and the values it
	// allocates); 0 means DefaultCostLimit.
	CostLimit uint64
}

// DefaultCostLimit is the evaluation cost limit when Options.CostLimit is 0.
const DefaultCostLimit = 1_000_000

// Language is one expression language.
type Language interface {
	// Name returns the name used in flow files.
	Name() string
	// Syntax reports syntax errors in src without resolving any names.
	Syntax(src string) []Error
	// NewEnv returns an environment in which the given variables are
	// declared, typed by their schemas (see the package documentation for
	// how JSON Schema maps to types). A repeated name keeps its first
	// declaration.
	NewEnv(vars []Var, opts Options) (Env, error)
}

// Env compiles expressions against a fixed set of typed variables. An
// Env is safe for concurrent use.
type Env interface {
	// Compile parses and type-checks src. When wantBool is true the
	// expression must produce a boolean. Problems (syntax, an unknown
	// name or field, a type mismatch) are returned as Errors, with a
	// did-you-mean where one fits.
	Compile(src string, wantBool bool) (Program, []Error)
}

// Program is a compiled expression. It is immutable and safe for
// concurrent use.
type Program interface {
	// Eval evaluates the program with the given variables and returns a
	// JSON-like Go value: nil, bool, int64, float64, string,
	// []any or map[string]any. vars holds JSON-like values of the same
	// shapes. A declared variable may be absent (not bound yet): CEL
	// fails if the evaluation reaches it, expr sees nil.
	Eval(vars map[string]any) (any, error)
	// Schema returns a JSON Schema of the values the program produces,
	// as far as the type checker knows it, or nil when the type is
	// dynamic.
	Schema() map[string]any
}

// Lookup returns the language with the given name: "cel" (also for "")
// or "expr". Language values are cheap and safe for concurrent use; what
// they share (CEL's base environment) is built once per process.
func Lookup(name string) (Language, bool) {
	switch name {
	case "", "cel":
		return &celLanguage{}, true
	case "expr":
		return &exprLanguage{}, true
	}
	return nil, false
}

// Names returns the names of the supported languages, sorted.
func Names() []string {
	n := []string{"cel", "expr"}
	sort.Strings(n)
	return n
}
