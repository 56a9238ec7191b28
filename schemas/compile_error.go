package schemas

import (
	"errors"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// CompileError is a schema document that does not compile. Err is the JSON
// Schema compiler's own error, kept so callers can read its facts;
// [ErrorText] says it on one line.
type CompileError struct {
	Err error
}

// Error returns the compiler's message.
func (e *CompileError) Error() string {
	return "bad schema: " + strings.TrimPrefix(e.Err.Error(), "jsonschema: ")
}

// Unwrap returns the compiler's error.
func (e *CompileError) Unwrap() error { return e.Err }

// ErrorText says on one line what is wrong with a schema that Compile
// refused. A document that breaks the JSON Schema metaschema reads "not a
// valid JSON Schema: " followed by each leaf of the compiler's error tree
// ("at '/properties/n/type': value must be one of ..."), joined by "; ".
// Any other error reads as its message.
func ErrorText(err error) string {
	var sve *jsonschema.SchemaValidationError
	if !errors.As(err, &sve) {
		return err.Error()
	}
	var ve *jsonschema.ValidationError
	if !errors.As(sve.Err, &ve) {
		return "not a valid JSON Schema: " + sve.Err.Error()
	}
	p := message.NewPrinter(language.English)
	var leaves []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			leaves = append(leaves, "at '"+pointer(e.InstanceLocation)+"': "+e.ErrorKind.LocalizedString(p))
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	return "not a valid JSON Schema: " + strings.Join(leaves, "; ")
}

// pointer writes a JSON Pointer (RFC 6901) of tokens.
func pointer(tokens []string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(strings.NewReplacer("~", "~0", "/", "~1").Replace(t))
	}
	return b.String()
}
