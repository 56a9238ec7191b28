package dsl

import (
	"crypto/sha256"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/flowserve/flowserve/check/codes"
	"github.com/flowserve/flowserve/internal/yamlx"
	"github.com/flowserve/flowserve/lang"
	"go.yaml.in/yaml/v3"
)

// idPattern is the syntax of node ids and set names.
var idPattern = regexp.MustCompile(`^[a-z_][a-z0-9_]*$`)

// IsName reports whether s is a valid node id, set name, or var or secret
// name: lower-case letters, digits and _, not starting with a digit.
func IsName(s string) bool { return idPattern.MatchString(s) }

// The names always in scope in expressions, besides a flow's ids and set
// names, which cannot take them (reserved-name). vars and secrets hold
// the values a flow declares under its vars and secrets keys (when it
// declares any); principal is the caller.
const (
	VarInput     = "input"
	VarRun       = "run"
	VarClient    = "client"
	VarPrincipal = "principal"
	VarError     = "error"
	VarVars      = "vars"
	VarSecrets   = "secrets"
)

// reservedNames returns the names always in scope in expressions, in the
// order of the scope (check.Scope).
func reservedNames() []string {
	return []string{VarInput, VarRun, VarClient, VarPrincipal, VarError, VarVars, VarSecrets}
}

// parser holds the state of one Parse call.
type parser struct {
	path string
	src  []byte
	text *source // built on first use

	lang   lang.Language // nil when the language is unknown: no syntax checks
	syntax map[string][]lang.Error

	refs  []*Ref
	diags Diagnostics
	// prompt is set when the file says `kind: prompt`.
	prompt bool
}

// Parse reads a flow file from src. path is used in every position and
// gives the default tool name (see DefaultName); the file is not read.
//
// It checks the file's structure: YAML syntax, keys and their types, node
// kinds, ids and references, template syntax and the syntax of every
// expression, and that secrets are read only in a step's with values (see
// the package documentation). Semantic checks (types of expressions,
// action names, MCP form rules) are left to Check and lint. Every problem is a Diagnostic
// with a position, and the diagnostics are sorted.
//
// When the diagnostics hold errors, the returned File is partial: a node
// may have Kind 0 (no kind could be read; it is kept so that indexes and
// references stay right), and fields may be nil, though the field of a
// node's Kind (Ask, Step…) is always set. Entries of the node list that
// are not mappings are left out. The File is nil only when the YAML itself
// cannot be read. Parse never panics.
func Parse(path string, src []byte) (*File, Diagnostics) {
	p := &parser{
		path:   path,
		src:    src,
		syntax: map[string][]lang.Error{},
	}
	f := p.file()
	if f != nil {
		p.checkSecrets(f)
	}
	ds := p.finish()
	if f != nil {
		f.partial = ds.HasErrors()
	}
	return f, ds
}

// finish removes repeated diagnostics (a mapping reached through several
// aliases is checked more than once) and sorts them.
func (p *parser) finish() Diagnostics {
	ds := p.diags
	ds.Sort()
	ds = ds.Compact()
	if len(ds) == 0 {
		return nil
	}
	return ds
}

// source returns the file's lines, splitting them on first use.
func (p *parser) source() *source {
	if p.text == nil {
		p.text = newSource(p.src)
	}
	return p.text
}

// DefaultName returns the tool name of a flow file that does not set one:
// the file's base name without its .yaml or .yml extension.
func DefaultName(path string) string {
	if path == "" {
		return ""
	}
	base := filepath.Base(path)
	for _, ext := range []string{".yaml", ".yml"} {
		if name, ok := strings.CutSuffix(base, ext); ok && name != "" {
			return name
		}
	}
	return base
}

