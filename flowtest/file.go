package flowtest

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/flowserve/flowserve/dsl"
)

// File is a parsed test file.
type File struct {
	Path string
	// Flow is the path of the flow file the cases run against: the
	// `flow:` key resolved against the test file's directory, or the test
	// file's name without `_test`.
	Flow    string
	FlowPos dsl.Pos // where `flow:` is; the zero Pos when absent
	Cases   []*Case
}

// Case is one test case.
type Case struct {
	Name    string
	Pos     dsl.Pos // the case's mapping
	Skip    string  // the reason the case is skipped; "" runs it
	Args    json.RawMessage
	Client  Client
	Answers map[string]*Answers
	Mocks   map[string]*Mock
	Expect  Expect
}

// Client is the capabilities and identity a case's client declares.
type Client struct {
	Form, URL, Sampling, Roots bool
	Name, Version, Protocol    string
}

// Answers are the answers a case gives one question.
type Answers struct {
	Pos dsl.Pos
	// Every is true when a single answer was given: it answers the
	// question every time it is asked. Otherwise List is used in turn.
	Every bool
	List  []Answer
}

// Answer is one reply to a question: an elicitation result (for an ask),
// a sampling result (for a sample node) or a roots result (for a roots
// node).
type Answer struct {
	Pos  dsl.Pos
	Kind dsl.Kind        // KindAsk, KindSample or KindRoots
	Raw  json.RawMessage // the result as a client sends it
}

// Mock replaces a step: its output, or an error.
type Mock struct {
	Pos    dsl.Pos
	Output any
	Err    string
	IsErr  bool
}

// Expect holds a case's expectations. Nil fields are not checked, except
// IsError, which is false when not given.
type Expect struct {
	Pos                dsl.Pos
	Text               *StringExp
	TextContains       []StringExp
	Structured         *ValueExp
	StructuredContains *ValueExp
	IsError            *BoolExp
	Error              *StringExp
	Path               *ListExp
	Visits             []ListExp
	NotVisits          *ListExp
	Asks               *ListExp
	AskMessages        map[string]*ListExp
	StepInputs         map[string]*ValueExp
	// Messages and Description are a prompt flow's: Messages holds a list
	// of {role, content} mappings ({role, text} written short).
	Messages    *ValueExp
	Description *StringExp
}

// StringExp is an expected string.
type StringExp struct {
	Pos   dsl.Pos
	Value string
}

// BoolExp is an expected boolean.
type BoolExp struct {
	Pos   dsl.Pos
	Value bool
}

// ValueExp is an expected JSON-like value.
type ValueExp struct {
	Pos   dsl.Pos
	Value any
}

// ListExp is an expected list of strings, each with its position.
type ListExp struct {
	Pos   dsl.Pos
	Items []string
	Poss  []dsl.Pos
}

// The keys of each mapping of a test file.
var (
	fileKeys   = []string{"flow", "tests"}
	caseKeys   = []string{"name", "skip", "args", "client", "answers", "mocks", "expect"}
	clientKeys = []string{"form", "url", "sampling", "roots", "name", "version", "protocol"}
	answerKeys = []string{"action", "content", "text", "model", "stop_reason", "roots"}
	expectKeys = []string{"text", "text_contains", "structured", "structured_contains", "is_error", "error",
		"path", "visits", "not_visits", "asks", "ask_messages", "step_inputs", "messages", "description"}
)

