package actions

import (
	"context"
	"fmt"
	"regexp"
	"runtime/debug"
	"strings"

	"github.com/flowserve/flowserve/schemas"
)

// Func runs an action. in is the step's rendered `with` map, already valid
// against [Spec.Input]. The output must match [Spec.Output]; it may hold any
// Go value that [Normalize] accepts. A Func should honour ctx's deadline and
// cancellation; [CallFrom] reads the step the engine put in ctx. [Typed]
// and [Method] write the Func of a typed action.
type Func func(ctx context.Context, in map[string]any) (any, error)

// Spec describes an action: what flows call it by, what it takes and what it
// returns. The schemas drive lint (CEL type-checking of `with` and of
// expressions over the output), the `flowserve actions` listing and runtime
// validation. Write one by hand, or derive it from Go types with [Typed] or
// [Method].
type Spec struct {
	// Name is namespaced: lower-case segments joined by dots, like
	// "http.request" (^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$).
	Name string
	// Summary is one line, required.
	Summary string
	// Description is optional markdown.
	Description string
	// Input is the JSON Schema (draft 2020-12) of the input object. It is
	// required and must have "type": "object". It may be written with
	// ordinary Go values ([]string for "required", int for "minimum", ...):
	// registration normalizes it (see [Normalize]).
	Input map[string]any
	// Output is the JSON Schema of the output, required.
	Output map[string]any
	// Func runs the action, required.
	Func Func

	// err is a failure deriving the spec ([Typed], [Method]), reported by
	// NewAction.
	err error
	// module and bind are a Method's: the module it runs on, and Func
	// bound to one of the module's values.
	module moduleRef
	bind   func(value any) Func
}

// An Action is a registered, checked [Spec] with its schemas compiled. Its
// Spec.Input and Spec.Output are the normalized schemas: plain JSON-like
// values (map[string]any, []any, int64, float64, ...). An Action is
// immutable and safe for concurrent use.
type Action struct {
	Spec
	input, output *schemas.Schema
}

var nameRE = regexp.MustCompile(`^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$`)

// NewAction checks s and compiles its schemas. Registries call it; it is
// exported so tools and tests can build a standalone Action. The error names
// the action.
func NewAction(s Spec) (*Action, error) {
	fail := func(format string, args ...any) (*Action, error) {
		return nil, fmt.Errorf("action %q: %s", s.Name, fmt.Sprintf(format, args...))
	}
	switch {
	case s.err != nil:
		return fail("%v", s.err)
	case s.Name == "":
		return fail("name is required")
	case !nameRE.MatchString(s.Name):
		return fail(`name must be lower-case segments joined by dots, like "http.request"`)
	case strings.TrimSpace(s.Summary) == "":
		return fail("summary is required")
	case strings.ContainsAny(s.Summary, "\r\n"):
		return fail("summary must be one line")
	case s.Func == nil:
		return fail("func is required")
	}
	a := &Action{Spec: s}
	var err error
	if a.Input, a.input, err = compileSchema(s.Name, "input", s.Input); err != nil {
		return nil, err
	}
	if t, _ := a.Input["type"].(string); t != "object" {
		return fail(`input schema must have "type": "object"`)
	}
	if a.Output, a.output, err = compileSchema(s.Name, "output", s.Output); err != nil {
		return nil, err
	}
	return a, nil
}

// compileSchema normalizes and compiles one schema through package
// schemas, so its violations read as every other schema's do. Schemas must
// be self-contained: $ref to anything outside the schema does not load.
func compileSchema(name, which string, schema map[string]any) (map[string]any, *schemas.Schema, error) {
	if schema == nil {
		return nil, nil, fmt.Errorf("action %q: %s schema is required", name, which)
	}
	n, err := Normalize(schema)
	if err != nil {
		return nil, nil, fmt.Errorf("action %q: %s schema: %w", name, which, err)
	}
	doc := n.(map[string]any)
	sch, err := schemas.CompileWith(doc, &schemas.CompileOptions{SelfContained: true})
	if err != nil {
		return nil, nil, fmt.Errorf("action %q: %s schema does not compile: %w", name, which, err)
	}
	return doc, sch, nil
}

// ValidateInput checks v against the action's input schema. It returns nil or
// a *[ValidationError] listing every violation, worded as package schemas
// words them. Numbers may be any Go numeric type: a float64 with an integral
// value (3.0) satisfies "type": "integer", as JSON Schema says; NaN and
// infinities never validate.
func (a *Action) ValidateInput(v map[string]any) error {
	if vs := a.input.Validate(v); len(vs) > 0 {
		return &ValidationError{Action: a.Name, Violations: vs}
	}
	return nil
}

// ValidateOutput checks v against the action's output schema. It returns nil
// or a *[ValidationError]. v must be JSON-like (see [Normalize]); other Go
// types are violations.
func (a *Action) ValidateOutput(v any) error {
	if vs := a.output.Validate(v); len(vs) > 0 {
		return &ValidationError{Action: a.Name, Output: true, Violations: vs}
	}
	return nil
}

// Run calls the action the checked way: it adds the input schema's
// top-level defaults (see [Action.WithDefaults]), validates the input, calls
// Func, normalizes the output and validates it. Validation failures are
// *[ValidationError]s, a panic in Func is recovered and returned as a
// *[PanicError], and errors from Func are returned as they are (the caller
// knows the step and the action to name).
func (a *Action) Run(ctx context.Context, in map[string]any) (out any, err error) {
	in = a.WithDefaults(in)
	if err := a.ValidateInput(in); err != nil {
		return nil, err
	}
	out, err = a.call(ctx, in)
	if err != nil {
		return nil, err
	}
	if out, err = Normalize(out); err != nil {
		return nil, fmt.Errorf("output of action %q: %w", a.Name, err)
	}
	if err := a.ValidateOutput(out); err != nil {
		return nil, err
	}
	return out, nil
}

// A PanicError is what [Action.Run] returns when Func panics. Its message
// leaves the stack out (it may reach the client); log Stack on the server.
type PanicError struct {
	Action string // the action's name
	Value  any    // what Func panicked with
	Stack  []byte // the goroutine's stack at the panic
}

func (e *PanicError) Error() string {
	return fmt.Sprintf("action %q panicked: %v", e.Action, e.Value)
}

func (a *Action) call(ctx context.Context, in map[string]any) (out any, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, &PanicError{Action: a.Name, Value: r, Stack: debug.Stack()}
		}
	}()
	return a.Func(ctx, in)
}

// WithDefaults returns in with the input schema's top-level property
// defaults added for the properties in lacks. It returns in itself when
// nothing is missing, a copy otherwise; in is never modified.
func (a *Action) WithDefaults(in map[string]any) map[string]any {
	props, _ := a.Input["properties"].(map[string]any)
	var out map[string]any
	for name, p := range props {
		ps, ok := p.(map[string]any)
		if !ok {
			continue
		}
		def, ok := ps["default"]
		if !ok {
			continue
		}
		if _, given := in[name]; given {
			continue
		}
		if out == nil {
			out = make(map[string]any, len(in)+1)
			for k, v := range in {
				out[k] = v
			}
		}
		out[name], _ = Normalize(def) // a copy: Func may modify its input
	}
	if out == nil {
		if in == nil {
			return map[string]any{}
		}
		return in
	}
	return out
}