// file parses the whole file.
func (p *parser) file() *File {
	root, ok := p.reader().Read(p.src, "a flow file")
	if !ok {
		return nil
	}
	f := &File{
		Path:        p.path,
		Source:      p.src,
		Hash:        sha256.Sum256(p.src),
		Name:        String{Value: DefaultName(p.path), Pos: p.at(1, 1)},
		Expressions: String{Value: "cel", Pos: p.at(1, 1)},
		Kind:        String{Value: FlowTool, Pos: p.at(1, 1)},
		ByID:        map[string]*Node{},
		tree:        root,
		Version:     versionOf(root),
	}
	p.lang, _ = lang.Lookup("cel")
	if root == nil || yamlx.IsNull(root) {
		pos := p.at(1, 1)
		if root != nil {
			pos = p.pos(root)
		}
		p.errorf(pos, codes.EmptyFile, "the file is empty; a flow needs at least a nodes list")
		return f
	}
	if root.Kind != yaml.MappingNode {
		p.errorf(p.pos(root), codes.BadType, "a flow file must be a mapping, not %s", yamlx.TypeName(root))
		return f
	}
	p.top(f, root)
	return f
}

// YAMLError returns the diagnostic (code bad-yaml) for err, the error
// yaml.v3 gave decoding src, the file at path: at the line and column of
// the mistake (see yamlx.Syntax).
func YAMLError(path string, src []byte, err error) Diagnostic {
	p := &parser{path: path, src: src}
	p.problem(yamlx.Syntax(src, err))
	return p.diags[0]
}

// topKeys returns the keys of the top-level mapping.
func TopKeys() []string {
	return []string{"name", "title", "description", "kind", "task", "expressions", "auth", "input", "output", "vars", "secrets", "expose", "nodes"}
}

// top reads the top-level mapping.
func (p *parser) top(f *File, root *yaml.Node) {
	entries := p.pairs(root)
	// The language comes first: every expression depends on it.
	for _, e := range entries {
		if e.name == "expressions" && !yamlx.IsNull(e.val) {
			p.expressions(f, e)
		}
		// So is the kind: what a return holds depends on it.
		if e.name == "kind" && !yamlx.IsNull(e.val) {
			p.flowKind(f, e)
		}
	}
	var nodes *pair
	for i, e := range entries {
		if yamlx.IsNull(e.val) && e.name != "nodes" && slices.Contains(TopKeys(), e.name) {
			continue // an empty optional key: its default applies
		}
		switch e.name {
		case "name":
			if s, ok := p.str(e); ok {
				if s.Value == "" {
					p.errorf(s.Pos, codes.BadValue, "name must not be empty")
				} else {
					f.Name = s
				}
			}
		case "title":
			if s, ok := p.str(e); ok {
				f.Title = s
			}
		case "description":
			if s, ok := p.str(e); ok {
				f.Description = s
			}
		case "expressions", "kind":
		case "task":
			p.taskMode(f, e)
		case "auth":
			p.auth(f, e)
		case "expose":
			if v, ok := p.reader().Bool(e.val, e.name); ok {
				f.Private, f.ExposePos = !v, p.pos(e.key)
			}
		case "input":
			f.Input = p.schema(e)
		case "output":
			f.Output = p.schema(e)
		case "vars":
			f.Vars = p.settings(e, "var")
		case "secrets":
			f.Secrets = p.settings(e, "secret")
		case "nodes":
			nodes = &entries[i]
		default:
			p.unknownKey(e, " at the top level", TopKeys())
		}
	}
	if nodes == nil {
		p.errorf(p.pos(root), codes.MissingKey, "a flow needs a nodes list")
		return
	}
	p.nodes(f, *nodes)
}

// expressions reads the file's expression language.
func (p *parser) expressions(f *File, e pair) {
	s, ok := p.str(e)
	if !ok {
		return
	}
	f.Expressions = s
	if l, ok := lang.Lookup(s.Value); ok && s.Value != "" {
		p.lang = l
		return
	}
	p.lang = nil
	names := lang.Names()
	p.unknownf(s.Pos, s.Value, names, codes.UnknownLanguage, "unknown expression language %q (supported: %s)%s",
		s.Value, strings.Join(names, ", "))
}

// flowKinds returns the values of the top-level kind key.
func flowKinds() []string { return []string{FlowTool, FlowPrompt} }

