package dsl

// checks is what package check found in a file, with the action
// registry it resolved actions with.
type checks struct {
	reg   any
	diags Diagnostics
}

// SetChecks records in f the diagnostics package check found in it with
// the action registry reg, so that the stages after it (check.Types,
// flow.Compile) report nothing twice. It is not safe to call concurrently
// on one File.
func (f *File) SetChecks(reg any, ds Diagnostics) {
	if f != nil {
		f.checks = &checks{reg: reg, diags: ds}
	}
}

// Checks returns the diagnostics SetChecks recorded in f for the action
// registry reg, and whether it recorded any for reg.
func (f *File) Checks(reg any) (Diagnostics, bool) {
	if f == nil || f.checks == nil || f.checks.reg != reg {
		return nil, false
	}
	return f.checks.diags, true
}

// Partial reports whether Parse found errors, so that f is partial (see
// [Parse]) and cannot be compiled.
func (f *File) Partial() bool { return f != nil && f.partial }
