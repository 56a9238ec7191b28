package lsp

import (
	"errors"
	"fmt"

	"github.com/flowserve/flowserve/dsl"
)

// definition answers textDocument/definition: on the flow a call or link
// runs, that flow's name: in its file (the file's start when the name
// comes from the file's name); on a node id (a reference such as next:
// or then:, an identifier in an expression, or the id itself), the
// node's id; on a set name in an expression, its first binding; on
// vars.NAME or secrets.NAME, the declaration. Elsewhere the result is
// empty.
func (s *Server) definition(p *TextDocumentPositionParams) ([]Location, error) {
	snap, err := s.docSnapshot(p.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	a, t := snap.analysis(), snap.text
	off := t.offset(p.Position)
	at := func(start, end int) ([]Location, error) {
		return []Location{{URI: p.TextDocument.URI, Range: t.rangeOf(start, end)}}, nil
	}
	if n, _, ok := a.calleeAt(t, off); ok {
		callee := a.callee(n.Call.Flow.Value)
		if callee == nil {
			return []Location{}, nil
		}
		return []Location{{URI: s.uriOf(callee.Path), Range: flowLocation(callee)}}, nil
	}
	if o, ok := a.occurrenceAt(off); ok {
		for _, d := range a.occs {
			if d.kind == occDef && d.id == o.id {
				return at(d.start, d.end)
			}
		}
		return []Location{}, nil
	}
	if name, pos, ok := a.declarationAt(t, off); ok {
		if start, ok := t.nameAt(t.offsetOfPos(pos), name); ok {
			return at(start, start+len(name))
		}
	}
	return []Location{}, nil
}

// uriOf returns the URI of the file at path: the open document's, else
// its file URI.
func (s *Server) uriOf(path string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, d := range s.docs {
		if d.path == path {
			return d.uri
		}
	}
	return pathURI(path)
}

// declarationAt returns the name the expression under off reads that a
// flow declares elsewhere than as a node id, and where: a set name (its
// first binding), or the NAME of vars.NAME or secrets.NAME (its
// declaration).
func (a *analysis) declarationAt(t *text, off int) (string, dsl.Pos, bool) {
	e, i, ok := exprAt(a, t, off)
	if !ok {
		return "", dsl.Pos{}, false
	}
	ids := idents(e.Src)
	for k, id := range ids {
		if i < id.Start || i > id.End {
			continue
		}
		if id.Root {
			for n := range a.file.Walk() {
				if n.Set == nil {
					continue
				}
				for _, b := range n.Set.Bindings {
					if b.Name == id.Name {
						return b.Name, b.Pos, true
					}
				}
			}
			return "", dsl.Pos{}, false
		}
		if k == 0 || !ids[k-1].Root {
			return "", dsl.Pos{}, false
		}
		decls := map[string][]*dsl.Setting{"vars": a.file.Vars, "secrets": a.file.Secrets}[ids[k-1].Name]
		for _, d := range decls {
			if d.Name == id.Name {
				return d.Name, d.Pos, true
			}
		}
	}
	return "", dsl.Pos{}, false
}

// prepareRename answers textDocument/prepareRename: the node id under
// the cursor, or nil (null) when there is none to rename.
func (s *Server) prepareRename(p *TextDocumentPositionParams) (*PrepareRenameResult, error) {
	snap, err := s.docSnapshot(p.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	a, t := snap.analysis(), snap.text
	o, ok := a.occurrenceAt(t.offset(p.Position))
	if !ok || a.file.ByID[o.id] == nil {
		return nil, nil
	}
	return &PrepareRenameResult{Range: t.rangeOf(o.start, o.end), Placeholder: o.id}, nil
}

// rename answers textDocument/rename: the node id under the cursor
// renamed everywhere the file writes it (its id, every reference, every
// expression that reads it), at the positions the parsed file gives.
func (s *Server) rename(p *RenameParams) (*WorkspaceEdit, error) {
	snap, err := s.docSnapshot(p.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	edits, err := renameEdits(snap, p.Position, p.NewName)
	if err != nil {
		return nil, err
	}
	return &WorkspaceEdit{Changes: map[string][]TextEdit{p.TextDocument.URI: edits}}, nil
}

// errNoNode is a rename where the cursor is on no node id.
var errNoNode = errors.New("there is no node id here to rename")

// renameEdits returns the edits that rename the node id at pos to name.
func renameEdits(snap *snapshot, pos Position, name string) ([]TextEdit, error) {
	a, t := snap.analysis(), snap.text
	o, ok := a.occurrenceAt(t.offset(pos))
	if !ok || a.file.ByID[o.id] == nil {
		return nil, errNoNode
	}
	if !dsl.IsName(name) {
		return nil, fmt.Errorf("%q is not a node id: ids are lower-case letters, digits and _, starting with a letter", name)
	}
	if name != o.id {
		if _, taken := a.variable(name); taken {
			return nil, fmt.Errorf("%q is already a name in this flow's expressions", name)
		}
		if a.file.ByID[name] != nil {
			return nil, fmt.Errorf("a node already has id %q", name)
		}
	}
	var edits []TextEdit
	for _, x := range a.occs {
		if x.id == o.id {
			edits = append(edits, TextEdit{Range: t.rangeOf(x.start, x.end), NewText: name})
		}
	}
	return edits, nil
}