// flowKind reads what the flow is served as: a tool or a prompt.
func (p *parser) flowKind(f *File, e pair) {
	s, ok := p.str(e)
	if !ok {
		return
	}
	if !slices.Contains(flowKinds(), s.Value) {
		p.unknownf(s.Pos, s.Value, flowKinds(), codes.BadValue, "kind must be %s, not %q%s",
			strings.Join(flowKinds(), " or "), s.Value)
		return
	}
	f.Kind = s
	p.prompt = s.Value == FlowPrompt
}

// taskMode reads when the flow may run as a task.
func (p *parser) taskMode(f *File, e pair) {
	s, ok := p.str(e)
	if !ok {
		return
	}
	if !slices.Contains(taskModes(), s.Value) {
		p.unknownf(s.Pos, s.Value, taskModes(), codes.BadValue, "task must be never, auto or required, not %q%s", s.Value)
		return
	}
	f.Task = s
}

// schema reads a JSON Schema written in YAML; null means absent.
func (p *parser) schema(e pair) *Schema {
	if yamlx.IsNull(e.val) {
		return nil
	}
	if e.val.Kind != yaml.MappingNode {
		p.errorf(p.pos(e.val), codes.BadType, "%s must be a mapping (a JSON Schema), not %s", e.name, yamlx.TypeName(e.val))
		return nil
	}
	m, _ := p.json(e.val).(map[string]any)
	if m == nil {
		m = map[string]any{}
	}
	s := &Schema{Pos: p.pos(e.val), Value: m}
	for _, se := range p.pairs(e.val) {
		if se.name == "properties" && se.val.Kind == yaml.MappingNode {
			for _, pe := range p.pairs(se.val) {
				s.Properties = append(s.Properties, String{Value: pe.name, Pos: p.pos(pe.key)})
			}
		}
	}
	return s
}

// nodes reads the node list, then resolves references and checks names
// across nodes.
func (p *parser) nodes(f *File, e pair) {
	switch {
	case yamlx.IsNull(e.val) || e.val.Kind == yaml.SequenceNode && len(e.val.Content) == 0:
		p.errorf(p.pos(e.val), codes.NoNodes, "the flow has no nodes")
		return
	case e.val.Kind != yaml.SequenceNode:
		p.errorf(p.pos(e.val), codes.BadType, "nodes must be a list, not %s", yamlx.TypeName(e.val))
		return
	}
	for _, c := range e.val.Content {
		if n := p.node(len(f.Nodes), p.resolve(c)); n != nil {
			f.Nodes = append(f.Nodes, n)
		}
	}
	p.link(f)
}

// link fills File.ByID, reports duplicate ids and name collisions, and
// resolves every reference.
func (p *parser) link(f *File) {
	var ids []string
	for n := range f.Walk() {
		if n.ID == "" {
			continue
		}
		if first, dup := f.ByID[n.ID]; dup {
			p.errorf(n.IDPos, codes.DuplicateID, "duplicate id %q (first at line %d)", n.ID, first.IDPos.Line)
			continue
		}
		f.ByID[n.ID] = n
		ids = append(ids, n.ID)
	}
	for _, n := range f.Nodes {
		if n.Set == nil {
			continue
		}
		for _, b := range n.Set.Bindings {
			if other := f.ByID[b.Name]; other != nil && (other.Kind.IsQuestion() || other.Kind == KindStep || other.Kind == KindCall) {
				p.errorf(b.Pos, codes.NameCollision, "set name %q is also the id of the %s node at line %d", b.Name, other.Kind, other.IDPos.Line)
			}
		}
	}
	for _, r := range p.refs {
		if n := f.ByID[r.ID]; n != nil {
			r.Target = n.Index
			continue
		}
		r.Target = -1
		p.unknownf(r.Pos, r.ID, ids, codes.UnknownTarget, "no node has id %q%s", r.ID)
	}
}

// unknownKey reports a key that is not one of known; where says where
// the key is (" in retry").
func (p *parser) unknownKey(e pair, where string, known []string) {
	p.unknownf(p.pos(e.key), e.name, known, codes.UnknownKey, "unknown key %q%s%s", e.name, where)
}

