package schemas_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.yaml.in/yaml/v3"
	"golang.org/x/tools/txtar"

	"github.com/flowserve/flowserve/actions"
	_ "github.com/flowserve/flowserve/actions/std" // the built-in actions, for TestFlowSchemaActionExamples
	"github.com/flowserve/flowserve/dsl"
	"github.com/flowserve/flowserve/schemas"
)

// compileFlowSchema compiles the embedded flow schema as draft 2020-12; the
// compiler also checks it against the 2020-12 meta-schema.
func compileFlowSchema(t testing.TB) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schemas.FlowSchema()))
	if err != nil {
		t.Fatalf("flow.schema.json is not JSON: %v", err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource(schemas.FlowSchemaID, doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile(schemas.FlowSchemaID)
	if err != nil {
		t.Fatalf("flow.schema.json does not compile: %v", err)
	}
	return sch
}

// schemaDoc returns the schema document as plain Go values.
func schemaDoc(t testing.TB) map[string]any {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(schemas.FlowSchema(), &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

// validateYAML converts a flow file to JSON the way an editor sees it and
// validates it. A file with no JSON form (a YAML error, several
// documents, a custom tag, an infinite number, a non-string key, a
// duplicate key, a looping or exploding alias) is invalid before the
// schema sees it: the returned error says why.
func validateYAML(sch *jsonschema.Schema, src []byte) error {
	v, err := yamlToJSON(src)
	if err != nil {
		return fmt.Errorf("no JSON form: %w", err)
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("no JSON form: %w", err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return err
	}
	return sch.Validate(inst)
}

// maxValues bounds a document with its aliases expanded, as dsl.Parse does.
const maxValues = 100_000

// yamlToJSON decodes the one YAML document of src into JSON-compatible
// values, resolving aliases and merge keys (<<, the mapping's own keys
// winning) the way dsl.Parse does.
func yamlToJSON(src []byte) (any, error) {
	dec := yaml.NewDecoder(bytes.NewReader(src))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil // an empty file is null
		}
		return nil, err
	}
	var second yaml.Node
	switch err := dec.Decode(&second); {
	case errors.Is(err, io.EOF):
	case err != nil:
		return nil, err
	case len(second.Content) > 0 && second.Content[0].ShortTag() != "!!null":
		return nil, errors.New("more than one YAML document")
	}
	c := &converter{visiting: map[*yaml.Node]bool{}}
	return c.value(&doc)
}

type converter struct {
	values   int
	visiting map[*yaml.Node]bool
}

func (c *converter) value(n *yaml.Node) (any, error) {
	if c.values++; c.values > maxValues {
		return nil, fmt.Errorf("aliases expand the document beyond %d values", maxValues)
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil, nil
		}
		return c.value(n.Content[0])
	case yaml.AliasNode:
		if n.Alias == nil || c.visiting[n.Alias] {
			return nil, fmt.Errorf("line %d: alias *%s is inside its own anchor", n.Line, n.Value)
		}
		return c.value(n.Alias)
	case yaml.MappingNode:
		c.visiting[n] = true
		defer delete(c.visiting, n)
		return c.mapping(n, 0)
	case yaml.SequenceNode:
		c.visiting[n] = true
		defer delete(c.visiting, n)
		out := make([]any, 0, len(n.Content))
		for _, e := range n.Content {
			v, err := c.value(e)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	}
	return scalar(n)
}

// mapping converts a mapping, expanding merge keys.
func (c *converter) mapping(n *yaml.Node, depth int) (map[string]any, error) {
	if tag := n.ShortTag(); tag != "!!map" {
		return nil, fmt.Errorf("line %d: unsupported tag %s", n.Line, tag)
	}
	out := map[string]any{}
	var merged []map[string]any
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := resolve(n.Content[i]), n.Content[i+1]
		if k.Kind == yaml.ScalarNode && k.ShortTag() == "!!merge" {
			ms, err := c.mergeSources(resolve(v), depth)
			if err != nil {
				return nil, err
			}
			merged = append(merged, ms...)
			continue
		}
		if k.Kind != yaml.ScalarNode || k.ShortTag() != "!!str" {
			return nil, fmt.Errorf("line %d: mapping key %q is not a string", k.Line, k.Value)
		}
		if _, dup := out[k.Value]; dup {
			return nil, fmt.Errorf("line %d: duplicate key %q", k.Line, k.Value)
		}
		val, err := c.value(v)
		if err != nil {
			return nil, err
		}
		out[k.Value] = val
	}
	for _, m := range merged {
		for k, v := range m {
			if _, ok := out[k]; !ok {
				out[k] = v
			}
		}
	}
	return out, nil
}

// mergeSources returns the mappings a merge key brings in, first first.
func (c *converter) mergeSources(v *yaml.Node, depth int) ([]map[string]any, error) {
	if depth > 32 {
		return nil, errors.New("merge keys nest too deep")
	}
	var nodes []*yaml.Node
	switch v.Kind {
	case yaml.MappingNode:
		nodes = []*yaml.Node{v}
	case yaml.SequenceNode:
		for _, e := range v.Content {
			nodes = append(nodes, resolve(e))
		}
	default:
		return nil, fmt.Errorf("line %d: << merges a mapping or a list of mappings", v.Line)
	}
	var out []map[string]any
	for _, m := range nodes {
		if m.Kind != yaml.MappingNode {
			return nil, fmt.Errorf("line %d: << merges mappings", m.Line)
		}
		if c.visiting[m] {
			return nil, fmt.Errorf("line %d: a mapping merges itself", m.Line)
		}
		c.visiting[m] = true
		mv, err := c.mapping(m, depth+1)
		delete(c.visiting, m)
		if err != nil {
			return nil, err
		}
		out = append(out, mv)
	}
	return out, nil
}

// resolve follows aliases (at most a few, as keys and merge values do).
func resolve(n *yaml.Node) *yaml.Node {
	for range 8 {
		if n.Kind != yaml.AliasNode || n.Alias == nil {
			return n
		}
		n = n.Alias
	}
	return n
}

// scalar converts a scalar. Timestamps and binary stay the strings they
// are written as, as in dsl.Parse.
func scalar(n *yaml.Node) (any, error) {
	switch tag := n.ShortTag(); tag {
	case "!!str", "!!timestamp", "!!binary":
		return n.Value, nil
	case "!!null":
		return nil, nil
	case "!!bool":
		var b bool
		return b, n.Decode(&b)
	case "!!int":
		var i int64
		return i, n.Decode(&i)
	case "!!float":
		var f float64
		if err := n.Decode(&f); err != nil {
			return nil, err
		}
		if math.IsInf(f, 0) || math.IsNaN(f) {
			return nil, fmt.Errorf("line %d: %s is not a JSON number", n.Line, n.Value)
		}
		return f, nil
	default:
		return nil, fmt.Errorf("line %d: unsupported tag %s", n.Line, tag)
	}
}

func TestFlowSchemaCompiles(t *testing.T) {
	compileFlowSchema(t)
	doc := schemaDoc(t)
	if doc["$id"] != schemas.FlowSchemaID || doc["$schema"] != "https://json-schema.org/draft/2020-12/schema" || doc["title"] == nil {
		t.Errorf("$id %v, $schema %v, title %v", doc["$id"], doc["$schema"], doc["title"])
	}
	// The package's own Compile (format assertions on) takes it too, for
	// whoever validates flows with it.
	if _, err := schemas.Compile(doc); err != nil {
		t.Errorf("schemas.Compile: %v", err)
	}
}

func TestFlowSchemaIsTheFile(t *testing.T) {
	file, err := os.ReadFile("flow.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	got := schemas.FlowSchema()
	if !bytes.Equal(got, file) {
		t.Fatal("FlowSchema() differs from flow.schema.json")
	}
	got[0] = 'x'
	if !bytes.Equal(schemas.FlowSchema(), file) {
		t.Fatal("FlowSchema() returns the embedded bytes themselves, not a copy")
	}
}

// exampleFlows returns the flow files that ship with flowserve, each with
// the relative path its modeline must name.
func exampleFlows(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for pattern, rel := range map[string]string{
		"../flows/*.yaml":                         "../schemas/flow.schema.json",
		"../testdata/conformance/*.yaml":          "../../schemas/flow.schema.json",
		"../examples/custom-actions/flows/*.yaml": "../../../schemas/flow.schema.json",
	} {
		files, err := filepath.Glob(pattern)
		if err != nil || len(files) == 0 {
			t.Fatalf("no flows match %s: %v", pattern, err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.yaml") {
				continue // test cases for `flowserve test`, not flows
			}
			out[f] = rel
		}
	}
	return out
}

func TestExampleFlowsValid(t *testing.T) {
	sch := compileFlowSchema(t)
	for file := range exampleFlows(t) {
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if err := validateYAML(sch, src); err != nil {
			t.Errorf("%s: %v", file, err)
		}
	}
}

// TestExampleFlowsModeline checks that each example flow's first line
// points the YAML language server at this schema by a relative path that
// resolves from the flow's directory.
func TestExampleFlowsModeline(t *testing.T) {
	want, err := os.Stat("flow.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	for file, rel := range exampleFlows(t) {
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		first, _, _ := strings.Cut(string(src), "\n")
		if first != "# yaml-language-server: $schema="+rel {
			t.Errorf("%s: first line %q, want the modeline naming %s", file, first, rel)
			continue
		}
		got, err := os.Stat(filepath.Join(filepath.Dir(file), rel))
		if err != nil || !os.SameFile(got, want) {
			t.Errorf("%s: %s does not resolve to schemas/flow.schema.json: %v", file, rel, err)
		}
	}
}

// invalidFlows are flows the schema rejects. parses says whether
// dsl.Parse accepts the file anyway (a rule lint enforces, not the
// parser); want is a piece of the validation error.
var invalidFlows = []struct {
	name   string
	parses bool
	want   string
	src    string
}{
	{"unknown top-level key", false, "'colour'", `
colour: blue
nodes: [{fail: x}]`},
	{"a var's value written in the flow", false, "/vars/api_base", `
vars:
  api_base: https://api.example.com
nodes: [{fail: x}]`},
	{"a secret name that is not an identifier", false, "Deploy-Token", `
secrets:
  Deploy-Token: {description: t}
nodes: [{fail: x}]`},
	{"an unknown key in a declaration", false, "'descripton'", `
secrets:
  token: {descripton: t}
nodes: [{fail: x}]`},
	{"vars as a list", false, "/vars", `
vars: [api_base]
nodes: [{fail: x}]`},
	{"an id named secrets", false, "/nodes/0/id", `
nodes:
  - id: secrets
    fail: x`},
	{"unknown key in a node", false, "'retires'", `
nodes:
  - id: a
    ask: Sure?
    form: {ok: {type: boolean}}
    retires: 3
  - fail: x`},
	{"key of another kind", false, "'form'", `
nodes:
  - id: s
    step: fs.stat
    form: {}
  - fail: x`},
	{"next on a return", false, "'next'", `
nodes:
  - id: a
    return: done
    next: a`},
	{"next on a branch", false, "'next'", `
nodes:
  - branch: [{else: a}]
    next: a
  - id: a
    fail: x`},
	{"two kind keys", false, "'step'", `
nodes:
  - id: x
    ask: Sure?
    form: {}
    step: fs.stat
  - fail: x`},
	{"no kind key", false, "missing property 'ask'", `
nodes:
  - id: first
  - fail: x`},
	{"ask with form and url", false, "'form'", `
nodes:
  - id: a
    ask: Sign in
    url: https://example.com/login
    form: {}
  - fail: x`},
	{"ask with neither form nor url", false, "missing property 'form'", `
nodes:
  - id: a
    ask: Sure?
  - fail: x`},
	{"url ask with required", false, "'required'", `
nodes:
  - id: a
    ask: Sign in
    url: https://example.com/login
    required: [x]
  - fail: x`},
	{"url ask with validate", true, "'validate'", `
nodes:
  - id: a
    ask: Sign in
    url: https://example.com/login
    validate: [{rule: a.accepted, message: no}]
  - fail: x`},
	{"url that is not absolute", true, "/nodes/0/url", `
nodes:
  - id: a
    ask: Sign in
    url: example.com/login
  - fail: x`},
	{"ask without id", false, "missing property 'id'", `
nodes:
  - ask: Sure?
    form: {}
  - fail: x`},
	{"step without id", false, "missing property 'id'", `
nodes:
  - step: fs.stat
  - fail: x`},
	{"step without action name", false, "/nodes/0/step", `
nodes:
  - id: s
    step: " "
  - fail: x`},
	{"form property with pattern", true, "'pattern'", `
nodes:
  - id: a
    ask: Code?
    form: {code: {type: string, pattern: "^[0-9]+$"}}
  - fail: x`},
	{"nested object property", true, "/nodes/0/form/address/type", `
nodes:
  - id: a
    ask: Where?
    form:
      address:
        type: object
        properties: {street: {type: string}}
  - fail: x`},
	{"multi-select of objects", true, "/nodes/0/form/people/items", `
nodes:
  - id: a
    ask: Who?
    form:
      people: {type: array, items: {type: object}}
  - fail: x`},
	{"string format MCP does not have", true, "/nodes/0/form/host/format", `
nodes:
  - id: a
    ask: Host?
    form: {host: {type: string, format: hostname}}
  - fail: x`},
	{"property without type", true, "missing property 'type'", `
nodes:
  - id: a
    ask: Size?
    form: {size: {enum: [s, m]}}
  - fail: x`},
	{"minLength on a choice", true, "'minLength'", `
nodes:
  - id: a
    ask: Size?
    form: {size: {type: string, enum: [s, m], minLength: 1}}
  - fail: x`},
	{"titled option without title", true, "missing property 'title'", `
nodes:
  - id: a
    ask: Plan?
    form:
      plan: {type: string, oneOf: [{const: free}]}
  - fail: x`},
	{"enumNames with oneOf", true, "'enumNames'", `
nodes:
  - id: a
    ask: Plan?
    form:
      plan: {type: string, oneOf: [{const: free, title: Free}], enumNames: [Free]}
  - fail: x`},
	{"empty enum", true, "/nodes/0/form/size/enum", `
nodes:
  - id: a
    ask: Size?
    form: {size: {type: string, enum: []}}
  - fail: x`},
	{"integer default that is not an integer", true, "/nodes/0/form/n/default", `
nodes:
  - id: a
    ask: How many?
    form: {n: {type: integer, default: 1.5}}
  - fail: x`},
	{"required lists a property twice", false, "/nodes/0/required", `
nodes:
  - id: a
    ask: Sure?
    form: {ok: {type: boolean}}
    required: [ok, ok]
  - fail: x`},
	{"bad id", false, "/nodes/0/id", `
nodes:
  - id: Confirm
    fail: x`},
	{"reserved id", false, "/nodes/0/id", `
nodes:
  - id: input
    fail: x`},
	{"bad reference", false, "/nodes/0/next", `
nodes:
  - set: {a: 1}
    next: Done
  - fail: x`},
	{"bad set name", false, "invalid propertyName 'Count'", `
nodes:
  - set: {Count: 1}
  - fail: x`},
	{"reserved set name", false, "invalid propertyName 'run'", `
nodes:
  - set: {run: 1}
  - fail: x`},
	{"empty set", false, "/nodes/0/set", `
nodes:
  - set: {}
  - fail: x`},
	{"bad duration", false, "/nodes/0/timeout", `
nodes:
  - id: s
    step: fs.stat
    timeout: 3x
  - fail: x`},
	{"duration without unit", false, "/nodes/0/timeout", `
nodes:
  - id: s
    step: fs.stat
    timeout: "30"
  - fail: x`},
	{"zero timeout", false, "/nodes/0/timeout", `
nodes:
  - id: s
    step: fs.stat
    timeout: 0s
  - fail: x`},
	{"timeout that is a number", false, "/nodes/0/timeout", `
nodes:
  - id: s
    step: fs.stat
    timeout: 30
  - fail: x`},
	{"negative backoff", false, "/nodes/0/retry/backoff", `
nodes:
  - id: s
    step: fs.stat
    retry: {attempts: 2, backoff: -1s}
  - fail: x`},
	{"retry without attempts", false, "missing property 'attempts'", `
nodes:
  - id: s
    step: fs.stat
    retry: {backoff: 1s}
  - fail: x`},
	{"zero attempts", false, "/nodes/0/retry/attempts", `
nodes:
  - id: s
    step: fs.stat
    retry: {attempts: 0}
  - fail: x`},
	{"negative retries", false, "/nodes/0/retries", `
nodes:
  - id: a
    ask: Sure?
    form: {}
    retries: -1
  - fail: x`},
	{"retries that is a string", false, "/nodes/0/retries", `
nodes:
  - id: a
    ask: Sure?
    form: {}
    retries: two
  - fail: x`},
	{"with that is a list", false, "/nodes/0/with", `
nodes:
  - id: s
    step: fs.stat
    with: [1, 2]
  - fail: x`},
	{"empty branch", false, "/nodes/0/branch", `
nodes:
  - branch: []
  - fail: x`},
	{"case with if and else", false, "'if'", `
nodes:
  - branch:
      - if: "true"
        else: end
  - id: end
    fail: x`},
	{"case without then", false, "missing property 'then'", `
nodes:
  - branch:
      - if: "true"
  - fail: x`},
	{"else case with then", false, "'then'", `
nodes:
  - branch:
      - else: end
        then: end
  - id: end
    fail: x`},
	{"condition in braces", false, "/nodes/0/branch/0/if", `
nodes:
  - branch:
      - if: "{{ input.ok }}"
        then: end
  - id: end
    fail: x`},
	{"empty condition", false, "/nodes/0/branch/0/if", `
nodes:
  - branch:
      - if: ""
        then: end
  - id: end
    fail: x`},
	{"validate entry without message", false, "missing property 'message'", `
nodes:
  - id: a
    ask: Age?
    form: {age: {type: integer}}
    validate: [{rule: a.content.age > 0}]
  - fail: x`},
	{"unclosed template", false, "/nodes/0/fail", `
nodes:
  - fail: "Hello {{ input.name"`},
	{"unclosed template in with", false, "/nodes/0/with/path", `
nodes:
  - id: s
    step: fs.stat
    with: {path: "{{ input.path }"}
  - fail: x`},
	{"empty interpolation", false, "/nodes/0/return", `
nodes:
  - return: "x {{ }} y"`},
	{"empty return", false, "/nodes/0/return", `
nodes:
  - return: {}`},
	{"null return", false, "/nodes/0/return", `
nodes:
  - return:`},
	{"unknown key in return", false, "/nodes/0/return", `
nodes:
  - return: {txt: hi}`},
	{"structured that is a list", false, "/nodes/0/return", `
nodes:
  - return: {structured: [1, 2]}`},
	{"content block of unknown type", false, "/nodes/0/return", `
nodes:
  - return:
      content: [{type: txt, text: hi}]`},
	{"content block without type", false, "/nodes/0/return", `
nodes:
  - return:
      content: [{text: hi}]`},
	{"text block without text", true, "/nodes/0/return", `
nodes:
  - return:
      content: [{type: text}]`},
	{"image block with an unknown key", true, "/nodes/0/return", `
nodes:
  - return:
      content: [{type: image, data: AAAA, mimeType: image/png, alt: a dot}]`},
	{"resource with text and blob", true, "/nodes/0/return", `
nodes:
  - return:
      content:
        - type: resource
          resource: {uri: "test://x", text: hi, blob: aGk=}`},
	{"fail that is a mapping", false, "/nodes/0/fail", `
nodes:
  - fail: {message: x}`},
	{"unknown expression language", false, "/expressions", `
expressions: cell
nodes: [{fail: x}]`},
	{"empty name", false, "/name", `
name: ""
nodes: [{fail: x}]`},
	{"name with a space", true, "/name", `
name: delete file
nodes: [{fail: x}]`},
	{"title that is a list", false, "/title", `
title: [a, b]
nodes: [{fail: x}]`},
	{"input that is a list", false, "/input", `
input: [a]
nodes: [{fail: x}]`},
	{"input that is not an object schema", true, "/input", `
input: {type: string}
nodes: [{fail: x}]`},
	{"input with a bad keyword value", true, "/input", `
input: {type: object, required: path}
nodes: [{fail: x}]`},
	{"empty node list", false, "/nodes", `
nodes: []`},
	{"no node list", false, "missing property 'nodes'", `
name: x`},
	{"node that is a string", false, "/nodes/0", `
nodes:
  - just a string`},
	{"not a mapping", false, "", `
- fail: x`},
	{"empty file", false, "", `# nothing here`},
	{"unknown kind", false, "/kind", `
kind: resource
nodes: [{fail: x}]`},
	{"message with text and content", false, "/nodes/0/return", `
kind: prompt
nodes:
  - return:
      messages:
        - {role: user, text: a, content: {type: text, text: b}}`},
	{"message without a role", false, "/nodes/0/return", `
kind: prompt
nodes:
  - return:
      messages: [{text: a}]`},
	{"call without id", false, "missing property 'id'", `
nodes:
  - call: confirm_action
  - fail: x`},
	{"link without id", false, "missing property 'id'", `
nodes:
  - link: receipt`},
	{"call without a flow name", false, "/nodes/0/call", `
nodes:
  - id: c
    call: " "
  - fail: x`},
	{"call of a name no flow can have", true, "/nodes/0/call", `
nodes:
  - id: c
    call: confirm action
  - fail: x`},
	{"next on a link", false, "'next'", `
nodes:
  - id: l
    link: receipt
    next: l`},
	{"on_error on a link", false, "'on_error'", `
nodes:
  - id: l
    link: receipt
    on_error: e
  - id: e
    fail: x`},
	{"a step's key on a call", false, "'timeout'", `
nodes:
  - id: c
    call: confirm_action
    timeout: 5s
  - fail: x`},
	{"call with that is a list", false, "/nodes/0/with", `
nodes:
  - id: c
    call: confirm_action
    with: [a]
  - fail: x`},
	{"call and step in one node", false, "'step'", `
nodes:
  - id: c
    call: confirm_action
    step: fs.stat
  - fail: x`},
	{"expose that is a string", false, "/expose", `
expose: "no"
nodes: [{fail: x}]`},
}

func TestInvalidFlows(t *testing.T) {
	sch := compileFlowSchema(t)
	for _, tc := range invalidFlows {
		t.Run(tc.name, func(t *testing.T) {
			src := []byte(strings.TrimPrefix(tc.src, "\n") + "\n")
			err := validateYAML(sch, src)
			if err == nil {
				t.Fatalf("the schema accepts\n%s", src)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error does not mention %q:\n%v", tc.want, err)
			}
			_, ds := dsl.Parse("flow.yaml", src)
			if parses := !ds.HasErrors(); parses != tc.parses {
				t.Errorf("dsl.Parse accepts it: %v, want %v (%v)", parses, tc.parses, ds)
			}
		})
	}
}

// validFlows are flows the schema and dsl.Parse both accept: the corners
// of each rule.
var validFlows = []struct {
	name string
	src  string
}{
	{"every optional top-level key empty", `
name:
title:
description:
expressions:
input:
output:
expose:
nodes: [{fail: x}]`},
	{"vars and secrets", `
vars:
  api_base: {description: Base URL of the deploy API}
  region:
  zone: {}
secrets:
  deploy_token: {description: Bearer token}
  other: {description: }
nodes:
  - id: deploy
    step: http.request
    with:
      url: "{{ vars.api_base }}/deploy"
      headers: {Authorization: "Bearer {{ secrets.deploy_token }}"}
  - return: "Deployed to {{ vars.region }}"`},
	{"expr language", `
expressions: expr
nodes: [{fail: x}]`},
	{"durations", `
nodes:
  - id: a
    step: fs.stat
    timeout: 1h2m3.5s
    retry: {attempts: 1, backoff: "0"}
  - id: b
    step: fs.stat
    timeout: .5s
    retry: {attempts: 3, backoff: 250us}
  - id: c
    step: fs.stat
    timeout: +1µs
    retry: {attempts: 2, backoff: 0s}
  - fail: x`},
	{"empty and null optional values", `
nodes:
  - id: a
    ask: Sure?
    form:
    required:
    validate:
    retries: 0
  - id: s
    step: fs.stat
    with:
  - fail: x`},
	{"boolean condition and quoted negation", `
nodes:
  - branch:
      - if: true
        then: end
      - if: "!input.ok"
        then: end
  - id: end
    fail: x`},
	{"templates with braces inside", `
nodes:
  - set:
      m: "{{ {'a': 1} }}"
      e: "{{{ }}}"
      s: "{{ 'a}}b' }}"
  - return: "{{ m }} and {{ e }}"`},
	{"every form property kind", `
nodes:
  - id: a
    ask: Everything
    form:
      s: {type: string, title: S, description: d, minLength: 1, maxLength: 9, format: date-time, default: x}
      n: {type: number, minimum: 0.5, maximum: 9, default: 1}
      i: {type: integer, minimum: 0, default: 3}
      b: {type: boolean, default: true}
      e: {type: string, enum: [x, y], default: x}
      l: {type: string, enum: [x, y], enumNames: [X, Y]}
      o: {type: string, oneOf: [{const: x, title: X}], default: x}
      m: {type: array, items: {type: string, enum: [x, y]}, minItems: 1, maxItems: 2, default: [x]}
      t: {type: array, items: {anyOf: [{const: x, title: X}]}, default: [x]}
      u: {type: array, items: {enum: [x]}}
  - fail: x`},
	{"every content block", `
nodes:
  - id: r
    return:
      text: hi
      structured: "{{ input }}"
      content:
        - {type: text, text: hi, annotations: {audience: [user], priority: 0.5}}
        - {type: image, data: AAAA, mimeType: image/png}
        - {type: audio, data: "{{ input.wav }}", mimeType: audio/wav, _meta: {k: v}}
        - {type: resource_link, uri: "file:///x", name: x, size: 3, icons: [{src: "https://x/i.png", theme: dark}]}
        - {type: resource, resource: {uri: "test://x", blob: aGk=}}
        - {type: resource, resource: "{{ input.res }}"}`},
	{"prompt flow", `
kind: prompt
input:
  type: object
  properties:
    topic: {type: string, enum: [a, b]}
nodes:
  - return:
      description: "About {{ input.topic }}"
      text: hi
      messages:
        - {role: assistant, text: "{{ input.topic }}"}
        - role: user
          content: {type: image, data: AAAA, mimeType: image/png}
  - return: plain text`},
	{"url starting with an expression", `
nodes:
  - id: a
    ask: Sign in
    url: "{{ input.login_url }}"
  - fail: x`},
	{"call and link", `
expose: false
nodes:
  - id: confirm
    call: confirm_action
    with:
      action: "Delete {{ input.path }}"
      times: 2
      tags: [a, "{{ input.tag }}"]
    on_error: refused
    next: handover
  - id: bare
    call: other.flow-v2
    with:
  - id: handover
    link: receipt
    with: {item: "{{ confirm.note }}"}
  - id: refused
    link: explain`},
	{"expose true and empty", `
expose: true
nodes: [{fail: x}]`},
}

func TestValidFlows(t *testing.T) {
	sch := compileFlowSchema(t)
	for _, tc := range validFlows {
		t.Run(tc.name, func(t *testing.T) {
			src := []byte(strings.TrimPrefix(tc.src, "\n") + "\n")
			if err := validateYAML(sch, src); err != nil {
				t.Errorf("the schema rejects\n%s\n%v", src, err)
			}
			if _, ds := dsl.Parse("flow.yaml", src); ds.HasErrors() {
				// expr may not be registered yet; only its diagnostic is allowed.
				for _, d := range ds {
					if d.Code != "unknown-language" {
						t.Errorf("dsl.Parse rejects it: %v", d)
					}
				}
			}
		})
	}
}

// parseDisagreements are the parser goldens whose only errors a JSON
// Schema cannot express, with the reason.
var parseDisagreements = map[string]string{
	"duplicate_id":             "ids must be unique across nodes; JSON Schema's uniqueItems compares whole items, not one key of them",
	"name_collision":           "a set name must not be the id of an ask or step node elsewhere in the file: a cross-reference",
	"unknown_target":           "next, then, else, unavailable and on_error must name an existing node: a cross-reference",
	"secret_outside_with":      "where an expression reads secrets is a matter of what it reads, which only the expression language knows",
	"secret_outside_with_expr": "where an expression reads secrets is a matter of what it reads, which only the expression language knows",
}

// TestParseGoldensAgree checks that the schema accepts exactly the flows
// of dsl/testdata/parse that dsl.Parse accepts, except the cases in
// parseDisagreements, which must still disagree.
func TestParseGoldensAgree(t *testing.T) {
	sch := compileFlowSchema(t)
	files, err := filepath.Glob(filepath.Join("..", "dsl", "testdata", "parse", "*.txtar"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no parser goldens: %v", err)
	}
	seen := map[string]bool{}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".txtar")
		seen[name] = true
		t.Run(name, func(t *testing.T) {
			a, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			i := slices.IndexFunc(a.Files, func(f txtar.File) bool { return f.Name == "flow.yaml" })
			if i < 0 {
				t.Skip("no flow.yaml section")
			}
			src := a.Files[i].Data
			_, ds := dsl.Parse("flow.yaml", src)
			parses := !ds.HasErrors()
			verr := validateYAML(sch, src)
			valid := verr == nil
			if verr != nil {
				t.Logf("schema: %v", verr)
			}
			if why, ok := parseDisagreements[name]; ok {
				if valid == parses {
					t.Fatalf("listed as a disagreement (%s), but the schema and dsl.Parse agree (valid: %v): remove it from parseDisagreements", why, valid)
				}
				t.Skipf("schema valid %v, dsl.Parse clean %v: %s", valid, parses, why)
			}
			if valid != parses {
				t.Errorf("schema valid: %v (%v); dsl.Parse clean: %v (%v)", valid, verr, parses, ds)
			}
		})
	}
	for name := range parseDisagreements {
		if !seen[name] {
			t.Errorf("parseDisagreements lists %s, which is not a golden", name)
		}
	}
}

// TestFlowSchemaDescriptions checks that every property and definition
// has a description (editors show it as help), directly or through the
// local $ref it is.
func TestFlowSchemaDescriptions(t *testing.T) {
	doc := schemaDoc(t)
	if d, _ := doc["description"].(string); d == "" {
		t.Error("the schema has no description")
	}
	defs, _ := doc["$defs"].(map[string]any)
	described := func(s any) bool {
		m, ok := s.(map[string]any)
		if !ok {
			return false
		}
		if d, _ := m["description"].(string); d != "" {
			return true
		}
		ref, _ := m["$ref"].(string)
		name, local := strings.CutPrefix(ref, "#/$defs/")
		if !local || len(m) != 1 {
			return false
		}
		target, _ := defs[name].(map[string]any)
		d, _ := target["description"].(string)
		return d != ""
	}
	count := 0
	var walk func(path string, v any)
	walk = func(path string, v any) {
		s, ok := v.(map[string]any)
		if !ok {
			return
		}
		for _, kw := range []string{"properties", "$defs", "patternProperties"} {
			m, _ := s[kw].(map[string]any)
			for name, sub := range m {
				count++
				if !described(sub) {
					t.Errorf("%s/%s/%s has no description", path, kw, name)
				}
				walk(path+"/"+kw+"/"+name, sub)
			}
		}
		// Subschemas people see through completion and hover; the
		// conditions of if are not among them.
		for _, kw := range []string{"then", "else", "not", "items", "additionalProperties", "propertyNames", "contains"} {
			walk(path+"/"+kw, s[kw])
		}
		for _, kw := range []string{"allOf", "anyOf", "oneOf", "prefixItems"} {
			l, _ := s[kw].([]any)
			for i, sub := range l {
				walk(fmt.Sprintf("%s/%s/%d", path, kw, i), sub)
			}
		}
	}
	walk("#", doc)
	if count < 100 {
		t.Errorf("only %d properties and definitions found", count)
	}
}

// TestFlowSchemaActionExamples checks that the action names the schema
// suggests are the built-in actions.
func TestFlowSchemaActionExamples(t *testing.T) {
	action := schemaDoc(t)["$defs"].(map[string]any)["action"].(map[string]any)
	var got []string
	for _, e := range action["examples"].([]any) {
		got = append(got, e.(string))
	}
	var want []string
	for _, a := range actions.Default().Actions() {
		want = append(want, a.Name)
	}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("examples of $defs/action in flow.schema.json: %v; update them to the built-in actions: %v", got, want)
	}
}

// TestPatternsMatchParser checks the schema's duration and template
// patterns against dsl.Parse on corner cases.
func TestPatternsMatchParser(t *testing.T) {
	sch := compileFlowSchema(t)
	check := func(t *testing.T, src string) {
		t.Helper()
		verr := validateYAML(sch, []byte(src))
		_, ds := dsl.Parse("flow.yaml", []byte(src))
		if (verr == nil) != !ds.HasErrors() {
			t.Errorf("schema valid: %v (%v); dsl.Parse clean: %v (%v)\n%s", verr == nil, verr, !ds.HasErrors(), ds, src)
		}
	}
	durations := []string{
		"30s", "1m30s", "500ms", "1.5h", ".5s", "1.s", "0s", "0", "+0", "-0", "-0s", "-0.0ms",
		"+1µs", "1μs", "2us", "3ns", "1h0m", "0h1s", "-1s", "3x", "30", "1mss", "0.0s", "0.5s",
		"", ".", "s", "1 s", "1S", "1d", "+-1s", "0x1s",
	}
	for _, d := range durations {
		q, _ := json.Marshal(d)
		check(t, fmt.Sprintf("nodes:\n  - id: s\n    step: fs.stat\n    timeout: %s\n  - fail: x\n", q))
		check(t, fmt.Sprintf("nodes:\n  - id: s\n    step: fs.stat\n    retry: {attempts: 1, backoff: %s}\n  - fail: x\n", q))
	}
	templates := []string{
		"plain", "{{ a }}", "x {{ a }} y {{ 1 }}", "{{ a", "a }}", "x }} {{", "{{ }}", "{{}}", "x{{\t}}y",
		"{{{ }}}", "{{ 'a}}b' }}", "{{ {'k': 1} }}", "a {{a}} {{ a }", "{ {", "}}{{a}}", "{{ a }}}",
	}
	for _, s := range templates {
		q, _ := json.Marshal(s)
		check(t, fmt.Sprintf("nodes:\n  - set: {a: 1}\n  - fail: %s\n", q))
	}
}
