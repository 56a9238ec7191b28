package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/flowserve/flowserve/flow"
	"github.com/flowserve/flowserve/internal/jsonx"
)

// The lean path's readers of _meta and headers. They read the raw JSON
// members the request decoder kept, without building maps of interfaces,
// and mean what ModernClient and the SDK's checks mean on decoded values:
// each is the same decision, made on the bytes (TestLeanClientMatchesDecodedMeta
// here and serve's TestDifferentialLeanPath compare them).

// ReadClient reads the client's name and capabilities from the raw _meta
// of a 2026-07-28 request, as ModernClient does from decoded _meta
// (elicitation {} means form mode; a member that is not well-formed JSON
// counts as absent, as it does when _meta is decoded), and in the same
// pass returns the -32602 error go-sdk answers when its types cannot hold
// clientInfo or clientCapabilities (see shape), or nil. clientInfo may be
// absent but not null; clientCapabilities must be there.
func ReadClient(meta map[string]json.RawMessage) (flow.Client, *jsonrpc.Error) {
	var d Declared
	var infoErr, capsErr bool
	if raw, ok := meta[MetaClientInfo]; ok {
		var m shapeMembers
		if clientInfoShape.members(raw, &m) {
			d.Name, d.Version = jsonString(m[infoName]), jsonString(m[infoVersion])
			infoErr = !clientInfoShape.valid(&m)
		} else {
			infoErr = true
		}
	}
	raw, ok := meta[MetaClientCapabilities]
	var m shapeMembers
	if !ok || !clientCapabilitiesShape.members(raw, &m) {
		capsErr = true
	} else {
		capsErr = !clientCapabilitiesShape.valid(&m)
		// A repeated member counts as its last value.
		if el := m[capsElicitation]; isObject(el) {
			var e shapeMembers
			elicitationShape.members(el, &e)
			d.Elicitation, d.ElicitForm, d.ElicitURL = true, e[elicitationForm] != nil, e[elicitationURL] != nil
		}
		d.Sampling, d.Roots = isObject(m[capsSampling]), isObject(m[capsRoots])
		ext, _ := member(m[capsExtensions], TasksExtension)
		d.Tasks = isObject(ext)
	}
	c := d.Client(Era20260728, FirstModernVersion)
	switch {
	case infoErr:
		return c, &jsonrpc.Error{Code: CodeInvalidParams, Message: fmt.Sprintf("invalid _meta field %q", MetaClientInfo)}
	case capsErr:
		return c, &jsonrpc.Error{Code: CodeInvalidParams, Message: fmt.Sprintf("missing or invalid _meta field %q", MetaClientCapabilities)}
	}
	return c, nil
}

// ProgressToken returns the progressToken of a raw _meta, decoded,
// or nil when there is none (or it is null).
func ProgressToken(meta map[string]json.RawMessage) any {
	raw, ok := meta[MetaProgressToken]
	if !ok {
		return nil
	}
	v, err := jsonx.Parse(raw)
	if err != nil {
		return nil
	}
	return v
}

// MetaString decodes a raw JSON value as json.Unmarshal into a string
// would leave it: the string, or "" for anything else (null, another
// type, malformed JSON).
func MetaString(raw json.RawMessage) string {
	// Every request names the same version: no need to decode it.
	if string(raw) == `"`+FirstModernVersion+`"` {
		return FirstModernVersion
	}
	return jsonString(raw)
}

// metaKey returns a key of _meta as a string; the keys the server reads
// are not allocated.
func metaKey(k []byte) string {
	switch string(k) {
	case MetaProtocolVersion:
		return MetaProtocolVersion
	case MetaClientCapabilities:
		return MetaClientCapabilities
	case MetaClientInfo:
		return MetaClientInfo
	case MetaProgressToken:
		return MetaProgressToken
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

// MediaType returns the media type of a Content-Type or Accept entry, as
// mime.ParseMediaType returns it ("" when it cannot be parsed), without
// parsing the ones every client sends.
func MediaType(v string) string {
	switch v {
	case "application/json", "text/event-stream", "application/*", "text/*", "*/*":
		return v
	}
	mt, _, _ := mime.ParseMediaType(v)
	return mt
}

// acceptsBoth reports whether Accept headers accept both a JSON reply and
// an event stream (see Eligible).
func acceptsBoth(values []string) bool {
	var jsonOK, streamOK bool
	for _, v := range values {
		for v != "" {
			var part string
			part, v, _ = strings.Cut(v, ",")
			switch MediaType(strings.TrimSpace(part)) {
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

// TraceContext returns the W3C trace context a request's raw _meta
// carries (SEP-414): its traceparent and tracestate, "" when absent.
func TraceContext(meta map[string]json.RawMessage) (traceparent, tracestate string) {
	if len(meta) == 0 {
		return "", ""
	}
	return MetaString(meta[MetaTraceparent]), MetaString(meta[MetaTracestate])
}
