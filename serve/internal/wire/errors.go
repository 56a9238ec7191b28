package wire

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// StatusOf is the HTTP status of a 2026-07-28 JSON-RPC error, as the SDK
// sets it (SEP-2575).
func StatusOf(code int64) int {
	switch code {
	case CodeMethodNotFound:
		return http.StatusNotFound
	case CodeInvalidParams, CodeUnsupportedVersion, CodeMissingCapability, CodeHeaderMismatch:
		return http.StatusBadRequest
	}
	return http.StatusOK
}

// ErrorMessage encodes the JSON-RPC error response e to the request id.
func ErrorMessage(id json.RawMessage, e *jsonrpc.Error) []byte {
	b, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   *jsonrpc.Error  `json:"error"`
	}{"2.0", id, e})
	return b
}

// WriteError answers the request id with the JSON-RPC error e and the
// HTTP status.
func WriteError(w http.ResponseWriter, status int, id json.RawMessage, e *jsonrpc.Error) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(ErrorMessage(id, e))
}

// WriteJSON answers with msg, a JSON-RPC response, and HTTP 200.
func WriteJSON(w http.ResponseWriter, msg []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	w.Write(msg)
}

// WriteParseError answers a body that is not JSON at all with JSON-RPC
// error -32700 (HTTP 400), the reply JSON-RPC 2.0 gives a message it
// cannot parse, where go-sdk answers in plain text; it reports whether it
// did. Other malformed messages (JSON that is no JSON-RPC request) are
// left to the SDK.
func WriteParseError(w http.ResponseWriter, body []byte) bool {
	if json.Valid(body) {
		return false
	}
	var v any
	err := json.Unmarshal(body, &v)
	msg := "Parse error: the body is not JSON"
	if err != nil {
		msg = "Parse error: " + err.Error()
	}
	WriteError(w, http.StatusBadRequest, json.RawMessage("null"), &jsonrpc.Error{Code: CodeParseError, Message: msg})
	return true
}

// WriteDuplicateError answers a body whose messages repeat a member
// (ReadTargets) with 400 and the error saying which, and reports whether
// it did.
func WriteDuplicateError(w http.ResponseWriter, body []byte) bool {
	_, rpcErr := ReadTargets(body)
	if rpcErr == nil {
		return false
	}
	WriteError(w, http.StatusBadRequest, RequestID(bytes.TrimSpace(body)), rpcErr)
	return true
}

// PeekBody reads r's body, up to maxBody+1 bytes, and leaves it to be
// read again from the start. ok is false when it cannot be read or is
// longer than maxBody (whoever reads it next answers that).
func PeekBody(r *http.Request, maxBody int64) (body []byte, ok bool) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	r.Body = readCloser{io.MultiReader(bytes.NewReader(body), r.Body), r.Body}
	return body, err == nil && int64(len(body)) <= maxBody
}

// readCloser reads from one reader and closes another.
type readCloser struct {
	io.Reader
	io.Closer
}

// RefuseDuplicates reads r's body, answers it as WriteDuplicateError
// does when a member repeats, and otherwise leaves the body to be read
// again. A body over maxBody is left to the handler after it, which
// answers 413.
func RefuseDuplicates(w http.ResponseWriter, r *http.Request, maxBody int64) bool {
	body, ok := PeekBody(r, maxBody)
	return ok && WriteDuplicateError(w, body)
}
