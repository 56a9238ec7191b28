package dsl

import (
	"strings"

	"github.com/flowserve/flowserve/internal/yamlx"
	"github.com/flowserve/flowserve/lang"
)

// A form property's default that is a string holding {{ }} is a
// template, like every other string of a flow: the engine renders it
// when the question is asked, and a template that is one whole
// expression keeps the expression's type (an integer default for an
// integer property). Parse keeps the schema as written (the default as
// its source text, which the node's fingerprint hashes); DefaultTemplate
// reads the template from the file with the position of every
// expression.

// DefaultTemplate returns the template of prop's default, a property of
// a form of f, when the default is a string holding {{ }}; nil when it
// is not, or when the file has no tree to read it from. The syntax of
// its expressions is not checked: check.Types compiles them, and
// check.File reports a {{ without }} (form-default).
func (f *File) DefaultTemplate(prop *Property) *Template {
	t, _ := f.ReadDefaultTemplate(prop, nil)
	return t
}

// ReadDefaultTemplate is DefaultTemplate with the diagnostics of the
// template's syntax (a {{ without }}, an empty {{ }}), which check.File
// reports as form-default. ix indexes f (nil: it is indexed here).
func (f *File) ReadDefaultTemplate(prop *Property, ix *Tree) (*Template, Diagnostics) {
	if f == nil || prop == nil {
		return nil, nil
	}
	if d, _ := prop.Schema["default"].(string); !strings.Contains(d, "{{") {
		return nil, nil
	}
	if ix == nil {
		ix = f.Tree()
	}
	e, ok := ix.Entry(ix.ValueOfKey(prop.Pos), "default")
	if !ok || !yamlx.IsString(e.Value) {
		return nil, nil
	}
	// A parser of its own, without a language: Parse does not read
	// defaults as templates, and check.Types reports what does not
	// compile.
	p := &parser{path: f.Path, src: f.Source, syntax: map[string][]lang.Error{}}
	t := p.template(e.Value)
	return t, p.diags
}
