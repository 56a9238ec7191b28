package flowtest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/flowserve/flowserve/dsl"
	"github.com/flowserve/flowserve/flow"
	"github.com/flowserve/flowserve/internal/yamlx"
)

// File is a parsed test file.
type File struct {
	Path string
	// Flow is the path of the flow file the cases run against: the
	// `flow:` key resolved against the test file's directory, or the test
	// file's name without `_test`.
	Flow    string
	FlowPos dsl.Pos // where `flow:` is; the zero Pos when absent
	// Vars and Secrets are the values every case of the file gives the
	// flow's vars and secrets, by name (see Case.Vars).
	Vars, Secrets map[string]Setting
	Cases         []*Case
}

// Setting is the value a test file or case gives one of the flow's vars
// or secrets.
type Setting struct {
	Pos   dsl.Pos // where the name is
	Value string
}

// Case is one test case.
type Case struct {
	Name   string
	Pos    dsl.Pos // the case's mapping
	Skip   string  // the reason the case is skipped; "" runs it
	Args   json.RawMessage
	Client Client
	// Principal is the caller the case's server authenticated (its OAuth
	// token's subject, scopes and claims), or nil for none: the flow's
	// scopes are then not checked.
	Principal *flow.Identity
	Answers   map[string]*Answers
	Mocks     map[string]*Mock
	// Vars and Secrets are the values the case gives the flow's vars and
	// secrets, by name, over the file's. A case reads no environment: a
	// name the flow declares must have a value here or in the file.
	Vars, Secrets map[string]Setting
	Expect        Expect
}

// Client is the capabilities and identity a case's client declares.
type Client struct {
	Form, URL, Sampling, Roots bool
	// Tasks declares the tasks extension: the case runs as a task where a
	// 2026-07-28 server would make the call one.
	Tasks                   bool
	Name, Version, Protocol string
}

// Mock replaces a step: its output, or an error.
type Mock struct {
	Pos    dsl.Pos
	Output any
	Err    string
	IsErr  bool
}

// The keys of each mapping of a test file.
var (
	fileKeys      = []string{"flow", "vars", "secrets", "tests"}
	caseKeys      = []string{"name", "skip", "args", "client", "principal", "vars", "secrets", "answers", "mocks", "expect"}
	principalKeys = []string{"sub", "scopes", "claims"}
	clientKeys    = []string{"form", "url", "sampling", "roots", "tasks", "name", "version", "protocol"}
	answerKeys    = []string{"action", "content", "by", "text", "model", "stop_reason", "roots"}
	expectKeys    = []string{"text", "text_contains", "structured", "structured_contains", "is_error", "error",
		"path", "visits", "not_visits", "asks", "statuses", "ask_messages", "step_inputs", "notifications", "messages", "description"}
	notificationKeys = []string{"tool", "task", "question", "message", "to", "link", "expires", "text", "text_contains"}
)

// ReadFile reads and parses a test file. Problems are returned as
// diagnostics with positions; err is for a file that cannot be read.
func ReadFile(path string) (*File, dsl.Diagnostics, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	f, diags := Parse(path, src)
	return f, diags, nil
}

// Parse parses a test file's source. The File is nil only when the YAML
// cannot be read; with error diagnostics it may be partial.
func Parse(path string, src []byte) (*File, dsl.Diagnostics) {
	d := newDecoder(path)
	f := &File{Path: path, Flow: defaultFlow(path)}
	root, ok := d.yr.Read(src, "a test file")
	if !ok {
		return nil, d.finish()
	}
	if root == nil || yamlx.IsNull(root) {
		d.errorAt(dsl.Pos{File: path, Line: 1, Col: 1}, CodeNoTests, "the test file is empty; it needs a tests list")
		return f, d.finish()
	}
	var tests *yaml.Node
	for _, e := range d.mapping(root, "a test file", fileKeys) {
		switch e.Name {
		case "flow":
			if s, ok := d.yr.String(e.Value, "flow"); ok {
				f.FlowPos = d.pos(e.Key)
				f.Flow = flowPath(path, s)
			}
		case "vars":
			f.Vars = d.settings(e.Value, "vars")
		case "secrets":
			f.Secrets = d.settings(e.Value, "secrets")
		case "tests":
			tests = e.Value
		}
	}
	if tests == nil {
		if root.Kind == yaml.MappingNode {
			d.errorf(root, CodeNoTests, "the test file has no tests list")
		}
		return f, d.finish()
	}
	items := d.seq(tests, "tests")
	if len(items) == 0 && yamlx.Resolve(tests).Kind == yaml.SequenceNode {
		d.errorf(tests, CodeNoTests, "the tests list is empty")
	}
	names := map[string]int{}
	for _, item := range items {
		c := d.testCase(item)
		if c == nil {
			continue
		}
		if c.Name != "" {
			if line, dup := names[c.Name]; dup {
				d.errorAt(c.Pos, CodeDuplicateCase, "another case is named %q (line %d)", c.Name, line)
			}
			names[c.Name] = c.Pos.Line
		}
		f.Cases = append(f.Cases, c)
	}
	return f, d.finish()
}

