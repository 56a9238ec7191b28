// Package metrics holds flowserve's Prometheus metrics. Each Metrics has
// its own registry, so several servers in one process (and tests) never
// share counters, and nothing is registered with the global default
// registry.
//
// The names and labels (see docs/operations.md):
//
//	flowserve_rounds_total{era, tool, outcome, code}  rounds served
//	flowserve_round_duration_seconds{era}             time to run one round
//	flowserve_rounds_in_flight                        rounds running now
//	flowserve_state_bytes                             size of sealed request states sent
//	flowserve_asks_total{tool, action}                answers taken, by action
//	flowserve_step_errors_total{tool}                 steps that failed
//	flowserve_reply_store_hits_total{tool}            final rounds answered from the reply store
//	flowserve_reply_store_errors_total{tool}          final results the reply store could not keep
//	flowserve_http_rejected_total{reason}             HTTP requests refused before any round ran
//	flowserve_sessions                                open session-era HTTP sessions
//	flowserve_legacy_calls                            session-era tool calls in progress
//	flowserve_parked_calls                            session-era tool calls waiting for an answer
//	flowserve_tasks_total{tool, status}               task transitions, by the status entered
//	flowserve_task_age_seconds{status}                age of tasks when they end, by final status
//	flowserve_task_takeovers_total{tool}              tasks taken over from a worker that stopped
//	flowserve_tasks_running                           task rounds running in this process
//
// plus the Go runtime's and the process's standard metrics (go_*,
// process_*).
package metrics

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// The outcomes of a round (the outcome label of flowserve_rounds_total).
const (
	// OutcomeInputRequired: the round needs answers (2026-07-28
	// input_required, or elicitation/create sent to a session client).
	OutcomeInputRequired = "input_required"
	// OutcomeComplete: the call finished with a result.
	OutcomeComplete = "complete"
	// OutcomeErrorResult: the call finished with an isError result.
	OutcomeErrorResult = "error_result"
	// OutcomeProtocolError: the round was answered with a JSON-RPC error,
	// whose code is the code label.
	OutcomeProtocolError = "protocol_error"
	// OutcomeCancelled: the client went away or the call was cancelled.
	OutcomeCancelled = "cancelled"
	// OutcomeTask: the call became a task (a CreateTaskResult), or a
	// task's round ended and the task goes on.
	OutcomeTask = "task"
	// OutcomeApproval: the round reached an approval (an ask with to:);
	// the run waits for someone other than the caller.
	OutcomeApproval = "approval"
)

// The reasons an HTTP request is refused (the reason label of
// flowserve_http_rejected_total).
const (
	RejectHost         = "host"           // Host header not allowed (403)
	RejectOrigin       = "origin"         // Origin header not allowed (403)
	RejectUnauthorized = "unauthorized"   // no valid bearer token (401)
	RejectScope        = "scope"          // the token lacks a scope the flow requires (403)
	RejectTooLarge     = "body_too_large" // body over the limit (413)
	RejectSessions     = "sessions"       // session cap reached (503)
	RejectLegacyCalls  = "legacy_calls"   // session-era call cap reached (JSON-RPC error)
)

// Metrics are the collectors of one server.
type Metrics struct {
	// Registry holds every collector below, and the Go and process
	// collectors. Register more (a reply store's, say) on it.
	Registry *prometheus.Registry

	Rounds           *prometheus.CounterVec   // era, tool, outcome, code
	RoundSeconds     *prometheus.HistogramVec // era
	RoundsInFlight   prometheus.Gauge
	StateBytes       prometheus.Histogram
	Asks             *prometheus.CounterVec // tool, action
	StepErrors       *prometheus.CounterVec // tool
	ReplyStoreHits   *prometheus.CounterVec // tool
	ReplyStoreErrors *prometheus.CounterVec // tool
	Rejected         *prometheus.CounterVec // reason
	Sessions         prometheus.Gauge
	LegacyCalls      prometheus.Gauge
	ParkedCalls      prometheus.Gauge
	Tasks            *prometheus.CounterVec   // tool, status
	TaskAge          *prometheus.HistogramVec // status
	TaskTakeovers    *prometheus.CounterVec   // tool
	TasksRunning     prometheus.Gauge
	Approvals        *prometheus.CounterVec // tool, event: asked, answered, timeout
	Webhooks         *prometheus.CounterVec // result: delivered, retried, failed
	VersionRounds    *prometheus.CounterVec // tool, version
}

