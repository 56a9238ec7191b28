package resources

import (
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"
)

// uriTemplate is an RFC 6570 level-1 URI template: literal text and
// simple string expansions {name}. It is immutable once parsed.
type uriTemplate struct {
	vars  []string       // variable names, in order
	match *regexp.Regexp // the whole template; one group per variable
}

// templateError is a problem at a byte offset of a template.
type templateError struct {
	offset int
	msg    string
}

// varName is the syntax of a template variable: an identifier, so that
// the same name works in {name} and in {{ name }}.
var varName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// scheme is the scheme an absolute URI (or URI template) starts with.
var scheme = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*:`)

// valueChars matches one expanded value of a simple expansion: unreserved
// characters and percent-encoded octets (and commas, which the go-sdk
// also lets through), at least one.
const valueChars = `((?:[A-Za-z0-9._~,-]|%[0-9A-Fa-f]{2})+)`

// parseURITemplate parses a level-1 URI template. Every variable must
// have a name of its own, adjacent variables need literal text between
// them (or a read could not tell where one ends), and the literal text
// must be what RFC 6570 allows, which is also what the go-sdk accepts.
func parseURITemplate(s string) (*uriTemplate, *templateError) {
	if !scheme.MatchString(s) {
		return nil, &templateError{0, "must be absolute: start with a scheme such as test: or https:"}
	}
	t := &uriTemplate{}
	var re strings.Builder
	re.WriteString("^")
	seen := map[string]bool{}
	lastVar := -1 // end offset of the last variable, to catch {a}{b}
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '{':
			end := strings.IndexByte(s[i:], '}')
			if end < 0 {
				return nil, &templateError{i, "has a { without a closing }"}
			}
			expr := s[i+1 : i+end]
			if err := checkExpression(expr); err != "" {
				return nil, &templateError{i, err}
			}
			if seen[expr] {
				return nil, &templateError{i, fmt.Sprintf("uses the variable {%s} twice; give each part its own name", expr)}
			}
			if lastVar == i {
				return nil, &templateError{i, fmt.Sprintf("has two variables with nothing between them before {%s}; separate them with literal text such as /", expr)}
			}
			seen[expr] = true
			t.vars = append(t.vars, expr)
			re.WriteString(valueChars)
			i += end + 1
			lastVar = i
		case c == '}':
			return nil, &templateError{i, "has a } without an opening {"}
		case c == '%':
			if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
				return nil, &templateError{i, "has a % that does not start a percent-encoded octet (%XX)"}
			}
			re.WriteString(regexp.QuoteMeta(s[i : i+3]))
			i += 3
		default:
			r, size := utf8.DecodeRuneInString(s[i:])
			if !isLiteral(r) {
				return nil, &templateError{i, fmt.Sprintf("has the character %q, which a URI template cannot hold; percent-encode it (%%XX)", r)}
			}
			re.WriteString(regexp.QuoteMeta(s[i : i+size]))
			i += size
		}
	}
	re.WriteString("$")
	t.match = regexp.MustCompile(re.String())
	return t, nil
}

// checkExpression checks the inside of a {…}: one variable name, with no
// operator, list or modifier (those are RFC 6570 levels 2 to 4).
func checkExpression(expr string) string {
	switch {
	case expr == "":
		return "has an empty {}"
	case strings.ContainsAny(expr[:1], "+#./;?&=,!@|"):
		return fmt.Sprintf("uses the operator %q in {%s}; only level-1 expressions {name} are supported", expr[:1], expr)
	case strings.Contains(expr, ","):
		return fmt.Sprintf("lists several variables in {%s}; only one variable per {} is supported", expr)
	case strings.ContainsAny(expr, ":*"):
		return fmt.Sprintf("uses a modifier in {%s}; only plain {name} expressions are supported", expr)
	case !varName.MatchString(expr):
		return fmt.Sprintf("has the variable name %q; names are letters, digits and _, not starting with a digit", expr)
	}
	return ""
}

// isLiteral reports whether r may appear as itself in a URI template's
// literal text: RFC 6570 literals, limited to ASCII (other characters
// must be percent-encoded, which keeps the set within what every
// template library accepts).
func isLiteral(r rune) bool {
	if r <= ' ' || r >= 0x7f {
		return false
	}
	return !strings.ContainsRune("\"%<>\\^`{|}", r)
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// Match returns the variables of a URI the template expands to, decoded,
// or false when the URI does not match. A value that decodes to nothing,
// or to text that is not UTF-8, does not match.
func (t *uriTemplate) Match(uri string) (map[string]string, bool) {
	m := t.match.FindStringSubmatch(uri)
	if m == nil {
		return nil, false
	}
	vars := make(map[string]string, len(t.vars))
	for i, name := range t.vars {
		v, err := url.PathUnescape(m[i+1])
		if err != nil || v == "" || !utf8.ValidString(v) {
			return nil, false
		}
		vars[name] = v
	}
	return vars, true
}

// Has reports whether the template has the variable name.
func (t *uriTemplate) Has(name string) bool { return slices.Contains(t.vars, name) }
