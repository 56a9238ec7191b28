package serve

import (
	"encoding/json"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// traceParent is the W3C trace context a client sent in a request's
// _meta (SEP-414): the traceparent and tracestate values, as sent ("" when
// absent). A round's span is its child.
type traceParent struct {
	traceparent, tracestate string
}

// Keys of the W3C trace context in _meta.
const (
	metaTraceparent = "traceparent"
	metaTracestate  = "tracestate"
)

// sdkTraceParent reads the trace context of a request that came through
// the SDK.
func sdkTraceParent(meta mcp.Meta) traceParent {
	tp, _ := meta[metaTraceparent].(string)
	ts, _ := meta[metaTracestate].(string)
	return traceParent{traceparent: tp, tracestate: ts}
}

// leanTraceParent reads the trace context of a lean request's _meta.
func leanTraceParent(meta map[string]json.RawMessage) traceParent {
	if len(meta) == 0 {
		return traceParent{}
	}
	return traceParent{traceparent: metaString(meta[metaTraceparent]), tracestate: metaString(meta[metaTracestate])}
}

// taskTrace is how a task record keeps a trace context (tasks.Task.Trace).
func (tp traceParent) taskTrace() string {
	if tp.traceparent == "" {
		return ""
	}
	if tp.tracestate == "" {
		return tp.traceparent
	}
	return tp.traceparent + "\n" + tp.tracestate
}

// parseTaskTrace is the inverse of taskTrace.
func parseTaskTrace(s string) traceParent {
	tp, ts, _ := strings.Cut(s, "\n")
	return traceParent{traceparent: tp, tracestate: ts}
}

// initTracing sets the Server up to trace its rounds with Options.Tracer,
// when it is set.
func (s *Server) initTracing() {}