// maxDepth bounds nesting (and alias expansion) in test files.
const maxDepth = 64

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
	d := &decoder{path: path}
	f := &File{Path: path, Flow: defaultFlow(path)}
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		d.diags = append(d.diags, dsl.YAMLError(path, src, err))
		return nil, d.diags
	}
	if len(doc.Content) == 0 {
		d.errorAt(dsl.Pos{File: path, Line: 1, Col: 1}, "no-tests", "the test file is empty; it needs a tests list")
		return f, d.diags
	}
	root := doc.Content[0]
	var tests *yaml.Node
	for _, e := range d.mapping(root, "a test file", fileKeys) {
		switch e.key {
		case "flow":
			if s, ok := d.str(e.v, "flow"); ok {
				f.FlowPos = d.pos(e.k)
				if filepath.IsAbs(s) {
					f.Flow = filepath.Clean(s)
				} else {
					f.Flow = filepath.Join(filepath.Dir(path), s)
				}
			}
		case "tests":
			tests = e.v
		}
	}
	if tests == nil {
		if root.Kind == yaml.MappingNode {
			d.errorf(root, "no-tests", "the test file has no tests list")
		}
		return f, d.diags
	}
	items := d.seq(tests, "tests")
	if len(items) == 0 && resolve(tests).Kind == yaml.SequenceNode {
		d.errorf(tests, "no-tests", "the tests list is empty")
	}
	names := map[string]int{}
	for _, item := range items {
		c := d.testCase(item)
		if c == nil {
			continue
		}
		if c.Name != "" {
			if line, dup := names[c.Name]; dup {
				d.errorAt(c.Pos, "duplicate-case", "another case is named %q (line %d)", c.Name, line)
			}
			names[c.Name] = c.Pos.Line
		}
		f.Cases = append(f.Cases, c)
	}
	d.diags.Sort()
	return f, d.diags
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
	var top struct {
		Flow any `yaml:"flow"`
	}
	if yaml.Unmarshal(src, &top) != nil {
		return defaultFlow(path)
	}
	s, ok := top.Flow.(string)
	if !ok || s == "" {
		return defaultFlow(path)
	}
	if filepath.IsAbs(s) {
		return filepath.Clean(s)
	}
	return filepath.Join(filepath.Dir(path), s)
}

func (d *decoder) testCase(n *yaml.Node) *Case {
	c := &Case{Pos: d.pos(n), Client: Client{Form: true, URL: true, Sampling: true, Roots: true, Name: "flowserve-test", Protocol: "2026-07-28"}}
	entries := d.mapping(n, "a test case", caseKeys)
	if resolve(n).Kind != yaml.MappingNode {
		return nil
	}
	hasName := false
	for _, e := range entries {
		switch e.key {
		case "name":
			if s, ok := d.str(e.v, "name"); ok {
				hasName = true
				c.Name = s
				if strings.TrimSpace(s) == "" {
					d.errorf(e.v, "bad-value", "name must not be empty")
				}
			}
		case "skip":
			if s, ok := d.str(e.v, "skip"); ok {
				c.Skip = s
				if strings.TrimSpace(s) == "" {
					d.errorf(e.v, "bad-value", "skip takes the reason the case is skipped")
				}
			}
		case "args":
			v, ok := d.value(e.v, 0)
			if !ok {
				continue
			}
			if _, isMap := v.(map[string]any); !isMap && v != nil {
				d.errorf(e.v, "bad-value", "args must be a mapping of the tool's arguments")
				continue
			}
			c.Args, _ = json.Marshal(v)
		case "client":
			d.client(e.v, &c.Client)
		case "answers":
			c.Answers = map[string]*Answers{}
			for _, a := range d.mapping(e.v, "answers", nil) {
				if as := d.answers(a.k, a.v); as != nil {
					c.Answers[a.key] = as
				}
			}
		case "mocks":
			c.Mocks = map[string]*Mock{}
			for _, m := range d.mapping(e.v, "mocks", nil) {
				if mk := d.mock(m.k, m.v); mk != nil {
					c.Mocks[m.key] = mk
				}
			}
		case "expect":
			d.expect(e.k, e.v, &c.Expect)
		}
	}
	if !hasName {
		d.errorf(n, "missing-name", "a test case needs a name")
	}
	return c
}

func (d *decoder) client(n *yaml.Node, c *Client) {
	for _, e := range d.mapping(n, "client", clientKeys) {
		switch e.key {
		case "form":
			if b, ok := d.boolean(e.v, "client.form"); ok {
				c.Form = b
			}
		case "url":
			if b, ok := d.boolean(e.v, "client.url"); ok {
				c.URL = b
			}
		case "sampling":
			if b, ok := d.boolean(e.v, "client.sampling"); ok {
				c.Sampling = b
			}
		case "roots":
			if b, ok := d.boolean(e.v, "client.roots"); ok {
				c.Roots = b
			}
		case "name":
			c.Name, _ = d.str(e.v, "client.name")
		case "version":
			c.Version, _ = d.str(e.v, "client.version")
		case "protocol":
			c.Protocol, _ = d.str(e.v, "client.protocol")
		}
	}
}

