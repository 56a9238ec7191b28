package observe

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/trace"
)

// TestTraceHandler: records logged in a span's context get its trace_id
// and span_id at the top level, whatever attributes and groups the
// logger has; others pass through as they are.
func TestTraceHandler(t *testing.T) {
	tid, _ := trace.TraceIDFromHex("4bf92f3577b34da6a3ce929d0e0e4736")
	sid, _ := trace.SpanIDFromHex("00f067aa0ba902b7")
	spanCtx := trace.ContextWithSpanContext(context.Background(), trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: sid}))
	const ids = `"trace_id":"4bf92f3577b34da6a3ce929d0e0e4736","span_id":"00f067aa0ba902b7"`
	tests := []struct {
		name   string
		derive func(*slog.Logger) *slog.Logger
		ctx    context.Context
		want   string // the record after "msg":"m",
	}{
		{"no span", func(l *slog.Logger) *slog.Logger { return l }, context.Background(), `"k":1}`},
		{"plain", func(l *slog.Logger) *slog.Logger { return l }, spanCtx, `"k":1,` + ids + `}`},
		{"attrs", func(l *slog.Logger) *slog.Logger { return l.With("a", "x") }, spanCtx, `"a":"x","k":1,` + ids + `}`},
		{"group", func(l *slog.Logger) *slog.Logger { return l.WithGroup("g") }, spanCtx, ids + `,"g":{"k":1}}`},
		{"attrs, group, attrs", func(l *slog.Logger) *slog.Logger { return l.With("a", "x").WithGroup("g").With("b", "y") },
			spanCtx, `"a":"x",` + ids + `,"g":{"b":"y","k":1}}`},
		{"two groups", func(l *slog.Logger) *slog.Logger { return l.WithGroup("g").With("b", "y").WithGroup("h") },
			spanCtx, ids + `,"g":{"b":"y","h":{"k":1}}}`},
		{"group, no span", func(l *slog.Logger) *slog.Logger { return l.WithGroup("g").With("b", "y") },
			context.Background(), `"g":{"b":"y","k":1}}`},
		{"empty group and attrs", func(l *slog.Logger) *slog.Logger { return l.WithGroup("").With() }, spanCtx, `"k":1,` + ids + `}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			json := slog.NewJSONHandler(&buf, &slog.HandlerOptions{ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
				if a.Key == slog.TimeKey && groups == nil {
					return slog.Attr{}
				}
				return a
			}})
			l := tc.derive(slog.New(newTraceHandler(json)))
			l.InfoContext(tc.ctx, "m", "k", 1)
			want := `{"level":"INFO","msg":"m",` + tc.want
			if got := strings.TrimSpace(buf.String()); got != want {
				t.Errorf("got  %s\nwant %s", got, want)
			}
		})
	}
}

// TestTraceHandlerSharedRecord: adding the ids to a record does not
// write into the attributes its caller's copy shares (slog marks a record
// modified through two copies with a !BUG attribute).
func TestTraceHandlerSharedRecord(t *testing.T) {
	tid, _ := trace.TraceIDFromHex("4bf92f3577b34da6a3ce929d0e0e4736")
	sid, _ := trace.SpanIDFromHex("00f067aa0ba902b7")
	ctx := trace.ContextWithSpanContext(context.Background(), trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: sid}))
	r := slog.NewRecord(time.Time{}, slog.LevelInfo, "m", 0)
	for i := range 10 { // past the attributes a Record holds inline, with room to spare
		r.AddAttrs(slog.Int(string(rune('a'+i)), i))
	}
	var buf bytes.Buffer
	if err := newTraceHandler(slog.NewJSONHandler(&buf, nil)).Handle(ctx, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"trace_id"`) {
		t.Errorf("no trace_id: %s", buf.String())
	}
	r.AddAttrs(slog.Int("z", 9))
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "!BUG" || a.Key == "trace_id" {
			t.Errorf("the caller's record has %s", a)
		}
		return true
	})
}
