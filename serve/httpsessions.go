package serve

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/flowserve/flowserve/metrics"
)

// serveUnversioned answers a POST that belongs to no session and has no
// MCP-Protocol-Version header, or one naming a session-era version, but
// is a 2026-07-28 tools/call or prompts/get by its _meta: as go-sdk's
// stateless handler does, with 400 and -32020, the header being missing
// or not the version of the body. (The session handler would answer
// -32022 and offer the session-era versions alone.) It reports whether it
// answered; when it did not, r's body reads as it did.
func (s *Server) serveUnversioned(w http.ResponseWriter, r *http.Request, maxBody int64) bool {
	v := r.Header.Get("Mcp-Protocol-Version")
	if r.Header.Get("Mcp-Session-Id") != "" || !leanEligible(r) || v != "" && !slices.Contains(s.supportedVersions(), v) {
		return false
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	r.Body = readCloser{io.MultiReader(bytes.NewReader(body), r.Body), r.Body}
	var req leanRequest
	if err != nil || int64(len(body)) > maxBody || !decodeLeanRequest(body, &req) ||
		!parseEra(metaString(req.Params.Meta[metaProtocolVersion])).stateless() {
		return false
	}
	rpcErr := s.validateLean(r.Header, &req, nil)
	if rpcErr == nil { // cannot be: the header is not the body's version
		return false
	}
	writeRPCError(w, statusOf(rpcErr.Code), req.ID, rpcErr)
	return true
}

// readCloser reads from one reader and closes another.
type readCloser struct {
	io.Reader
	io.Closer
}

// serveSessions serves a session-era request, counting the sessions it
// opens against the cap.
func (s *Server) serveSessions(w http.ResponseWriter, r *http.Request, h http.Handler, slots *sessionSlots, maxBody int64) {
	if r.Method != http.MethodPost {
		h.ServeHTTP(w, r)
		return
	}
	if mediaType(r.Header.Get("Content-Type")) == "application/json" {
		body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
		if err == nil && int64(len(body)) <= maxBody && (writeParseError(w, body) || writeDuplicateError(w, body)) {
			return
		}
		r.Body = readCloser{io.MultiReader(bytes.NewReader(body), r.Body), r.Body}
	}
	s.sessionPOSTs.acquire()
	defer s.sessionPOSTs.release()
	if r.Header.Get("Mcp-Session-Id") != "" {
		h.ServeHTTP(w, r)
		return
	}
	// A POST without a session id opens a session (initialize).
	if s.drainCtx.Err() != nil {
		refuseSession(w, r, maxBody, "the server is shutting down; connect again later")
		return
	}
	if !slots.acquire() {
		s.metrics.Rejected.WithLabelValues(metrics.RejectSessions).Inc()
		s.log.Warn("new session refused: too many open", "max", slots.max)
		refuseSession(w, r, maxBody, fmt.Sprintf("the server has as many open sessions as it may (%d); try again later", slots.max))
		return
	}
	h.ServeHTTP(w, r)
	// nil when no session was opened, or it is closed already.
	slots.opened(s.session(w.Header().Get("Mcp-Session-Id")))
}

// session returns the open session with the given id, or nil.
func (s *Server) session(id string) *mcp.ServerSession {
	if id == "" {
		return nil
	}
	for ss := range s.mcp.Sessions() {
		if ss.ID() == id {
			return ss
		}
	}
	return nil
}

// writeParseError answers a body that is not JSON at all with JSON-RPC
// error -32700 (HTTP 400), the reply JSON-RPC 2.0 gives a message it
// cannot parse, where go-sdk answers in plain text; it reports whether it
// did. Other malformed messages (JSON that is no JSON-RPC request) are
// left to the SDK.
func writeParseError(w http.ResponseWriter, body []byte) bool {
	if json.Valid(body) {
		return false
	}
	var v any
	err := json.Unmarshal(body, &v)
	msg := "Parse error: the body is not JSON"
	if err != nil {
		msg = "Parse error: " + err.Error()
	}
	writeRPCError(w, http.StatusBadRequest, json.RawMessage("null"), &jsonrpc.Error{Code: codeParseError, Message: msg})
	return true
}

// writeDuplicateError answers a body whose messages repeat a member
// (readTargets) with 400 and the error saying which, and reports whether
// it did.
func writeDuplicateError(w http.ResponseWriter, body []byte) bool {
	_, rpcErr := readTargets(body)
	if rpcErr == nil {
		return false
	}
	writeRPCError(w, http.StatusBadRequest, requestID(bytes.TrimSpace(body)), rpcErr)
	return true
}

// refuseDuplicates reads r's body, answers it as writeDuplicateError
// does when a member repeats, and otherwise leaves the body to be read
// again. A body over maxBody is left to the handler after it, which
// answers 413.
func refuseDuplicates(w http.ResponseWriter, r *http.Request, maxBody int64) bool {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	r.Body = readCloser{io.MultiReader(bytes.NewReader(body), r.Body), r.Body}
	return err == nil && int64(len(body)) <= maxBody && writeDuplicateError(w, body)
}

// refuseSession answers a request that would open a session with 503 and
// a JSON-RPC error carrying the request's id.
func refuseSession(w http.ResponseWriter, r *http.Request, maxBody int64, msg string) {
	var req struct {
		ID json.RawMessage `json:"id"`
	}
	if body, err := io.ReadAll(io.LimitReader(r.Body, maxBody)); err == nil {
		_ = json.Unmarshal(body, &req)
	}
	id := req.ID
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	w.Header().Set("Retry-After", "5")
	writeRPCError(w, http.StatusServiceUnavailable, id, &jsonrpc.Error{Code: codeServerBusy, Message: msg})
}
