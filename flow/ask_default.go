package flow

import (
	"fmt"
	"maps"

	"github.com/flowserve/flowserve/check/codes"
	"github.com/flowserve/flowserve/dsl"
	"github.com/flowserve/flowserve/lang"
	"github.com/flowserve/flowserve/schemas"
)

// A form property's default may be a template (dsl.File.DefaultTemplate):
// it is rendered each time the question is asked, and again when an
// accepted answer leaves the property out, from the same values, since
// expressions are pure and the run replays to the question unchanged. A
// template that is one whole expression keeps the expression's type.
// Compile type-checks it against the property's type; a rendered value
// that still breaks the property's rules (a bound, a format, a choice),
// or an expression that fails, leaves the default out: the question is
// asked without it rather than with a default every accept would refuse.

// tdefault is a form property's default that is a template. A form's
// cnode keeps it in its defaults, in place of a literal default.
type tdefault struct {
	tmpl  *ctemplate
	prop  map[string]any  // the property's schema, as written
	check *schemas.Schema // the property's schema, which a rendered default must pass
}

// render renders the default; ok is false when it fails or breaks the
// property's rules.
func (td *tdefault) render(vars map[string]any) (v any, ok bool) {
	v, err := td.tmpl.value(vars)
	if err != nil || td.check == nil {
		return nil, false
	}
	v = normalize(cloneJSON(v), td.prop)
	if len(td.check.Validate(v)) > 0 {
		return nil, false
	}
	return v, true
}

// formDefaults compiles the defaults of a form into cn.defaults: the
// literal ones as they are, the templates as *tdefault. It returns the
// form's requested schema as sent when no default is rendered: without
// the templated defaults (the form's fingerprint still hashes them as
// written).
func (c *compiler) formDefaults(cn *cnode, fm *dsl.Form) map[string]any {
	doc := fm.Schema
	for _, prop := range fm.Properties {
		d, ok := prop.Schema["default"]
		if !ok {
			continue
		}
		if cn.defaults == nil {
			cn.defaults = map[string]any{}
		}
		t := c.file.DefaultTemplate(prop)
		if !hasExpr(t) {
			cn.defaults[prop.Name] = d
			continue
		}
		td := &tdefault{tmpl: c.template(t), prop: prop.Schema}
		bare := maps.Clone(prop.Schema)
		delete(bare, "default")
		td.check, _ = schemas.Compile(bare)
		c.typeDefault(prop, t, td.tmpl)
		cn.defaults[prop.Name] = td
		doc = withProperty(doc, prop.Name, bare)
	}
	return doc
}

// hasExpr reports whether t has an expression.
func hasExpr(t *dsl.Template) bool {
	if t == nil {
		return false
	}
	for _, p := range t.Parts {
		if p.Expr != nil {
			return true
		}
	}
	return false
}

// withProperty returns the form schema doc with the schema of property
// name replaced, sharing what it does not change.
func withProperty(doc map[string]any, name string, schema map[string]any) map[string]any {
	out := maps.Clone(doc)
	props, _ := doc["properties"].(map[string]any)
	props = maps.Clone(props)
	props[name] = schema
	out["properties"] = props
	return out
}

// typeDefault reports a templated default whose value cannot have its
// property's type: a whole expression of another type, or text (a
// string) for a property that is not a string. It is a form-default
// finding, as a literal default of the wrong type is.
func (c *compiler) typeDefault(prop *dsl.Property, t *dsl.Template, ct *ctemplate) {
	want := propType(prop.Schema)
	if want == nil {
		return // Check reports the property's type
	}
	got, pos := typed("string"), t.Pos
	if w := t.Whole(); w != nil {
		if ct.whole == nil || ct.whole.prg == nil {
			return // the expression does not compile: reported
		}
		got, pos = ct.whole.prg.Schema(), w.Pos
	}
	if defaultFits(want, got) {
		return
	}
	c.errorf(pos, codes.FormDefault, "form property %q: default must be %s, not %s", prop.Name, lang.TypeName(want), lang.TypeName(got))
}

// propType returns the schema of the values a form property's type
// allows (a multi-select is a list of strings), or nil when its type is
// not one a form takes.
func propType(prop map[string]any) map[string]any {
	switch t, _ := prop["type"].(string); t {
	case "string", "number", "integer", "boolean":
		return typed(t)
	case "array":
		return map[string]any{"type": "array", "items": typed("string")}
	}
	return nil
}

// defaultFits reports whether a value of the schema got may be the
// default of a property of the type want: an integer fits a number, and
// a dynamic value fits anything (it is checked when rendered).
func defaultFits(want, got map[string]any) bool {
	if want["type"] == "number" && got["type"] == "integer" {
		return true
	}
	return lang.Assignable(want, got)
}

// formDefaults returns the defaults of cn's form at this point of the
// run: the literal ones, and the templated ones rendered (those that
// fail or break their property's rules left out).
func (r *runner) formDefaults(cn *cnode) map[string]any {
	var out map[string]any
	for name, d := range cn.defaults {
		td, ok := d.(*tdefault)
		if !ok {
			continue
		}
		if out == nil {
			out = maps.Clone(cn.defaults)
		}
		delete(out, name)
		if v, ok := td.render(r.vars); ok {
			out[name] = v
		}
	}
	if out == nil {
		return cn.defaults
	}
	return out
}

// formSchema returns the requested schema of cn's form and its JSON: the
// one compiled, or, when the form has templated defaults, a copy with
// each rendered (or left out).
func (r *runner) formSchema(cn *cnode) (map[string]any, []byte, error) {
	doc, rendered := cn.formDoc, false
	for name, d := range cn.defaults {
		td, ok := d.(*tdefault)
		if !ok {
			continue
		}
		v, ok := td.render(r.vars)
		if !ok {
			continue
		}
		rendered = true
		props, _ := doc["properties"].(map[string]any)
		prop, _ := props[name].(map[string]any)
		prop = maps.Clone(prop)
		prop["default"] = v
		doc = withProperty(doc, name, prop)
	}
	if !rendered {
		return doc, cn.formJSON, nil
	}
	b, err := marshal(doc)
	if err != nil {
		return nil, nil, fmt.Errorf("encode the form of %q: %w", cn.n.ID, err)
	}
	return doc, b, nil
}
