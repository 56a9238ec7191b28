package flowtest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
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
// node). An approval (an ask with to:) is answered with an elicitation
// result too, by By, or times out.
type Answer struct {
	Pos  dsl.Pos
	Kind dsl.Kind        // KindAsk, KindSample or KindRoots
	Raw  json.RawMessage // the result as a client sends it; nil for a timeout
	// Action is an ask's answer's action: accept, decline or cancel, or
	// timeout (Timeout); "" for the other kinds.
	Action string
	// By is who answers an approval (`by:`); "" means DefaultBy. Only
	// approvals take it.
	By string
	// Timeout means the approval is not answered before its timeout: the
	// flow takes its on_timeout node. Only approvals take it.
	Timeout bool
}

// DefaultBy is who answers an approval in a case that does not say (an
// answer without `by:`): the approval's answered_by.
const DefaultBy = "flowserve test"

// actionTimeout is the answer that lets an approval time out.
const actionTimeout = "timeout"

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
	// Statuses are the task statuses the call goes through, in order,
	// without repeats (working, input_required, completed, failed); empty
	// when the call never becomes a task.
	Statuses    *ListExp
	AskMessages map[string]*ListExp
	StepInputs  map[string]*ValueExp
	// Notifications are the webhook notifications of the approvals the
	// call asks, in order: one per approval asked with a webhook.
	Notifications *NotificationsExp
	// Messages and Description are a prompt flow's: Messages holds a list
	// of {role, content} mappings ({role, text} written short).
	Messages    *ValueExp
	Description *StringExp
}

// NotificationsExp is expect.notifications: the notifications the
// approvals' webhooks would receive (approvals.Notification), in order.
type NotificationsExp struct {
	Pos  dsl.Pos
	List []NotificationExp
}

// NotificationExp is one expected notification: the fields it has, each
// equal to its string, and the texts its text contains.
type NotificationExp struct {
	Pos          dsl.Pos
	Fields       map[string]StringExp // by JSON field name: tool, task, question, message, to, link, expires, text
	TextContains []StringExp
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
				if filepath.IsAbs(s) {
					f.Flow = filepath.Clean(s)
				} else {
					f.Flow = filepath.Join(filepath.Dir(path), s)
				}
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
	s := e.Value.Value
	if filepath.IsAbs(s) {
		return filepath.Clean(s)
	}
	return filepath.Join(filepath.Dir(path), s)
}

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

