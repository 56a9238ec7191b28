package dsl

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/flowserve/flowserve/check/codes"
	"github.com/flowserve/flowserve/internal/yamlx"
	"github.com/flowserve/flowserve/lang"
)

// templateOf reads the template value of a key, which must be a string.
func (p *parser) templateOf(e pair) *Template {
	if e.val == nil {
		return nil
	}
	if !yamlx.IsString(e.val) {
		p.errorf(p.pos(e.val), codes.BadType, "%s must be a string, not %s", e.name, yamlx.TypeName(e.val))
		return nil
	}
	return p.template(e.val)
}

// template splits the string scalar n into literal text and `{{ expr }}`
// parts, checking the syntax of each expression.
func (p *parser) template(n *yaml.Node) *Template {
	t := &Template{Pos: p.pos(n), Src: n.Value}
	if !strings.Contains(n.Value, "{{") {
		if n.Value != "" {
			t.Parts = []Part{{Text: n.Value}}
		}
		return t
	}
	vr := []rune(n.Value)
	ps := p.scalarPos(n)
	text := 0 // start of the pending literal text
	for i := 0; i+1 < len(vr); {
		if vr[i] != '{' || vr[i+1] != '{' {
			i++
			continue
		}
		end := closeBraces(vr, i+2)
		if end < 0 {
			p.errorf(ps[i], codes.BadTemplate, "{{ is never closed: add }} after the expression")
			break
		}
		if i > text {
			t.Parts = append(t.Parts, Part{Text: string(vr[text:i])})
		}
		s, e := trimSpace(vr, i+2, end)
		if s == e {
			p.errorf(ps[i], codes.BadTemplate, "empty {{ }}: put an expression between the braces")
		} else {
			t.Parts = append(t.Parts, Part{Expr: p.newExpr(vr[s:e], ps[s:e])})
		}
		i = end + 2
		text = i
	}
	if text < len(vr) {
		t.Parts = append(t.Parts, Part{Text: string(vr[text:])})
	}
	return t
}

// closeBraces returns the index of the "}}" that closes an expression
// starting at from, or -1. It skips braces and quotes inside the
// expression (`{{ {"a": "}}"} }}`) and falls back to the first "}}" when
// the expression is not balanced.
func closeBraces(vr []rune, from int) int {
	depth := 0
	var quote rune
	for j := from; j < len(vr); j++ {
		r := vr[j]
		if quote != 0 {
			switch r {
			case '\\':
				j++
			case quote:
				quote = 0
			}
			continue
		}
		switch r {
		case '"', '\'', '`':
			quote = r
		case '{':
			depth++
		case '}':
			if depth > 0 {
				depth--
			} else if j+1 < len(vr) && vr[j+1] == '}' {
				return j
			}
		}
	}
	for j := from; j+1 < len(vr); j++ {
		if vr[j] == '}' && vr[j+1] == '}' {
			return j
		}
	}
	return -1
}

// trimSpace returns the bounds of vr[s:e] without surrounding white space.
func trimSpace(vr []rune, s, e int) (int, int) {
	for s < e && unicode.IsSpace(vr[s]) {
		s++
	}
	for e > s && unicode.IsSpace(vr[e-1]) {
		e--
	}
	return s, e
}

// condition reads a bare expression (`if`, `rule`).
func (p *parser) condition(e pair) *Expr {
	n := e.val
	if n.Kind != yaml.ScalarNode || yamlx.IsNull(n) {
		p.errorf(p.pos(n), codes.BadType, "%s must be an expression, not %s", e.name, yamlx.TypeName(n))
		return nil
	}
	vr := []rune(n.Value)
	ps := p.scalarPos(n)
	s, end := trimSpace(vr, 0, len(vr))
	if s == end {
		p.errorf(p.pos(n), codes.BadExpression, "%s needs an expression", e.name)
		return nil
	}
	src := string(vr[s:end])
	if inner, ok := strings.CutPrefix(src, "{{"); ok && strings.HasSuffix(inner, "}}") {
		inner = strings.TrimSpace(strings.TrimSuffix(inner, "}}"))
		p.errorf(ps[s], codes.BadExpression, "%s is a bare expression: write %s without {{ }}", e.name, inner)
		return nil
	}
	return p.newExpr(vr[s:end], ps[s:end])
}

// newExpr makes an expression from its runes and their positions, and
// checks its syntax.
func (p *parser) newExpr(src []rune, ps []Pos) *Expr {
	e := &Expr{Src: string(src), Pos: ps[0]}
	segs := []exprSeg{{pos: ps[0]}}
	for i := 1; i < len(ps); i++ {
		prev := ps[i-1]
		if ps[i].Line != prev.Line || ps[i].Col != prev.Col+1 {
			segs = append(segs, exprSeg{off: i, pos: ps[i]})
		}
		if src[i-1] == '\n' {
			e.lines = append(e.lines, ps[i])
		}
	}
	if len(segs) > 1 {
		e.segs = segs
	}
	p.checkSyntax(e)
	return e
}

// checkSyntax reports the syntax errors of e in the file's language.
func (p *parser) checkSyntax(e *Expr) {
	if p.lang == nil {
		return
	}
	errs, ok := p.syntax[e.Src]
	if !ok {
		// One parse tells the errors and, for checkReads, the reads.
		errs, e.reads = lang.SyntaxAndReads(p.lang, e.Src)
		p.syntax[e.Src] = errs
	}
	for _, err := range errs {
		p.errorf(e.PosAt(err.Offset), codes.BadExpression, "%s", lowerFirst(err.Message))
	}
}

// lowerFirst lower-cases the first letter of a message unless the second
// is upper-case too (an acronym such as "CEL").
func lowerFirst(s string) string {
	r, size := utf8.DecodeRuneInString(s)
	next, _ := utf8.DecodeRuneInString(s[size:])
	if unicode.IsUpper(r) && !unicode.IsUpper(next) {
		return string(unicode.ToLower(r)) + s[size:]
	}
	return s
}
