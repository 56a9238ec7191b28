package actions

import (
	"fmt"
	"strings"

	"github.com/flowserve/flowserve/schemas"
)

// A Violation is one way a value fails an action's schema. It is package
// schemas' own type, and its wording is schemas', so a bad `with` value
// reads the same here as anywhere else a flowserve schema is checked.
// Field is the JSON path of the offending value ("headers.accept",
// "entries[0].name", `headers["x.y"]`), "" for the value itself; Reason
// says what is wrong, lower-case, like "is required".
type Violation = schemas.Violation

// A ValidationError reports that an action's input or output does not match
// its schema. It lists every violation, sorted by field.
type ValidationError struct {
	Action     string      // the action's name
	Output     bool        // false: the input failed; true: the output did
	Violations []Violation // at least one
}

// Error renders every violation, like
// `input of action "fs.stat": path: is required`.
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