func (d *decoder) client(n *yaml.Node, c *Client) {
	for _, e := range d.mapping(n, "client", clientKeys) {
		switch e.Name {
		case "form":
			if b, ok := d.yr.Bool(e.Value, "client.form"); ok {
				c.Form = b
			}
		case "url":
			if b, ok := d.yr.Bool(e.Value, "client.url"); ok {
				c.URL = b
			}
		case "sampling":
			if b, ok := d.yr.Bool(e.Value, "client.sampling"); ok {
				c.Sampling = b
			}
		case "roots":
			if b, ok := d.yr.Bool(e.Value, "client.roots"); ok {
				c.Roots = b
			}
		case "tasks":
			if b, ok := d.yr.Bool(e.Value, "client.tasks"); ok {
				c.Tasks = b
			}
		case "name":
			c.Name, _ = d.yr.String(e.Value, "client.name")
		case "version":
			c.Version, _ = d.yr.String(e.Value, "client.version")
		case "protocol":
			c.Protocol, _ = d.yr.String(e.Value, "client.protocol")
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

// answers decodes the answers to one question: one answer, or a list.
func (d *decoder) answers(k, v *yaml.Node) *Answers {
	as := &Answers{Pos: d.pos(k)}
	if yamlx.Resolve(v).Kind == yaml.SequenceNode {
		items := d.seq(v, "answers")
		if len(items) == 0 {
			d.errorf(v, CodeBadAnswer, "the list of answers to %q is empty", k.Value)
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
// action (default accept) and content, for an ask, with by (who answered)
// for an approval, or timeout (an approval nobody answered); {text, model,
// stop_reason}, the model's reply, for a sample node; {roots: [{uri,
// name}]} for a roots node.
func (d *decoder) answer(n *yaml.Node) (Answer, bool) {
	a := Answer{Pos: d.pos(n), Kind: dsl.KindAsk}
	parts := answerParts{action: "accept", sampling: map[string]any{}}
	switch rn := yamlx.Resolve(n); rn.Kind {
	case yaml.ScalarNode:
		parts.action = rn.Value
	case yaml.MappingNode:
		if !d.answerMapping(n, &parts) {
			return a, false
		}
		a.Kind = parts.kind
	default:
		d.errorf(n, CodeBadAnswer, "an answer is accept, decline, cancel, timeout or a mapping {action, content}")
		return a, false
	}
	switch a.Kind {
	case dsl.KindSample:
		text, _ := parts.sampling["text"].(string)
		reply := map[string]any{"role": "assistant", "content": map[string]any{"type": "text", "text": text}, "model": "flowserve-test", "stopReason": "endTurn"}
		if m, ok := parts.sampling["model"]; ok {
			reply["model"] = m
		}
		if r, ok := parts.sampling["stop_reason"]; ok {
			reply["stopReason"] = r
		}
		a.Raw, _ = json.Marshal(reply)
		return a, true
	case dsl.KindRoots:
		roots := parts.roots
		if roots == nil {
			roots = []any{}
		}
		a.Raw, _ = json.Marshal(map[string]any{"roots": roots})
		return a, true
	}
	a.Action, a.By = parts.action, parts.by
	switch parts.action {
	case "accept":
	case "decline", "cancel":
		if parts.content != nil {
			d.errorf(n, CodeBadAnswer, "content goes only with action accept, not %s", parts.action)
			return a, false
		}
	case actionTimeout:
		switch {
		case parts.content != nil:
			d.errorf(n, CodeBadAnswer, "content goes only with action accept, not timeout")
			return a, false
		case parts.hasBy:
			d.errorf(n, CodeBadAnswer, "by goes only with an answer: nobody answers an approval that times out")
			return a, false
		}
		a.Timeout = true
		return a, true
	default:
		d.errorf(n, CodeBadAnswer, "action must be accept, decline, cancel or timeout, not %q", parts.action)
		return a, false
	}
	m := map[string]any{"action": parts.action}
	if parts.content != nil {
		m["content"] = parts.content
	}
	a.Raw, _ = json.Marshal(m)
	return a, true
}

// answerParts are the keys of an answer written as a mapping.
type answerParts struct {
	kind     dsl.Kind // KindAsk, KindSample or KindRoots, from the keys
	action   string
	content  map[string]any
	by       string // who answered an approval
	hasBy    bool
	sampling map[string]any // text, model, stop_reason
	roots    []any
}

// answerMapping reads an answer written as a mapping into parts. It
// reports false when the answer has errors.
func (d *decoder) answerMapping(n *yaml.Node, parts *answerParts) bool {
	kinds := map[dsl.Kind]string{}
	for _, e := range d.mapping(n, "an answer", answerKeys) {
		switch e.Name {
		case "action":
			kinds[dsl.KindAsk] = e.Name
			parts.action, _ = d.yr.String(e.Value, "action")
		case "content":
			kinds[dsl.KindAsk] = e.Name
			v, ok := d.yr.Value(e.Value)
			if !ok {
				return false
			}
			m, isMap := v.(map[string]any)
			if !isMap {
				d.errorf(e.Value, CodeBadAnswer, "content must be a mapping of the form's fields")
				return false
			}
			parts.content = m
		case "by":
			kinds[dsl.KindAsk] = e.Name
			by, ok := d.yr.String(e.Value, "by")
			if !ok {
				return false
			}
			if strings.TrimSpace(by) == "" {
				d.errorf(e.Value, CodeBadAnswer, "by names who answered the approval; it must not be empty")
				return false
			}
			parts.by, parts.hasBy = by, true
		case "text", "model", "stop_reason":
			kinds[dsl.KindSample] = e.Name
			v, ok := d.yr.String(e.Value, e.Name)
			if !ok {
				return false
			}
			parts.sampling[e.Name] = v
		case "roots":
			kinds[dsl.KindRoots] = e.Name
			if parts.roots = d.roots(e.Value); parts.roots == nil {
				return false
			}
		}
	}
	if len(kinds) > 1 {
		d.errorf(n, CodeBadAnswer, "an answer is an elicitation result {action, content}, a model reply {text, model, stop_reason} or roots {roots}, not a mix of them")
		return false
	}
	parts.kind = dsl.KindAsk
	for k := range kinds {
		parts.kind = k
	}
	return true
}

// roots reads the roots of an answer: a list of {uri, name}. It returns
// nil when they have errors.
func (d *decoder) roots(n *yaml.Node) []any {
	v, ok := d.yr.Value(n)
	if !ok {
		return nil
	}
	list, isList := v.([]any)
	for _, r := range list {
		if m, _ := r.(map[string]any); m == nil || m["uri"] == nil {
			isList = false
		}
	}
	if !isList {
		d.errorf(n, CodeBadAnswer, "roots must be a list of {uri, name}")
		return nil
	}
	return list
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

// decoder turns YAML nodes into a File, collecting diagnostics.
type decoder struct {
	path  string
	yr    yamlx.Reader // reports to diags
	diags dsl.Diagnostics
}

// newDecoder returns a decoder for the test file at path.
func newDecoder(path string) *decoder {
	d := &decoder{path: path}
	d.yr = yamlx.Reader{Report: d.problem}
	return d
}

// problem records a problem the YAML reader found.
func (d *decoder) problem(pr yamlx.Problem) {
	d.errorAt(dsl.Pos{File: d.path, Line: pr.Pos.Line, Col: pr.Pos.Col}, pr.Code, "%s", pr.Message)
}

// finish sorts the diagnostics and drops repeated ones: a mapping merged
// (<<) into several others is read more than once.
func (d *decoder) finish() dsl.Diagnostics {
	d.diags.Sort()
	return d.diags.Compact()
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

// entry is one key and value of a mapping; the value is resolved.
type entry = yamlx.Pair

// mapping returns the entries of a mapping node in order (see
// yamlx.Reader.Pairs), reporting, when known is not nil, keys not in it.
// Null reads as an empty mapping.
func (d *decoder) mapping(n *yaml.Node, where string, known []string) []entry {
	if yamlx.IsNull(yamlx.Resolve(n)) {
		return nil
	}
	pairs, _ := d.yr.Mapping(n, where)
	var out []entry
	for _, e := range pairs {
		if known != nil && !slices.Contains(known, e.Name) {
			msg := fmt.Sprintf("unknown key %q in %s", e.Name, where)
			if s := dsl.Suggest(e.Name, known); s != "" {
				msg += fmt.Sprintf("; did you mean %q?", s)
			} else if where == "an answer" {
				msg += "; an answer is {action, content}: put the form's fields under content"
			}
			d.errorAt(d.pos(e.Key), CodeUnknownKey, "%s", msg)
			continue
		}
		out = append(out, e)
	}
	return out
}

// seq returns the items of a sequence node.
func (d *decoder) seq(n *yaml.Node, where string) []*yaml.Node {
	items, _ := d.yr.List(n, where)
	return items
}
