package dsl

import (
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/flowserve/flowserve/check/codes"
	"github.com/flowserve/flowserve/internal/yamlx"
)

// Auth is what a flow requires of its callers (`auth:`): the OAuth scopes
// their access token must grant. The server checks them before any round
// of a call (DESIGN §14).
type Auth struct {
	Pos Pos // the position of the auth mapping
	// Scopes are the scopes every caller needs, in file order, each once.
	Scopes []String
}

// ScopeNames returns the flow's required scopes, in file order; nil when
// it requires none.
func (f *File) ScopeNames() []string {
	if f.Auth == nil || len(f.Auth.Scopes) == 0 {
		return nil
	}
	out := make([]string, len(f.Auth.Scopes))
	for i, s := range f.Auth.Scopes {
		out[i] = s.Value
	}
	return out
}

// authKeys returns the keys of the auth mapping.
func authKeys() []string { return []string{"scopes"} }

// IsScope reports whether s is an OAuth scope token (RFC 6749 §3.3): one
// or more printable ASCII characters other than space, '"' and '\'.
func IsScope(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x21 || c > 0x7e || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// auth reads the top-level auth mapping.
func (p *parser) auth(f *File, e pair) {
	if e.val.Kind != yaml.MappingNode {
		p.errorf(p.pos(e.val), codes.BadType, "auth must be a mapping {scopes: [...]}, not %s", yamlx.TypeName(e.val))
		return
	}
	a := &Auth{Pos: p.pos(e.val)}
	seenScopes := false
	for _, ae := range p.pairs(e.val) {
		if ae.name != "scopes" {
			p.unknownKey(ae, " in auth", authKeys())
			continue
		}
		seenScopes = true
		a.Scopes = p.scopes(ae)
	}
	if !seenScopes {
		p.errorf(a.Pos, codes.MissingKey, "auth needs scopes: the OAuth scopes a caller's token must grant")
		return
	}
	f.Auth = a
}

// scopes reads auth.scopes: a non-empty list of distinct scope tokens.
func (p *parser) scopes(e pair) []String {
	if e.val.Kind != yaml.SequenceNode {
		p.errorf(p.pos(e.val), codes.BadType, "auth.scopes must be a list of scope names, not %s", yamlx.TypeName(e.val))
		return nil
	}
	if len(e.val.Content) == 0 {
		p.errorf(p.pos(e.val), codes.BadValue, "auth.scopes is empty: list the scopes a caller needs, or leave auth out")
		return nil
	}
	var out []String
	first := map[string]Pos{}
	for i, n := range e.val.Content {
		if !yamlx.IsString(n) {
			p.errorf(p.pos(n), codes.BadType, "auth.scopes[%d] must be a string, not %s", i, yamlx.TypeName(n))
			continue
		}
		s := String{Value: n.Value, Pos: p.pos(n)}
		switch at, dup := first[s.Value]; {
		case !IsScope(s.Value):
			p.errorf(s.Pos, codes.BadValue, "auth.scopes[%d] %q is not an OAuth scope: use printable ASCII without spaces, '\"' or '\\'%s",
				i, s.Value, spaceHint(s.Value))
		case dup:
			p.errorf(s.Pos, codes.DuplicateKey, "auth.scopes lists %q twice (first at %d:%d)", s.Value, at.Line, at.Col)
		default:
			first[s.Value] = s.Pos
			out = append(out, s)
		}
	}
	return out
}

// spaceHint suggests splitting a scope written with spaces into several.
func spaceHint(s string) string {
	if fields := strings.Fields(s); len(fields) > 1 {
		return " (list each scope as its own entry: [" + strings.Join(fields, ", ") + "])"
	}
	return ""
}
