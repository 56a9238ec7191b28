package dsl

import (
	"slices"
	"strings"
	"unicode"

	"go.yaml.in/yaml/v3"

	"github.com/flowserve/flowserve/check/codes"
	"github.com/flowserve/flowserve/internal/yamlx"
	"github.com/flowserve/flowserve/lang"
)

// A flow declares the settings it reads under `vars:` and the secrets its
// steps need under `secrets:`, each a mapping of names to
// {description}. The values are the server's (its environment or files),
// never the flow file's, which is served to clients and checked into git.
// Expressions read them as vars.NAME and secrets.NAME; check.Types types both
// as objects of the declared names, so an undeclared name is a type error
// with a did-you-mean.
//
// A secret may only be read in a step's with values: what they render goes
// to the step's action alone. Every other place an expression can be
// (messages, URLs, form defaults, rules, conditions, set values, returns,
// fails, sample messages) reaches the client or decides what does, so
// reading a secret there is a secret-outside-with error.

// settings reads the declarations of a vars or secrets key; what is "var"
// or "secret".
func (p *parser) settings(e pair, what string) []*Setting {
	if e.val.Kind != yaml.MappingNode {
		p.errorf(p.pos(e.val), codes.BadType, "%s must be a mapping of names to {description: ...}, not %s", e.name, yamlx.TypeName(e.val))
		return nil
	}
	var out []*Setting
	for _, se := range p.pairs(e.val) {
		s := &Setting{Name: se.name, Pos: p.pos(se.key)}
		if !idPattern.MatchString(se.name) {
			p.errorf(s.Pos, codes.BadName, "%s name %q must match %s (lower-case letters, digits and _)", what, se.name, idPattern)
		}
		p.setting(s, se, what)
		out = append(out, s)
	}
	return out
}

// setting reads the value of one declaration: null or {description}.
func (p *parser) setting(s *Setting, e pair, what string) {
	switch {
	case yamlx.IsNull(e.val):
		return
	case e.val.Kind != yaml.MappingNode:
		env := "FLOWSERVE_VAR_"
		if what == "secret" {
			env = "FLOWSERVE_SECRET_"
		}
		p.errorf(p.pos(e.val), codes.BadType, "%s %s must be a mapping {description: ...}, not %s: its value comes from the server ($%s%s or --%ss), not from the flow file",
			what, s.Name, yamlx.TypeName(e.val), env, strings.ToUpper(s.Name), what)
		return
	}
	for _, de := range p.pairs(e.val) {
		if de.name != "description" {
			p.unknownKey(de, " in the declaration of "+what+" "+s.Name, []string{"description"})
			continue
		}
		if yamlx.IsNull(de.val) {
			continue // as an empty description
		}
		if d, ok := p.str(de); ok {
			s.Description = d
		}
	}
}

// ExprUse is an expression of a flow with the place it is in.
type ExprUse struct {
	Expr *Expr
	// Place names where the expression is, for messages: "an ask
	// message", "a branch condition".
	Place string
	// InWith reports that the expression is in a step's with values,
	// the one place secrets may be read.
	InWith bool
}

// exprUses returns every expression of f, with its place, in file order
// (the questions of an all node after it). Form defaults that are
// templates count: they are sent to the client.
func (p *parser) exprUses(f *File) []ExprUse {
	u := &uses{p: p, f: f}
	for n := range f.Walk() {
		u.node(n)
	}
	return u.out
}

// Exprs returns every expression of f, with its place, in file order
// (the questions of an all node after the node), form defaults that are
// templates among them.
func (f *File) Exprs() []ExprUse {
	return exprParser(f).exprUses(f)
}

// NodeExprs returns the expressions of node n of f, with their places,
// in the order Exprs gives them: its message, url, validate rules, form
// defaults that are templates, sample messages, with values, branch
// conditions, set values, return and fail texts (not an approval's to
// and notify, nor an all node's questions, which are nodes of their
// own). tree indexes f (nil: it is built when a form default needs it).
func (f *File) NodeExprs(n *Node, tree *Tree) []ExprUse {
	u := &uses{p: exprParser(f), f: f, ix: tree}
	u.node(n)
	return u.out
}

// Exprs returns the expressions of t's parts in order; none for nil.
func (t *Template) Exprs() []*Expr {
	if t == nil {
		return nil
	}
	var out []*Expr
	for _, part := range t.Parts {
		if part.Expr != nil {
			out = append(out, part.Expr)
		}
	}
	return out
}

// Exprs returns the expressions of v in order: its template's, then its
// map's values' and its list's items', each with theirs; none for nil.
func (v *Value) Exprs() []*Expr {
	if v == nil {
		return nil
	}
	out := v.Template.Exprs()
	for _, c := range slices.Concat(v.Map, v.List) {
		out = append(out, c.Exprs()...)
	}
	return out
}

// exprParser returns a parser of f's templates that reports nothing to
// Parse: what it reads was read (and reported) once already.
func exprParser(f *File) *parser {
	return &parser{path: f.Path, src: f.Source, syntax: map[string][]lang.Error{}}
}

// uses collects the expressions of a file.
type uses struct {
	p   *parser
	f   *File
	ix  *Tree // built when a form default needs it
	out []ExprUse
}

func (u *uses) expr(e *Expr, place string, inWith bool) {
	if e != nil {
		u.out = append(u.out, ExprUse{Expr: e, Place: place, InWith: inWith})
	}
}

