package serve

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/flowserve/flowserve/flow"
	"github.com/flowserve/flowserve/internal/jsonx"
)

// The lean path's readers of _meta and headers. They read the raw JSON
// members the request decoder kept, without building maps of interfaces,
// and mean what modernClient and the SDK's checks mean on decoded values:
// each is the same decision, made on the bytes (TestLeanClientMatchesDecodedMeta
// and TestDifferentialLeanPath compare them).

// leanClient reads the client's name and capabilities from the raw _meta
// of a 2026-07-28 request, as modernClient does from decoded _meta:
// elicitation {} means form mode. A member that is not well-formed JSON
// counts as absent, as it does when _meta is decoded.
func leanClient(meta map[string]json.RawMessage) flow.Client {
	c, _ := readClient(meta)
	return c
}

// readClient is leanClient that, in the same pass, also returns the
// -32602 error go-sdk answers when its types cannot hold clientInfo or
// clientCapabilities (see shape), or nil. clientInfo may be absent but
// not null; clientCapabilities must be there.
func readClient(meta map[string]json.RawMessage) (flow.Client, *jsonrpc.Error) {
	var d declared
	var infoErr, capsErr bool
	if raw, ok := meta[metaClientInfo]; ok {
		var m shapeMembers
		if clientInfoShape.members(raw, &m) {
			d.name, d.version = jsonString(m[infoName]), jsonString(m[infoVersion])
			infoErr = !clientInfoShape.valid(&m)
		} else {
			infoErr = true
		}
	}
	raw, ok := meta[metaClientCapabilities]
	var m shapeMembers
	if !ok || !clientCapabilitiesShape.members(raw, &m) {
		capsErr = true
	} else {
		capsErr = !clientCapabilitiesShape.valid(&m)
		// A repeated member counts as its last value.
		if el := m[capsElicitation]; isObject(el) {
			var e shapeMembers
			elicitationShape.members(el, &e)
			d.elicitation, d.elicitForm, d.elicitURL = true, e[elicitationForm] != nil, e[elicitationURL] != nil
		}
		d.sampling, d.roots = isObject(m[capsSampling]), isObject(m[capsRoots])
		ext, _ := member(m[capsExtensions], tasksExtension)
		d.tasks = isObject(ext)
	}
	c := d.client(era20260728, firstModernVersion)
	switch {
	case infoErr:
		return c, &jsonrpc.Error{Code: codeInvalidParams, Message: fmt.Sprintf("invalid _meta field %q", metaClientInfo)}
	case capsErr:
		return c, &jsonrpc.Error{Code: codeInvalidParams, Message: fmt.Sprintf("missing or invalid _meta field %q", metaClientCapabilities)}
	}
	return c, nil
}

// leanProgressToken returns the progressToken of a raw _meta, decoded,
// or nil when there is none (or it is null).
func leanProgressToken(meta map[string]json.RawMessage) any {
	raw, ok := meta["progressToken"]
	if !ok {
		return nil
	}
	v, err := jsonx.Parse(raw)
	if err != nil {
		return nil
	}
	return v
}

// metaString decodes a raw JSON value as json.Unmarshal into a string
// would leave it: the string, or "" for anything else (null, another
// type, malformed JSON).
func metaString(raw json.RawMessage) string {
	// Every request names the same version: no need to decode it.
	if string(raw) == `"`+firstModernVersion+`"` {
		return firstModernVersion
	}
	return jsonString(raw)
}

// metaKey returns a key of _meta as a string; the keys the server reads
// are not allocated.
func metaKey(k []byte) string {
	switch string(k) {
	case metaProtocolVersion:
		return metaProtocolVersion
	case metaClientCapabilities:
		return metaClientCapabilities
	case metaClientInfo:
		return metaClientInfo
	case "progressToken":
		return "progressToken"
	}
	return jsonx.Key(k)
}