// defaultFlow returns the flow file a test file names by its own name:
// signup_test.yaml → signup.yaml.
func defaultFlow(path string) string {
	ext := filepath.Ext(path)
	return strings.TrimSuffix(strings.TrimSuffix(path, ext), "_test") + ext
}

// IsTestFile reports whether name is a test file's name: it ends in
// _test.yaml or _test.yml.
func IsTestFile(name string) bool {
	ext := filepath.Ext(name)
	return (ext == ".yaml" || ext == ".yml") && strings.HasSuffix(strings.TrimSuffix(name, ext), "_test") &&
		strings.TrimSuffix(strings.TrimSuffix(name, ext), "_test") != ""
}

// flowOf reads just the `flow:` key of a test file, to group test files
// by flow before they are parsed for real. A file that does not parse
// stays with its default flow; parsing it reports why.
func flowOf(path string) string {
	src, err := os.ReadFile(path)
	if err != nil {
		return defaultFlow(path)
	}
	root, _ := yamlx.Reader{}.Read(src, "")
	e, ok := yamlx.Lookup(root, "flow")
	if !ok || !yamlx.IsString(e.Value) || e.Value.Value == "" {
		return defaultFlow(path)
	}
	return flowPath(path, e.Value.Value)
}

// flowPath returns the flow file the `flow:` key of the test file at path
// names: flow resolved against the test file's directory.
func flowPath(path, flow string) string {
	if filepath.IsAbs(flow) {
		return filepath.Clean(flow)
	}
	return filepath.Join(filepath.Dir(path), flow)
}

// testCase decodes one entry of the tests list; nil when it is not a
// mapping.
func (d *decoder) testCase(n *yaml.Node) *Case {
	c := &Case{Pos: d.pos(n), Client: Client{Form: true, URL: true, Sampling: true, Roots: true, Name: "flowserve-test", Protocol: "2026-07-28"}}
	if yamlx.Resolve(n).Kind != yaml.MappingNode {
		d.yr.Mapping(n, "a test case") // reports what it is instead
		return nil
	}
	entries := d.mapping(n, "a test case", caseKeys)
	hasName := false
	for _, e := range entries {
		switch e.Name {
		case "name":
			if s, ok := d.yr.String(e.Value, "name"); ok {
				hasName = true
				c.Name = s
				if strings.TrimSpace(s) == "" {
					d.errorf(e.Value, CodeBadValue, "name must not be empty")
				}
			}
		case "skip":
			if s, ok := d.yr.String(e.Value, "skip"); ok {
				c.Skip = s
				if strings.TrimSpace(s) == "" {
					d.errorf(e.Value, CodeBadValue, "skip takes the reason the case is skipped")
				}
			}
		case "args":
			v, ok := d.yr.Value(e.Value)
			if !ok {
				continue
			}
			if _, isMap := v.(map[string]any); !isMap && v != nil {
				d.errorf(e.Value, CodeBadValue, "args must be a mapping of the tool's arguments")
				continue
			}
			c.Args, _ = json.Marshal(v)
		case "client":
			d.client(e.Value, &c.Client)
		case "principal":
			c.Principal = d.principal(e.Value)
		case "vars":
			c.Vars = d.settings(e.Value, "vars")
		case "secrets":
			c.Secrets = d.settings(e.Value, "secrets")
		case "answers":
			c.Answers = map[string]*Answers{}
			for _, a := range d.mapping(e.Value, "answers", nil) {
				if as := d.answers(a.Key, a.Value); as != nil {
					c.Answers[a.Name] = as
				}
			}
		case "mocks":
			c.Mocks = map[string]*Mock{}
			for _, m := range d.mapping(e.Value, "mocks", nil) {
				if mk := d.mock(m.Key, m.Value); mk != nil {
					c.Mocks[m.Name] = mk
				}
			}
		case "expect":
			d.expect(e.Key, e.Value, &c.Expect)
		}
	}
	if !hasName {
		d.errorf(n, CodeMissingName, "a test case needs a name")
	}
	return c
}

