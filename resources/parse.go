package resources

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/flowserve/flowserve/dsl"
	"github.com/flowserve/flowserve/internal/yamlx"
)

// topKeys are the keys of a declaration file's top-level mapping.
func topKeys() []string { return []string{"resources", "cache"} }

// entryKeys are the keys of one resource.
func entryKeys() []string {
	return []string{"uri", "uriTemplate", "name", "title", "description", "mimeType", "text", "file", "cache"}
}

// cacheKeys are the keys of a cache hint.
func cacheKeys() []string { return []string{"ttl", "scope"} }

// parser holds the state of one Parse call.
type parser struct {
	path  string
	dir   string
	src   []byte
	lines *yamlx.Source // built on first use
	yr    yamlx.Reader  // reports to diags
	diags dsl.Diagnostics
}

// Parse reads a resource declaration file (see the package
// documentation). path is used in every position and locates the files
// the resources serve: they are looked up in path's directory, which
// they cannot leave, and a static resource's file must exist and be
// readable now. Every problem is a diagnostic with a position, sorted;
// only the resources without errors are returned.
func Parse(path string, src []byte) ([]*Resource, dsl.Diagnostics) {
	p := &parser{path: path, dir: filepath.Dir(path), src: src}
	p.yr = yamlx.Reader{Report: p.problem}
	rs := p.file()
	// A mapping merged (<<) into several others is read more than once.
	p.diags.Sort()
	p.diags = p.diags.Compact()
	return rs, p.diags
}

// problem records a problem the YAML reader found.
func (p *parser) problem(pr yamlx.Problem) {
	p.errorf(p.at(pr.Pos), pr.Code, "%s", pr.Message)
}

// at returns a position of the YAML reader as a position in the file.
func (p *parser) at(q yamlx.Pos) dsl.Pos {
	return dsl.Pos{File: p.path, Line: q.Line, Col: q.Col}
}

// pos returns the position of a YAML node.
func (p *parser) pos(n *yaml.Node) dsl.Pos {
	return dsl.Pos{File: p.path, Line: max(n.Line, 1), Col: max(n.Column, 1)}
}

// posIn returns the position of the byte at offset in a scalar's value,
// exact in every scalar style (see yamlx.Source.ScalarPos).
func (p *parser) posIn(n *yaml.Node, offset int) dsl.Pos {
	if p.lines == nil {
		p.lines = yamlx.NewSource(p.src)
	}
	return p.at(p.lines.PosAt(n, utf8.RuneCountInString(n.Value[:min(offset, len(n.Value))])))
}

func (p *parser) errorf(pos dsl.Pos, code, format string, args ...any) {
	p.diags = append(p.diags, dsl.Diagnostic{Pos: pos, Severity: dsl.Error, Code: code, Message: fmt.Sprintf(format, args...)})
}

func (p *parser) warnf(pos dsl.Pos, code, format string, args ...any) {
	p.diags = append(p.diags, dsl.Diagnostic{Pos: pos, Severity: dsl.Warning, Code: code, Message: fmt.Sprintf(format, args...)})
}

// file parses the whole file.
func (p *parser) file() []*Resource {
	root, ok := p.yr.Read(p.src, "a resource file")
	if !ok {
		return nil
	}
	if root == nil || yamlx.IsNull(root) {
		p.errorf(dsl.Pos{File: p.path, Line: 1, Col: 1}, CodeEmptyFile, "the file is empty; it needs a resources list")
		return nil
	}
	if root.Kind != yaml.MappingNode {
		p.errorf(p.pos(root), CodeBadType, "a resource file must be a mapping with a resources list, not %s", yamlx.TypeName(root))
		return nil
	}
	var list *yaml.Node
	defaults := Cache{Scope: Public}
	for _, e := range p.pairs(root) {
		switch e.name {
		case "resources":
			list = e.val
		case "cache":
			defaults = p.cache(e, defaults)
		default:
			p.unknownKey(e, " at the top level", topKeys())
		}
	}
	switch {
	case list == nil:
		p.errorf(p.pos(root), CodeMissingKey, "a resource file needs a resources list")
		return nil
	case yamlx.IsNull(list) || list.Kind == yaml.SequenceNode && len(list.Content) == 0:
		p.warnf(p.pos(list), CodeNoResources, "the resources list is empty")
		return nil
	case list.Kind != yaml.SequenceNode:
		p.errorf(p.pos(list), CodeBadType, "resources must be a list, not %s", yamlx.TypeName(list))
		return nil
	}
	var out []*Resource
	for _, item := range list.Content {
		item = yamlx.Resolve(item)
		if item.Kind != yaml.MappingNode {
			p.errorf(p.pos(item), CodeBadType, "each resource must be a mapping, not %s", yamlx.TypeName(item))
			continue
		}
		if r := p.resource(item, defaults); r != nil {
			out = append(out, r)
		}
	}
	return out
}

