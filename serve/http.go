package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/flowserve/flowserve/metrics"
	"github.com/flowserve/flowserve/oauth"
)

// HTTPOptions configure the Streamable HTTP endpoint (HTTPHandler) and
// the http.Server around it (HTTPServer). The zero value is usable: every
// zero field takes its default; a negative duration or limit means none.
type HTTPOptions struct {
	// SessionTimeout closes idle session-era sessions; default 30 minutes.
	SessionTimeout time.Duration
	// MaxRequestBodyBytes limits request bodies: a longer one is answered
	// 413 on every path; default (and when negative)
	// DefaultMaxRequestBodyBytes. There is no way to lift the limit.
	MaxRequestBodyBytes int64
	// MaxSessions bounds the open session-era (2025-06-18, 2025-11-25)
	// sessions. A new session over the cap is refused with HTTP 503 and a
	// JSON-RPC error, and the open ones go on; default DefaultMaxSessions.
	MaxSessions int

	// AllowedHosts lists the host names (a port is ignored; "*.example.com"
	// matches its subdomains; "*" matches any) the Host header may name,
	// for a server behind a proxy or on a public address. Without it, a
	// request that arrived on a loopback address must name a loopback host
	// (localhost, 127.0.0.1, [::1]) and other requests may name any host.
	// With it, only the listed hosts, and loopback hosts on loopback
	// connections, are served. Others get 403 (DNS rebinding protection).
	AllowedHosts []string
	// AllowedOrigins lists the browser origins ("https://app.example.com";
	// "*" for any) allowed to call the server, besides origins on an
	// AllowedHosts host and loopback origins on loopback connections. A
	// request whose Origin header is none of these gets 403; requests
	// without Origin (every non-browser client) are not affected.
	AllowedOrigins []string
	// Tokens, when set, are the accepted bearer tokens: a request without
	// "Authorization: Bearer <one of them>" gets 401 with
	// "WWW-Authenticate: Bearer". See LoadTokens.
	Tokens *Tokens
	// OAuth, when set, makes the endpoint an OAuth 2.1 resource server
	// (see OAuth) instead of checking Tokens, which must then be nil.
	OAuth *OAuth

	// Metrics serves the server's Prometheus metrics at MetricsPath (with
	// the same Host, Origin and token checks as the endpoint).
	Metrics bool

	// ReadHeaderTimeout bounds reading a request's headers; default 10 s.
	ReadHeaderTimeout time.Duration
	// ReadTimeout bounds reading a whole request, body included; default
	// 1 minute. It does not limit how long a round may run.
	ReadTimeout time.Duration
	// WriteTimeout bounds each write of a response to the client (a reply,
	// or one event of a stream), so a client that stops reading cannot
	// hold the server; default 30 s. Unlike http.Server.WriteTimeout it
	// does not bound the whole response, which would cut long rounds and
	// session streams. HTTPHandler applies it.
	WriteTimeout time.Duration
	// IdleTimeout closes keep-alive connections idle this long; default
	// 2 minutes.
	IdleTimeout time.Duration
	// MaxHeaderBytes limits the size of request headers; default 64 KiB.
	MaxHeaderBytes int
}

// The defaults of HTTPOptions.
const (
	DefaultMaxRequestBodyBytes = 4 << 20
	DefaultMaxSessions         = 4096
	DefaultSessionTimeout      = 30 * time.Minute
	DefaultReadHeaderTimeout   = 10 * time.Second
	DefaultReadTimeout         = time.Minute
	DefaultWriteTimeout        = 30 * time.Second
	DefaultIdleTimeout         = 2 * time.Minute
	DefaultMaxHeaderBytes      = 64 << 10
	// DefaultShutdownTimeout is how long the CLI lets rounds in flight
	// finish when it is told to stop (Server.Shutdown takes its deadline
	// from its context).
	DefaultShutdownTimeout = 30 * time.Second
)

// withDefaults fills in zero fields and turns negative durations and
// header limits into zero, which http.Server reads as "none" (or its own
// default). It is not idempotent: apply it once.
func (o HTTPOptions) withDefaults() HTTPOptions {
	dur := func(d *time.Duration, def time.Duration) {
		switch {
		case *d == 0:
			*d = def
		case *d < 0:
			*d = 0
		}
	}
	dur(&o.SessionTimeout, DefaultSessionTimeout)
	dur(&o.ReadHeaderTimeout, DefaultReadHeaderTimeout)
	dur(&o.ReadTimeout, DefaultReadTimeout)
	dur(&o.WriteTimeout, DefaultWriteTimeout)
	dur(&o.IdleTimeout, DefaultIdleTimeout)
	if o.MaxRequestBodyBytes <= 0 {
		o.MaxRequestBodyBytes = DefaultMaxRequestBodyBytes
	}
	if o.MaxSessions == 0 {
		o.MaxSessions = DefaultMaxSessions
	}
	switch {
	case o.MaxHeaderBytes == 0:
		o.MaxHeaderBytes = DefaultMaxHeaderBytes
	case o.MaxHeaderBytes < 0:
		o.MaxHeaderBytes = 0 // http.DefaultMaxHeaderBytes
	}
	return o
}

