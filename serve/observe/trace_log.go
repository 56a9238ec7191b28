package observe

import (
	"context"
	"log/slog"

	"go.opentelemetry.io/otel/trace"
)

// Keys of the trace and span ids in log records.
const (
	logTraceID = "trace_id"
	logSpanID  = "span_id"
)

// traceHandler is a slog.Handler that adds trace_id and span_id, the ids
// of the span a record's context holds (a round's, for its records), to
// each record logged in one, and passes it on to h. They go at the top
// level, outside any group WithGroup opened, so that a search for a trace
// id finds every record of it. Records without a valid span pass through
// as they are.
type traceHandler struct {
	// h is the handler with every WithAttrs and WithGroup applied.
	h slog.Handler
	// base is the handler before the first WithGroup, and then what was
	// applied to it since, in order; base is nil while no group is open.
	base slog.Handler
	then []func(slog.Handler) slog.Handler
}

// newTraceHandler returns a traceHandler passing records on to h.
func newTraceHandler(h slog.Handler) slog.Handler { return &traceHandler{h: h} }

func (x *traceHandler) Enabled(ctx context.Context, l slog.Level) bool { return x.h.Enabled(ctx, l) }

func (x *traceHandler) Handle(ctx context.Context, r slog.Record) error {
	sc := trace.SpanContextFromContext(ctx)
	if !sc.IsValid() {
		return x.h.Handle(ctx, r)
	}
	ids := [2]slog.Attr{slog.String(logTraceID, sc.TraceID().String()), slog.String(logSpanID, sc.SpanID().String())}
	if x.base == nil {
		// r may share its attributes with copies another handler holds.
		r = r.Clone()
		r.AddAttrs(ids[:]...)
		return x.h.Handle(ctx, r)
	}
	h := x.base.WithAttrs(ids[:])
	for _, f := range x.then {
		h = f(h)
	}
	return h.Handle(ctx, r)
}

func (x *traceHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	if len(attrs) == 0 {
		return x
	}
	y := &traceHandler{h: x.h.WithAttrs(attrs), base: x.base}
	if x.base != nil {
		y.then = append(x.then[:len(x.then):len(x.then)], func(h slog.Handler) slog.Handler { return h.WithAttrs(attrs) })
	}
	return y
}

func (x *traceHandler) WithGroup(name string) slog.Handler {
	if name == "" {
		return x
	}
	y := &traceHandler{h: x.h.WithGroup(name), base: x.base}
	if y.base == nil {
		y.base = x.h
	}
	y.then = append(x.then[:len(x.then):len(x.then)], func(h slog.Handler) slog.Handler { return h.WithGroup(name) })
	return y
}