// leanString returns the string a raw JSON value holds, and whether it
// holds one; the members every request has the same values in are not
// decoded.
func leanString(raw []byte) (string, bool) {
	switch string(raw) {
	case `"2.0"`:
		return "2.0", true
	case `"tools/call"`:
		return "tools/call", true
	}
	v, err := jsonx.Parse(raw)
	s, ok := v.(string)
	return s, err == nil && ok
}

// jsonString returns the string a raw JSON value holds, or "" when it
// holds something else or is not valid.
func jsonString(raw []byte) string {
	if len(raw) == 0 || raw[0] != '"' {
		return ""
	}
	v, err := jsonx.Parse(raw)
	if err != nil {
		return ""
	}
	s, _ := v.(string)
	return s
}

// isObject reports whether a raw value that jsonx has already checked is
// an object. (jsonx accepts no JSON that encoding/json refuses, as its
// fuzz targets check, so such a value needs no json.Valid.)
func isObject(raw []byte) bool {
	return len(raw) > 0 && raw[0] == '{'
}

// mediaType returns the media type of a Content-Type or Accept entry, as
// mime.ParseMediaType returns it ("" when it cannot be parsed), without
// parsing the ones every client sends.
func mediaType(v string) string {
	switch v {
	case "application/json", "text/event-stream", "application/*", "text/*", "*/*":
		return v
	}
	mt, _, _ := mime.ParseMediaType(v)
	return mt
}

// acceptsBoth reports whether Accept headers accept both a JSON reply and
// an event stream (see leanEligible).
func acceptsBoth(values []string) bool {
	var jsonOK, streamOK bool
	for _, v := range values {
		for v != "" {
			var part string
			part, v, _ = strings.Cut(v, ",")
			switch mediaType(strings.TrimSpace(part)) {
			case "application/json", "application/*":
				jsonOK = true
			case "text/event-stream", "text/*":
				streamOK = true
			case "*/*":
				jsonOK, streamOK = true, true
			}
		}
	}
	return jsonOK && streamOK
}

// The checks below are go-sdk v1.8.0's (mcp/streamable.go servePOST,
// mcp/streamable_headers.go, mcp/shared.go validateRequestMeta), made on
// the raw members. TestDifferentialLeanPath holds each to the SDK.

// sdkMaxDepth is how deeply go-sdk lets a request body nest objects and
// arrays (its internal/json); a deeper body is malformed to it.
const sdkMaxDepth = 1000

// withinSDKDepth reports whether body cannot nest deeper than go-sdk
// allows: it has no more opening brackets than that depth. (Brackets in
// strings count too; a body with more goes to the SDK, which decides.)
func withinSDKDepth(body []byte) bool {
	return bytes.Count(body, []byte{'{'})+bytes.Count(body, []byte{'['}) <= sdkMaxDepth
}

