package lsp

import (
	"slices"
	"sync"

	"github.com/flowserve/flowserve/actions"
	"github.com/flowserve/flowserve/check"
	"github.com/flowserve/flowserve/dsl"
	"github.com/flowserve/flowserve/lang"
)

// snapshot is one version of a document's text with what the server
// works out from it, each part on first use.
type snapshot struct {
	path string
	text *text
	prev *dsl.File // the last file of the document that parsed, before this text
	reg  *actions.Registry
	// flows returns the flows of the document's scope (see scopeOf), self
	// standing for the document; nil means there are none (the document
	// alone).
	flows func(self *dsl.File) dsl.FlowTable

	once sync.Once
	a    *analysis
}

// newSnapshot returns the snapshot of src.
func newSnapshot(path string, src []byte, prev *dsl.File, reg *actions.Registry) *snapshot {
	return &snapshot{path: path, text: newText(src), prev: prev, reg: reg}
}

// lastGood returns the latest file of the document that parsed, as of s.
func (s *snapshot) lastGood() *dsl.File {
	if s == nil {
		return nil
	}
	if s.a != nil && s.a.file != nil {
		return s.a.file
	}
	return s.prev
}

// analysis is what the server knows of a snapshot's text. It is used by
// one request at a time (the server answers requests in turn).
type analysis struct {
	// file is the text parsed (dsl.Parse); nil when its YAML cannot be
	// read. Positions are taken from it only.
	file *dsl.File
	// good is file, or when it is nil the last file of the document that
	// parsed: names and types (ids, the scope, actions) come from it
	// while the text is half written.
	good *dsl.File
	lang lang.Language
	occs []occurrence // every occurrence of a node id in file

	// flows are the flows of the document's scope as of the request
	// (good among them), which its calls name; nil when there are none.
	flows dsl.FlowTable
	// callees are the files good's call nodes found when scope was made:
	// the scope is made again when they change.
	callees []*dsl.File
	scoped  bool
	scope   []lang.Var
	env     lang.Env
	envDone bool
}

// analysis returns the analysis of s, its scope up to date with the
// flows its calls name.
func (s *snapshot) analysis() *analysis {
	s.once.Do(func() {
		a := &analysis{}
		a.file, _ = dsl.Parse(s.path, s.text.src)
		a.good = a.file
		if a.good == nil {
			a.good = s.prev
		}
		if a.good != nil {
			a.lang, _ = lang.Lookup(a.good.Expressions.Value)
		}
		if a.file != nil {
			a.occs = occurrences(a.file, s.text)
		}
		s.a = a
	})
	a := s.a
	if a.good == nil {
		return a
	}
	if s.flows != nil {
		a.flows = s.flows(a.good)
	}
	callees := a.calleeFiles()
	if !a.scoped || !slices.Equal(callees, a.callees) {
		a.scope = check.Scope(a.good, check.Env{Actions: s.reg, Callees: a.callee})
		a.callees, a.scoped = callees, true
		a.env, a.envDone = nil, false
	}
	return a
}

// callee returns the flow of the document's scope named name, or nil.
func (a *analysis) callee(name string) *dsl.File {
	if a.flows == nil {
		return nil
	}
	return a.flows[name]
}

// calleeFiles returns the flows the call and link nodes of good name, in
// node order (nil for a name no flow has).
func (a *analysis) calleeFiles() []*dsl.File {
	var out []*dsl.File
	for n := range a.good.Walk() {
		if n.Kind.IsCall() && n.Call != nil {
			out = append(out, a.callee(n.Call.Flow.Value))
		}
	}
	return out
}

// environment returns the expression environment of the flow's scope, or
// nil when there is none (no file, an unknown language).
func (a *analysis) environment() lang.Env {
	if !a.envDone {
		a.envDone = true
		if a.lang != nil {
			a.env, _ = a.lang.NewEnv(a.scope, lang.Options{})
		}
	}
	return a.env
}

// variable returns the scope's variable name.
func (a *analysis) variable(name string) (lang.Var, bool) {
	for _, v := range a.scope {
		if v.Name == name {
			return v, true
		}
	}
	return lang.Var{}, false
}

// occKind is what an occurrence of a node id is.
type occKind int

const (
	occDef  occKind = iota + 1 // the node's own id
	occRef                     // a reference: next, then, else, unavailable, on_error, on_timeout
	occExpr                    // an identifier in an expression
)

// occurrence is one place a node id is written: bytes [start, end) of
// the text, which hold exactly the id.
type occurrence struct {
	id         string
	start, end int
	kind       occKind
	key        string // the key of a reference
}

// occurrences returns every place f names a node id, in file order by
// kind: definitions, references, expression identifiers. A place whose
// text is not exactly the id (an escape sequence in a quoted scalar) is
// left out: it cannot be edited in place.
func occurrences(f *dsl.File, t *text) []occurrence {
	var out []occurrence
	add := func(id string, p dsl.Pos, kind occKind, key string) {
		if start, ok := t.nameAt(t.offsetOfPos(p), id); ok {
			out = append(out, occurrence{id: id, start: start, end: start + len(id), kind: kind, key: key})
		}
	}
	for n := range f.Walk() {
		if n.ID != "" {
			add(n.ID, n.IDPos, occDef, "id")
		}
	}
	for n := range f.Walk() {
		for _, r := range nodeRefs(n) {
			add(r.ref.ID, r.ref.Pos, occRef, r.key)
		}
	}
	for _, e := range fileExprs(f) {
		var offs []int
		for _, id := range idents(e.Src) {
			if !id.Root || f.ByID[id.Name] == nil {
				continue
			}
			if offs == nil {
				offs = exprOffsets(e, t)
			}
			start, end := offs[id.Start], offs[id.End]
			if end-start == len(id.Name) && string(t.src[start:end]) == id.Name {
				out = append(out, occurrence{id: id.Name, start: start, end: end, kind: occExpr})
			}
		}
	}
	return out
}

// nameAt returns where name starts when the text at off holds it, after
// an opening quote if there is one.
func (t *text) nameAt(off int, name string) (int, bool) {
	if off < len(t.src) && (t.src[off] == '"' || t.src[off] == '\'') {
		off++
	}
	if name == "" || off+len(name) > len(t.src) || string(t.src[off:off+len(name)]) != name {
		return 0, false
	}
	return off, true
}

// keyedRef is a reference with the key it is written under.
type keyedRef struct {
	key string
	ref *dsl.Ref
}

// nodeRefs returns the references of n to other nodes.
func nodeRefs(n *dsl.Node) []keyedRef {
	var out []keyedRef
	add := func(key string, r *dsl.Ref) {
		if r != nil {
			out = append(out, keyedRef{key, r})
		}
	}
	add("next", n.Next)
	if a := n.Ask; a != nil {
		add("unavailable", a.Unavailable)
		add("on_timeout", a.OnTimeout)
	}
	if s := n.Step; s != nil {
		add("on_error", s.OnError)
	}
	if c := n.Call; c != nil {
		add("on_error", c.OnError)
	}
	if b := n.Branch; b != nil {
		for _, c := range b.Cases {
			add("then", c.Then)
		}
		add("else", b.Else)
	}
	if al := n.All; al != nil {
		add("unavailable", al.Unavailable)
	}
	return out
}

// occurrenceAt returns the occurrence of a node id that holds the byte
// offset off (its end included, where a cursor after the name is).
func (a *analysis) occurrenceAt(off int) (occurrence, bool) {
	for _, o := range a.occs {
		if o.start <= off && off <= o.end {
			return o, true
		}
	}
	return occurrence{}, false
}
