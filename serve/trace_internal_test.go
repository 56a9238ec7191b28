package serve

import (
	"context"
	"log/slog"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// TestTracingOff: without Options.Tracer the logger is not wrapped and
// rounds have no tracer; with one, both are set up.
func TestTracingOff(t *testing.T) {
	off, err := New(nil, Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	if _, wrapped := off.log.Handler().(*traceHandler); wrapped || off.tracer() != nil {
		t.Errorf("a server without a Tracer traces (logger wrapped %v)", wrapped)
	}
	tp := sdktrace.NewTracerProvider()
	defer tp.Shutdown(context.Background())
	on, err := New(nil, Options{Logger: slog.New(slog.DiscardHandler), Tracer: tp})
	if err != nil {
		t.Fatal(err)
	}
	if _, wrapped := on.log.Handler().(*traceHandler); !wrapped || on.tracer() == nil {
		t.Errorf("a server with a Tracer does not trace (logger wrapped %v)", wrapped)
	}
}
