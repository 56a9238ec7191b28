package actions

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

var printer = message.NewPrinter(language.English)

// A Violation is one way a value fails an action's schema.
type Violation struct {
	// Field is the path of the offending value, like "headers.accept" or
	// "entries[0].name"; a key that is not a plain word is quoted in brackets
	// (`headers["x.y"]`). It is "" for the value itself.
	Field string
	// Reason says what is wrong, lower-case, like "missing required property".
	Reason string
}

// String renders the violation as "field: reason", or just the reason at the
// root.
func (v Violation) String() string {
	if v.Field == "" {
		return v.Reason
	}
	return v.Field + ": " + v.Reason
}

// A ValidationError reports that an action's input or output does not match
// its schema. It lists every violation, sorted by field.
type ValidationError struct {
	Action     string      // the action's name
	Output     bool        // false: the input failed; true: the output did
	Violations []Violation // at least one
}

// Error renders every violation, like
// `input of action "fs.stat": path: missing required property`.
func (e *ValidationError) Error() string {
	var b strings.Builder
	if e.Output {
		b.WriteString("output")
	} else {
		b.WriteString("input")
	}
	fmt.Fprintf(&b, " of action %q: ", e.Action)
	if len(e.Violations) == 0 {
		b.WriteString("does not match its schema")
	}
	for i, v := range e.Violations {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(v.String())
	}
	return b.String()
}

// newValidationError converts a jsonschema validation failure of instance
// into a ValidationError.
func newValidationError(action string, output bool, instance any, err error) *ValidationError {
	e := &ValidationError{Action: action, Output: output}
	verr, ok := err.(*jsonschema.ValidationError)
	if !ok {
		e.Violations = []Violation{{Reason: err.Error()}}
		return e
	}
	var walk func(*jsonschema.ValidationError)
	walk = func(ve *jsonschema.ValidationError) {
		if len(ve.Causes) > 0 {
			for _, c := range ve.Causes {
				walk(c)
			}
			return
		}
		e.Violations = append(e.Violations, violations(instance, ve)...)
	}
	walk(verr)
	slices.SortFunc(e.Violations, func(a, b Violation) int {
		return cmp.Or(cmp.Compare(a.Field, b.Field), cmp.Compare(a.Reason, b.Reason))
	})
	e.Violations = slices.Compact(e.Violations)
	if len(e.Violations) == 0 {
		e.Violations = []Violation{{Reason: "does not match its schema"}}
	}
	return e
}

// violations turns one leaf error into violations (a missing-properties
// error names each property as its own field).
func violations(instance any, ve *jsonschema.ValidationError) []Violation {
	tokens := pathTokens(instance, ve.InstanceLocation)
	at := func(extra ...string) string { return joinPath(append(slices.Clone(tokens), extra...)) }
	one := func(reason string) []Violation { return []Violation{{Field: at(), Reason: reason}} }
	switch k := ve.ErrorKind.(type) {
	case *kind.Required:
		var vs []Violation
		for _, p := range k.Missing {
			vs = append(vs, Violation{Field: at(fieldToken(p)), Reason: "missing required property"})
		}
		return vs
	case *kind.AdditionalProperties:
		var vs []Violation
		for _, p := range k.Properties {
			vs = append(vs, Violation{Field: at(fieldToken(p)), Reason: "unknown property"})
		}
		return vs
	case *kind.Dependency:
		return dependentViolations(at, k.Missing, k.Prop)
	case *kind.DependentRequired:
		return dependentViolations(at, k.Missing, k.Prop)
	case *kind.InvalidJsonValue:
		return one(fmt.Sprintf("%v (Go type %T) is not a JSON value", k.Value, k.Value))
	case *kind.Type:
		return one(fmt.Sprintf("want %s, got %s", strings.Join(k.Want, " or "), k.Got))
	case *kind.Enum:
		want := make([]string, len(k.Want))
		for i, w := range k.Want {
			want[i] = display(w)
		}
		if len(want) == 1 {
			return one("must be " + want[0])
		}
		return one("must be one of " + strings.Join(want, ", "))
	case *kind.Const:
		return one("must be " + display(k.Want))
	case *kind.Minimum:
		return one("must be at least " + ratString(k.Want))
	case *kind.Maximum:
		return one("must be at most " + ratString(k.Want))
	case *kind.ExclusiveMinimum:
		return one("must be greater than " + ratString(k.Want))
	case *kind.ExclusiveMaximum:
		return one("must be less than " + ratString(k.Want))
	case *kind.MultipleOf:
		return one("must be a multiple of " + ratString(k.Want))
	case *kind.MinLength:
		return one(fmt.Sprintf("must be at least %d characters long", k.Want))
	case *kind.MaxLength:
		return one(fmt.Sprintf("must be at most %d characters long", k.Want))
	case *kind.MinItems:
		return one(fmt.Sprintf("must have at least %d items", k.Want))
	case *kind.MaxItems:
		return one(fmt.Sprintf("must have at most %d items", k.Want))
	case *kind.MinProperties:
		return one(fmt.Sprintf("must have at least %d properties", k.Want))
	case *kind.MaxProperties:
		return one(fmt.Sprintf("must have at most %d properties", k.Want))
	case *kind.Pattern:
		return one(fmt.Sprintf("must match the pattern %q", k.Want))
	case *kind.Format:
		return one(fmt.Sprintf("is not a valid %s", k.Want))
	case *kind.FalseSchema:
		return one("is not allowed")
	case *kind.UniqueItems:
		return one(fmt.Sprintf("items %d and %d are equal; they must be unique", k.Duplicates[0], k.Duplicates[1]))
	default:
		return one(ve.ErrorKind.LocalizedString(printer))
	}
}

func dependentViolations(at func(...string) string, missing []string, prop string) []Violation {
	var vs []Violation
	for _, p := range missing {
		vs = append(vs, Violation{Field: at(fieldToken(p)), Reason: fmt.Sprintf("missing property, required when %q is given", prop)})
	}
	return vs
}

// pathTokens renders a JSON pointer's tokens, using the instance to tell
// array indexes ("[0]") from object keys.
func pathTokens(instance any, loc []string) []string {
	tokens := make([]string, 0, len(loc))
	cur := instance
	for _, tok := range loc {
		switch c := cur.(type) {
		case []any:
			tokens = append(tokens, "["+tok+"]")
			if i, err := strconv.Atoi(tok); err == nil && i >= 0 && i < len(c) {
				cur = c[i]
			} else {
				cur = nil
			}
		case map[string]any:
			tokens = append(tokens, fieldToken(tok))
			cur = c[tok]
		default:
			tokens = append(tokens, fieldToken(tok))
			cur = nil
		}
	}
	return tokens
}

func display(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

func ratString(r *big.Rat) string {
	if r == nil {
		return "?"
	}
	if r.IsInt() {
		return r.Num().String()
	}
	f, _ := r.Float64()
	return strconv.FormatFloat(f, 'g', -1, 64)
}