// EndpointPath is where the MCP endpoint is served.
const EndpointPath = "/mcp"

// ApprovePath is where the approval pages are served: ApprovePath +
// <token>.
const ApprovePath = "/approve/"

// requestBase is the server's URL as the client of r reached it.
func requestBase(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// MetricsPath is where HTTPOptions.Metrics serves the metrics.
const MetricsPath = "/metrics"

// HTTPHandler returns the Streamable HTTP endpoint at /mcp, serving both
// eras: requests with an MCP-Protocol-Version header at or after
// 2026-07-28 go to a stateless handler; everything else (initialize and
// session requests) to a session handler.
//
// Every request is checked first, in this order: its Host header and
// then its Origin header against DNS rebinding (403), then its bearer
// token when opts.Tokens is set (401), or its OAuth access token when
// opts.OAuth is (401, 403 for a flow's scopes, 503 when the issuer cannot
// be asked). Then a new session over
// opts.MaxSessions is refused (503), and a body over
// opts.MaxRequestBodyBytes is answered 413.
func (s *Server) HTTPHandler(opts HTTPOptions) http.Handler {
	opts = opts.withDefaults()
	s.tokens.Store(opts.Tokens)
	get := func(*http.Request) *mcp.Server { return s.mcp }
	statelessSDK := mcp.NewStreamableHTTPHandler(get, &mcp.StreamableHTTPOptions{
		Stateless:                    true,
		PropagateRequestCancellation: true,
		MaxRequestBodyBytes:          opts.MaxRequestBodyBytes,
		Logger:                       s.sdkLog,
		// The guard checks the Host header, as the go-sdk would, or
		// against opts.AllowedHosts.
		DisableLocalhostProtection: true,
	})
	var sessions http.Handler = mcp.NewStreamableHTTPHandler(get, &mcp.StreamableHTTPOptions{
		SessionTimeout:             opts.SessionTimeout,
		MaxRequestBodyBytes:        opts.MaxRequestBodyBytes,
		Logger:                     s.sdkLog,
		DisableLocalhostProtection: true,
	})
	var stateless http.Handler = statelessSDK
	switch {
	case opts.OAuth != nil:
		opts.Tokens = nil
		sessions, stateless = bindPrincipals(sessions), bindPrincipals(stateless)
		s.hideTools.Store(opts.OAuth.HideTools)
		s.oauthConf.Store(opts.OAuth)
	case opts.Tokens != nil:
		sessions = bindSessions(sessions)
	}
	g := newGuard(opts, s.metrics)
	// authorize checks what the guard does, then an OAuth token.
	authorize := func(w http.ResponseWriter, r *http.Request) (*http.Request, bool) {
		if !g.check(w, r) {
			return nil, false
		}
		if opts.OAuth == nil {
			return r, true
		}
		return s.checkOAuth(w, r, opts.OAuth, opts.MaxRequestBodyBytes)
	}
	slots := newSessionSlots(s.mcp, opts.MaxSessions, s.metrics.Sessions)
	mux := http.NewServeMux()
	mux.HandleFunc(EndpointPath, func(rw http.ResponseWriter, r *http.Request) {
		w := newResponseWriter(rw, opts.WriteTimeout)
		defer w.finish(s.metrics)
		r, ok := authorize(w, r)
		if !ok {
			return
		}
		if sessionVersion(r.Header.Get("Mcp-Protocol-Version")) {
			if s.serveUnversioned(w, r, opts.MaxRequestBodyBytes) {
				return
			}
			s.serveSessions(w, r.WithContext(withBase(r.Context(), requestBase(r))), sessions, slots, opts.MaxRequestBodyBytes)
			return
		}
		if !leanEligible(r) {
			if r.Method == http.MethodPost && refuseDuplicates(w, r, opts.MaxRequestBodyBytes) {
				return
			}
			stateless.ServeHTTP(w, r.WithContext(withBase(r.Context(), requestBase(r))))
			return
		}
		// The lean path reads the base from r when it needs it.
		s.serveLean(w, r, opts.MaxRequestBodyBytes, stateless)
	})
	// The approval pages: people with a link, not MCP clients, so no
	// bearer token; the Host check still applies.
	pages := s.approvalHandler()
	s.pagesServed.Store(true)
	mux.HandleFunc(ApprovePath, func(rw http.ResponseWriter, r *http.Request) {
		w := newResponseWriter(rw, opts.WriteTimeout)
		defer w.finish(nil)
		if g.checkHost(w, r) {
			pages.ServeHTTP(w, r)
		}
	})
	if opts.OAuth != nil {
		// The metadata is for any client that is to get a token: no token
		// is needed; the Host check applies.
		meta := s.metadataHandler(opts.OAuth)
		for _, path := range []string{oauth.MetadataPath, oauth.MetadataPath + EndpointPath} {
			mux.HandleFunc(path, func(rw http.ResponseWriter, r *http.Request) {
				w := newResponseWriter(rw, opts.WriteTimeout)
				defer w.finish(nil)
				if g.checkHost(w, r) {
					meta.ServeHTTP(w, r)
				}
			})
		}
	}
	if opts.Metrics {
		mh := s.metrics.Handler()
		mux.HandleFunc(MetricsPath, func(rw http.ResponseWriter, r *http.Request) {
			w := newResponseWriter(rw, opts.WriteTimeout)
			defer w.finish(nil)
			if _, ok := authorize(w, r); ok {
				slots.sweep() // the open-sessions gauge is exact when scraped
				mh.ServeHTTP(w, r)
			}
		})
	}
	return mux
}

// HTTPServer returns an http.Server for addr serving HTTPHandler(opts),
// with opts' timeouts and header limit, its errors logged to the server's
// logger, and Drain registered to run when it shuts down. Serve it with
// ListenAndServe or Serve, and stop it with Server.Shutdown.
func (s *Server) HTTPServer(addr string, opts HTTPOptions) *http.Server {
	o := opts.withDefaults()
	hs := &http.Server{
		Addr:              addr,
		Handler:           s.HTTPHandler(opts),
		ReadHeaderTimeout: o.ReadHeaderTimeout,
		ReadTimeout:       o.ReadTimeout,
		IdleTimeout:       o.IdleTimeout,
		MaxHeaderBytes:    o.MaxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}
	hs.RegisterOnShutdown(s.Drain)
	return hs
}

// Shutdown stops hs gracefully: it stops accepting connections, lets the
// rounds in flight finish, ends the session-era calls parked waiting for
// an answer with an error result telling the user to call the tool
// again, closes the sessions, and returns when every connection is done.
// When ctx ends first, it closes the remaining connections and returns
// ctx's error. hs is any http.Server serving this server's handler.
func (s *Server) Shutdown(ctx context.Context, hs *http.Server) error {
	hs.RegisterOnShutdown(s.Drain) // once is enough; Drain runs once anyway
	err := hs.Shutdown(ctx)
	if err != nil {
		s.Drain()
		hs.Close()
	}
	s.closeSessions()
	if err != nil {
		return fmt.Errorf("shutdown: rounds still running after the deadline were cut off: %w", err)
	}
	return nil
}

// Drain starts the server's shutdown, once: session-era calls parked
// waiting for an answer stop waiting and end with an error result, new
// sessions are refused, and once the session-era calls in progress have
// ended every session is closed, which ends its streams. Rounds that are
// running go on. HTTPServer registers Drain with RegisterOnShutdown, so
// that http.Server.Shutdown calls it after closing the listeners.
func (s *Server) Drain() {
	s.drainOnce.Do(func() {
		s.log.Info("shutting down: ending parked calls and letting rounds in flight finish")
		s.drain()
		s.work.stopClaims()
		go func() {
			// A session's streams end when it closes; first let the calls
			// in progress end and their replies go out.
			s.legacy.wait()
			s.sessionPOSTs.wait()
			s.closeSessions()
		}()
	})
}

// closeSessions closes the session-era HTTP sessions (the ones with an
// id: stdio and the stateless requests' sessions have none).
func (s *Server) closeSessions() {
	var open []*mcp.ServerSession
	for ss := range s.mcp.Sessions() {
		if ss.ID() != "" {
			open = append(open, ss)
		}
	}
	for _, ss := range open {
		ss.Close()
	}
}

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

// gate counts things in progress against a cap (max ≤ 0: no cap), in a
// gauge (if not nil).
type gate struct {
	max   int
	gauge prometheus.Gauge

	mu   sync.Mutex
	n    int
	zero chan struct{} // closed when n drops to 0, for wait
}

func newGate(max int, gauge prometheus.Gauge) *gate {
	return &gate{max: max, gauge: gauge}
}

// acquire takes a place if there is one.
func (g *gate) acquire() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.max > 0 && g.n >= g.max {
		return false
	}
	g.n++
	if g.gauge != nil {
		g.gauge.Inc()
	}
	return true
}

