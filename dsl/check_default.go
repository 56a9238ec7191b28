package dsl

import (
	"strings"

	"github.com/flowserve/flowserve/check/codes"
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
// its expressions is not checked: flow.Compile compiles them, and Check
// reports a {{ without }} (form-default).
func (f *File) DefaultTemplate(prop *Property) *Template {
	t, _ := f.defaultTemplate(nil, prop)
	return t
}

// defaultTemplate reads the template of prop's default with the
// diagnostics of its template syntax; ix indexes f's tree (nil: it is
// indexed here).
func (f *File) defaultTemplate(ix *posIndex, prop *Property) (*Template, Diagnostics) {
	if f == nil || prop == nil {
		return nil, nil
	}
	if d, _ := prop.Schema["default"].(string); !strings.Contains(d, "{{") {
		return nil, nil
	}
	if ix == nil {
		ix = indexTree(f.Path, f.tree)
	}
	e, ok := ix.entry(ix.valueOfKey(prop.Pos), "default")
	if !ok || !yamlx.IsString(e.val) {
		return nil, nil
	}
	// A parser of its own, without a language: Parse does not read
	// defaults as templates, and flow.Compile reports what does not
	// compile.
	p := &parser{path: f.Path, src: f.Source, syntax: map[string][]lang.Error{}}
	t := p.template(e.val)
	return t, p.diags
}

// checkDefaultTemplate reports the template syntax of a default that is
// a template (a {{ without }}, an empty {{ }}) as form-default findings.
func (pc *propChecker) checkDefaultTemplate() {
	_, diags := pc.c.f.defaultTemplate(pc.c.ix, pc.prop)
	for _, d := range diags {
		pc.errorf(d.Pos, codes.FormDefault, "default: %s", d.Message)
	}
}
