package dsl

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Pos is a position in a flow file. Line and Col are 1-based; Col counts
// runes. The zero Pos means "no position".
type Pos struct {
	File string
	Line int
	Col  int
}

// String formats p as file:line:col, the form editors and terminals link.
func (p Pos) String() string {
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
}

// IsValid reports whether p has a line.
func (p Pos) IsValid() bool { return p.Line > 0 }

// Severity says whether a diagnostic stops a flow from loading.
type Severity int

const (
	// Error is a problem that keeps the flow from loading or running.
	Error Severity = iota
	// Warning is a likely mistake that does not stop the flow.
	Warning
)

// String returns "error" or "warning".
func (s Severity) String() string {
	if s == Warning {
		return "warning"
	}
	return "error"
}

// Diagnostic is one problem found in a flow file, with its position, the
// end of the text it is about, a stable code and the mechanical fixes
// that resolve it, if any.
type Diagnostic struct {
	Pos Pos
	// End is where the problem's text ends (exclusive): on Pos's line or a
	// later one; the zero Pos when unknown (see Range).
	End      Pos
	Severity Severity
	Code     string // stable, kebab-case: a constant such as codes.UnknownKey (codes.go)
	Message  string // lower-case, no trailing period
	// Fixes are mechanical fixes (did-you-mean replacements), in order
	// of preference; nil when there are none.
	Fixes []Fix
}

// Fix is a mechanical change that resolves a diagnostic: replace the text
// from Pos to End (exclusive) with NewText.
type Fix struct {
	Title    string // e.g. `replace "thn" with "then"`
	Pos, End Pos
	NewText  string
}

// String formats d as "file:line:col: error: message [code]"; End and
// Fixes are left out.
func (d Diagnostic) String() string {
	return fmt.Sprintf("%s: %s: %s [%s]", d.Pos, d.Severity, d.Message, d.Code)
}

// Range returns the diagnostic's start and end: End, or when it is zero
// the end of the token at Pos in src, the file's content: of the YAML
// scalar that starts there (a key or a value, with its quotes, maybe on
// later lines), else of the quoted scalar, the flow collection or the run
// of non-blank runes there (see Diagnostics.SetEnds).
func (d Diagnostic) Range(src []byte) (start, end Pos) {
	if d.End.IsValid() || !d.Pos.IsValid() {
		return d.Pos, d.End
	}
	return d.Pos, newEnder(src).end(d.Pos)
}

// equal reports whether d and o are the same diagnostic.
func (d Diagnostic) equal(o Diagnostic) bool {
	return d.Pos == o.Pos && d.End == o.End && d.Severity == o.Severity &&
		d.Code == o.Code && d.Message == o.Message && slices.Equal(d.Fixes, o.Fixes)
}

// Diagnostics is a list of problems.
type Diagnostics []Diagnostic

// HasErrors reports whether any diagnostic is an Error.
func (ds Diagnostics) HasErrors() bool {
	for _, d := range ds {
		if d.Severity == Error {
			return true
		}
	}
	return false
}

// Errors returns the Error diagnostics of ds, in their order; nil when
// there are none.
func (ds Diagnostics) Errors() Diagnostics {
	var out Diagnostics
	for _, d := range ds {
		if d.Severity == Error {
			out = append(out, d)
		}
	}
	return out
}

// Sort orders ds by file, line, column, severity, code, message and end,
// so output is deterministic.
func (ds Diagnostics) Sort() {
	slices.SortStableFunc(ds, func(a, b Diagnostic) int {
		return cmp.Or(
			cmp.Compare(a.Pos.File, b.Pos.File),
			cmp.Compare(a.Pos.Line, b.Pos.Line),
			cmp.Compare(a.Pos.Col, b.Pos.Col),
			cmp.Compare(a.Severity, b.Severity),
			cmp.Compare(a.Code, b.Code),
			cmp.Compare(a.Message, b.Message),
			cmp.Compare(a.End.Line, b.End.Line),
			cmp.Compare(a.End.Col, b.End.Col),
		)
	})
}

// Compact removes the repeats of a diagnostic that follow it, as after
// Sort, and returns the shortened list.
func (ds Diagnostics) Compact() Diagnostics {
	return slices.CompactFunc(ds, Diagnostic.equal)
}

// SetEnds gives each diagnostic of ds in file (its Pos.File) that has no
// End the end of the token at its Pos in src, the file's content, as
// Range does: the single place ends are worked out for diagnostics whose
// makers did not know the span of their text. It reads src only when some
// diagnostic needs it.
func (ds Diagnostics) SetEnds(file string, src []byte) {
	var e *ender
	for i := range ds {
		d := &ds[i]
		if d.Pos.File != file || d.End.IsValid() || !d.Pos.IsValid() {
			continue
		}
		if e == nil {
			e = newEnder(src)
		}
		d.End = e.end(d.Pos)
	}
}

// Err returns an error listing the Error diagnostics of ds, one per line,
// or nil when there are none. It is safe to call on a nil Diagnostics.
func (ds Diagnostics) Err() error {
	if !ds.HasErrors() {
		return nil
	}
	errs := ds.Errors()
	errs.Sort()
	return &DiagnosticsError{Diagnostics: errs}
}

// DiagnosticsError is the error returned by Diagnostics.Err.
type DiagnosticsError struct {
	Diagnostics Diagnostics
}

// Error joins the diagnostics, one per line.
func (e *DiagnosticsError) Error() string {
	var b strings.Builder
	for i, d := range e.Diagnostics {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(d.String())
	}
	return b.String()
}

// AsDiagnostics returns the diagnostics carried by err, if any.
func AsDiagnostics(err error) (Diagnostics, bool) {
	var de *DiagnosticsError
	if errors.As(err, &de) {
		return de.Diagnostics, true
	}
	return nil, false
}