// release gives a place back.
func (g *gate) release() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.n--
	if g.gauge != nil {
		g.gauge.Dec()
	}
	if g.n == 0 && g.zero != nil {
		close(g.zero)
		g.zero = nil
	}
}

// wait returns when no place is taken.
func (g *gate) wait() {
	g.mu.Lock()
	if g.n == 0 {
		g.mu.Unlock()
		return
	}
	if g.zero == nil {
		g.zero = make(chan struct{})
	}
	ch := g.zero
	g.mu.Unlock()
	<-ch
}

// sessionSlots counts the open session-era sessions against
// HTTPOptions.MaxSessions without a goroutine per session (a parked
// session costs memory enough): a session counts from the initialize that
// opens it until a sweep finds that the SDK has dropped it. Sweeps run
// when the cap is reached, when the set of counted sessions has doubled,
// and before the metrics are scraped.
type sessionSlots struct {
	srv   *mcp.Server
	max   int // <= 0: no cap
	gauge prometheus.Gauge

	mu      sync.Mutex
	pending int                             // initializes being served
	open    map[*mcp.ServerSession]struct{} // sessions counted
	next    int                             // sweep when open reaches it
}

func newSessionSlots(srv *mcp.Server, max int, gauge prometheus.Gauge) *sessionSlots {
	return &sessionSlots{srv: srv, max: max, gauge: gauge, open: map[*mcp.ServerSession]struct{}{}, next: 64}
}

