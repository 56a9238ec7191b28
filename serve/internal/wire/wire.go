// Package wire is the MCP wire as flowserve's server reads and writes it
// without go-sdk's types in the way: the 2026-07-28 request the lean path
// serves (Decode, Validate), its _meta and header readers (ReadClient,
// ParamHeaderError), its replies written without reflection
// (ServerInfo.ResultMessage), JSON-RPC errors and their HTTP statuses,
// the SSE stream of a call with progress, the tasks extension's requests
// and results, the protocol eras, and the stdio transport that answers
// lines it cannot read.
//
// Nothing here knows a server: it decodes, checks and encodes. Package
// serve calls it with what it looked up (a flow's input schema, the
// server's name). Each check is go-sdk v1.8.0's, made on the raw bytes;
// serve's TestDifferentialLeanPath holds every one to the SDK.
package wire

import (
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The _meta keys of 2026-07-28 requests.
const (
	MetaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	MetaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	MetaClientInfo         = "io.modelcontextprotocol/clientInfo"
	// MetaProgressToken is the progress token of a request.
	MetaProgressToken = "progressToken"
	// MetaTraceparent and MetaTracestate are the W3C trace context a
	// client sends (SEP-414).
	MetaTraceparent = "traceparent"
	MetaTracestate  = "tracestate"
)

// JSON-RPC error codes the server answers with.
const (
	CodeParseError         = -32700
	CodeInvalidRequest     = -32600
	CodeMethodNotFound     = -32601
	CodeInvalidParams      = -32602
	CodeInternalError      = -32603
	CodeHeaderMismatch     = -32020
	CodeMissingCapability  = -32021
	CodeUnsupportedVersion = -32022
	// CodeVersionUnavailable: the run began on a version of its flow
	// this instance cannot get; retrying (on another instance, or later)
	// may succeed.
	CodeVersionUnavailable = -32003
	// CodeServerBusy is the refusal (in the range JSON-RPC leaves to
	// servers) of a request the server has no room for now, which the
	// caller may retry later: a session-era call over the cap, a new
	// session over the cap, a task over the caller's limit.
	CodeServerBusy = -32000
)

// InvalidParams is the -32602 error saying msg.
func InvalidParams(msg string) *jsonrpc.Error {
	return &jsonrpc.Error{Code: CodeInvalidParams, Message: msg}
}

// SupportedVersions lists the protocol versions the server speaks.
func SupportedVersions() []string {
	return mcp.SupportedProtocolVersions()
}