// answers decodes the answers to one question: one answer, or a list.
func (d *decoder) answers(k, v *yaml.Node) *Answers {
	as := &Answers{Pos: d.pos(k)}
	if resolve(v).Kind == yaml.SequenceNode {
		items := d.seq(v, "answers")
		if len(items) == 0 {
			d.errorf(v, "bad-answer", "the list of answers to %q is empty", k.Value)
			return nil
		}
		good := true
		for _, item := range items {
			a, ok := d.answer(item)
			good = good && ok
			as.List = append(as.List, a)
		}
		if !good {
			return nil
		}
		return as
	}
	a, ok := d.answer(v)
	if !ok {
		return nil
	}
	as.Every = true
	as.List = []Answer{a}
	return as
}

// answer decodes one answer: accept, decline or cancel, or a mapping of
// action (default accept) and content, for an ask; {text, model,
// stop_reason}, the model's reply, for a sample node; {roots: [{uri,
// name}]} for a roots node.
func (d *decoder) answer(n *yaml.Node) (Answer, bool) {
	a := Answer{Pos: d.pos(n), Kind: dsl.KindAsk}
	action := "accept"
	var content map[string]any
	sampling := map[string]any{}
	var roots []any
	rn := resolve(n)
	switch rn.Kind {
	case yaml.ScalarNode:
		action = rn.Value
	case yaml.MappingNode:
		kinds := map[dsl.Kind]string{}
		for _, e := range d.mapping(n, "an answer", answerKeys) {
			switch e.key {
			case "action":
				kinds[dsl.KindAsk] = e.key
				action, _ = d.str(e.v, "action")
			case "content":
				kinds[dsl.KindAsk] = e.key
				v, ok := d.value(e.v, 0)
				if !ok {
					return a, false
				}
				m, isMap := v.(map[string]any)
				if !isMap {
					d.errorf(e.v, "bad-answer", "content must be a mapping of the form's fields")
					return a, false
				}
				content = m
			case "text", "model", "stop_reason":
				kinds[dsl.KindSample] = e.key
				v, ok := d.str(e.v, e.key)
				if !ok {
					return a, false
				}
				sampling[e.key] = v
			case "roots":
				kinds[dsl.KindRoots] = e.key
				v, ok := d.value(e.v, 0)
				if !ok {
					return a, false
				}
				list, isList := v.([]any)
				for _, r := range list {
					if m, _ := r.(map[string]any); m == nil || m["uri"] == nil {
						isList = false
					}
				}
				if !isList {
					d.errorf(e.v, "bad-answer", "roots must be a list of {uri, name}")
					return a, false
				}
				roots = list
			}
		}
		if len(kinds) > 1 {
			d.errorf(n, "bad-answer", "an answer is an elicitation result {action, content}, a model reply {text, model, stop_reason} or roots {roots}, not a mix of them")
			return a, false
		}
		for k := range kinds {
			a.Kind = k
		}
	default:
		d.errorf(n, "bad-answer", "an answer is accept, decline, cancel or a mapping {action, content}")
		return a, false
	}
	switch a.Kind {
	case dsl.KindSample:
		text, _ := sampling["text"].(string)
		reply := map[string]any{"role": "assistant", "content": map[string]any{"type": "text", "text": text}, "model": "flowserve-test", "stopReason": "endTurn"}
		if m, ok := sampling["model"]; ok {
			reply["model"] = m
		}
		if r, ok := sampling["stop_reason"]; ok {
			reply["stopReason"] = r
		}
		a.Raw, _ = json.Marshal(reply)
		return a, true
	case dsl.KindRoots:
		if roots == nil {
			roots = []any{}
		}
		a.Raw, _ = json.Marshal(map[string]any{"roots": roots})
		return a, true
	}
	switch action {
	case "accept":
	case "decline", "cancel":
		if content != nil {
			d.errorf(n, "bad-answer", "content goes only with action accept, not %s", action)
			return a, false
		}
	default:
		d.errorf(n, "bad-answer", "action must be accept, decline or cancel, not %q", action)
		return a, false
	}
	m := map[string]any{"action": action}
	if content != nil {
		m["content"] = content
	}
	a.Raw, _ = json.Marshal(m)
	return a, true
}

