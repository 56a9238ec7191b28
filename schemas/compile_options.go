package schemas

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// CompileOptions adjust [CompileWith]. The zero value compiles as
// [Compile] does.
type CompileOptions struct {
	// SelfContained refuses a $ref to any document outside the one
	// compiled (a file, a web address); the JSON Schema meta-schemas
	// still resolve. The schemas Go code declares for its actions
	// (package actions) compile this way.
	SelfContained bool
}

// CompileWith compiles doc as [Compile] does, adjusted by opts; nil opts
// is exactly Compile. The Schema it returns validates with the same
// violation wording as any other, so a value reads the same whichever way
// its schema was compiled.
func CompileWith(doc map[string]any, opts *CompileOptions) (*Schema, error) {
	if opts == nil {
		opts = &CompileOptions{}
	}
	raw, err := json.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("schema is not JSON: %w", err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("schema is not JSON: %w", err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	if opts.SelfContained {
		c.UseLoader(jsonschema.SchemeURLLoader{}) // no scheme loads: only doc and the meta-schemas
	}
	loc := docLocation
	if err := c.AddResource(loc, inst); err != nil {
		return nil, fmt.Errorf("bad schema: %w", err)
	}
	s, err := c.Compile(loc)
	if err != nil {
		return nil, &CompileError{Err: err, doc: doc}
	}
	return &Schema{doc: doc, sch: s, fast: newFastForm(doc, s)}, nil
}
