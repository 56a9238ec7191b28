// Package lang compiles and evaluates the expressions of flow files.
//
// A flow names its expression language once (`expressions: cel` or
// `expressions: expr`); everything else in flowserve goes through the
// Language interface, so no other package branches on the language.
package lang

import (
	"fmt"
	"sort"
)

// Error is a problem in an expression's source. Offset counts runes from
// the start of the expression, so callers can map it into the flow file.
type Error struct {
	Offset  int
	Message string
}

// Error returns the message with its offset.
func (e Error) Error() string { return fmt.Sprintf("offset %d: %s", e.Offset, e.Message) }

// Options tunes an environment. The zero value is usable.
type Options struct {
	// CostLimit bounds the work one evaluation may do, in the language's
	// own cost units; 0 means DefaultCostLimit.
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
	// NewEnv returns an environment in which the given variable names
	// are declared (dynamically typed).
	NewEnv(vars []string, opts Options) (Env, error)
}

// Env compiles expressions against a fixed set of declared variables.
// An Env is safe for concurrent use.
type Env interface {
	// Compile compiles src. When wantBool is true the expression must
	// produce a boolean. Problems are returned as Errors.
	Compile(src string, wantBool bool) (Program, []Error)
}

// Program is a compiled expression. It is immutable and safe for
// concurrent use.
type Program interface {
	// Eval evaluates the program with the given variables and returns a
	// JSON-like Go value: nil, bool, int64, float64, string,
	// []any or map[string]any.
	Eval(vars map[string]any) (any, error)
}

// Lookup returns the language with the given name ("" means "cel"). Each
// call returns a new Language value, which caches what it builds; keep it
// for as long as it is useful (one file, one process).
func Lookup(name string) (Language, bool) {
	switch name {
	case "", "cel":
		return &celLanguage{}, true
	}
	return nil, false
}

// Names returns the names of the supported languages, sorted.
func Names() []string {
	n := []string{"cel"}
	sort.Strings(n)
	return n
}
