package check

import (
	"encoding/base64"
	"fmt"
	"github.com/flowserve/flowserve/dsl"
	"regexp"
	"slices"
	"strings"

	"github.com/flowserve/flowserve/actions"
	"github.com/flowserve/flowserve/check/codes"
	"go.yaml.in/yaml/v3"
)

// toolNamePattern is what MCP tool names are made of (the 2025-11-25
// specification's guidance, with the length limit of the conformance
// suite). The conformance suite also accepts '/', which Check allows with
// a warning.
var toolNamePattern = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,64}$`)

// toolNameSlashPattern is toolNamePattern with a slash allowed.
var toolNameSlashPattern = regexp.MustCompile(`^[A-Za-z0-9_./-]{1,64}$`)

// checker holds the state of one Check call.
type checker struct {
	f     *dsl.File
	reg   *actions.Registry
	ix    *dsl.Tree
	sc    schemaCache // the schemas literals are validated against
	diags dsl.Diagnostics
}

func (c *checker) report(sev dsl.Severity, pos dsl.Pos, code, format string, args ...any) {
	if pos.Line < 1 {
		pos.Line, pos.Col = 1, 1
	}
	if pos.Col < 1 {
		pos.Col = 1
	}
	pos.File = c.f.Path
	c.diags = append(c.diags, dsl.Diagnostic{Pos: pos, Severity: sev, Code: code, Message: fmt.Sprintf(format, args...)})
}

// errorf records an error.
func (c *checker) errorf(pos dsl.Pos, code, format string, args ...any) {
	c.report(dsl.Error, pos, code, format, args...)
}

// warnf records a warning.
func (c *checker) warnf(pos dsl.Pos, code, format string, args ...any) {
	c.report(dsl.Warning, pos, code, format, args...)
}

// File runs the checks that need more than the file's structure, on a
// File returned by Parse (possibly partial, when Parse found errors): the
// tool's name and description, step actions and their `with` against the
// action's input schema (reg resolves actions; nil means
// actions.Default()), form properties against what MCP elicitation
// allows, sensitive information asked for in form mode, return values
// against the output schema and content block shapes, approvals in flows
// that never run as a task, and the control flow (unreachable nodes, paths
// that run past the last node, loops).
// It does not type-check expressions; Types does. The codes are
// listed in the documentation of check/codes. The diagnostics are sorted.
// File records them in f (see [Checked]), so it is not safe to call
// concurrently on one File.
func File(f *dsl.File, reg *actions.Registry) dsl.Diagnostics {
	if f == nil {
		return nil
	}
	if reg == nil {
		reg = actions.Default()
	}
	c := &checker{f: f, reg: reg, ix: f.Tree(), sc: schemaCache{}}
	c.checkTop()
	for n := range f.Walk() {
		switch n.Kind {
		case dsl.KindAsk:
			c.checkAsk(n)
		case dsl.KindSample:
			c.checkSample(n)
		case dsl.KindStep:
			c.checkStep(n)
		case dsl.KindReturn:
			c.checkReturn(n)
		}
	}
	c.checkGraph()
	c.checkMore()
	ds := c.diags
	ds.Sort()
	ds = ds.Compact()
	if len(ds) == 0 {
		ds = nil
	}
	f.SetChecks(reg, ds)
	return ds
}

// rootPos returns the position of the top-level mapping.
func (c *checker) rootPos() dsl.Pos {
	if c.ix.Root() != nil {
		return c.ix.Pos(c.ix.Root())
	}
	return dsl.Pos{File: c.f.Path, Line: 1, Col: 1}
}

// checkTop checks the tool's name, description and schemas.
func (c *checker) checkTop() {
	f := c.f
	name := f.Name.Value
	from := ""
	if _, written := c.ix.Entry(c.ix.Root(), "name"); !written {
		from = " (from the file name)"
	}
	switch {
	case name == "":
	case toolNamePattern.MatchString(name):
	case toolNameSlashPattern.MatchString(name):
		c.warnf(f.Name.Pos, codes.ToolNameSlash, "%s name %q%s has a '/': the MCP conformance suite accepts it, but the specification's tool names are letters, digits, _, - and . only, and some clients refuse others", c.flowWord(), name, from)
	case len(name) > 64:
		c.errorf(f.Name.Pos, codes.BadToolName, "%s name %q%s is %d characters long; MCP clients accept at most 64", c.flowWord(), name, from, len(name))
	default:
		c.errorf(f.Name.Pos, codes.BadToolName, "%s name %q%s may only hold letters, digits, _, - and . (MCP), not %s", c.flowWord(), name, from, badNameChars(name))
	}
	if c.ix.Root() == nil || c.ix.Root().Kind != yaml.MappingNode {
		return // an empty file or not a mapping: Parse said so
	}
	misspelt := false
	for _, e := range c.ix.Entries(c.ix.Root()) {
		if e.Name != "description" && dsl.Suggest(e.Name, dsl.TopKeys()) == "description" {
			misspelt = true // Parse suggests the right key
		}
	}
	// A private flow is never listed: only its callers' authors read it.
	if strings.TrimSpace(f.Description.Value) == "" && !misspelt && !f.Private {
		pos := c.rootPos()
		if f.Description.Pos.IsValid() {
			pos = f.Description.Pos
		}
		why := "MCP clients show it to the model to decide when to call the tool"
		if f.IsPrompt() {
			why = "MCP clients show it to the user choosing a prompt"
		}
		c.warnf(pos, codes.MissingDescription, "the flow needs a description: %s", why)
	}
	if f.Input != nil {
		c.checkObjectSchema(f.Input, "input", "the "+c.flowWord()+"'s arguments are a JSON object")
		c.checkNullKeys(c.ix.Mapping(f.Input.Pos), 0)
	}
	if f.IsPrompt() {
		c.checkPromptTop()
		return
	}
	if f.Input != nil {
		c.checkHeaders(f.Input)
	}
	if f.Output != nil {
		c.checkObjectSchema(f.Output, "output", "MCP structured content is a JSON object")
		c.checkNullKeys(c.ix.Mapping(f.Output.Pos), 0)
	}
}

// badNameChars lists the characters of name that tool names cannot hold.
func badNameChars(name string) string {
	var bad []string
	for _, r := range name {
		q := fmt.Sprintf("%q", string(r))
		if r == ' ' {
			q = "spaces"
		}
		if !toolNamePattern.MatchString(string(r)) && !slices.Contains(bad, q) {
			bad = append(bad, q)
		}
	}
	return listText(bad)
}

// checkObjectSchema reports an input or output schema that does not
// describe an object.
func (c *checker) checkObjectSchema(s *dsl.Schema, what, why string) {
	t, has := s.Value["type"]
	switch {
	case !has:
		c.errorf(s.Pos, codes.SchemaNotObject, "%s needs type: object (%s)", what, why)
	case t != "object":
		_, pos := c.ix.Find(c.ix.Mapping(s.Pos), s.Pos, "type")
		c.errorf(pos, codes.SchemaNotObject, "%s must have type: object, not %s (%s)", what, jsonText(t), why)
	}
}

// checkAsk checks an ask node.
func (c *checker) checkAsk(n *dsl.Node) {
	a := n.Ask
	if a == nil {
		return
	}
	if a.Form != nil {
		c.checkForm(a.Form)
		c.checkSensitive(n)
	}
	if a.URL != nil {
		c.checkURL(a.URL)
		if len(a.Validate) > 0 {
			c.errorf(a.Validate[0].Pos, codes.ValidateOnURL, "validate checks form answers, and a url ask has none: remove it")
		}
	}
	if a.Approval() {
		c.checkApproval(n)
	}
}

// checkApproval checks an ask that someone other than the caller answers
// (it has to): such a run goes on as an MCP task, so the flow must be a
// tool that may run as one. Both are reported at the to key.
func (c *checker) checkApproval(n *dsl.Node) {
	pos := c.ix.KeyPos(n.Pos, "to")
	switch {
	case c.f.IsPrompt():
		c.errorf(pos, codes.ToolOnly, "to belongs to tool flows: an approval waits as an MCP task, and a prompt never runs as one")
	case c.f.TaskMode() == dsl.TaskNever:
		c.errorf(pos, codes.ApprovalNeedsTask, "ask %s is answered by someone else (to), so it waits as an MCP task, and the flow says task: never: remove task: never, or make it auto or required", n.Name())
	}
}

// checkSample checks the content blocks of a sample node's messages.
// Sampling messages carry text, image or audio.
func (c *checker) checkSample(n *dsl.Node) {
	if n.Ask == nil || n.Ask.Sample == nil {
		return
	}
	for i, m := range n.Ask.Sample.Messages {
		if m.Content == nil {
			continue
		}
		if t := blockType(m.Content); t == "resource" || t == "resource_link" {
			c.errorf(m.Content.Pos, codes.BadValue, "a sampling message carries text, image or audio, not %s", t)
			continue
		}
		c.checkContent(m.Content, fmt.Sprintf("content[%d]", i))
	}
}

// blockType returns the literal type of a content block, or "".
func blockType(v *dsl.Value) string {
	if v == nil || v.Kind != dsl.ValueMap {
		return ""
	}
	for i, k := range v.Keys {
		if k == "type" && v.Map[i].Kind == dsl.ValueTemplate && v.Map[i].Template.Whole() == nil {
			return v.Map[i].Template.Src
		}
	}
	return ""
}

// checkURL checks the literal start of a URL ask's url.
func (c *checker) checkURL(t *dsl.Template) {
	lead := ""
	if len(t.Parts) > 0 && t.Parts[0].Expr == nil {
		lead = t.Parts[0].Text
	}
	if lead == "" {
		return // starts with an expression: known only when the flow runs
	}
	whole := len(t.Parts) == 1
	lower := strings.ToLower(lead)
	rest, https := strings.CutPrefix(lower, "https://")
	if !https {
		var http bool
		if rest, http = strings.CutPrefix(lower, "http://"); !http {
			if whole || strings.ContainsAny(lead, ":/") {
				c.errorf(t.Pos, codes.BadURL, "url must be an absolute https:// URL, not %q", clip(t.Src))
			}
			return
		}
	}
	// The authority ends at the first /, ? or #; it may be cut short by an
	// expression, in which case only what is written is looked at.
	authority := rest
	if i := strings.IndexAny(authority, "/?#"); i >= 0 {
		authority = authority[:i]
	}
	if strings.Contains(authority, "@") {
		c.errorf(t.Pos, codes.BadURL, "url must not carry credentials (user:password@): MCP forbids credentials in URLs")
		return
	}
	if !https {
		host := authority
		if i := strings.LastIndex(host, ":"); i >= 0 && !strings.HasSuffix(host, "]") {
			host = host[:i]
		}
		complete := strings.ContainsAny(rest, "/?#") || whole
		if complete && host != "localhost" && host != "127.0.0.1" && host != "[::1]" {
			c.warnf(t.Pos, codes.InsecureURL, "url uses http://: MCP says URL asks should use https://")
		}
	}
}

// clip shortens s for messages.
func clip(s string) string {
	if r := []rune(s); len(r) > 60 {
		return string(r[:57]) + "..."
	}
	return s
}

// checkStep checks a step's action and its with.
func (c *checker) checkStep(n *dsl.Node) {
	s := n.Step
	if s != nil && s.Long {
		c.checkLong(n)
	}
	if s == nil || strings.TrimSpace(s.Action.Value) == "" {
		return
	}
	act, ok := c.reg.Lookup(s.Action.Value)
	if !ok {
		var names []string
		for _, a := range c.reg.Actions() {
			names = append(names, a.Name)
		}
		c.unknownf(s.Action.Pos, s.Action.Value, names, codes.UnknownAction, "unknown action %q%s", s.Action.Value)
		return
	}
	// What with lacks is reported at its key, or at the step's when it
	// has none (checked as an empty with, placed at the action name).
	with, holder := s.With, c.ix.KeyPos(n.Pos, "with")
	if with == nil {
		with, holder = &dsl.Value{Pos: s.Action.Pos, Kind: dsl.ValueMap}, c.ix.KeyPos(n.Pos, "step")
	}
	vc := &valueChecker{ix: c.ix, sc: c.sc, fillsDefaults: true, by: "action " + act.Name}
	vc.check(with, act.Input, "with", holder, true)
	for _, is := range vc.issues {
		code := map[valueProblem]string{problemMissing: codes.WithMissing, problemUnknown: codes.WithUnknown, problemValue: codes.WithValue}[is.problem]
		c.issue(is, code)
	}
}

// checkLong warns about a long step that can never run as a task: in a
// flow that says task: never, or in a prompt flow, which the server never
// runs as a task (prompts/get has no task form).
func (c *checker) checkLong(n *dsl.Node) {
	switch {
	case c.f.IsPrompt():
		c.warnf(n.Step.LongPos, codes.LongNoTask, "step %s is long, but a prompt never runs as a task: it runs inside the prompts/get call", n.Name())
	case c.f.TaskMode() == dsl.TaskNever:
		c.warnf(n.Step.LongPos, codes.LongNoTask, "step %s is long, but the flow says task: never: it runs inside the call, never as a task", n.Name())
	}
}

// checkReturn checks a return's structured value and content blocks.
func (c *checker) checkReturn(n *dsl.Node) {
	r := n.Return
	if r == nil {
		return
	}
	if c.f.IsPrompt() {
		c.checkPromptReturn(r)
		return
	}
	c.checkToolReturn(r)
	switch {
	case r.Structured != nil && c.f.Output != nil:
		vc := &valueChecker{ix: c.ix, sc: c.sc, by: "the output schema"}
		vc.check(r.Structured, c.f.Output.Value, "structured", c.ix.KeyPos(r.Pos, "structured"), true)
		for _, is := range vc.issues {
			code := map[valueProblem]string{problemMissing: codes.StructuredMissing, problemUnknown: codes.StructuredUnknown, problemValue: codes.StructuredValue}[is.problem]
			c.issue(is, code)
		}
	case r.Structured == nil && c.f.Output != nil:
		c.errorf(r.Pos, codes.MissingStructured, "the flow declares an output schema, so MCP requires structured content in every result: add structured to this return")
	}
	for i, b := range r.Content {
		c.checkContent(b, fmt.Sprintf("content[%d]", i))
	}
}

// contentSchemas returns the JSON Schemas of MCP content blocks by type.
func contentSchemas() map[string]map[string]any {
	str := map[string]any{"type": "string"}
	annotations := map[string]any{"type": "object"}
	meta := map[string]any{"type": "object"}
	media := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"type": str, "data": str, "mimeType": str, "annotations": annotations, "_meta": meta,
		},
		"required":             []any{"data", "mimeType"},
		"additionalProperties": false,
	}
	return map[string]map[string]any{
		"text": {
			"type":                 "object",
			"properties":           map[string]any{"type": str, "text": str, "annotations": annotations, "_meta": meta},
			"required":             []any{"text"},
			"additionalProperties": false,
		},
		"image": media,
		"audio": media,
		"resource_link": {
			"type": "object",
			"properties": map[string]any{
				"type": str, "uri": str, "name": str, "title": str, "description": str, "mimeType": str,
				"size": map[string]any{"type": "integer", "minimum": int64(0)}, "icons": map[string]any{"type": "array"},
				"annotations": annotations, "_meta": meta,
			},
			"required":             []any{"uri", "name"},
			"additionalProperties": false,
		},
		"resource": {
			"type": "object",
			"properties": map[string]any{
				"type": str,
				"resource": map[string]any{
					"type": "object",
					"properties": map[string]any{
						"uri": str, "mimeType": str, "text": str, "blob": str, "_meta": meta,
					},
					"required":             []any{"uri"},
					"additionalProperties": false,
				},
				"annotations": annotations, "_meta": meta,
			},
			"required":             []any{"resource"},
			"additionalProperties": false,
		},
	}
}

// checkContent checks a content block of a return (Parse has checked its
// type); path names it in messages ("content[0]").
func (c *checker) checkContent(b *dsl.Value, path string) {
	if b == nil || b.Kind != dsl.ValueMap {
		return
	}
	typ := ""
	for k, key := range b.Keys {
		if key == "type" {
			if lit, ok := literalOf(b.Map[k]); ok {
				typ, _ = lit.(string)
			}
		}
	}
	schema, ok := contentSchemas()[typ]
	if !ok {
		return
	}
	vc := &valueChecker{ix: c.ix, sc: c.sc, by: article2(typ) + " " + typ + " block"}
	vc.check(b, schema, path, b.Pos, true)
	for _, is := range vc.issues {
		c.issue(is, codes.BadContent)
	}
	// Media data is base64; a resource has text or a base64 blob.
	for k, key := range b.Keys {
		v := b.Map[k]
		switch {
		case key == "data" && (typ == "image" || typ == "audio"):
			c.checkBase64(v, path+".data")
		case key == "resource" && typ == "resource" && v.Kind == dsl.ValueMap:
			hasText := slices.Contains(v.Keys, "text")
			hasBlob := slices.Contains(v.Keys, "blob")
			switch {
			case hasText && hasBlob:
				c.errorf(c.ix.KeyPos(v.Pos, "blob"), codes.BadContent, "%s.resource has text or blob, not both", path)
			case !hasText && !hasBlob:
				c.errorf(v.Pos, codes.BadContent, "%s.resource needs text or blob (base64)", path)
			case hasBlob:
				c.checkBase64(v.Map[slices.Index(v.Keys, "blob")], path+".resource.blob")
			}
		}
	}
}

// article2 returns "an" before a content type starting with a vowel, "a"
// before others.
func article2(typ string) string {
	if strings.ContainsAny(typ[:1], "aeiou") {
		return "an"
	}
	return "a"
}

// checkBase64 reports a literal string that is not base64.
func (c *checker) checkBase64(v *dsl.Value, path string) {
	lit, ok := literalOf(v)
	s, isStr := lit.(string)
	if !ok || !isStr {
		return
	}
	if _, err := base64.StdEncoding.DecodeString(s); err != nil {
		c.errorf(v.Pos, codes.BadContent, "%s must be base64 (standard alphabet, padded)", path)
	}
}

// Checked returns the diagnostics File reported for f with reg (nil
// means actions.Default()), and whether it has run. Types uses it
// to check a file nobody has checked, and to report nothing twice.
func Checked(f *dsl.File, reg *actions.Registry) (dsl.Diagnostics, bool) {
	if reg == nil {
		reg = actions.Default()
	}
	return f.Checks(reg)
}