// New returns a fresh set of metrics on a private registry.
func New() *Metrics {
	r := registry{prometheus.NewRegistry()}
	m := &Metrics{
		Registry: r.Registry,
		Rounds: r.counters("flowserve_rounds_total",
			"Rounds of tool calls served, by protocol era, tool and outcome (input_required, complete, error_result, protocol_error with its JSON-RPC code, cancelled).",
			"era", "tool", "outcome", "code"),
		RoundSeconds: r.histograms("flowserve_round_duration_seconds",
			"Time to run one round of a tool call (steps included, the user's think time excluded), by protocol era.",
			[]float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60}, "era"),
		RoundsInFlight: r.gauge("flowserve_rounds_in_flight", "Rounds running now."),
		StateBytes: r.histogram("flowserve_state_bytes",
			"Size in bytes of the sealed request states sent with input_required results.",
			prometheus.ExponentialBuckets(256, 2, 11)), // 256 B to 256 KiB
		Asks: r.counters("flowserve_asks_total",
			"Answers taken by asks, by tool and action (accept, decline, cancel, unavailable, invalid).", "tool", "action"),
		StepErrors: r.counters("flowserve_step_errors_total", "Steps that failed after their retries, by tool.", "tool"),
		ReplyStoreHits: r.counters("flowserve_reply_store_hits_total",
			"Retried final rounds answered from the reply store without running their steps again, by tool.", "tool"),
		ReplyStoreErrors: r.counters("flowserve_reply_store_errors_total",
			"Final results the reply store could not keep, by tool.", "tool"),
		Rejected: r.counters("flowserve_http_rejected_total",
			"HTTP requests refused before any round ran, by reason (host, origin, unauthorized, body_too_large, sessions, legacy_calls).", "reason"),
		Sessions:    r.gauge("flowserve_sessions", "Open session-era (2025-06-18, 2025-11-25) HTTP sessions."),
		LegacyCalls: r.gauge("flowserve_legacy_calls", "Session-era tool calls in progress."),
		ParkedCalls: r.gauge("flowserve_parked_calls", "Session-era tool calls waiting for their client's answer."),
		Tasks: r.counters("flowserve_tasks_total",
			"Task transitions, by tool and the status entered (working, input_required, completed, failed, cancelled).", "tool", "status"),
		TaskAge: r.histograms("flowserve_task_age_seconds", "Age of tasks when they end, from creation, by final status.",
			[]float64{.1, .5, 1, 5, 10, 30, 60, 300, 900, 3600, 4 * 3600, 24 * 3600}, "status"),
		TaskTakeovers: r.counters("flowserve_task_takeovers_total",
			"Tasks this process took over from a worker that stopped mid-round (or a restart), by tool.", "tool"),
		TasksRunning: r.gauge("flowserve_tasks_running", "Task rounds running in this process now."),
		Approvals: r.counters("flowserve_approvals_total",
			"Approvals (asks with to:) by tool and event: asked (a task began to wait), answered (on its page), timeout.", "tool", "event"),
		VersionRounds: r.counters("flowserve_version_rounds_total",
			"Rounds served by tool and flow version (the version's first 12 hex digits): the runs still live on an old version after a deploy.",
			"tool", "version"),
		Webhooks: r.counters("flowserve_webhook_deliveries_total",
			"Approval notifications posted to webhooks, by result: delivered, retried (an attempt failed and another follows), failed (given up).",
			"result"),
	}
	r.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// registry makes collectors and registers each on itself as it makes it,
// so that no collector of a Metrics is left out of its registry.
type registry struct{ *prometheus.Registry }

// counters returns a counter per value of labels.
func (r registry) counters(name, help string, labels ...string) *prometheus.CounterVec {
	c := prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, labels)
	r.MustRegister(c)
	return c
}

// gauge returns a gauge.
func (r registry) gauge(name, help string) prometheus.Gauge {
	g := prometheus.NewGauge(prometheus.GaugeOpts{Name: name, Help: help})
	r.MustRegister(g)
	return g
}

// histogram returns a histogram with buckets.
func (r registry) histogram(name, help string, buckets []float64) prometheus.Histogram {
	h := prometheus.NewHistogram(prometheus.HistogramOpts{Name: name, Help: help, Buckets: buckets})
	r.MustRegister(h)
	return h
}

// histograms returns a histogram with buckets per value of labels.
func (r registry) histograms(name, help string, buckets []float64, labels ...string) *prometheus.HistogramVec {
	h := prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: name, Help: help, Buckets: buckets}, labels)
	r.MustRegister(h)
	return h
}

// Handler serves the registry in the Prometheus exposition format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.Registry, promhttp.HandlerOpts{Registry: m.Registry})
}
