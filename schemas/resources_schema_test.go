package schemas_test

import (
	"bytes"
	"os"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/tools/txtar"

	"github.com/flowserve/flowserve/schemas"
)

// compileResourcesSchema compiles the embedded resource-declaration
// schema as draft 2020-12, checking it against the meta-schema.
func compileResourcesSchema(t testing.TB) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schemas.ResourcesSchema()))
	if err != nil {
		t.Fatalf("resources.schema.json is not JSON: %v", err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource(schemas.ResourcesSchemaID, doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile(schemas.ResourcesSchemaID)
	if err != nil {
		t.Fatalf("resources.schema.json does not compile: %v", err)
	}
	return sch
}

// TestResourcesSchemaShipped validates the shipped declarations and the
// resources package's clean golden.
func TestResourcesSchemaShipped(t *testing.T) {
	sch := compileResourcesSchema(t)
	src, err := os.ReadFile("../testdata/conformance/resources/resources.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := validateYAML(sch, src); err != nil {
		t.Errorf("conformance resources: %v", err)
	}
	a, err := txtar.ParseFile("../resources/testdata/diag/ok.txtar")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range a.Files {
		if f.Name == "resources.yaml" {
			if err := validateYAML(sch, f.Data); err != nil {
				t.Errorf("ok.txtar: %v", err)
			}
		}
	}
}

func TestResourcesSchema(t *testing.T) {
	sch := compileResourcesSchema(t)
	tests := []struct {
		name  string
		src   string
		valid bool
	}{
		{"static text", "resources:\n  - {uri: test://a, name: a, text: hi}\n", true},
		{"template file", "resources:\n  - {uriTemplate: 'test://a/{x}', name: a, file: 'd/{{ x }}.md'}\n", true},
		{"cache", "cache: {ttl: 5m, scope: private}\nresources:\n  - {uri: test://a, name: a, text: hi, cache: {ttl: 0}}\n", true},
		{"no resources", "cache: {ttl: 5m}\n", false},
		{"unknown key", "resources:\n  - {uri: test://a, name: a, text: hi, txt: hi}\n", false},
		{"uri and template", "resources:\n  - {uri: test://a, uriTemplate: 'test://b/{x}', name: a, text: hi}\n", false},
		{"neither uri", "resources:\n  - {name: a, text: hi}\n", false},
		{"text and file", "resources:\n  - {uri: test://a, name: a, text: hi, file: a.txt}\n", false},
		{"no content", "resources:\n  - {uri: test://a, name: a}\n", false},
		{"no name", "resources:\n  - {uri: test://a, text: hi}\n", false},
		{"relative uri", "resources:\n  - {uri: a/b, name: a, text: hi}\n", false},
		{"uri with a variable", "resources:\n  - {uri: 'test://a/{x}', name: a, text: hi}\n", false},
		{"absolute file", "resources:\n  - {uri: test://a, name: a, file: /etc/passwd}\n", false},
		{"file with ..", "resources:\n  - {uri: test://a, name: a, file: x/../../y}\n", false},
		{"file with ..name", "resources:\n  - {uri: test://a, name: a, file: x/..y}\n", true},
		{"bad ttl", "resources:\n  - {uri: test://a, name: a, text: hi, cache: {ttl: 5}}\n", false},
		{"bad scope", "resources:\n  - {uri: test://a, name: a, text: hi, cache: {scope: shared}}\n", false},
		{"bad mimeType", "resources:\n  - {uri: test://a, name: a, text: hi, mimeType: plain}\n", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := validateYAML(sch, []byte(tc.src))
			if (err == nil) != tc.valid {
				t.Errorf("valid = %v (%v); want %v", err == nil, err, tc.valid)
			}
		})
	}
}