// acquire takes a place for a session being opened, if there is one.
func (g *sessionSlots) acquire() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	full := func() bool { return g.max > 0 && g.pending+len(g.open) >= g.max }
	if full() || len(g.open) >= g.next {
		g.sweepLocked()
	}
	if full() {
		return false
	}
	g.pending++
	g.setGauge()
	return true
}

// opened ends an acquire: ss is the session it opened, or nil.
func (g *sessionSlots) opened(ss *mcp.ServerSession) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.pending--
	if ss != nil {
		g.open[ss] = struct{}{}
	}
	g.setGauge()
}

// sweep forgets the sessions the SDK no longer has.
func (g *sessionSlots) sweep() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.sweepLocked()
	g.setGauge()
}

func (g *sessionSlots) sweepLocked() {
	if len(g.open) > 0 {
		live := make(map[*mcp.ServerSession]bool, len(g.open))
		for ss := range g.srv.Sessions() {
			if _, ok := g.open[ss]; ok {
				live[ss] = true
			}
		}
		for ss := range g.open {
			if !live[ss] {
				delete(g.open, ss)
			}
		}
	}
	g.next = max(64, 2*len(g.open))
}

func (g *sessionSlots) setGauge() {
	if g.gauge != nil {
		g.gauge.Set(float64(g.pending + len(g.open)))
	}
}

// responseWriter applies HTTPOptions.WriteTimeout to each write and
// flush of a response, and notes its status for the metrics. It keeps the
// http.ResponseController features of the writer it wraps (Unwrap).
type responseWriter struct {
	http.ResponseWriter
	rc      http.ResponseController // a value: no allocation of its own
	timeout time.Duration
	status  int
}

func newResponseWriter(w http.ResponseWriter, timeout time.Duration) *responseWriter {
	return &responseWriter{ResponseWriter: w, rc: *http.NewResponseController(w), timeout: timeout}
}

// WriteHeader notes the status and sends it.
func (w *responseWriter) WriteHeader(code int) {
	if w.status == 0 && code >= 200 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

// Write writes under the write timeout.
func (w *responseWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	w.arm()
	n, err := w.ResponseWriter.Write(p)
	w.disarm()
	return n, err
}

// FlushError flushes under the write timeout.
func (w *responseWriter) FlushError() error {
	w.arm()
	err := w.rc.Flush()
	w.disarm()
	return err
}

// Flush flushes under the write timeout.
func (w *responseWriter) Flush() { _ = w.FlushError() }

// Unwrap returns the wrapped writer, for http.ResponseController.
func (w *responseWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *responseWriter) arm() {
	if w.timeout > 0 {
		_ = w.rc.SetWriteDeadline(time.Now().Add(w.timeout))
	}
}

func (w *responseWriter) disarm() {
	if w.timeout > 0 {
		_ = w.rc.SetWriteDeadline(time.Time{})
	}
}

// finish bounds the last flush, which net/http makes after the handler
// returns, and counts a 413 in m (when not nil).
func (w *responseWriter) finish(m *metrics.Metrics) {
	w.arm()
	if m != nil && w.status == http.StatusRequestEntityTooLarge {
		m.Rejected.WithLabelValues(metrics.RejectTooLarge).Inc()
	}
}