// leanID reports whether go-sdk answers a request id unchanged: a string,
// or an integer literal it decodes exactly. (It reads numeric ids as
// float64 and answers with their int64 value, so 1.5 comes back as 1,
// -0 as 0, and integers past 2^53 rounded; the SDK answers those.)
func leanID(raw []byte) bool {
	if len(raw) == 0 {
		return false
	}
	if raw[0] == '"' {
		return true
	}
	digits := raw
	if digits[0] == '-' {
		digits = digits[1:]
	}
	if len(digits) == 0 || len(digits) > 15 || string(raw) == "-0" {
		return false
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// A shape is what a go-sdk type accepts when it decodes a JSON value (with
// its internal/json: member names match exactly, unknown members are
// skipped, null leaves any field unset). The _meta members it decodes
// into types are checked against their shapes.
type shape struct {
	kind   shapeKind
	fields []shapeField // shapeObject
	elem   *shape       // shapeArray
}

type shapeKind int

const (
	shapeString shapeKind = iota
	shapeBool
	shapeObject // a struct: the fields' shapes apply to their members
	shapeMap    // a map[string]any: any object
	shapeArray
)

type shapeField struct {
	name  string
	shape *shape
}

// maxShapeFields bounds the fields of an object shape (members keeps the
// members it checks in an array of this size).
const maxShapeFields = 8

// shapeMembers holds the last value of each field of an object shape in
// a raw object (nil for none), by the field's index.
type shapeMembers [maxShapeFields][]byte

func objectShape(fields ...shapeField) *shape {
	if len(fields) > maxShapeFields {
		panic("serve: an object shape with more than maxShapeFields fields")
	}
	return &shape{kind: shapeObject, fields: fields}
}

// index returns the index of an object shape's field.
func (s *shape) index(name string) int {
	for i, f := range s.fields {
		if f.name == name {
			return i
		}
	}
	panic("serve: no shape field " + name)
}

var (
	stringShape = &shape{kind: shapeString}
	boolShape   = &shape{kind: shapeBool}
	mapShape    = &shape{kind: shapeMap}
	emptyShape  = objectShape()

	// clientInfoShape is mcp.Implementation's.
	clientInfoShape = objectShape(
		shapeField{"name", stringShape}, shapeField{"title", stringShape}, shapeField{"description", stringShape},
		shapeField{"version", stringShape}, shapeField{"websiteUrl", stringShape},
		shapeField{"icons", &shape{kind: shapeArray, elem: objectShape(
			shapeField{"src", stringShape}, shapeField{"mimeType", stringShape},
			shapeField{"sizes", &shape{kind: shapeArray, elem: stringShape}}, shapeField{"theme", stringShape})}})
	// elicitationShape is mcp.ElicitationCapabilities'.
	elicitationShape = objectShape(shapeField{"form", emptyShape}, shapeField{"url", emptyShape})
	// clientCapabilitiesShape is that of the SDK's clientCapabilitiesV2
	// (mcp.ClientCapabilities with roots as a RootCapabilities).
	clientCapabilitiesShape = objectShape(
		shapeField{"experimental", mapShape}, shapeField{"extensions", mapShape},
		shapeField{"roots", objectShape(shapeField{"listChanged", boolShape})},
		shapeField{"sampling", objectShape(shapeField{"context", emptyShape}, shapeField{"tools", emptyShape})},
		shapeField{"elicitation", elicitationShape})

	// The fields readClient reads.
	infoName        = clientInfoShape.index("name")
	infoVersion     = clientInfoShape.index("version")
	capsElicitation = clientCapabilitiesShape.index("elicitation")
	capsSampling    = clientCapabilitiesShape.index("sampling")
	capsRoots       = clientCapabilitiesShape.index("roots")
	capsExtensions  = clientCapabilitiesShape.index("extensions")
	elicitationForm = elicitationShape.index("form")
	elicitationURL  = elicitationShape.index("url")
)

// accepts reports whether the SDK type decodes raw, a value jsonx has
// checked. The SDK decodes _meta into maps first and its members into
// their types after, so of a repeated member only the last counts, at
// every depth.
func (s *shape) accepts(raw []byte) bool {
	if string(raw) == "null" {
		return true
	}
	switch s.kind {
	case shapeString:
		return raw[0] == '"'
	case shapeBool:
		return raw[0] == 't' || raw[0] == 'f'
	case shapeMap:
		return raw[0] == '{'
	case shapeArray:
		if raw[0] != '[' {
			return false
		}
		v, err := jsonx.Parse(raw) // rare: no client sends icons each request
		return err == nil && s.acceptsValue(v)
	}
	if raw[0] != '{' {
		return false
	}
	if len(s.fields) == 0 {
		return true // any object: its members go unread
	}
	var m shapeMembers
	return s.members(raw, &m) && s.valid(&m)
}

// members reads the last value of each of an object shape's fields in
// raw into m, and reports whether raw is a well-formed object.
func (s *shape) members(raw []byte, m *shapeMembers) bool {
	return jsonx.Fields(raw, func(k, v []byte) error {
		for i := range s.fields {
			if string(k) == s.fields[i].name {
				m[i] = v
				break
			}
		}
		return nil
	}) == nil
}

// valid reports whether the members members read are of their fields'
// shapes.
func (s *shape) valid(m *shapeMembers) bool {
	for i := range s.fields {
		if m[i] != nil && !s.fields[i].shape.accepts(m[i]) {
			return false
		}
	}
	return true
}

// acceptsValue is accepts for a value jsonx.Parse returned.
func (s *shape) acceptsValue(v any) bool {
	if v == nil {
		return true
	}
	switch s.kind {
	case shapeString:
		_, ok := v.(string)
		return ok
	case shapeBool:
		_, ok := v.(bool)
		return ok
	case shapeMap:
		_, ok := v.(map[string]any)
		return ok
	case shapeArray:
		a, ok := v.([]any)
		if !ok {
			return false
		}
		for _, e := range a {
			if !s.elem.acceptsValue(e) {
				return false
			}
		}
		return true
	}
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	for _, f := range s.fields {
		if fv, ok := m[f.name]; ok && !f.shape.acceptsValue(fv) {
			return false
		}
	}
	return true
}

// plainAnswer reports whether go-sdk decodes an inputResponses entry as
// an elicitation answer and encodes it back to the same JSON, up to
// spacing, member order and the float64 rounding of its numbers: an
// object with a string action, and maybe an object content and an
// object _meta, once each, and nothing else. Other entries go through
// the SDK's own decoder (leanResponses).
func plainAnswer(raw []byte) bool {
	if len(raw) == 0 || raw[0] != '{' {
		return false
	}
	var action, content, meta int
	err := jsonx.Fields(raw, func(k, v []byte) error {
		switch string(k) {
		case "action":
			action++
			if v[0] != '"' {
				return errNotLean
			}
		case "content":
			content++
			if v[0] != '{' {
				return errNotLean
			}
		case "_meta":
			meta++
			if v[0] != '{' {
				return errNotLean
			}
		default:
			return errNotLean
		}
		return nil
	})
	return err == nil && action == 1 && content <= 1 && meta <= 1
}

// leanResponses returns the answers of a request as the engine gets
// them on the SDK's path: decoded into go-sdk's types (its
// InputResponseMap, with encoding/json) and encoded again, except that
// plain elicitation answers, which that leaves as they are, are not
// decoded at all. An error means the SDK cannot decode them (see
// validateLean).
func leanResponses(responses map[string]json.RawMessage) (map[string]json.RawMessage, error) {
	plain := true
	for _, r := range responses {
		if !plainAnswer(r) {
			plain = false
			break
		}
	}
	if plain {
		return responses, nil
	}
	// The object the answers came in, but for repeated keys, which count
	// as their last value both here and in the SDK's decoding.
	raw := []byte{'{'}
	for id, r := range responses {
		if len(raw) > 1 {
			raw = append(raw, ',')
		}
		raw = jsonx.AppendString(raw, id, false)
		raw = append(append(raw, ':'), r...)
	}
	raw = append(raw, '}')
	var m mcp.InputResponseMap
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	out := make(map[string]json.RawMessage, len(m))
	for id, r := range m {
		b, err := json.Marshal(r)
		if err != nil {
			return nil, err
		}
		out[id] = b
	}
	return out, nil
}

// leanPromptArguments returns a prompt's arguments as the engine gets them
// on the SDK's path, where they are a map of strings (encoded again when
// present): raw itself when it is an object of strings, nil when absent
// or null. An error means the SDK cannot decode them (see validateLean).
func leanPromptArguments(raw []byte) (json.RawMessage, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	strs := true
	if err := jsonx.Fields(raw, func(_, v []byte) error {
		strs = strs && v[0] == '"'
		return nil
	}); err == nil && strs {
		return raw, nil
	}
	var m map[string]string
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	return json.Marshal(m)
}