func (u *uses) template(t *Template, place string, inWith bool) {
	if t == nil {
		return
	}
	for _, part := range t.Parts {
		u.expr(part.Expr, place, inWith)
	}
}

func (u *uses) value(v *Value, place string, inWith bool) {
	if v == nil {
		return
	}
	u.template(v.Template, place, inWith)
	for _, c := range slices.Concat(v.Map, v.List) {
		u.value(c, place, inWith)
	}
}

func (u *uses) messages(ms []*Message, place string) {
	for _, m := range ms {
		u.template(m.Text, place, false)
		u.value(m.Content, place, false)
	}
}

// node collects the expressions of one node.
func (u *uses) node(n *Node) {
	if a := n.Ask; a != nil {
		u.template(a.Message, "an ask message", false)
		u.template(a.URL, "an ask's url", false)
		for _, r := range a.Validate {
			u.expr(r.Rule, "a validate rule", false)
			u.template(r.Message, "a validate message", false)
		}
		u.defaults(a.Form)
		if s := a.Sample; s != nil {
			u.messages(s.Messages, "a sample message")
			u.template(s.System, "a sample's system prompt", false)
		}
	}
	if s := n.Step; s != nil {
		u.value(s.With, "a step's with", true)
	}
	if b := n.Branch; b != nil {
		for _, c := range b.Cases {
			u.expr(c.If, "a branch condition", false)
		}
	}
	if s := n.Set; s != nil {
		for _, b := range s.Bindings {
			u.value(b.Value, "a set value", false)
		}
	}
	if r := n.Return; r != nil {
		u.template(r.Text, "a return", false)
		u.value(r.Structured, "a return", false)
		for _, c := range r.Content {
			u.value(c, "a return", false)
		}
		u.template(r.Description, "a return", false)
		u.messages(r.Messages, "a return")
	}
	u.template(n.Fail, "a fail message", false)
}

// defaults collects the expressions of the form's string defaults that
// are templates, reading them from the file's tree.
func (u *uses) defaults(fm *Form) {
	if fm == nil {
		return
	}
	for _, prop := range fm.Properties {
		d, _ := prop.Schema["default"].(string)
		if !strings.Contains(d, "{{") {
			continue
		}
		if u.ix == nil {
			u.ix = u.f.Tree()
		}
		e, ok := u.ix.Entry(u.ix.ValueOfKey(prop.Pos), "default")
		if !ok || !yamlx.IsString(e.Value) {
			continue
		}
		// A parser of its own: the default's syntax is not Parse's to
		// report.
		tp := &parser{path: u.p.path, src: u.p.src, text: u.p.text, syntax: map[string][]lang.Error{}}
		u.template(tp.template(e.Value), "a form default", false)
	}
}

// checkSecrets reports each expression outside a step's with values that
// reads secrets. The language's type checker tells: an expression reads
// secrets exactly when it compiles with every name of the flow in scope
// and stops compiling without secrets. (A string that spells "secrets",
// or a comprehension variable of that name, is not a read.) Expressions
// that do not compile at all are left to check.Types.
func (p *parser) checkSecrets(f *File) {
	if len(f.Secrets) == 0 || p.lang == nil {
		return
	}
	var suspects []ExprUse
	for _, u := range p.exprUses(f) {
		if !u.InWith && strings.Contains(u.Expr.Src, "secrets") {
			suspects = append(suspects, u)
		}
	}
	if len(suspects) == 0 {
		return
	}
	var all, public []lang.Var
	for _, name := range scopeNames(f) {
		all = append(all, lang.Var{Name: name})
		if name != "secrets" {
			public = append(public, lang.Var{Name: name})
		}
	}
	withSecrets, err := p.lang.NewEnv(all, lang.Options{})
	if err != nil {
		return // check.Types reports an environment it cannot build
	}
	withoutSecrets, err := p.lang.NewEnv(public, lang.Options{})
	if err != nil {
		return
	}
	for _, u := range suspects {
		if _, errs := withSecrets.Compile(u.Expr.Src, false); len(errs) > 0 {
			continue
		}
		_, errs := withoutSecrets.Compile(u.Expr.Src, false)
		if len(errs) == 0 {
			continue
		}
		off := errs[0].Offset
		sel := selection(u.Expr.Src, off)
		p.errorSpan(u.Expr.PosAt(off), exprSpan(u.Expr, off, sel), codes.SecretOutsideWith,
			"%s is read in %s; secrets may only be read in a step's with values, which go to the step's action alone",
			sel, u.Place)
	}
}

// scopeNames returns every name an expression of f can read: the
// reserved names, the ids and the set names (those that are names).
func scopeNames(f *File) []string {
	names := reservedNames()
	add := func(name string) {
		if idPattern.MatchString(name) {
			names = append(names, name)
		}
	}
	for n := range f.Walk() {
		add(n.ID)
		if n.Set != nil {
			for _, b := range n.Set.Bindings {
				add(b.Name)
			}
		}
	}
	return names
}

// selection returns the chain of names (secrets.token) that starts at
// rune offset off of src, for messages.
func selection(src string, off int) string {
	rs := []rune(src)
	if off < 0 || off >= len(rs) {
		return "secrets"
	}
	end := off
	for end < len(rs) && (rs[end] == '_' || rs[end] == '.' || unicode.IsLetter(rs[end]) || unicode.IsDigit(rs[end])) {
		end++
	}
	s := strings.TrimRight(string(rs[off:end]), ".")
	if !strings.HasPrefix(s, "secrets") {
		return "secrets"
	}
	return s
}
