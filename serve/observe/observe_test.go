package observe

import (
	"context"
	"log/slog"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// TestTracingOff: without Options.Tracer the logger is not wrapped and
// rounds have no tracer; with one, both are set up.
func TestTracingOff(t *testing.T) {
	off := New(Options{Logger: slog.New(slog.DiscardHandler)})
	if _, wrapped := off.Log.Handler().(*traceHandler); wrapped || off.Traced() {
		t.Errorf("rounds without a Tracer are traced (logger wrapped %v)", wrapped)
	}
	tp := sdktrace.NewTracerProvider()
	defer tp.Shutdown(context.Background())
	on := New(Options{Logger: slog.New(slog.DiscardHandler), Tracer: tp})
	if _, wrapped := on.Log.Handler().(*traceHandler); !wrapped || !on.Traced() {
		t.Errorf("rounds with a Tracer are not traced (logger wrapped %v)", wrapped)
	}
}
