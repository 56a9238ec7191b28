package serve

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/flowserve/flowserve/approvals"
	"github.com/flowserve/flowserve/oauth"
	"github.com/flowserve/flowserve/serve/internal/guard"
	"github.com/flowserve/flowserve/serve/internal/wire"
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
const ApprovePath = approvals.PathPrefix

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
	sessions, stateless := s.sdkHandlers(&opts)
	g := guard.New(guard.Options{AllowedHosts: opts.AllowedHosts, AllowedOrigins: opts.AllowedOrigins, Tokens: opts.Tokens}, s.metrics)
	// authorize checks what the guard does, then an OAuth token.
	authorize := func(w http.ResponseWriter, r *http.Request) (*http.Request, bool) {
		if !g.Check(w, r) {
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
		s.serveEndpoint(w, r, opts.MaxRequestBodyBytes, sessions, stateless, slots)
	})
	s.mountPublic(mux, opts, g)
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

// sdkHandlers returns the go-sdk's session handler and its stateless one,
// serving the server's go-sdk server, with the principal of each request
// bound as opts says (OAuth, or bearer tokens by session).
func (s *Server) sdkHandlers(opts *HTTPOptions) (sessions, stateless http.Handler) {
	get := func(*http.Request) *mcp.Server { return s.mcp }
	stateless = mcp.NewStreamableHTTPHandler(get, &mcp.StreamableHTTPOptions{
		Stateless:                    true,
		PropagateRequestCancellation: true,
		MaxRequestBodyBytes:          opts.MaxRequestBodyBytes,
		Logger:                       s.sdkLog,
		// The guard checks the Host header, as the go-sdk would, or
		// against opts.AllowedHosts.
		DisableLocalhostProtection: true,
	})
	sessions = mcp.NewStreamableHTTPHandler(get, &mcp.StreamableHTTPOptions{
		SessionTimeout:             opts.SessionTimeout,
		MaxRequestBodyBytes:        opts.MaxRequestBodyBytes,
		Logger:                     s.sdkLog,
		DisableLocalhostProtection: true,
	})
	switch {
	case opts.OAuth != nil:
		opts.Tokens = nil
		sessions, stateless = bindPrincipals(sessions), bindPrincipals(stateless)
		s.hideTools.Store(opts.OAuth.HideTools)
		s.oauthConf.Store(opts.OAuth)
	case opts.Tokens != nil:
		sessions = guard.BindSessions(sessions)
	}
	return sessions, stateless
}

// serveEndpoint serves an authorized request to the MCP endpoint: a
// session-era one with the go-sdk's session handler, a 2026-07-28 POST on
// the lean path (which passes what it does not serve to stateless), and
// anything else with stateless.
func (s *Server) serveEndpoint(w http.ResponseWriter, r *http.Request, maxBody int64, sessions, stateless http.Handler, slots *sessionSlots) {
	if wire.SessionVersion(r.Header.Get("Mcp-Protocol-Version")) {
		if s.serveUnversioned(w, r, maxBody) {
			return
		}
		s.serveSessions(w, r.WithContext(withBase(r.Context(), requestBase(r))), sessions, slots, maxBody)
		return
	}
	if !wire.Eligible(r) {
		if r.Method == http.MethodPost && wire.RefuseDuplicates(w, r, maxBody) {
			return
		}
		stateless.ServeHTTP(w, r.WithContext(withBase(r.Context(), requestBase(r))))
		return
	}
	// The lean path reads the base from r when it needs it.
	s.serveLean(w, r, maxBody, stateless)
}

// mountPublic serves what needs no token on mux: the approval pages
// (people with a link, not MCP clients) and, with OAuth, the protected
// resource metadata (for any client that is to get a token). The Host
// check still applies.
func (s *Server) mountPublic(mux *http.ServeMux, opts HTTPOptions, g *guard.Guard) {
	pages := s.approvalHandler()
	s.pagesServed.Store(true)
	mux.HandleFunc(ApprovePath, func(rw http.ResponseWriter, r *http.Request) {
		w := newResponseWriter(rw, opts.WriteTimeout)
		defer w.finish(nil)
		if g.CheckHost(w, r) {
			pages.ServeHTTP(w, r)
		}
	})
	if opts.OAuth == nil {
		return
	}
	meta := s.metadataHandler(opts.OAuth)
	for _, path := range []string{oauth.MetadataPath, oauth.MetadataPath + EndpointPath} {
		mux.HandleFunc(path, func(rw http.ResponseWriter, r *http.Request) {
			w := newResponseWriter(rw, opts.WriteTimeout)
			defer w.finish(nil)
			if g.CheckHost(w, r) {
				meta.ServeHTTP(w, r)
			}
		})
	}
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
		s.work.StopClaims()
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

// Close stops the task workers: no task is claimed any more, and the
// rounds running are let finish until ctx ends; those still running then
// are stopped without their outcome being stored, so that their tasks are
// taken over (by the same store opened again, or by another instance on a
// shared one) and only their unfinished steps run again. The tasks
// claimed and waiting for a round are handed back to the store at once.
// It does not close the run store, which belongs to the caller.
func (s *Server) Close(ctx context.Context) error {
	return s.work.Close(ctx)
}
