package dsl

import (
	"crypto/sha256"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/flowserve/flowserve/internal/yamlx"
	"github.com/flowserve/flowserve/lang"
	"go.yaml.in/yaml/v3"
)

// idPattern is the syntax of node ids and set names.
var idPattern = regexp.MustCompile(`^[a-z_][a-z0-9_]*$`)

// yamlLine matches the "line N: " that yaml.v3 puts before most errors.
var yamlLine = regexp.MustCompile(`(?s)^line (\d+): (.*)$`)

// yamlUnknownAnchor matches yaml.v3's error for an alias without anchor.
var yamlUnknownAnchor = regexp.MustCompile(`(?s)^unknown anchor '(.*)' referenced$`)

// reservedNames returns the names always in scope in expressions; ids and
// set names cannot take them.
func reservedNames() []string { return []string{"input", "run", "client", "error"} }

// parser holds the state of one Parse call.
type parser struct {
	path string
	src  []byte
	text *source // built on first use

	lang   lang.Language // nil when the language is unknown: no syntax checks
	syntax map[string][]lang.Error

	badAlias  map[*yaml.Node]bool
	noAliases bool

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
// expression. Semantic checks (types of expressions, action names, MCP
// form rules) are left to Check and lint. Every problem is a Diagnostic
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
		path:     path,
		src:      src,
		syntax:   map[string][]lang.Error{},
		badAlias: map[*yaml.Node]bool{},
	}
	f := p.file()
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
	ds = slices.Compact(ds)
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
	docs, err := yamlx.DecodeDocs(p.src)
	if err != nil {
		p.yamlError(err)
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
	}
	p.lang, _ = lang.Lookup("cel")
	if len(docs) > 1 {
		if d := docs[1]; len(d.Content) > 0 && !yamlx.IsNull(d.Content[0]) {
			p.errorf(p.pos(d), "multiple-documents", "a flow file holds one YAML document; remove this second one")
		}
	}
	if len(docs) == 0 || len(docs[0].Content) == 0 {
		p.errorf(p.at(1, 1), "empty-file", "the file is empty; a flow needs at least a nodes list")
		return f
	}
	p.checkAliases(docs[0])
	root := p.resolve(docs[0].Content[0])
	if yamlx.IsNull(root) {
		p.errorf(p.pos(root), "empty-file", "the file is empty; a flow needs at least a nodes list")
		return f
	}
	if root.Kind != yaml.MappingNode {
		p.errorf(p.pos(root), "bad-type", "a flow file must be a mapping, not %s", yamlx.TypeName(root))
		return f
	}
	p.top(f, root)
	return f
}

// YAMLError returns the diagnostic (code bad-yaml) for err, the error
// yaml.v3 gave decoding src, the file at path: at the line and column of
// the mistake, which the decoder does not always name. The packages that
// read other YAML files with positions use it too.
func YAMLError(path string, src []byte, err error) Diagnostic {
	p := &parser{path: path, src: src}
	p.yamlError(err)
	return p.diags[0]
}

// yamlError turns an error of the YAML decoder into a diagnostic. yaml.v3
// reports the line where the enclosing construct started (and sometimes
// none at all), so the line is found again as the end of the shortest
// prefix of the file that fails with the same error.
func (p *parser) yamlError(err error) {
	full := err.Error()
	msg := strings.TrimPrefix(full, "yaml: ")
	hint := 0
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		hint, _ = strconv.Atoi(m[1])
		msg = m[2]
	}
	if m := yamlUnknownAnchor.FindStringSubmatch(msg); m != nil {
		if pos, ok := p.findAlias(m[1]); ok {
			p.errorf(pos, "bad-yaml", "unknown anchor &%s: define it before its alias *%s", m[1], m[1])
			return
		}
	}
	src := p.source()
	// The shortest failing prefix is found by bisection: a prefix that
	// ends before the mistake parses (or fails otherwise), one that ends
	// after it fails the same way. Bisection keeps this to a few dozen
	// parses even for large or hostile files.
	line := 0
	fails := func(n int) bool {
		_, e := yamlx.DecodeDocs(p.src[:src.end(n, len(p.src))])
		return e != nil && e.Error() == full
	}
	if lo, hi := max(hint, 1), len(src.lines); lo <= hi && fails(hi) {
		for lo < hi {
			mid := lo + (hi-lo)/2
			if fails(mid) {
				hi = mid
			} else {
				lo = mid + 1
			}
		}
		line = lo
	}
	if line == 0 {
		line = min(max(hint, 1), len(src.lines))
	}
	text, _ := src.line(line)
	col := 0
	for col < len(text) && isBlank(text[col]) {
		col++
	}
	// Encoding problems point at the offending character.
	for i, r := range text {
		if r == utf8.RuneError || r < 0x20 && r != '\t' || r == 0x7f {
			col = i
			break
		}
	}
	p.errorf(p.at(line, col+1), "bad-yaml", "%s", msg)
}