// pair is one key and value of a mapping; the value is resolved.
type pair struct {
	key  *yaml.Node
	name string
	val  *yaml.Node
}

// pairs returns the entries of a mapping in file order, as the shared
// reader reads them (see yamlx.Reader.Pairs): keys must be strings and
// appear once; merge keys (<<) are expanded, the mapping's own keys
// winning.
func (p *parser) pairs(m *yaml.Node) []pair {
	ps := p.yr.Pairs(m)
	out := make([]pair, len(ps))
	for i, e := range ps {
		out[i] = pair{key: e.Key, name: e.Name, val: e.Value}
	}
	return out
}

func (p *parser) unknownKey(e pair, where string, known []string) {
	hint := ""
	if s := dsl.Suggest(e.name, known); s != "" {
		hint = fmt.Sprintf("; did you mean %q?", s)
	}
	p.errorf(p.pos(e.key), CodeUnknownKey, "unknown key %q%s%s", e.name, where, hint)
}

// str reads a string scalar.
func (p *parser) str(e pair) (string, bool) {
	return p.yr.String(e.val, e.name)
}

// resource reads one resource. It returns nil when the resource has
// errors.
func (p *parser) resource(m *yaml.Node, defaults Cache) *Resource {
	before := len(p.diags)
	r := &Resource{Pos: p.pos(m), Cache: defaults, dir: p.dir}
	var uri, tmpl, text, file *pair
	hasName, hasDescription := false, false
	for _, kv := range p.pairs(m) {
		switch kv.name {
		case "uri":
			uri = &kv
		case "uriTemplate":
			tmpl = &kv
		case "text":
			text = &kv
		case "file":
			file = &kv
		case "cache":
			r.Cache = p.cache(kv, defaults)
		case "name":
			if r.Name, hasName = p.str(kv); hasName && strings.TrimSpace(r.Name) == "" {
				p.errorf(p.pos(kv.val), CodeBadValue, "name must not be empty")
			}
		case "title":
			r.Title, _ = p.str(kv)
		case "description":
			r.Description, hasDescription = p.str(kv)
		case "mimeType":
			if mt, ok := p.str(kv); ok {
				if t, _, err := mime.ParseMediaType(mt); err != nil || !strings.Contains(t, "/") {
					p.errorf(p.pos(kv.val), CodeBadValue, "mimeType %q is not a media type such as text/plain or image/png", mt)
				}
				r.MIMEType = mt
			}
		default:
			p.unknownKey(kv, " in a resource", entryKeys())
		}
	}
	if !hasName {
		p.errorf(p.pos(m), CodeMissingKey, "a resource needs a name")
	}
	if !hasDescription {
		p.warnf(p.pos(m), CodeMissingDescription, "the resource %s has no description, which clients show to users and models", orUnnamed(r.Name))
	}
	switch {
	case uri != nil && tmpl != nil:
		p.errorf(p.pos(later(uri, tmpl).key), CodeConflictingKeys, "a resource has a uri or a uriTemplate, not both")
	case uri != nil:
		p.uri(r, *uri)
	case tmpl != nil:
		p.uriTemplate(r, *tmpl)
	default:
		p.errorf(p.pos(m), CodeMissingKey, "a resource needs a uri (a static resource) or a uriTemplate (a resource template)")
	}
	templated := tmpl != nil
	switch {
	case text != nil && file != nil:
		p.errorf(p.pos(later(text, file).key), CodeConflictingKeys, "a resource's content is a text or a file, not both")
	case text != nil:
		p.text(r, *text, templated)
	case file != nil:
		p.fileContent(r, *file, templated)
	default:
		p.errorf(p.pos(m), CodeMissingKey, "a resource needs its content: text (written here) or file (a file beside this one)")
	}
	if p.diags[before:].HasErrors() {
		return nil
	}
	return r
}

// later returns the entry written after the other.
func later(a, b *pair) *pair {
	if b.key.Line > a.key.Line || b.key.Line == a.key.Line && b.key.Column > a.key.Column {
		return b
	}
	return a
}

func orUnnamed(name string) string {
	if name == "" {
		return "(unnamed)"
	}
	return strconv.Quote(name)
}

