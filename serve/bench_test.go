package serve

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"net/http/httptest"

	"github.com/flowserve/flowserve/dsl"
	"github.com/flowserve/flowserve/flow"
	"github.com/flowserve/flowserve/internal/loadgen"
)

// BenchmarkHTTPRuns measures complete 2026-07-28 runs of the signup flow
// (two rounds each) over real HTTP on loopback, with 8 concurrent
// clients. One op is one run.
func BenchmarkHTTPRuns(b *testing.B) {
	path := filepath.Join("..", "flows", "signup.yaml")
	src, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	f, diags := dsl.Parse(path, src)
	if err := diags.Err(); err != nil {
		b.Fatal(err)
	}
	p, err := flow.Compile(f, flow.Options{})
	if err != nil {
		b.Fatal(err)
	}
	srv, err := New([]*flow.Program{p}, Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		b.Fatal(err)
	}
	ts := httptest.NewServer(srv.HTTPHandler(HTTPOptions{}))
	defer ts.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	b.ResetTimer()
	rep, err := loadgen.Run(ctx, loadgen.Config{URL: ts.URL + "/mcp", Tool: "signup", Clients: 8, Runs: b.N})
	b.StopTimer()
	if err != nil {
		b.Fatal(err)
	}
	if rep.Errors > 0 {
		b.Fatalf("%d errors: %s", rep.Errors, rep.FirstError)
	}
	b.ReportMetric(rep.RoundsPerSec, "rounds/s")
	b.ReportMetric(float64(rep.P99.Microseconds()), "p99-µs")
}
