package serve_test

// Helpers for the operations tests (limits, security, metrics, logs,
// shutdown, the tamper matrix).

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/flowserve/flowserve/actions"
	"github.com/flowserve/flowserve/flow"
	"github.com/flowserve/flowserve/serve"
)

// blocker is a test.block action's switch: each call signals started and
// waits for release (or its context).
type blocker struct {
	started chan struct{}
	release chan struct{}
	once    sync.Once
}

func newBlocker() *blocker {
	return &blocker{started: make(chan struct{}, 16), release: make(chan struct{})}
}

// open lets every blocked and future call go on.
func (b *blocker) open() { b.once.Do(func() { close(b.release) }) }

// opsRegistry registers the test.* actions of the operations tests:
// test.echo (returns its input), test.block (waits on b), test.big
// (returns {"blob": n bytes}) and test.fail (fails).
func opsRegistry(t testing.TB, b *blocker) *actions.Registry {
	t.Helper()
	reg := actions.NewRegistry()
	obj := map[string]any{"type": "object"}
	specs := map[string]func(context.Context, map[string]any) (any, error){
		"test.echo": func(_ context.Context, in map[string]any) (any, error) { return in, nil },
		"test.block": func(ctx context.Context, _ map[string]any) (any, error) {
			if b == nil {
				return nil, errors.New("no blocker")
			}
			b.started <- struct{}{}
			select {
			case <-b.release:
				return map[string]any{}, nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		},
		"test.big": func(_ context.Context, in map[string]any) (any, error) {
			n, _ := in["n"].(float64)
			if i, ok := in["n"].(int64); ok {
				n = float64(i)
			}
			return map[string]any{"blob": strings.Repeat("x", int(n))}, nil
		},
		"test.fail": func(context.Context, map[string]any) (any, error) { return nil, errors.New("backend down") },
	}
	for name, fn := range specs {
		if err := reg.Register(actions.Spec{Name: name, Summary: "a test action", Input: obj, Output: obj, Func: fn}); err != nil {
			t.Fatal(err)
		}
	}
	return reg
}

// serverWith serves progs with opts (a quiet logger unless opts has one).
func serverWith(t testing.TB, progs []*flow.Program, opts serve.Options) *serve.Server {
	t.Helper()
	if opts.Logger == nil {
		opts.Logger = quietLogger()
	}
	if opts.Version == "" {
		opts.Version = "test"
	}
	srv, err := serve.New(progs, opts)
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

// startHTTPWith serves srv's endpoint with opts on loopback and returns
// the endpoint's URL.
func startHTTPWith(t testing.TB, srv *serve.Server, opts serve.HTTPOptions) string {
	t.Helper()
	hs := httptest.NewServer(srv.HTTPHandler(opts))
	t.Cleanup(hs.Close)
	return hs.URL + serve.EndpointPath
}

// startServer runs srv.HTTPServer(opts) on a loopback port and returns it
// with the endpoint's URL. The server is closed when the test ends.
func startServer(t testing.TB, srv *serve.Server, opts serve.HTTPOptions) (*http.Server, string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := srv.HTTPServer(ln.Addr().String(), opts)
	go hs.Serve(ln)
	t.Cleanup(func() { hs.Close() })
	return hs, "http://" + ln.Addr().String() + serve.EndpointPath
}

// connectURL connects client to the endpoint at url, at version, adding
// header to every request.
func connectURL(t testing.TB, ctx context.Context, url, version string, client *mcp.Client, header http.Header) (*mcp.ClientSession, error) {
	t.Helper()
	hc := &http.Client{Transport: headerTransport{header: header, base: http.DefaultTransport}}
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: hc}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err == nil {
		t.Cleanup(func() { cs.Close() })
	}
	return cs, err
}

// manualClient is a go-sdk client speaking 2026-07-28 with form
// elicitation, driving the rounds itself (the test sends requestState and
// inputResponses).
func manualClient() *mcp.Client {
	return mcp.NewClient(&mcp.Implementation{Name: "ops-test", Version: "1"}, &mcp.ClientOptions{
		Capabilities:   &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}},
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
	})
}

