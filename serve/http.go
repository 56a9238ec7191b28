package serve

import (
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// HTTPOptions configure the Streamable HTTP endpoint.
type HTTPOptions struct {
	// SessionTimeout closes idle session-era sessions; default 30 minutes.
	SessionTimeout time.Duration
	// MaxRequestBodyBytes limits request bodies; 0 means the SDK's default.
	MaxRequestBodyBytes int64
}

// EndpointPath is where the MCP endpoint is served.
const EndpointPath = "/mcp"

// HTTPHandler returns the Streamable HTTP endpoint at /mcp, serving both
// eras: requests with an MCP-Protocol-Version header at or after
// 2026-07-28 go to a stateless handler; everything else (initialize and
// session requests) to a session handler.
func (s *Server) HTTPHandler(opts HTTPOptions) http.Handler {
	if opts.SessionTimeout <= 0 {
		opts.SessionTimeout = 30 * time.Minute
	}
	get := func(*http.Request) *mcp.Server { return s.mcp }
	stateless := mcp.NewStreamableHTTPHandler(get, &mcp.StreamableHTTPOptions{
		Stateless:                    true,
		PropagateRequestCancellation: true,
		MaxRequestBodyBytes:          opts.MaxRequestBodyBytes,
		Logger:                       s.opts.Logger,
	})
	sessions := mcp.NewStreamableHTTPHandler(get, &mcp.StreamableHTTPOptions{
		SessionTimeout:      opts.SessionTimeout,
		MaxRequestBodyBytes: opts.MaxRequestBodyBytes,
		Logger:              s.opts.Logger,
	})
	mux := http.NewServeMux()
	mux.HandleFunc(EndpointPath, func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Mcp-Protocol-Version") < firstModernVersion {
			sessions.ServeHTTP(w, r)
			return
		}
		if !leanEligible(r) {
			stateless.ServeHTTP(w, r)
			return
		}
		s.serveLean(w, r, opts.MaxRequestBodyBytes, stateless)
	})
	return mux
}
