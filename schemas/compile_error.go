package schemas

import (
	"errors"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// CompileError is a schema document that does not compile. Err is the JSON
// Schema compiler's own error, kept so callers can read its facts;
// [ErrorText] says it on one line.
type CompileError struct {
	Err error
	doc map[string]any // the document compiled
}

// Error returns the compiler's message.
func (e *CompileError) Error() string {
	return "bad schema: " + strings.TrimPrefix(e.Err.Error(), "jsonschema: ")
}

// Unwrap returns the compiler's error.
func (e *CompileError) Unwrap() error { return e.Err }

// ErrorText says on one line what is wrong with a schema that Compile
// refused. A document that breaks the JSON Schema metaschema reads "not a
// valid JSON Schema: " followed by each violation of the metaschema, in
// the one wording of [Schema.Validate] ("properties.n.type: must be one
// of ..."), joined by "; ". Any other error reads as its message.
func ErrorText(err error) string {
	var sve *jsonschema.SchemaValidationError
	if !errors.As(err, &sve) {
		return err.Error()
	}
	var ve *jsonschema.ValidationError
	if !errors.As(sve.Err, &ve) {
		return "not a valid JSON Schema: " + sve.Err.Error()
	}
	var doc map[string]any
	var ce *CompileError
	if errors.As(err, &ce) {
		doc = ce.doc
	}
	var parts []string
	for _, v := range (wording{inst: doc}).violations(ve) {
		parts = append(parts, v.String())
	}
	return "not a valid JSON Schema: " + strings.Join(parts, "; ")
}
