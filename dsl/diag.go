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

// Diagnostic is one problem found in a flow file, with its position and a
// stable code.
type Diagnostic struct {
	Pos      Pos
	Severity Severity
	Code     string // stable, kebab-case: a constant such as CodeUnknownKey (codes.go)
	Message  string // lower-case, no trailing period
}

// String formats d as "file:line:col: error: message [code]".
func (d Diagnostic) String() string {
	return fmt.Sprintf("%s: %s: %s [%s]", d.Pos, d.Severity, d.Message, d.Code)
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

// Sort orders ds by file, line, column, severity, code and message, so
// output is deterministic.
func (ds Diagnostics) Sort() {
	slices.SortStableFunc(ds, func(a, b Diagnostic) int {
		return cmp.Or(
			cmp.Compare(a.Pos.File, b.Pos.File),
			cmp.Compare(a.Pos.Line, b.Pos.Line),
			cmp.Compare(a.Pos.Col, b.Pos.Col),
			cmp.Compare(a.Severity, b.Severity),
			cmp.Compare(a.Code, b.Code),
			cmp.Compare(a.Message, b.Message),
		)
	})
}

// Err returns an error listing the Error diagnostics of ds, one per line,
// or nil when there are none. It is safe to call on a nil Diagnostics.
func (ds Diagnostics) Err() error {
	if !ds.HasErrors() {
		return nil
	}
	var errs Diagnostics
	for _, d := range ds {
		if d.Severity == Error {
			errs = append(errs, d)
		}
	}
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