// mock decodes a step mock: {error: message}, {output: value} or the
// output value itself.
func (d *decoder) mock(k, v *yaml.Node) *Mock {
	m := &Mock{Pos: d.pos(k)}
	if rv := resolve(v); rv.Kind == yaml.MappingNode && len(rv.Content) == 2 {
		switch rv.Content[0].Value {
		case "error":
			s, ok := d.str(rv.Content[1], "error")
			if !ok {
				return nil
			}
			if s == "" {
				d.errorf(rv.Content[1], "bad-mock", "the error message of a mock must not be empty")
				return nil
			}
			m.IsErr, m.Err = true, s
			return m
		case "output":
			v = rv.Content[1]
		}
	}
	out, ok := d.value(v, 0)
	if !ok {
		return nil
	}
	m.Output = out
	return m
}

func (d *decoder) expect(k, n *yaml.Node, x *Expect) {
	x.Pos = d.pos(k)
	for _, e := range d.mapping(n, "expect", expectKeys) {
		pos := d.pos(e.k)
		switch e.key {
		case "text", "error", "description":
			if s, ok := d.str(e.v, e.key); ok {
				se := &StringExp{Pos: pos, Value: s}
				switch e.key {
				case "text":
					x.Text = se
				case "error":
					x.Error = se
				default:
					x.Description = se
				}
			}
		case "messages":
			x.Messages = d.messages(e.k, e.v)
		case "text_contains":
			if resolve(e.v).Kind == yaml.SequenceNode {
				for _, item := range d.seq(e.v, e.key) {
					if s, ok := d.str(item, e.key); ok {
						x.TextContains = append(x.TextContains, StringExp{Pos: d.pos(item), Value: s})
					}
				}
			} else if s, ok := d.str(e.v, e.key); ok {
				x.TextContains = append(x.TextContains, StringExp{Pos: pos, Value: s})
			}
		case "structured", "structured_contains":
			if v, ok := d.value(e.v, 0); ok {
				ve := &ValueExp{Pos: pos, Value: v}
				if e.key == "structured" {
					x.Structured = ve
				} else {
					x.StructuredContains = ve
				}
			}
		case "is_error":
			if b, ok := d.boolean(e.v, e.key); ok {
				x.IsError = &BoolExp{Pos: pos, Value: b}
			}
		case "path", "not_visits", "asks":
			l := d.list(e.k, e.v, e.key)
			switch e.key {
			case "path":
				x.Path = l
			case "not_visits":
				x.NotVisits = l
			case "asks":
				x.Asks = l
			}
		case "visits":
			for _, item := range d.seq(e.v, e.key) {
				if resolve(item).Kind == yaml.SequenceNode {
					if l := d.list(item, item, e.key); l != nil {
						x.Visits = append(x.Visits, *l)
					}
				} else if s, ok := d.str(item, e.key); ok {
					x.Visits = append(x.Visits, ListExp{Pos: d.pos(item), Items: []string{s}, Poss: []dsl.Pos{d.pos(item)}})
				}
			}
		case "ask_messages":
			x.AskMessages = map[string]*ListExp{}
			for _, m := range d.mapping(e.v, e.key, nil) {
				if resolve(m.v).Kind == yaml.SequenceNode {
					if l := d.list(m.k, m.v, e.key); l != nil {
						x.AskMessages[m.key] = l
					}
				} else if s, ok := d.str(m.v, e.key); ok {
					x.AskMessages[m.key] = &ListExp{Pos: d.pos(m.k), Items: []string{s}, Poss: []dsl.Pos{d.pos(m.v)}}
				}
			}
		case "step_inputs":
			x.StepInputs = map[string]*ValueExp{}
			for _, m := range d.mapping(e.v, e.key, nil) {
				if v, ok := d.value(m.v, 0); ok {
					x.StepInputs[m.key] = &ValueExp{Pos: d.pos(m.k), Value: v}
				}
			}
		}
	}
}