// sessionClient is a go-sdk client speaking a session era, answering
// elicitations with answer.
func sessionClient(answer func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error)) *mcp.Client {
	return mcp.NewClient(&mcp.Implementation{Name: "ops-session", Version: "1"}, &mcp.ClientOptions{
		Capabilities:       &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}},
		ElicitationHandler: answer,
	})
}

// rpcErrorOf returns the JSON-RPC error inside a go-sdk client error.
func rpcErrorOf(err error) *jsonrpc.Error {
	var e *jsonrpc.Error
	if errors.As(err, &e) {
		return e
	}
	return nil
}

// rawPost sends body to url with the headers of a 2026-07-28 tools/call
// (or of a session request when version is a session era) and returns
// the status, headers and body.
func rawPost(t testing.TB, ctx context.Context, url string, header http.Header, body []byte) (int, http.Header, []byte) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, vs := range header {
		req.Header[k] = vs
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST: %v", err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, b
}

// modernHeader is the header of a raw 2026-07-28 tools/call of tool.
func modernHeader(tool string) http.Header {
	return http.Header{"Mcp-Protocol-Version": {v20260728}, "Mcp-Method": {"tools/call"}, "Mcp-Name": {tool}}
}

// modernCallBody is a raw 2026-07-28 tools/call of tool with args.
func modernCallBody(t testing.TB, tool string, args any) []byte {
	t.Helper()
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": callParams(tool, args, formCaps)})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// initializeBody is a raw initialize request at version, padded with
// extra bytes of client info.
func initializeBody(t testing.TB, version string, pad int) []byte {
	t.Helper()
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{
		"protocolVersion": version,
		"capabilities":    map[string]any{"elicitation": map[string]any{}},
		"clientInfo":      map[string]any{"name": "raw", "version": "1", "pad": strings.Repeat("p", pad)},
	}})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// logBuffer collects JSON log records.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

// logger returns a JSON logger at level writing to l.
func (l *logBuffer) logger(level slog.Level) *slog.Logger {
	return slog.New(slog.NewJSONHandler(l, &slog.HandlerOptions{Level: level}))
}

// records decodes the records written so far.
func (l *logBuffer) records(t testing.TB) []map[string]any {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(l.buf.Bytes()))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("log line %q: %v", sc.Text(), err)
		}
		out = append(out, m)
	}
	return out
}

// text returns everything logged so far.
func (l *logBuffer) text() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// sample is one sample of a scraped metric.
type sample struct {
	name   string
	labels map[string]string
	value  float64
}

// scrape fetches and parses the Prometheus text exposition at url.
func scrape(t testing.TB, ctx context.Context, url string, header http.Header) []sample {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %s", url, resp.StatusCode, body)
	}
	var out []sample
	for _, line := range strings.Split(string(body), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		sp := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[sp+1:], 64)
		if err != nil {
			t.Fatalf("metric line %q: %v", line, err)
		}
		s := sample{labels: map[string]string{}, value: v}
		head := line[:sp]
		name, rest, hasLabels := strings.Cut(head, "{")
		s.name = name
		if hasLabels {
			rest = strings.TrimSuffix(rest, "}")
			for rest != "" {
				k, after, _ := strings.Cut(rest, "=")
				val, err := strconv.QuotedPrefix(after)
				if err != nil {
					t.Fatalf("metric line %q: %v", line, err)
				}
				s.labels[k], _ = strconv.Unquote(val)
				rest = strings.TrimPrefix(after[len(val):], ",")
			}
		}
		out = append(out, s)
	}
	return out
}

// value returns the sum of the samples named name whose labels include
// want.
func value(samples []sample, name string, want map[string]string) float64 {
	var sum float64
	for _, s := range samples {
		if s.name != name {
			continue
		}
		match := true
		for k, v := range want {
			if s.labels[k] != v {
				match = false
			}
		}
		if match {
			sum += s.value
		}
	}
	return sum
}

// labels builds a label set from pairs.
func labels(kv ...string) map[string]string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return m
}

// must fails the test on err.
func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// toJSON encodes v for messages.
func toJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// rawPostErr is rawPost for a request that may fail: it returns the
// status and the error instead of failing the test.
func rawPostErr(ctx context.Context, url string, header http.Header, body []byte) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, vs := range header {
		req.Header[k] = vs
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, err
}
