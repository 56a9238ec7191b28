package flow

import (
	"fmt"
	"maps"

	"github.com/flowserve/flowserve/check"
	"github.com/flowserve/flowserve/dsl"
	"github.com/flowserve/flowserve/schemas"
)

// A form property's default may be a template (dsl.File.DefaultTemplate):
// it is rendered each time the question is asked, and again when an
// accepted answer leaves the property out, from the same values, since
// expressions are pure and the run replays to the question unchanged. A
// template that is one whole expression keeps the expression's type.
// check.Types type-checks it against the property's type; a rendered value
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
// literal ones as they are, the templates (as check.Types found them) as
// *tdefault.
func (c *compiler) formDefaults(cn *cnode, fm *dsl.Form, typed *check.Form) {
	for _, prop := range fm.Properties {
		d, ok := prop.Schema["default"]
		if !ok {
			continue
		}
		if cn.defaults == nil {
			cn.defaults = map[string]any{}
		}
		t := typed.Defaults[prop.Name]
		if t == nil {
			cn.defaults[prop.Name] = d
			continue
		}
		// The form as asked has the property without its default.
		props, _ := typed.Doc["properties"].(map[string]any)
		bare, _ := props[prop.Name].(map[string]any)
		td := &tdefault{tmpl: c.template(t), prop: prop.Schema}
		td.check, _ = schemas.Compile(bare)
		cn.defaults[prop.Name] = td
	}
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
		doc = schemas.WithProperty(doc, name, prop)
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