// messages decodes the expected messages of a prompt: a list of
// {role, content} mappings, where {role, text} stands for a text block.
func (d *decoder) messages(k, n *yaml.Node) *ValueExp {
	items := d.seq(n, "messages")
	if items == nil && resolve(n).Kind != yaml.SequenceNode {
		return nil
	}
	var out []any
	for _, item := range items {
		v, ok := d.value(item, 0)
		if !ok {
			continue
		}
		m, isMap := v.(map[string]any)
		if !isMap {
			d.errorf(item, "bad-type", "messages: a message is a mapping {role, text} or {role, content}")
			continue
		}
		if text, has := m["text"]; has {
			if _, both := m["content"]; both {
				d.errorf(item, "bad-value", "messages: a message has text or content, not both")
				continue
			}
			delete(m, "text")
			m["content"] = map[string]any{"type": "text", "text": text}
		}
		out = append(out, m)
	}
	if out == nil {
		out = []any{}
	}
	return &ValueExp{Pos: d.pos(k), Value: out}
}

// decoder turns YAML nodes into a File, collecting diagnostics.
type decoder struct {
	path  string
	diags dsl.Diagnostics
}

func (d *decoder) pos(n *yaml.Node) dsl.Pos {
	return dsl.Pos{File: d.path, Line: max(n.Line, 1), Col: max(n.Column, 1)}
}

func (d *decoder) errorAt(pos dsl.Pos, code, format string, args ...any) {
	d.diags = append(d.diags, dsl.Diagnostic{Pos: pos, Severity: dsl.Error, Code: code, Message: fmt.Sprintf(format, args...)})
}

func (d *decoder) errorf(n *yaml.Node, code, format string, args ...any) {
	d.errorAt(d.pos(n), code, format, args...)
}

// resolve follows aliases.
func resolve(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < maxDepth; i++ {
		n = n.Alias
	}
	return n
}

type entry struct {
	key  string
	k, v *yaml.Node
}

// mapping returns the entries of a mapping node in order, reporting
// duplicate keys and, when known is not nil, keys not in it.
func (d *decoder) mapping(n *yaml.Node, where string, known []string) []entry {
	rn := resolve(n)
	if rn.Kind != yaml.MappingNode {
		if rn.Kind == yaml.ScalarNode && rn.Tag == "!!null" {
			return nil
		}
		d.errorf(n, "bad-value", "%s must be a mapping", where)
		return nil
	}
	var out []entry
	seen := map[string]bool{}
	for i := 0; i+1 < len(rn.Content); i += 2 {
		k, v := rn.Content[i], rn.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			d.errorf(k, "bad-key", "keys in %s must be strings", where)
			continue
		}
		if seen[k.Value] {
			d.errorf(k, "duplicate-key", "duplicate key %q in %s", k.Value, where)
			continue
		}
		seen[k.Value] = true
		if known != nil && !slices.Contains(known, k.Value) {
			msg := fmt.Sprintf("unknown key %q in %s", k.Value, where)
			if s := dsl.Suggest(k.Value, known); s != "" {
				msg += fmt.Sprintf("; did you mean %q?", s)
			} else if where == "an answer" {
				msg += "; an answer is {action, content}: put the form's fields under content"
			}
			d.errorAt(d.pos(k), "unknown-key", "%s", msg)
			continue
		}
		out = append(out, entry{k.Value, k, v})
	}
	return out
}

// seq returns the items of a sequence node.
func (d *decoder) seq(n *yaml.Node, where string) []*yaml.Node {
	rn := resolve(n)
	if rn.Kind != yaml.SequenceNode {
		d.errorf(n, "bad-value", "%s must be a list", where)
		return nil
	}
	return rn.Content
}

// list decodes a list of strings.
func (d *decoder) list(k, n *yaml.Node, where string) *ListExp {
	l := &ListExp{Pos: d.pos(k)}
	rn := resolve(n)
	if rn.Kind == yaml.ScalarNode && rn.Tag == "!!null" {
		return l // an empty list
	}
	for _, item := range d.seq(n, where) {
		s, ok := d.str(item, where)
		if !ok {
			return nil
		}
		l.Items = append(l.Items, s)
		l.Poss = append(l.Poss, d.pos(item))
	}
	return l
}

func (d *decoder) str(n *yaml.Node, where string) (string, bool) {
	rn := resolve(n)
	if rn.Kind != yaml.ScalarNode || rn.Tag == "!!null" || rn.Tag == "!!map" || rn.Tag == "!!seq" {
		d.errorf(n, "bad-value", "%s must be a string", where)
		return "", false
	}
	return rn.Value, true
}

