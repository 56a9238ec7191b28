package wire

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// SSE streams a reply as server-sent events, starting the stream with
// the first event: a call that carries a progress token gets its
// progress notifications, then its reply, on one stream. Until an event
// is sent, the reply may still go out as plain JSON (Reply).
type SSE struct {
	mu      sync.Mutex
	w       http.ResponseWriter
	started bool
}

// NewSSE returns the stream of a reply on w.
func NewSSE(w http.ResponseWriter) *SSE { return &SSE{w: w} }

// Notify sends a notifications/progress event.
func (s *SSE) Notify(p *mcp.ProgressNotificationParams) error {
	b, err := json.Marshal(struct {
		JSONRPC string                          `json:"jsonrpc"`
		Method  string                          `json:"method"`
		Params  *mcp.ProgressNotificationParams `json:"params"`
	}{"2.0", "notifications/progress", p})
	if err != nil {
		return err
	}
	return s.Event(b)
}

// Event sends one message event, starting the stream if it has not.
func (s *SSE) Event(data []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.started {
		h := s.w.Header()
		h.Set("Content-Type", "text/event-stream")
		h.Set("Cache-Control", "no-cache, no-transform")
		s.w.WriteHeader(http.StatusOK)
		s.started = true
	}
	if _, err := fmt.Fprintf(s.w, "event: message\ndata: %s\n\n", data); err != nil {
		return err
	}
	if f, ok := s.w.(http.Flusher); ok {
		f.Flush()
	}
	return nil
}

// Started reports whether the stream has started (a nil SSE has not).
func (s *SSE) Started() bool {
	if s == nil {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.started
}

// Reply sends msg, a JSON-RPC response, on the stream s when it has
// started, and otherwise as plain JSON on w with HTTP 200.
func Reply(w http.ResponseWriter, s *SSE, msg []byte) {
	if s.Started() {
		s.Event(msg)
		return
	}
	WriteJSON(w, msg)
}

// ReplyError answers the request id with the JSON-RPC error e: on the
// stream s when it has started, and otherwise with the HTTP status.
func ReplyError(w http.ResponseWriter, s *SSE, status int, id json.RawMessage, e *jsonrpc.Error) {
	if s.Started() {
		s.Event(ErrorMessage(id, e))
		return
	}
	WriteError(w, status, id, e)
}
