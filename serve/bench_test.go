package serve

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/flowserve/flowserve/dsl"
	"github.com/flowserve/flowserve/flow"
	"github.com/flowserve/flowserve/internal/loadgen"
)

// benchServer serves flows/<name>.yaml as the only tool.
func benchServer(b *testing.B, name string) *Server {
	path := filepath.Join("..", "flows", name+".yaml")
	src, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	f, diags := dsl.Parse(path, src)
	if err := diags.Err(); err != nil {
		b.Fatal(err)
	}
	p, diags := flow.Compile(f, flow.Env{})
	if err := diags.Err(); err != nil {
		b.Fatal(err)
	}
	srv, err := New([]*flow.Program{p}, Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		b.Fatal(err)
	}
	return srv
}

// BenchmarkHTTPRuns measures complete 2026-07-28 runs over real HTTP on
// loopback, with 8 concurrent clients (cmd/flowbench's client): signup
// (two rounds a run) and book_meeting (four rounds a run, the flow of the
// side-by-side comparison). One op is one run; the client's work is in
// the figures too.
func BenchmarkHTTPRuns(b *testing.B) {
	for _, name := range []string{"signup", "book_meeting"} {
		b.Run(name, func(b *testing.B) {
			srv := benchServer(b, name)
			ts := httptest.NewServer(srv.HTTPHandler(HTTPOptions{}))
			defer ts.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			b.ResetTimer()
			rep, err := loadgen.Run(ctx, loadgen.Config{URL: ts.URL + "/mcp", Tool: name, Clients: 8, Runs: b.N})
			b.StopTimer()
			if err != nil {
				b.Fatal(err)
			}
			if rep.Errors > 0 {
				b.Fatalf("%d errors: %s", rep.Errors, rep.FirstError)
			}
			b.ReportMetric(rep.RoundsPerSec, "rounds/s")
			b.ReportMetric(float64(rep.P99.Microseconds()), "p99-µs")
		})
	}
}

// BenchmarkLeanRun measures the server's side of complete book_meeting
// runs (four rounds each) on the lean 2026-07-28 path: the HTTP handler
// called in-process, without a network or net/http's connection
// handling, by a client that does next to nothing (the request bodies are
// appended into one buffer, the state is cut out of each reply). One op
// is one run; so allocs/op and B/op are nearly all the server's.
func BenchmarkLeanRun(b *testing.B) {
	srv := benchServer(b, "book_meeting")
	h := srv.HTTPHandler(HTTPOptions{})
	answers := []string{
		"",
		`{"meeting":{"action":"accept","content":{"topic":"Planning","attendees":4,"day":"2026-01-02"}}}`,
		`{"room":{"action":"accept","content":{"room":"small"}}}`,
		`{"confirm":{"action":"accept","content":{"book":true}}}`,
	}
	req := httptest.NewRequest(http.MethodPost, "/mcp", nil)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", "book_meeting")
	w := &benchWriter{h: http.Header{}}
	var body []byte
	rd := bytes.NewReader(nil)
	round := func(state []byte, answer string) []byte {
		body = append(body[:0], `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{},"url":{}}},"io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1"}},"name":"book_meeting","arguments":{}`...)
		if len(state) > 0 {
			body = append(body, `,"requestState":"`...)
			body = append(body, state...)
			body = append(body, '"')
			body = append(body, `,"inputResponses":`...)
			body = append(body, answer...)
		}
		body = append(body, "}}"...)
		rd.Reset(body)
		req.Body = io.NopCloser(rd)
		w.body.Reset()
		w.status = 0
		h.ServeHTTP(w, req)
		if w.status != http.StatusOK {
			b.Fatalf("HTTP %d: %s", w.status, w.body.Bytes())
		}
		out := w.body.Bytes()
		const key = `"requestState":"`
		i := bytes.Index(out, []byte(key))
		if i < 0 {
			if !bytes.Contains(out, []byte(`"resultType":"complete"`)) || bytes.Contains(out, []byte(`"isError":true`)) {
				b.Fatalf("unexpected reply: %s", out)
			}
			return nil
		}
		out = out[i+len(key):]
		return out[:bytes.IndexByte(out, '"')]
	}
	var state []byte
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		state = state[:0]
		for r, a := range answers {
			s := round(state, a)
			if (s == nil) != (r == len(answers)-1) {
				b.Fatalf("round %d ended the run early or late", r+1)
			}
			state = append(state[:0], s...)
		}
	}
}

// benchWriter is a ResponseWriter that keeps the body, for the next
// round's state.
type benchWriter struct {
	h      http.Header
	body   bytes.Buffer
	status int
}

func (w *benchWriter) Header() http.Header { return w.h }

// SetWriteDeadline lets HTTPOptions.WriteTimeout arm deadlines, as on a
// real connection.
func (w *benchWriter) SetWriteDeadline(time.Time) error { return nil }

func (w *benchWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
}

func (w *benchWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.body.Write(p)
}
