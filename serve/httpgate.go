package serve

import (
	"net/http"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/flowserve/flowserve/metrics"
)

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
