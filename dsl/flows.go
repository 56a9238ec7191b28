package dsl

import "slices"

// FlowTable is the flows of a project by name, as Callees finds them
// (the first file with a name wins; duplicates are reported elsewhere).
type FlowTable map[string]*File

// NewFlowTable returns the table of files.
func NewFlowTable(files []*File) FlowTable {
	t := make(FlowTable, len(files))
	for _, f := range files {
		if f == nil || f.Name.Value == "" {
			continue
		}
		if _, dup := t[f.Name.Value]; !dup {
			t[f.Name.Value] = f
		}
	}
	return t
}

// Callees returns the table as a Callees.
func (t FlowTable) Callees() Callees {
	return func(name string) *File { return t[name] }
}

// Names returns the names of the table's tool flows, sorted.
func (t FlowTable) Names() []string {
	var out []string
	for name, f := range t {
		if !f.IsPrompt() {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// CalleeResult is the JSON Schema of what a call of callee binds to the
// call node's id: the callee's output schema when it declares one (its
// returns' structured value), else a string (the text of its result).
func CalleeResult(callee *File) map[string]any {
	if callee == nil {
		return nil
	}
	if callee.Output != nil && callee.Output.Value != nil {
		return callee.Output.Value
	}
	return map[string]any{"type": "string"}
}

// Callees finds the flow a call or link node names: the parsed file of
// the flow with that name, or nil when there is none.
type Callees func(name string) *File
