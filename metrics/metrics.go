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
	reg := prometheus.NewRegistry()
	f := func(c prometheus.Collector) { reg.MustRegister(c) }
	m := &Metrics{
		Registry: reg,
		Rounds: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "flowserve_rounds_total",
			Help: "Rounds of tool calls served, by protocol era, tool and outcome (input_required, complete, error_result, protocol_error with its JSON-RPC code, cancelled).",
		}, []string{"era", "tool", "outcome", "code"}),
		RoundSeconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "flowserve_round_duration_seconds",
			Help:    "Time to run one round of a tool call (steps included, the user's think time excluded), by protocol era.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60},
		}, []string{"era"}),
		RoundsInFlight: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "flowserve_rounds_in_flight",
			Help: "Rounds running now.",
		}),
		StateBytes: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "flowserve_state_bytes",
			Help:    "Size in bytes of the sealed request states sent with input_required results.",
			Buckets: prometheus.ExponentialBuckets(256, 2, 11), // 256 B to 256 KiB
		}),
		Asks: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "flowserve_asks_total",
			Help: "Answers taken by asks, by tool and action (accept, decline, cancel, unavailable, invalid).",
		}, []string{"tool", "action"}),
		StepErrors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "flowserve_step_errors_total",
			Help: "Steps that failed after their retries, by tool.",
		}, []string{"tool"}),
		ReplyStoreHits: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "flowserve_reply_store_hits_total",
			Help: "Retried final rounds answered from the reply store without running their steps again, by tool.",
		}, []string{"tool"}),
		ReplyStoreErrors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "flowserve_reply_store_errors_total",
			Help: "Final results the reply store could not keep, by tool.",
		}, []string{"tool"}),
		Rejected: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "flowserve_http_rejected_total",
			Help: "HTTP requests refused before any round ran, by reason (host, origin, unauthorized, body_too_large, sessions, legacy_calls).",
		}, []string{"reason"}),
		Sessions: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "flowserve_sessions",
			Help: "Open session-era (2025-06-18, 2025-11-25) HTTP sessions.",
		}),
		LegacyCalls: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "flowserve_legacy_calls",
			Help: "Session-era tool calls in progress.",
		}),
		ParkedCalls: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "flowserve_parked_calls",
			Help: "Session-era tool calls waiting for their client's answer.",
		}),
		Tasks: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "flowserve_tasks_total",
			Help: "Task transitions, by tool and the status entered (working, input_required, completed, failed, cancelled).",
		}, []string{"tool", "status"}),
		TaskAge: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "flowserve_task_age_seconds",
			Help:    "Age of tasks when they end, from creation, by final status.",
			Buckets: []float64{.1, .5, 1, 5, 10, 30, 60, 300, 900, 3600, 4 * 3600, 24 * 3600},
		}, []string{"status"}),
		TaskTakeovers: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "flowserve_task_takeovers_total",
			Help: "Tasks this process took over from a worker that stopped mid-round (or a restart), by tool.",
		}, []string{"tool"}),
		TasksRunning: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "flowserve_tasks_running",
			Help: "Task rounds running in this process now.",
		}),
		Approvals: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "flowserve_approvals_total",
			Help: "Approvals (asks with to:) by tool and event: asked (a task began to wait), answered (on its page), timeout.",
		}, []string{"tool", "event"}),
		VersionRounds: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "flowserve_version_rounds_total",
			Help: "Rounds served by tool and flow version (the version's first 12 hex digits): the runs still live on an old version after a deploy.",
		}, []string{"tool", "version"}),
		Webhooks: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "flowserve_webhook_deliveries_total",
			Help: "Approval notifications posted to webhooks, by result: delivered, retried (an attempt failed and another follows), failed (given up).",
		}, []string{"result"}),
	}
	f(m.Rounds)
	f(m.RoundSeconds)
	f(m.RoundsInFlight)
	f(m.StateBytes)
	f(m.Asks)
	f(m.StepErrors)
	f(m.ReplyStoreHits)
	f(m.ReplyStoreErrors)
	f(m.Rejected)
	f(m.Sessions)
	f(m.LegacyCalls)
	f(m.ParkedCalls)
	f(m.Tasks)
	f(m.TaskAge)
	f(m.TaskTakeovers)
	f(m.TasksRunning)
	f(m.Approvals)
	f(m.Webhooks)
	f(m.VersionRounds)
	f(collectors.NewGoCollector())
	f(collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// Handler serves the registry in the Prometheus exposition format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.Registry, promhttp.HandlerOpts{Registry: m.Registry})
}