func (d *decoder) boolean(n *yaml.Node, where string) (bool, bool) {
	rn := resolve(n)
	if rn.Kind != yaml.ScalarNode || rn.Tag != "!!bool" {
		d.errorf(n, "bad-value", "%s must be true or false", where)
		return false, false
	}
	b, _ := strconv.ParseBool(strings.ToLower(rn.Value))
	return b, true
}

// value decodes a node into a JSON-like value: map[string]any, []any,
// string, int64, float64, bool or nil. Timestamps stay strings.
func (d *decoder) value(n *yaml.Node, depth int) (any, bool) {
	if depth > maxDepth {
		d.errorf(n, "bad-value", "the value is nested too deeply")
		return nil, false
	}
	rn := resolve(n)
	switch rn.Kind {
	case yaml.MappingNode:
		m := map[string]any{}
		for i := 0; i+1 < len(rn.Content); i += 2 {
			k, v := rn.Content[i], rn.Content[i+1]
			if k.Kind == yaml.ScalarNode && k.Tag == "!!merge" {
				if !d.merge(m, v, depth) {
					return nil, false
				}
				continue
			}
			if resolve(k).Kind != yaml.ScalarNode {
				d.errorf(k, "bad-key", "keys must be strings")
				return nil, false
			}
			val, ok := d.value(v, depth+1)
			if !ok {
				return nil, false
			}
			m[resolve(k).Value] = val
		}
		return m, true
	case yaml.SequenceNode:
		l := make([]any, 0, len(rn.Content))
		for _, item := range rn.Content {
			v, ok := d.value(item, depth+1)
			if !ok {
				return nil, false
			}
			l = append(l, v)
		}
		return l, true
	case yaml.ScalarNode:
		return d.scalar(rn)
	}
	d.errorf(n, "bad-value", "unsupported YAML value")
	return nil, false
}

// merge applies a `<<` merge key: keys already set win.
func (d *decoder) merge(m map[string]any, v *yaml.Node, depth int) bool {
	rv := resolve(v)
	sources := []*yaml.Node{rv}
	if rv.Kind == yaml.SequenceNode {
		sources = rv.Content
	}
	for _, s := range sources {
		val, ok := d.value(s, depth+1)
		if !ok {
			return false
		}
		sm, isMap := val.(map[string]any)
		if !isMap {
			d.errorf(s, "bad-value", "a merge key (<<) takes a mapping")
			return false
		}
		for k, x := range sm {
			if _, set := m[k]; !set {
				m[k] = x
			}
		}
	}
	return true
}

func (d *decoder) scalar(n *yaml.Node) (any, bool) {
	switch n.Tag {
	case "!!str", "!!timestamp", "!!binary", "":
		return n.Value, true
	case "!!null":
		return nil, true
	case "!!bool":
		var b bool
		if err := n.Decode(&b); err != nil {
			d.errorf(n, "bad-value", "%v", yamlErrorText(err))
			return nil, false
		}
		return b, true
	case "!!int":
		var i int64
		if err := n.Decode(&i); err == nil {
			return i, true
		}
		var f float64
		if err := n.Decode(&f); err != nil {
			d.errorf(n, "bad-value", "%v", yamlErrorText(err))
			return nil, false
		}
		return f, true
	case "!!float":
		var f float64
		if err := n.Decode(&f); err != nil {
			d.errorf(n, "bad-value", "%v", yamlErrorText(err))
			return nil, false
		}
		if math.IsNaN(f) || math.IsInf(f, 0) {
			d.errorf(n, "bad-value", "%s is not a JSON number", n.Value)
			return nil, false
		}
		return f, true
	}
	d.errorf(n, "bad-value", "unsupported YAML tag %s", n.Tag)
	return nil, false
}

// yamlErrorText strips the "yaml: line N: " prefix of a YAML error.
func yamlErrorText(err error) string {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	if strings.HasPrefix(msg, "line ") {
		if _, rest, ok := strings.Cut(msg, ": "); ok {
			msg = rest
		}
	}
	return "invalid YAML: " + msg
}
