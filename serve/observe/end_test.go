package observe

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/flowserve/flowserve/dsl"
	"github.com/flowserve/flowserve/flow"
	"github.com/flowserve/flowserve/flow/state"
	"github.com/flowserve/flowserve/metrics"
)

// program compiles a flow of the given kind ("" for a tool).
func program(t *testing.T, kind string) *flow.Program {
	t.Helper()
	src := "name: f\n"
	if kind != "" {
		src += "kind: " + kind + "\n"
	}
	src += "nodes:\n  - return: done\n"
	f, diags := dsl.Parse("f.yaml", []byte(src))
	if err := diags.Err(); err != nil {
		t.Fatal(err)
	}
	p, diags := flow.Compile(f, flow.Env{})
	if err := diags.Err(); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestEnd: what a round came to decides its outcome label, the level and
// message of its log line, and its count, with no server around it.
func TestEnd(t *testing.T) {
	runErr := &flow.RunError{Node: "n", Err: errors.New("boom")}
	failed := &flow.Result{Complete: &flow.ToolResult{IsError: true}}
	tests := []struct {
		name    string
		kind    string
		res     *flow.Result
		rpcErr  *jsonrpc.Error
		err     error
		outcome string
		code    string
		level   string
		msg     string
	}{
		{"asks", "", &flow.Result{Input: &flow.InputRequired{State: "s"}}, nil, nil, metrics.OutcomeInputRequired, "", "DEBUG", "round needs input"},
		{"complete", "", &flow.Result{Complete: &flow.ToolResult{}}, nil, nil, metrics.OutcomeComplete, "", "INFO", "call finished"},
		{"error result", "", failed, nil, nil, metrics.OutcomeErrorResult, "", "INFO", "call finished"},
		{"run failed", "", failed, nil, runErr, metrics.OutcomeErrorResult, "", "WARN", "run failed"},
		{"server failed", "", failed, nil, errors.New("disk"), metrics.OutcomeErrorResult, "", "ERROR", "run failed"},
		{"rejected", "", nil, &jsonrpc.Error{Code: -32602, Message: "bad"}, nil, metrics.OutcomeProtocolError, "-32602", "INFO", "round rejected"},
		{"tampered", "", nil, &jsonrpc.Error{Code: -32602, Message: "bad"}, state.ErrInvalid, metrics.OutcomeProtocolError, "-32602", "WARN", "round rejected"},
		{"prompt failed", "prompt", nil, &jsonrpc.Error{Code: -32603, Message: "no"}, runErr, metrics.OutcomeProtocolError, "-32603", "WARN", "prompt failed"},
		{"prompt fail node", "prompt", nil, &jsonrpc.Error{Code: -32603, Message: "no"}, nil, metrics.OutcomeProtocolError, "-32603", "INFO", "prompt failed"},
		{"cancelled", "", nil, nil, context.Canceled, metrics.OutcomeCancelled, "", "INFO", "round cancelled"},
		{"task", "", &flow.Result{Detached: &flow.Detached{}}, nil, nil, metrics.OutcomeTask, "", "DEBUG", "round goes on as a task"},
		{"approval", "", &flow.Result{Approval: &flow.Approval{}}, nil, nil, metrics.OutcomeApproval, "", "DEBUG", "round waits for an approval"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			m := metrics.New()
			o := New(Options{Logger: slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug})), Metrics: m})
			rd, _ := o.Start(context.Background(), program(t, tc.kind), "2026-07-28", "ci", TraceParent{}, &flow.Request{})
			rd.End(tc.res, tc.rpcErr, tc.err)
			var line map[string]any
			if err := json.Unmarshal(buf.Bytes(), &line); err != nil {
				t.Fatalf("log %q: %v", buf.String(), err)
			}
			if line["level"] != tc.level || line["msg"] != tc.msg || line["outcome"] != tc.outcome || line["caller"] != "ci" {
				t.Errorf("logged %s", buf.Bytes())
			}
			if got := value(t, m.Rounds.WithLabelValues("2026-07-28", "f", tc.outcome, tc.code)); got != 1 {
				t.Errorf("rounds counted %v, want 1", got)
			}
			if got := value(t, m.RoundsInFlight); got != 0 {
				t.Errorf("rounds in flight %v after the round", got)
			}
		})
	}
}

// value reads a counter or a gauge.
func value(t *testing.T, c prometheus.Metric) float64 {
	t.Helper()
	var out dto.Metric
	if err := c.Write(&out); err != nil {
		t.Fatal(err)
	}
	if g := out.GetGauge(); g != nil {
		return g.GetValue()
	}
	return out.GetCounter().GetValue()
}
