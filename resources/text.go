package resources

import (
	"fmt"
	"slices"
	"strings"
)

// textTemplate is a text with {{ name }} placeholders for the variables of
// a URI template. It is immutable once parsed.
type textTemplate struct {
	parts []textPart
}

// textPart is literal text, or a variable when name is set.
type textPart struct {
	lit  string
	name string
}

// varRef is a placeholder in a text, for diagnostics.
type varRef struct {
	name   string
	offset int // byte offset of its {{
}

// literal returns a template that is s as written.
func literal(s string) *textTemplate {
	return &textTemplate{parts: []textPart{{lit: s}}}
}

// parseText splits s into literal text and {{ name }} placeholders. A
// {{ without }}, an empty {{ }} and a placeholder that is not a plain
// name are errors.
func parseText(s string) (*textTemplate, []varRef, *templateError) {
	t := &textTemplate{}
	var refs []varRef
	for i := 0; ; {
		open := strings.Index(s[i:], "{{")
		if open < 0 {
			if i < len(s) {
				t.parts = append(t.parts, textPart{lit: s[i:]})
			}
			return t, refs, nil
		}
		open += i
		if open > i {
			t.parts = append(t.parts, textPart{lit: s[i:open]})
		}
		end := strings.Index(s[open+2:], "}}")
		if end < 0 {
			return nil, nil, &templateError{open, "has a {{ without a closing }}"}
		}
		inner := strings.TrimSpace(s[open+2 : open+2+end])
		switch {
		case inner == "":
			return nil, nil, &templateError{open, "has an empty {{ }}; put a variable of the URI template in it"}
		case !varName.MatchString(inner):
			return nil, nil, &templateError{open, fmt.Sprintf("has {{ %s }}, which is not a variable name: only the URI template's variables can be substituted, with no expressions", inner)}
		}
		t.parts = append(t.parts, textPart{name: inner})
		refs = append(refs, varRef{name: inner, offset: open})
		i = open + 2 + end + 2
	}
}

// expand substitutes vars, each passed through escape (nil: as it is).
func (t *textTemplate) expand(vars map[string]string, escape func(string) string) string {
	if len(t.parts) == 1 && t.parts[0].name == "" {
		return t.parts[0].lit
	}
	var b strings.Builder
	for _, p := range t.parts {
		if p.name == "" {
			b.WriteString(p.lit)
			continue
		}
		v := vars[p.name]
		if escape != nil {
			v = escape(v)
		}
		b.WriteString(v)
	}
	return b.String()
}

// constant reports whether the template has no placeholders, and its
// text.
func (t *textTemplate) constant() (string, bool) {
	switch {
	case len(t.parts) == 0:
		return "", true
	case len(t.parts) == 1 && t.parts[0].name == "":
		return t.parts[0].lit, true
	}
	return "", false
}

// equal reports whether two templates are the same text.
func (t *textTemplate) equal(o *textTemplate) bool {
	if t == nil || o == nil {
		return t == o
	}
	return slices.Equal(t.parts, o.parts)
}