// findAlias returns the position of the first alias *name in the source.
func (p *parser) findAlias(name string) (Pos, bool) {
	want := []rune("*" + name)
	for i, text := range p.source().lines {
		for c := 0; c+len(want) <= len(text); c++ {
			if slices.Equal(text[c:c+len(want)], want) {
				after := c + len(want)
				if after == len(text) || isBlank(text[after]) || strings.ContainsRune(",]}", text[after]) {
					return p.at(i+1, c+1), true
				}
			}
		}
	}
	return Pos{}, false
}

// topKeys returns the keys of the top-level mapping.
func topKeys() []string {
	return []string{"name", "title", "description", "kind", "expressions", "input", "output", "nodes"}
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
		if yamlx.IsNull(e.val) && e.name != "nodes" && slices.Contains(topKeys(), e.name) {
			continue // an empty optional key: its default applies
		}
		switch e.name {
		case "name":
			if s, ok := p.str(e); ok {
				if s.Value == "" {
					p.errorf(s.Pos, "bad-value", "name must not be empty")
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
		case "input":
			f.Input = p.schema(e)
		case "output":
			f.Output = p.schema(e)
		case "nodes":
			nodes = &entries[i]
		default:
			p.unknownKey(e, " at the top level", topKeys())
		}
	}
	if nodes == nil {
		p.errorf(p.pos(root), "missing-key", "a flow needs a nodes list")
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
	p.errorf(s.Pos, "unknown-language", "unknown expression language %q (supported: %s)%s",
		s.Value, strings.Join(names, ", "), didYouMean(s.Value, names))
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
		p.errorf(s.Pos, "bad-value", "kind must be %s, not %q%s",
			strings.Join(flowKinds(), " or "), s.Value, didYouMean(s.Value, flowKinds()))
		return
	}
	f.Kind = s
	p.prompt = s.Value == FlowPrompt
}

// schema reads a JSON Schema written in YAML; null means absent.
func (p *parser) schema(e pair) *Schema {
	if yamlx.IsNull(e.val) {
		return nil
	}
	if e.val.Kind != yaml.MappingNode {
		p.errorf(p.pos(e.val), "bad-type", "%s must be a mapping (a JSON Schema), not %s", e.name, yamlx.TypeName(e.val))
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
		p.errorf(p.pos(e.val), "no-nodes", "the flow has no nodes")
		return
	case e.val.Kind != yaml.SequenceNode:
		p.errorf(p.pos(e.val), "bad-type", "nodes must be a list, not %s", yamlx.TypeName(e.val))
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
			p.errorf(n.IDPos, "duplicate-id", "duplicate id %q (first at line %d)", n.ID, first.IDPos.Line)
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
			if other := f.ByID[b.Name]; other != nil && (other.Kind.IsQuestion() || other.Kind == KindStep) {
				p.errorf(b.Pos, "name-collision", "set name %q is also the id of the %s node at line %d", b.Name, other.Kind, other.IDPos.Line)
			}
		}
	}
	for _, r := range p.refs {
		if n := f.ByID[r.ID]; n != nil {
			r.Target = n.Index
			continue
		}
		r.Target = -1
		p.errorf(r.Pos, "unknown-target", "no node has id %q%s", r.ID, didYouMean(r.ID, ids))
	}
}

// didYouMean returns "; did you mean "x"?" for the option closest to name,
// or "" when none is close.
func didYouMean(name string, options []string) string {
	if s := Suggest(name, options); s != "" {
		return `; did you mean "` + s + `"?`
	}
	return ""
}

// unknownKey reports a key that is not one of known; where says where
// the key is (" in retry").
func (p *parser) unknownKey(e pair, where string, known []string) {
	p.errorf(p.pos(e.key), "unknown-key", "unknown key %q%s%s", e.name, where, didYouMean(e.name, known))
}

// str reads a string scalar.
func (p *parser) str(e pair) (String, bool) {
	if !yamlx.IsString(e.val) {
		p.errorf(p.pos(e.val), "bad-type", "%s must be a string, not %s", e.name, yamlx.TypeName(e.val))
		return String{}, false
	}
	return String{Value: e.val.Value, Pos: p.pos(e.val)}, true
}

// integer reads an integer scalar.
func (p *parser) integer(e pair) (int, bool) {
	if e.val.Kind != yaml.ScalarNode || e.val.ShortTag() != tagInt {
		p.errorf(p.pos(e.val), "bad-type", "%s must be an integer, not %s", e.name, yamlx.TypeName(e.val))
		return 0, false
	}
	var v int64
	if err := e.val.Decode(&v); err != nil || int64(int(v)) != v {
		p.errorf(p.pos(e.val), "bad-value", "%s %s is out of range", e.name, e.val.Value)
		return 0, false
	}
	return int(v), true
}

// ref reads a reference to a node; it is resolved by link.
func (p *parser) ref(e pair) *Ref {
	if !yamlx.IsString(e.val) {
		p.errorf(p.pos(e.val), "bad-type", "%s must be a node id, not %s", e.name, yamlx.TypeName(e.val))
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
		p.errorf(pos, "bad-name", "%s %q must match %s (lower-case letters, digits and _)", what, name, idPattern)
		return
	}
	if reserved := reservedNames(); slices.Contains(reserved, name) {
		p.errorf(pos, "reserved-name", "%s %q is reserved: %s are always in scope", what, name, strings.Join(reserved, ", "))
	}
}
