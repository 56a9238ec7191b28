package resources

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/flowserve/flowserve/dsl"
)

// IsDeclarationFile reports whether a file, by its name, declares
// resources: resources.yaml or *.resources.yaml (or .yml). Such files are
// not flows.
func IsDeclarationFile(name string) bool {
	base := filepath.Base(name)
	for _, ext := range []string{".yaml", ".yml"} {
		if stem, ok := strings.CutSuffix(base, ext); ok {
			return stem == "resources" || strings.HasSuffix(stem, ".resources")
		}
	}
	return false
}

// Check reports what makes resources from several declarations clash:
// two with the same name, or the same URI or URI template. Each later one
// is reported, naming the first. rs are in declaration order.
func Check(rs []*Resource) dsl.Diagnostics {
	var out dsl.Diagnostics
	names := map[string]*Resource{}
	keys := map[string]*Resource{}
	for _, r := range rs {
		if prev, dup := names[r.Name]; dup {
			out = append(out, dsl.Diagnostic{Pos: r.Pos, Severity: dsl.Error, Code: CodeDuplicateName,
				Message: fmt.Sprintf("resource name %q is also used at %s", r.Name, prev.Pos)})
		} else {
			names[r.Name] = r
		}
		what := "uri"
		if r.IsTemplate() {
			what = "uriTemplate"
		}
		if prev, dup := keys[r.Key()]; dup {
			out = append(out, dsl.Diagnostic{Pos: r.Pos, Severity: dsl.Error, Code: CodeDuplicateURI,
				Message: fmt.Sprintf("%s %q is also declared at %s", what, r.Key(), prev.Pos)})
		} else {
			keys[r.Key()] = r
		}
	}
	out.Sort()
	return out
}
