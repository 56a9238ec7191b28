package flow

import (
	"fmt"
	"strings"

	"github.com/flowserve/flowserve/dsl"
	"github.com/flowserve/flowserve/lang"
)

// cexpr is a compiled expression with its source, for messages.
type cexpr struct {
	src *dsl.Expr
	prg lang.Program
}

func (e *cexpr) eval(vars map[string]any) (any, error) {
	v, err := e.prg.Eval(vars)
	if err != nil {
		return nil, &ExprError{Pos: e.src.Pos, Src: e.src.Src, Err: err}
	}
	return v, nil
}

func (e *cexpr) test(vars map[string]any) (bool, error) {
	v, err := e.eval(vars)
	if err != nil {
		return false, err
	}
	b, ok := v.(bool)
	if !ok {
		return false, &ExprError{Pos: e.src.Pos, Src: e.src.Src, Err: fmt.Errorf("the condition is %s, not a boolean", lang.ValueTypeName(v))}
	}
	return b, nil
}

// ctemplate is a compiled template.
type ctemplate struct {
	parts []cpart
	whole *cexpr // set when the template is exactly one expression
	size  int    // the length of its text parts, plus some for each expression
}

type cpart struct {
	text string
	expr *cexpr
}

// render evaluates the template as text.
func (t *ctemplate) render(vars map[string]any) (string, error) {
	if t == nil {
		return "", nil
	}
	if len(t.parts) == 1 && t.parts[0].expr == nil {
		return t.parts[0].text, nil
	}
	var b strings.Builder
	b.Grow(t.size)
	for _, p := range t.parts {
		if p.expr == nil {
			b.WriteString(p.text)
			continue
		}
		v, err := p.expr.eval(vars)
		if err != nil {
			return "", err
		}
		b.WriteString(text(v))
	}
	return b.String(), nil
}

// value evaluates the template keeping the type of a whole-value template.
func (t *ctemplate) value(vars map[string]any) (any, error) {
	if t.whole != nil {
		return t.whole.eval(vars)
	}
	return t.render(vars)
}

// cvalue is a compiled dsl.Value.
type cvalue struct {
	kind    dsl.ValueKind
	literal any
	tmpl    *ctemplate
	keys    []string
	vals    []*cvalue
}

// eval builds the value.
func (v *cvalue) eval(vars map[string]any) (any, error) {
	if v == nil {
		return nil, nil
	}
	switch v.kind {
	case dsl.ValueLiteral:
		return v.literal, nil
	case dsl.ValueTemplate:
		return v.tmpl.value(vars)
	case dsl.ValueMap:
		m := make(map[string]any, len(v.keys))
		for i, k := range v.keys {
			e, err := v.vals[i].eval(vars)
			if err != nil {
				return nil, err
			}
			m[k] = e
		}
		return m, nil
	case dsl.ValueList:
		l := make([]any, len(v.vals))
		for i, c := range v.vals {
			e, err := c.eval(vars)
			if err != nil {
				return nil, err
			}
			l[i] = e
		}
		return l, nil
	}
	return nil, nil
}

// expr returns the program check.Types compiled e to. One it did not
// compile (a place of the file Types does not walk) is recorded
// (notTyped): Compile then gives no Program.
func (c *compiler) expr(e *dsl.Expr) *cexpr {
	if e == nil {
		return nil
	}
	c.principal = c.principal || strings.Contains(e.Src, varPrincipal)
	prg := c.info.Programs[e]
	if prg == nil {
		c.notTyped(e.Pos, fmt.Sprintf("the expression %q", e.Src))
	}
	return &cexpr{src: e, prg: prg}
}

// cond returns the program of a condition, which check.Types compiled
// to a boolean.
func (c *compiler) cond(e *dsl.Expr) *cexpr { return c.expr(e) }

func (c *compiler) template(t *dsl.Template) *ctemplate {
	if t == nil {
		return nil
	}
	ct := &ctemplate{}
	for _, p := range t.Parts {
		if p.Expr == nil {
			ct.parts = append(ct.parts, cpart{text: p.Text})
			continue
		}
		ct.parts = append(ct.parts, cpart{expr: c.expr(p.Expr)})
	}
	if len(ct.parts) == 0 {
		ct.parts = []cpart{{text: ""}}
	}
	for _, p := range ct.parts {
		ct.size += len(p.text)
		if p.expr != nil {
			ct.size += 16
		}
	}
	if w := t.Whole(); w != nil {
		ct.whole = ct.parts[0].expr
	}
	return ct
}

func (c *compiler) value(v *dsl.Value) *cvalue {
	if v == nil {
		return nil
	}
	cv := &cvalue{kind: v.Kind, literal: v.Literal}
	switch v.Kind {
	case dsl.ValueTemplate:
		cv.tmpl = c.template(v.Template)
	case dsl.ValueMap:
		cv.keys = v.Keys
		for _, e := range v.Map {
			cv.vals = append(cv.vals, c.value(e))
		}
	case dsl.ValueList:
		for _, e := range v.List {
			cv.vals = append(cv.vals, c.value(e))
		}
	}
	return cv
}