// uri reads a static resource's URI.
func (p *parser) uri(r *Resource, e pair) {
	s, ok := p.str(e)
	if !ok {
		return
	}
	pos := p.pos(e.val)
	u, err := url.Parse(s)
	switch {
	case s == "":
		p.errorf(pos, CodeBadURI, "uri must not be empty")
		return
	case strings.Contains(s, "{") && strings.Contains(s, "}"):
		p.errorf(pos, CodeBadURI, "uri %q has a {variable}: a URI with variables is written as a uriTemplate", s)
		return
	case err != nil:
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		p.errorf(pos, CodeBadURI, "uri %q is not a valid URI: %v", s, err)
		return
	case !u.IsAbs():
		p.errorf(pos, CodeBadURI, "uri %q is not absolute: it needs a scheme such as test: or https:", s)
		return
	case strings.EqualFold(u.Scheme, FlowScheme):
		p.errorf(pos, CodeReservedScheme, "uri %q uses the flow: scheme, which is reserved for the served flows' own resources", s)
		return
	}
	r.URI = s
}

// uriTemplate reads a resource template's URI template.
func (p *parser) uriTemplate(r *Resource, e pair) {
	s, ok := p.str(e)
	if !ok {
		return
	}
	if s == "" {
		p.errorf(p.pos(e.val), CodeBadURITemplate, "uriTemplate must not be empty")
		return
	}
	t, terr := parseURITemplate(s)
	if terr != nil {
		p.errorf(p.posIn(e.val, terr.offset), CodeBadURITemplate, "uriTemplate %q %s", s, terr.msg)
		return
	}
	if m := scheme.FindString(s); strings.EqualFold(strings.TrimSuffix(m, ":"), FlowScheme) {
		p.errorf(p.pos(e.val), CodeReservedScheme, "uriTemplate %q uses the flow: scheme, which is reserved for the served flows' own resources", s)
		return
	}
	if len(t.vars) == 0 {
		p.warnf(p.pos(e.val), CodeNoVariables, "uriTemplate %q has no {variable}; write it as a uri", s)
	}
	r.URITemplate = s
	r.tmpl = t
}

// text reads inline content. A template's text has its variables
// substituted; a static resource's is served as written.
func (p *parser) text(r *Resource, e pair, templated bool) {
	s, ok := p.str(e)
	if !ok {
		return
	}
	if s == "" {
		p.warnf(p.pos(e.val), CodeEmptyContent, "the text is empty; clients get a resource with no text")
	}
	if r.MIMEType == "" {
		r.MIMEType = TextPlain
	}
	if !templated {
		r.text = literal(s)
		return
	}
	r.text = p.substituted(r, e, s)
}

// substituted parses a text with {{ variable }} placeholders and checks
// that each names a variable of the resource's URI template (when that
// could be read).
func (p *parser) substituted(r *Resource, e pair, s string) *textTemplate {
	t, refs, terr := parseText(s)
	if terr != nil {
		p.errorf(p.posIn(e.val, terr.offset), CodeBadTemplate, "%s %s", e.name, terr.msg)
		return nil
	}
	if r.tmpl == nil {
		return t
	}
	for _, ref := range refs {
		if !r.tmpl.Has(ref.name) {
			hint := ""
			if sug := dsl.Suggest(ref.name, r.tmpl.vars); sug != "" {
				hint = fmt.Sprintf("; did you mean %q?", sug)
			}
			p.errorf(p.posIn(e.val, ref.offset), CodeUnknownVariable, "{{ %s }} is not a variable of the uriTemplate %q%s", ref.name, r.URITemplate, hint)
		}
	}
	return t
}

// fileContent reads a file path: relative to the declaration's directory
// and confined to it. A static resource's file must exist now; its type,
// unless declared, comes from its extension or else its first bytes.
func (p *parser) fileContent(r *Resource, e pair, templated bool) {
	s, ok := p.str(e)
	if !ok {
		return
	}
	pos := p.pos(e.val)
	if s == "" {
		p.errorf(pos, CodeBadValue, "file must not be empty")
		return
	}
	if filepath.IsAbs(s) || strings.HasPrefix(s, "/") || strings.Contains(s, "\\") {
		p.errorf(pos, CodeBadFile, "file %q must be a relative path with / separators, naming a file in %s or below", s, p.dirName())
		return
	}
	if slices.Contains(strings.Split(s, "/"), "..") {
		p.errorf(pos, CodeBadFile, "file %q leaves the directory of this file (..); resources serve files in %s or below", s, p.dirName())
		return
	}
	if !templated {
		r.file = literal(s)
		p.checkFile(r, pos, s)
		return
	}
	if r.file = p.substituted(r, e, s); r.file == nil {
		return
	}
	if r.MIMEType == "" {
		if last := r.file.parts[len(r.file.parts)-1]; last.name == "" {
			r.MIMEType = typeByExtension(last.lit)
		}
	}
}

