package wire

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/flowserve/flowserve/flow"
	"github.com/flowserve/flowserve/internal/jsonx"
)

// The lean 2026-07-28 path's request. A 2026-07-28 tools/call is one POST
// and one response, and it is flowserve's hot path: Decode reads the body
// once, and Validate makes the checks go-sdk's stateless handler makes of
// the headers, the body and _meta, in its order and with its codes, all
// but one (see Validate). prompts/get, which runs a prompt flow the same
// way, takes the same path. Every other request, and bodies the SDK would
// read otherwise than Decode, go on to the SDK's stateless handler.

// Request is the part of a JSON-RPC request the lean path reads.
type Request struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  *Params         `json:"params"`

	// Client is the client _meta describes, once Validate has read it.
	Client flow.Client `json:"-"`
	// Dup, when decoding stopped at a member that repeats, is the error
	// refusing the request (see ReadTargets).
	Dup *jsonrpc.Error `json:"-"`
}

// Params are tools/call (or prompts/get) params, with the answers kept
// raw (but those asSDK re-encodes): the engine decodes each one itself
// and answers a malformed one with -32602.
type Params struct {
	Meta           map[string]json.RawMessage `json:"_meta"`
	Name           string                     `json:"name"`
	Arguments      json.RawMessage            `json:"arguments"`
	InputResponses map[string]json.RawMessage `json:"inputResponses"`
	RequestState   string                     `json:"requestState"`
}

// Decode decodes body into req and reports whether the lean path serves
// it: a well-formed tools/call or prompts/get with params and an id,
// whose envelope go-sdk reads as decode does. It is not when the SDK
// would read it otherwise (nested deeper than the SDK allows, an id it
// would not echo as sent: leanID), nor when a member repeats (req.Dup
// then says which: see ReadTargets). The answers and a prompt's
// arguments are brought into the SDK's form later (Validate).
func Decode(body []byte, req *Request) bool {
	return withinSDKDepth(body) && decode(body, req) == nil && req.JSONRPC == "2.0" &&
		leanMethod(req.Method) && leanID(req.ID) && req.Params != nil
}

// leanMethod reports whether the lean path serves method: the requests
// that run a flow.
func leanMethod(method string) bool {
	return method == "tools/call" || method == "prompts/get"
}

// Validate makes the SDK's checks of a request's headers and _meta for a
// call of a tool with the input schema schema (nil: a prompt, or no
// flow), in its order, and returns the error the SDK answers, or nil:
//
//  1. the MCP-Protocol-Version header is there, _meta names a version,
//     and they agree;
//  2. Mcp-Method is there and is the method, Mcp-Name is there and is the
//     name; for a tools/call, each Mcp-Param-* header
//     matches its argument (all -32020);
//  3. clientInfo, when present, and clientCapabilities decode into the
//     SDK's types (-32602);
//  4. the version is one this server speaks (-32022).
//
// It reads the client into req.Client, and leaves req's arguments and
// answers as the engine gets them on the SDK's path (see asSDK).
//
// One check of the SDK's is not made: it decodes the params into its
// types to read the name, and answers params they cannot hold (an answer
// that is no elicitation, sampling or roots result, a prompt argument
// that is not a string) with -32020, a header mismatch, where its own
// stdio path answers -32602. The lean path hands such params to the
// engine, which answers -32602 naming the member when the flow needs it
// and ignores an extra answer (TestDifferentialLeanPath lists these
// cases as known divergences).
func Validate(h http.Header, req *Request, schema map[string]any) *jsonrpc.Error {
	headerVersion := h.Get("Mcp-Protocol-Version")
	var metaVersion string
	if raw, ok := req.Params.Meta[MetaProtocolVersion]; ok {
		metaVersion = MetaString(raw)
	}
	switch {
	case headerVersion == "":
		return &jsonrpc.Error{Code: CodeHeaderMismatch,
			Message: fmt.Sprintf("Mcp-Protocol-Version header is required for requests carrying %q", MetaProtocolVersion)}
	case metaVersion == "":
		return missingVersion()
	case headerVersion != metaVersion:
		return versionMismatch(headerVersion, metaVersion)
	}
	if rpcErr := checkMethod(h, req.Method); rpcErr != nil {
		return rpcErr
	}
	if rpcErr := checkName(h, req.Method, req.Params.Name); rpcErr != nil {
		return rpcErr
	}
	req.Params.asSDK(req.Method)
	if schema != nil && req.Method == "tools/call" {
		if rpcErr := ParamHeaderError(h, schema, req.Params.Arguments); rpcErr != nil {
			return rpcErr
		}
	}
	client, rpcErr := ReadClient(req.Params.Meta)
	if rpcErr != nil {
		return rpcErr
	}
	req.Client = client
	return checkVersion(metaVersion)
}

// The header checks Validate and CheckTasksHeaders share.

// missingVersion is the error of _meta without a protocol version.
func missingVersion() *jsonrpc.Error {
	return InvalidParams(fmt.Sprintf("missing or invalid _meta field %q", MetaProtocolVersion))
}

// versionMismatch is the error of an MCP-Protocol-Version header that
// does not name _meta's version.
func versionMismatch(header, meta string) *jsonrpc.Error {
	return &jsonrpc.Error{Code: CodeHeaderMismatch,
		Message: fmt.Sprintf("Mcp-Protocol-Version header %q does not match request %s %q", header, MetaProtocolVersion, meta)}
}

