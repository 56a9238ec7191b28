package metrics_test

import (
	"io"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/flowserve/flowserve/metrics"
)

// TestNew: each Metrics has its own registry, and its handler serves
// every flowserve metric once it has a sample.
func TestNew(t *testing.T) {
	a, b := metrics.New(), metrics.New()
	if a.Registry == b.Registry {
		t.Fatal("two sets share a registry")
	}
	a.Rounds.WithLabelValues("2026-07-28", "t", metrics.OutcomeComplete, "").Inc()
	a.RoundSeconds.WithLabelValues("2026-07-28").Observe(0.01)
	a.StateBytes.Observe(1000)
	a.Asks.WithLabelValues("t", "accept").Inc()
	a.StepErrors.WithLabelValues("t").Inc()
	a.ReplyStoreHits.WithLabelValues("t").Inc()
	a.ReplyStoreErrors.WithLabelValues("t").Inc()
	a.Rejected.WithLabelValues(metrics.RejectHost).Inc()
	w := httptest.NewRecorder()
	a.Handler().ServeHTTP(w, httptest.NewRequest("GET", "/metrics", nil))
	body, _ := io.ReadAll(w.Body)
	for _, name := range []string{
		"flowserve_rounds_total", "flowserve_round_duration_seconds_bucket", "flowserve_rounds_in_flight",
		"flowserve_state_bytes_bucket", "flowserve_asks_total", "flowserve_step_errors_total",
		"flowserve_reply_store_hits_total", "flowserve_reply_store_errors_total", "flowserve_http_rejected_total",
		"flowserve_sessions", "flowserve_legacy_calls", "flowserve_parked_calls", "go_goroutines",
	} {
		if !strings.Contains(string(body), "\n"+name) {
			t.Errorf("no %s in\n%s", name, body)
		}
	}
	w = httptest.NewRecorder()
	b.Handler().ServeHTTP(w, httptest.NewRequest("GET", "/metrics", nil))
	if strings.Contains(w.Body.String(), `tool="t"`) {
		t.Error("the second set shows the first one's samples")
	}
}