// dirName names the declaration's directory in messages.
func (p *parser) dirName() string {
	if p.dir == "." {
		return "its directory"
	}
	return p.dir
}

// checkFile checks that a static resource's file can be served, and
// settles its MIME type.
func (p *parser) checkFile(r *Resource, pos dsl.Pos, name string) {
	root, err := os.OpenRoot(p.dir)
	if err != nil {
		p.errorf(pos, CodeBadFile, "cannot open the directory %s: %v", p.dir, unwrapPath(err))
		return
	}
	defer root.Close()
	f, err := root.Open(name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		p.errorf(pos, CodeFileNotFound, "file %q does not exist in %s", name, p.dirName())
		return
	case err != nil && strings.Contains(err.Error(), "escapes"):
		p.errorf(pos, CodeBadFile, "file %q leads out of %s (through a symbolic link); resources serve files in it or below", name, p.dirName())
		return
	case err != nil:
		p.errorf(pos, CodeBadFile, "cannot read file %q: %v", name, unwrapPath(err))
		return
	}
	defer f.Close()
	info, err := f.Stat()
	switch {
	case err != nil:
		p.errorf(pos, CodeBadFile, "cannot read file %q: %v", name, unwrapPath(err))
		return
	case info.IsDir():
		p.errorf(pos, CodeBadFile, "file %q is a directory; name a file", name)
		return
	case !info.Mode().IsRegular():
		p.errorf(pos, CodeBadFile, "file %q is not a regular file", name)
		return
	case info.Size() > MaxFileSize:
		p.errorf(pos, CodeBadFile, "file %q has %d bytes, more than the %d a resource may serve", name, info.Size(), MaxFileSize)
		return
	}
	head := make([]byte, 512)
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		p.errorf(pos, CodeBadFile, "cannot read file %q: %v", name, unwrapPath(err))
		return
	}
	if n == 0 {
		p.warnf(pos, CodeEmptyContent, "file %q is empty; clients get a resource with no content", name)
	}
	if r.MIMEType == "" {
		if r.MIMEType = typeByExtension(name); r.MIMEType == "" {
			r.MIMEType = sniff(head[:n])
		}
	}
}

// unwrapPath drops the operation and path an *fs.PathError repeats.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// cache reads a cache hint; keys it leaves out keep their value from
// base.
func (p *parser) cache(e pair, base Cache) Cache {
	if yamlx.IsNull(e.val) {
		return base
	}
	if e.val.Kind != yaml.MappingNode {
		p.errorf(p.pos(e.val), CodeBadType, "cache must be a mapping with ttl and scope, not %s", yamlx.TypeName(e.val))
		return base
	}
	c := base
	for _, kv := range p.pairs(e.val) {
		switch kv.name {
		case "ttl":
			if yamlx.IsZero(kv.val) {
				c.TTL = 0 // no unit needed for nothing
				continue
			}
			if yamlx.IsNumber(kv.val) {
				p.errorf(p.pos(kv.val), CodeBadType, "ttl must be a duration such as 30s, 5m or 1h, not the bare number %s", kv.val.Value)
				continue
			}
			s, ok := p.str(kv)
			if !ok {
				continue
			}
			d, err := time.ParseDuration(s)
			switch {
			case err != nil:
				p.errorf(p.pos(kv.val), CodeBadValue, "ttl %q is not a duration such as 30s, 5m or 1h", s)
			case d < 0:
				p.errorf(p.pos(kv.val), CodeBadValue, "ttl %s is negative", s)
			default:
				c.TTL = d
			}
		case "scope":
			s, ok := p.str(kv)
			if !ok {
				continue
			}
			if s != Public && s != Private {
				hint := ""
				if sug := dsl.Suggest(s, []string{Public, Private}); sug != "" {
					hint = fmt.Sprintf("; did you mean %q?", sug)
				}
				p.errorf(p.pos(kv.val), CodeBadValue, "scope must be public or private, not %q%s", s, hint)
				continue
			}
			c.Scope = s
		default:
			p.unknownKey(kv, " in cache", cacheKeys())
		}
	}
	return c
}