// checkMethod checks the Mcp-Method header against the body's method.
func checkMethod(h http.Header, method string) *jsonrpc.Error {
	switch m := h.Get("Mcp-Method"); {
	case m == "":
		return &jsonrpc.Error{Code: CodeHeaderMismatch, Message: "missing required Mcp-Method header"}
	case m != method:
		return &jsonrpc.Error{Code: CodeHeaderMismatch,
			Message: fmt.Sprintf("header mismatch: Mcp-Method header value '%s' does not match body value '%s'", m, method)}
	}
	return nil
}

// checkName checks the Mcp-Name header against what the body names
// (params.name, or a task's id).
func checkName(h http.Header, method, name string) *jsonrpc.Error {
	switch n := h.Get("Mcp-Name"); {
	case n == "":
		return &jsonrpc.Error{Code: CodeHeaderMismatch, Message: fmt.Sprintf("missing required Mcp-Name header for method %q", method)}
	case n != name:
		return &jsonrpc.Error{Code: CodeHeaderMismatch,
			Message: fmt.Sprintf("header mismatch: Mcp-Name header value '%s' does not match body value '%s'", n, name)}
	}
	return nil
}

// checkVersion refuses a protocol version this server does not speak on
// the stateless wire (-32022, with the versions it speaks).
func checkVersion(version string) *jsonrpc.Error {
	if version == FirstModernVersion {
		return nil
	}
	data, _ := json.Marshal(map[string]any{"supported": SupportedVersions(), "requested": version})
	return &jsonrpc.Error{Code: CodeUnsupportedVersion,
		Message: fmt.Sprintf("protocol version %q is not supported by this server", version), Data: data}
}

// asSDK turns the arguments of a prompt and the answers into what the
// engine gets from them on the SDK's path, where they are decoded into
// the SDK's types and encoded again (so the engine gets the same on every
// transport). What those types cannot hold is left as it is, for the
// engine to judge.
func (p *Params) asSDK(method string) {
	if method == "prompts/get" {
		if args, err := promptArguments(p.Arguments); err == nil {
			p.Arguments = args
		}
	}
	if p.InputResponses != nil {
		if responses, err := Responses(p.InputResponses); err == nil {
			p.InputResponses = responses
		}
	}
}

// decode decodes a request body in one pass (jsonx.Fields), keeping the
// members it does not read as raw slices of the body: answers go to the
// engine as they came, and requestState is never copied twice. Repeated
// members count as their last value, as in the SDK's decoding, except
// _meta, whose repeats are merged as the SDK merges them, and arguments,
// which the lean path does not take twice. Anything it does not accept,
// it leaves to the SDK.
func decode(body []byte, req *Request) error {
	var envelope memberSet
	return jsonx.Fields(body, func(k, raw []byte) error {
		if envelope.add(envelopeNames[:], k) {
			req.Dup = duplicateError(k, false)
			return errDuplicate
		}
		switch string(k) {
		case "jsonrpc":
			return rawString(raw, &req.JSONRPC)
		case "id":
			req.ID = raw
		case "method":
			return rawString(raw, &req.Method)
		case "params":
			if string(raw) == "null" {
				return errNotLean
			}
			req.Params = &Params{}
			return decodeParams(raw, req)
		}
		return nil
	})
}

// decodeParams decodes the params of a request into req.Params.
func decodeParams(raw []byte, req *Request) error {
	p := req.Params
	var members memberSet
	return jsonx.Fields(raw, func(k, raw []byte) error {
		if members.add(paramsNames[:], k) {
			req.Dup = duplicateError(k, true)
			return errDuplicate
		}
		switch string(k) {
		case "_meta":
			if p.Meta == nil {
				p.Meta = map[string]json.RawMessage{}
			}
			return jsonx.Fields(raw, func(k, raw []byte) error {
				p.Meta[metaKey(k)] = raw
				return nil
			})
		case "name":
			return rawString(raw, &p.Name)
		case "arguments":
			p.Arguments = raw
		case "inputResponses":
			if string(raw) == "null" {
				p.InputResponses = nil
				return nil
			}
			p.InputResponses = map[string]json.RawMessage{}
			return jsonx.Members(raw, func(k string, raw []byte) error {
				p.InputResponses[k] = raw
				return nil
			})
		case "requestState":
			if string(raw) == "null" {
				return nil
			}
			return rawString(raw, &p.RequestState)
		}
		return nil
	})
}

// rawString decodes a raw JSON string into dst; anything else is a body
// the lean path leaves to the SDK.
func rawString(raw []byte, dst *string) error {
	s, ok := leanString(raw)
	if !ok {
		return errNotLean
	}
	*dst = s
	return nil
}

// errNotLean marks a body the lean path leaves to the SDK.
var errNotLean = errors.New("not a request the lean path serves")

// Eligible reports whether the lean path may take a request: a POST
// that passes the checks the SDK's handler makes of its headers
// (Content-Type, Accept, no Last-Event-ID; the Host and Origin checks
// against DNS rebinding come first, for every request, in serve's
// HTTPHandler). Anything else goes to the SDK, which rejects it the way
// it always does.
func Eligible(r *http.Request) bool {
	// The canonical form of Last-Event-ID, which Values would allocate
	// to find.
	if _, ok := r.Header["Last-Event-Id"]; ok || r.Method != http.MethodPost {
		return false
	}
	if MediaType(r.Header.Get("Content-Type")) != "application/json" {
		return false
	}
	return acceptsBoth(r.Header.Values("Accept"))
}
