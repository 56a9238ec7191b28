package serve

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/flowserve/flowserve/metrics"
	"github.com/flowserve/flowserve/serve/internal/wire"
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
	if r.Header.Get("Mcp-Session-Id") != "" || !wire.Eligible(r) || v != "" && !slices.Contains(wire.SupportedVersions(), v) {
		return false
	}
	body, ok := wire.PeekBody(r, maxBody)
	var req wire.Request
	if !ok || !wire.Decode(body, &req) ||
		!wire.ParseEra(wire.MetaString(req.Params.Meta[wire.MetaProtocolVersion])).Stateless() {
		return false
	}
	rpcErr := wire.Validate(r.Header, &req, nil)
	if rpcErr == nil { // cannot be: the header is not the body's version
		return false
	}
	wire.WriteError(w, wire.StatusOf(rpcErr.Code), req.ID, rpcErr)
	return true
}

// serveSessions serves a session-era request, counting the sessions it
// opens against the cap.
func (s *Server) serveSessions(w http.ResponseWriter, r *http.Request, h http.Handler, slots *sessionSlots, maxBody int64) {
	if r.Method != http.MethodPost {
		h.ServeHTTP(w, r)
		return
	}
	if wire.MediaType(r.Header.Get("Content-Type")) == "application/json" {
		body, ok := wire.PeekBody(r, maxBody)
		if ok && (wire.WriteParseError(w, body) || wire.WriteDuplicateError(w, body)) {
			return
		}
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
	wire.WriteError(w, http.StatusServiceUnavailable, id, &jsonrpc.Error{Code: wire.CodeServerBusy, Message: msg})
}
