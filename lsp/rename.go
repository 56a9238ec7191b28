package lsp

import (
	"errors"
	"fmt"

	"github.com/flowserve/flowserve/dsl"
)

// definition answers textDocument/definition: on a node id (a reference
// such as next: or then:, an identifier in an expression, or the id
// itself), the node's id; nil elsewhere.
func (s *Server) definition(p *TextDocumentPositionParams) ([]Location, error) {
	snap, err := s.docSnapshot(p.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	a, t := snap.analysis(), snap.text
	o, ok := a.occurrenceAt(t.offset(p.Position))
	if !ok {
		return []Location{}, nil
	}
	for _, d := range a.occs {
		if d.kind == occDef && d.id == o.id {
			return []Location{{URI: p.TextDocument.URI, Range: t.rangeOf(d.start, d.end)}}, nil
		}
	}
	return []Location{}, nil
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
