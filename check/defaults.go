package check

import (
	"github.com/flowserve/flowserve/check/codes"
	"github.com/flowserve/flowserve/dsl"
	"github.com/flowserve/flowserve/lang"
)

// A form property's default may be a template (dsl.File.DefaultTemplate):
// the engine renders it each time the question is asked. A template that
// is one whole expression keeps the expression's type; Types checks it
// against the property's type (form-default).

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

// typeDefault reports a templated default whose value cannot have its
// property's type: a whole expression of another type, or text (a
// string) for a property that is not a string. It is a form-default
// finding, as a literal default of the wrong type is.
func (t *typer) typeDefault(prop *dsl.Property, tm *dsl.Template) {
	want := propType(prop.Schema)
	if want == nil {
		return // File reports the property's type
	}
	got, pos := typed("string"), tm.Pos
	if w := tm.Whole(); w != nil {
		prg := t.info.Programs[w]
		if prg == nil {
			return // the expression does not compile: reported
		}
		got, pos = prg.Schema(), w.Pos
	}
	if defaultFits(want, got) {
		return
	}
	t.errorf(pos, codes.FormDefault, "form property %q: default must be %s, not %s", prop.Name, lang.TypeName(want), lang.TypeName(got))
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
