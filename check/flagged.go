package check

import (
	"slices"

	"github.com/flowserve/flowserve/check/codes"
	"github.com/flowserve/flowserve/dsl"
)

// flaggedForms returns the positions of the forms in which File found a
// form-* problem: File says what is wrong there, at the property, so
// Types does not report the same form again as a schema that does not
// compile.
func flaggedForms(f *dsl.File, checks dsl.Diagnostics) map[dsl.Pos]bool {
	flagged := map[dsl.Pos]bool{}
	before := func(a, b dsl.Pos) bool { return a.Line < b.Line || a.Line == b.Line && a.Col < b.Col }
	for i, n := range f.Nodes {
		if n.Ask == nil || n.Ask.Form == nil {
			continue
		}
		for _, d := range checks {
			if !isFormCode(d.Code) || before(d.Pos, n.Pos) {
				continue
			}
			if i+1 < len(f.Nodes) && !before(d.Pos, f.Nodes[i+1].Pos) {
				continue
			}
			flagged[n.Ask.Form.Pos] = true
		}
	}
	return flagged
}

// flaggedSchemas adds to flagged the positions of the input and output
// schemas in which File found an error of the schema's own (a repeated
// or unknown required entry, bounds no value fits, a default that breaks
// the schema): File says what is wrong there, at the keyword, so Types
// does not report the whole schema again as one that does not compile.
func flaggedSchemas(f *dsl.File, checks dsl.Diagnostics, flagged map[dsl.Pos]bool) {
	var starts []dsl.Pos // where the file's top-level values begin
	for _, p := range []dsl.Pos{f.Name.Pos, f.Title.Pos, f.Description.Pos, f.Expressions.Pos, f.Kind.Pos, f.Task.Pos} {
		starts = append(starts, p)
	}
	for _, sc := range []*dsl.Schema{f.Input, f.Output} {
		if sc != nil {
			starts = append(starts, sc.Pos)
		}
	}
	if f.Auth != nil {
		starts = append(starts, f.Auth.Pos)
	}
	for _, v := range slices.Concat(f.Vars, f.Secrets) {
		starts = append(starts, v.Pos)
	}
	if len(f.Nodes) > 0 {
		starts = append(starts, f.Nodes[0].Pos)
	}
	before := func(a, b dsl.Pos) bool { return a.Line < b.Line || a.Line == b.Line && a.Col < b.Col }
	for _, sc := range []*dsl.Schema{f.Input, f.Output} {
		if sc == nil {
			continue
		}
		var end dsl.Pos
		for _, p := range starts {
			if p.IsValid() && before(sc.Pos, p) && (!end.IsValid() || before(p, end)) {
				end = p
			}
		}
		for _, d := range checks {
			if d.Severity != dsl.Error || before(d.Pos, sc.Pos) || end.IsValid() && !before(d.Pos, end) {
				continue
			}
			switch d.Code {
			case codes.DuplicateKey, codes.BadValue, codes.UnknownProperty:
				flagged[sc.Pos] = true
			}
		}
	}
}

// isFormCode reports whether code is one of File's findings in a form's
// properties.
func isFormCode(code string) bool {
	switch code {
	case codes.FormDefault, codes.FormEnum, codes.FormFormat, codes.FormKeyword, codes.FormKind, codes.FormValue:
		return true
	}
	return false
}
