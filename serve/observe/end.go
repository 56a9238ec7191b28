package observe

import (
	"context"
	"errors"
	"log/slog"
	"strconv"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/flowserve/flowserve/dsl"
	"github.com/flowserve/flowserve/flow"
	"github.com/flowserve/flowserve/flow/state"
	"github.com/flowserve/flowserve/metrics"
	"github.com/flowserve/flowserve/serve/internal/wire"
)

// End records the round's outcome in the metrics, the log and its span:
// res is the round's result (nil when it has none), rpcErr the JSON-RPC
// error it was answered with, and err the engine's error (a run failure
// behind an error result, or the protocol error's cause, or the
// context's error of a cancelled round).
func (rd *Round) End(res *flow.Result, rpcErr *jsonrpc.Error, err error) {
	d := time.Since(rd.start)
	rd.o.metrics.RoundsInFlight.Dec()
	outcome, code := outcomeOf(res, rpcErr)
	rd.count(res, outcome, code, d)
	level, msg := rd.levelOf(outcome, rpcErr, err)
	if rd.tr != nil {
		rd.tr.end(res, rpcErr, err, outcome)
	}
	ctx := rd.logContext()
	if rd.o.Log.Enabled(ctx, level) {
		rd.log(ctx, level, msg, outcome, code, res, rpcErr, err, d)
	}
	if se := storeErr(res); se != nil {
		rd.o.Log.LogAttrs(ctx, slog.LevelWarn, "final result not kept in the reply store; a retried final round will run its last steps again",
			slog.String(rd.kind(), rd.tool), slog.String("run", rd.stats.RunID), slog.String("err", se.Error()))
	}
}

// outcomeOf is the outcome label of a round that came to res or rpcErr,
// and the error code of a protocol error.
func outcomeOf(res *flow.Result, rpcErr *jsonrpc.Error) (outcome, code string) {
	switch {
	case rpcErr != nil:
		return metrics.OutcomeProtocolError, strconv.FormatInt(rpcErr.Code, 10)
	case res == nil:
	case res.Input != nil:
		return metrics.OutcomeInputRequired, ""
	case res.Complete != nil && res.Complete.IsError:
		return metrics.OutcomeErrorResult, ""
	case res.Complete != nil, res.Prompt != nil:
		return metrics.OutcomeComplete, ""
	case res.Detached != nil:
		return metrics.OutcomeTask, ""
	case res.Approval != nil:
		return metrics.OutcomeApproval, ""
	}
	return metrics.OutcomeCancelled, ""
}

// count counts the round, which took d, in the metrics.
func (rd *Round) count(res *flow.Result, outcome, code string, d time.Duration) {
	m := rd.o.metrics
	if outcome == metrics.OutcomeInputRequired && rd.era == wire.FirstModernVersion {
		// Sent to the client; a session's states stay in the server.
		m.StateBytes.Observe(float64(len(res.Input.State)))
	}
	m.Rounds.WithLabelValues(rd.era, rd.tool, outcome, code).Inc()
	if rd.stats.Version != (dsl.Version{}) {
		rd.o.versionRounds(rd.tool, rd.stats.Version).Inc()
	}
	m.RoundSeconds.WithLabelValues(rd.era).Observe(d.Seconds())
	for action, n := range rd.stats.Answers {
		m.Asks.WithLabelValues(rd.tool, action).Add(float64(n))
	}
	if rd.stats.StepErrors > 0 {
		m.StepErrors.WithLabelValues(rd.tool).Add(float64(rd.stats.StepErrors))
	}
	if res != nil && res.Replayed {
		m.ReplyStoreHits.WithLabelValues(rd.tool).Inc()
	}
	if res != nil && res.StoreErr != nil {
		m.ReplyStoreErrors.WithLabelValues(rd.tool).Inc()
	}
}

// levelOf is the level and the message of the round's log line.
func (rd *Round) levelOf(outcome string, rpcErr *jsonrpc.Error, err error) (slog.Level, string) {
	switch outcome {
	case metrics.OutcomeInputRequired:
		return slog.LevelDebug, "round needs input"
	case metrics.OutcomeProtocolError:
		level := slog.LevelInfo
		if errors.Is(err, state.ErrInvalid) {
			// Tampered with, sealed under a key this server lacks, or
			// bound to another call: worth an operator's look.
			level = slog.LevelWarn
		}
		if rd.prompt && rpcErr.Code == wire.CodeInternalError {
			// A prompt's failure: the run ended, by a fail node or an
			// error.
			if err != nil {
				level = slog.LevelWarn
			}
			return level, msgPromptFailed
		}
		return level, "round rejected"
	case metrics.OutcomeCancelled:
		return slog.LevelInfo, "round cancelled"
	case metrics.OutcomeTask:
		return slog.LevelDebug, "round goes on as a task"
	case metrics.OutcomeApproval:
		return slog.LevelDebug, "round waits for an approval"
	case metrics.OutcomeErrorResult:
		if err != nil {
			var re *flow.RunError
			if !errors.As(err, &re) {
				return slog.LevelError, "run failed"
			}
			return slog.LevelWarn, "run failed"
		}
	}
	return slog.LevelInfo, "call finished"
}

// msgPromptFailed is the message of a prompt flow's failure.
const msgPromptFailed = "prompt failed"

// log writes the round's log line.
func (rd *Round) log(ctx context.Context, level slog.Level, msg, outcome, code string, res *flow.Result, rpcErr *jsonrpc.Error, err error, d time.Duration) {
	attrs := make([]slog.Attr, 0, 12)
	attrs = append(attrs, slog.String(rd.kind(), rd.tool), slog.String("era", rd.era))
	if rd.stats.RunID != "" {
		attrs = append(attrs, slog.String("run", rd.stats.RunID), slog.Int("round", rd.stats.Round))
	}
	if rd.stats.Node != "" {
		attrs = append(attrs, slog.String("node", rd.stats.Node))
	}
	attrs = append(attrs, slog.String("outcome", outcome))
	if code != "" {
		attrs = append(attrs, slog.String("code", code), slog.String("message", rpcErr.Message))
	}
	if stateRefused(err) {
		// Which check refused the state: for the log only, never the reply.
		attrs = append(attrs, slog.String("state", state.Reason(err)))
	}
	if rd.stats.Version != (dsl.Version{}) {
		attrs = append(attrs, slog.String("version", rd.stats.Version.Short()))
	}
	if rd.stats.FlowChanged {
		attrs = append(attrs, slog.Bool("flow_changed", true))
	}
	if res != nil && res.Replayed {
		attrs = append(attrs, slog.Bool("replayed", true))
	}
	attrs = append(attrs, slog.Float64("ms", float64(d.Microseconds())/1000))
	if rd.caller != "" {
		attrs = append(attrs, slog.String("caller", rd.caller))
	}
	if err != nil && (outcome == metrics.OutcomeErrorResult || msg == msgPromptFailed) {
		attrs = append(attrs, slog.String("err", err.Error()))
	}
	rd.o.Log.LogAttrs(ctx, level, msg, attrs...)
}

// stateRefused reports whether err is a refusal of the request state.
func stateRefused(err error) bool {
	return errors.Is(err, state.ErrInvalid) || errors.Is(err, state.ErrExpired) || errors.Is(err, state.ErrTooLarge)
}

// storeErr returns the reply store's error of a result, if any.
func storeErr(res *flow.Result) error {
	if res == nil {
		return nil
	}
	return res.StoreErr
}