// str reads a string scalar.
func (p *parser) str(e pair) (String, bool) {
	v, ok := p.reader().String(e.val, e.name)
	return String{Value: v, Pos: p.pos(e.val)}, ok
}

// integer reads an integer scalar.
func (p *parser) integer(e pair) (int, bool) {
	v, ok := p.reader().Int(e.val, e.name)
	return int(v), ok
}

// count reads a whole number of lo or more (lo is 0 or 1): retries,
// attempts, max_tokens.
func (p *parser) count(e pair, lo int) (int, bool) {
	v, ok := p.integer(e)
	switch {
	case !ok:
		return 0, false
	case v < lo && lo == 0:
		p.errorf(p.pos(e.val), codes.BadValue, "%s must be 0 or more, not %d", e.name, v)
		return 0, false
	case v < lo:
		p.errorf(p.pos(e.val), codes.BadValue, "%s must be at least %d, not %d", e.name, lo, v)
		return 0, false
	}
	return v, true
}

// mapping returns v, resolved, when it is a mapping; otherwise it reports
// that it must be one (must, which the message completes with what v is).
func (p *parser) mapping(v *yaml.Node, must string) (*yaml.Node, bool) {
	v = p.resolve(v)
	if v.Kind != yaml.MappingNode {
		p.errorf(p.pos(v), codes.BadType, "%s, not %s", must, yamlx.TypeName(v))
		return nil, false
	}
	return v, true
}

// mappings returns the entries of the list v that are mappings, resolved,
// reporting the others (see mapping: each entry must be one). ok is
// false, and reported (v must be list), when v is no list.
func (p *parser) mappings(v *yaml.Node, list, entry string) (out []*yaml.Node, ok bool) {
	if v.Kind != yaml.SequenceNode {
		p.errorf(p.pos(v), codes.BadType, "%s, not %s", list, yamlx.TypeName(v))
		return nil, false
	}
	for _, c := range v.Content {
		if c, ok := p.mapping(c, entry); ok {
			out = append(out, c)
		}
	}
	return out, true
}

// stringList reads a list of strings: e must be a list of what, and it
// lists items (so say the messages). ok is false when e is no list; the
// entries that are not strings are reported and left out.
func (p *parser) stringList(e pair, what, items string) (out []String, ok bool) {
	if e.val.Kind != yaml.SequenceNode {
		p.errorf(p.pos(e.val), codes.BadType, "%s must be a list of %s, not %s", e.name, what, yamlx.TypeName(e.val))
		return nil, false
	}
	for _, c := range e.val.Content {
		c = p.resolve(c)
		if !yamlx.IsString(c) {
			p.errorf(p.pos(c), codes.BadType, "%s lists %s, not %s", e.name, items, yamlx.TypeName(c))
			continue
		}
		out = append(out, String{Value: c.Value, Pos: p.pos(c)})
	}
	return out, true
}

// ref reads a reference to a node; it is resolved by link.
func (p *parser) ref(e pair) *Ref {
	if !yamlx.IsString(e.val) {
		p.errorf(p.pos(e.val), codes.BadType, "%s must be a node id, not %s", e.name, yamlx.TypeName(e.val))
		return nil
	}
	r := &Ref{ID: e.val.Value, Pos: p.pos(e.val), Target: -1}
	p.refs = append(p.refs, r)
	return r
}

// checkName reports a node id or set name that does not match idPattern
// or that is reserved. what is "id" or "set name".
func (p *parser) checkName(what, name string, pos Pos) {
	if !idPattern.MatchString(name) {
		p.errorf(pos, codes.BadName, "%s %q must match %s (lower-case letters, digits and _)", what, name, idPattern)
		return
	}
	if reserved := reservedNames(); slices.Contains(reserved, name) {
		p.errorf(pos, codes.ReservedName, "%s %q is reserved: %s are always in scope", what, name, strings.Join(reserved, ", "))
	}
}