// client decodes a case's client over the defaults in c: its
// capabilities (booleans, kept when invalid) and identity (strings, empty
// when invalid).
func (d *decoder) client(n *yaml.Node, c *Client) {
	flags := map[string]*bool{"form": &c.Form, "url": &c.URL, "sampling": &c.Sampling, "roots": &c.Roots, "tasks": &c.Tasks}
	texts := map[string]*string{"name": &c.Name, "version": &c.Version, "protocol": &c.Protocol}
	for _, e := range d.mapping(n, "client", clientKeys) {
		where := "client." + e.Name
		if flag, ok := flags[e.Name]; ok {
			if b, ok := d.yr.Bool(e.Value, where); ok {
				*flag = b
			}
		} else if text, ok := texts[e.Name]; ok {
			*text, _ = d.yr.String(e.Value, where)
		}
	}
}

// principal decodes a case's caller: {sub, scopes, claims}.
func (d *decoder) principal(n *yaml.Node) *flow.Identity {
	id := &flow.Identity{}
	for _, e := range d.mapping(n, "principal", principalKeys) {
		switch e.Name {
		case "sub":
			id.Subject, _ = d.yr.String(e.Value, "principal.sub")
		case "scopes":
			for _, item := range d.seq(e.Value, "principal.scopes") {
				if s, ok := d.yr.String(item, "principal.scopes[]"); ok {
					id.Scopes = append(id.Scopes, s)
				}
			}
		case "claims":
			v, ok := d.yr.Value(e.Value)
			if m, isMap := v.(map[string]any); ok && isMap {
				id.Claims = m
			} else if ok {
				d.errorf(e.Value, CodeBadValue, "principal.claims must be a mapping of the token's claims")
			}
		}
	}
	if id.Subject == "" {
		d.errorf(n, CodeBadValue, "principal needs sub: the subject of the caller's token")
	}
	return id
}

// settings decodes the vars or secrets of a file or case: a mapping of
// names to strings (any other scalar is taken as written, as the server
// reads its files).
func (d *decoder) settings(n *yaml.Node, where string) map[string]Setting {
	out := map[string]Setting{}
	for _, e := range d.mapping(n, where, nil) {
		if e.Value.Kind != yaml.ScalarNode || yamlx.IsNull(e.Value) {
			d.errorf(e.Value, CodeBadType, "%s.%s must be a string, not %s", where, e.Name, yamlx.TypeName(e.Value))
			continue
		}
		out[e.Name] = Setting{Pos: d.pos(e.Key), Value: e.Value.Value}
	}
	return out
}

// mock decodes a step mock: {error: message}, {output: value} or the
// output value itself.
func (d *decoder) mock(k, v *yaml.Node) *Mock {
	m := &Mock{Pos: d.pos(k)}
	if rv := yamlx.Resolve(v); rv.Kind == yaml.MappingNode && len(rv.Content) == 2 {
		for _, e := range d.yr.Pairs(rv) {
			switch e.Name {
			case "error":
				s, ok := d.yr.String(e.Value, "error")
				if !ok {
					return nil
				}
				if s == "" {
					d.errorf(e.Value, CodeBadMock, "the error message of a mock must not be empty")
					return nil
				}
				m.IsErr, m.Err = true, s
				return m
			case "output":
				v = e.Value
			}
		}
	}
	out, ok := d.yr.Value(v)
	if !ok {
		return nil
	}
	m.Output = out
	return m
}
