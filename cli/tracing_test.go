package cli

import (
	"context"
	"encoding/hex"
	"flag"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"
)

// otlpEnv are the environment variables the tracing flags read; each
// test sets them all, "" for unset.
var otlpEnv = []string{envOTLPEndpoint, envOTLPTracesEndpoint, envOTLPProtocol, envOTLPTracesProtocol, "OTEL_SERVICE_NAME", "OTEL_RESOURCE_ATTRIBUTES"}

// setEnv sets every variable of otlpEnv, to its value in env or "".
func setEnv(t *testing.T, env map[string]string) {
	t.Helper()
	for _, k := range otlpEnv {
		t.Setenv(k, env[k])
	}
}

// parseTracing parses args into tracing flags.
func parseTracing(t *testing.T, args ...string) *tracingFlags {
	t.Helper()
	var tf tracingFlags
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	tf.register(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	return &tf
}

// TestTracingFlagsRefused: tracing is off without an endpoint, and a bad
// endpoint or protocol, by flag or environment, is an error naming where
// it came from.
func TestTracingFlagsRefused(t *testing.T) {
	tests := []struct {
		name string
		args []string
		env  map[string]string
		want string // "" for no error, and no tracing
	}{
		{"off", nil, nil, ""},
		{"protocol alone", []string{"--otlp-protocol", "grpc"}, nil, ""},
		{"no scheme", []string{"--otlp-endpoint", "collector:4318"}, nil, `--otlp-endpoint: "collector:4318" is not an http or https URL`},
		{"other scheme", []string{"--otlp-endpoint", "ftp://collector"}, nil, `--otlp-endpoint: "ftp://collector" is not an http or https URL`},
		{"no host", []string{"--otlp-endpoint", "http://"}, nil, `is not an http or https URL`},
		{"not a URL", []string{"--otlp-endpoint", "http://[::1"}, nil, `--otlp-endpoint: "http://[::1" is not a URL`},
		{"query", []string{"--otlp-endpoint", "http://c:4318/?x=1"}, nil, `has a query or a fragment`},
		{"bad env endpoint", nil, map[string]string{envOTLPEndpoint: "collector:4318"}, `$OTEL_EXPORTER_OTLP_ENDPOINT: "collector:4318"`},
		{"bad traces env endpoint", nil, map[string]string{envOTLPTracesEndpoint: "nope", envOTLPEndpoint: "http://c:4318"}, `$OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "nope"`},
		{"unknown protocol", []string{"--otlp-endpoint", "http://c:4318", "--otlp-protocol", "udp"}, nil, `--otlp-protocol: unknown OTLP protocol "udp"`},
		{"http/json", []string{"--otlp-endpoint", "http://c:4318", "--otlp-protocol", "http/json"}, nil, `--otlp-protocol: http/json is not supported`},
		{"bad env protocol", []string{"--otlp-endpoint", "http://c:4318"}, map[string]string{envOTLPProtocol: "thrift"}, `$OTEL_EXPORTER_OTLP_PROTOCOL: unknown OTLP protocol "thrift"`},
		{"bad traces env protocol", []string{"--otlp-endpoint", "http://c:4318"}, map[string]string{envOTLPTracesProtocol: "x", envOTLPProtocol: "grpc"}, `$OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: unknown OTLP protocol "x"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			setEnv(t, tc.env)
			tp, shutdown, err := parseTracing(t, tc.args...).provider(context.Background(), "test")
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("error %v", err)
			case tc.want == "":
				if tp != nil {
					t.Errorf("tracing is on: %T", tp)
				}
				if err := shutdown(context.Background()); err != nil {
					t.Errorf("shutdown: %v", err)
				}
			case err == nil:
				t.Fatalf("no error, want %q", tc.want)
			case !strings.Contains(err.Error(), tc.want):
				t.Errorf("error %q, want %q", err, tc.want)
			}
		})
	}
}

// collector is an OTLP collector, over HTTP and gRPC, that keeps the
// spans it gets, with the resources they came with.
type collector struct {
	coltracepb.UnimplementedTraceServiceServer
	mu    sync.Mutex
	paths []string
	got   []*tracepb.ResourceSpans
}

func (c *collector) keep(path string, req *coltracepb.ExportTraceServiceRequest) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.paths = append(c.paths, path)
	c.got = append(c.got, req.GetResourceSpans()...)
}

// ServeHTTP takes OTLP/HTTP (protobuf) exports on any path.
func (c *collector) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	var req coltracepb.ExportTraceServiceRequest
	if err == nil {
		err = proto.Unmarshal(body, &req)
	}
	if r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/x-protobuf" || err != nil {
		http.Error(w, "not an OTLP/HTTP export", http.StatusBadRequest)
		return
	}
	c.keep(r.URL.Path, &req)
	out, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	w.Write(out)
}

// Export takes OTLP/gRPC exports.
func (c *collector) Export(_ context.Context, req *coltracepb.ExportTraceServiceRequest) (*coltracepb.ExportTraceServiceResponse, error) {
	c.keep("grpc", req)
	return &coltracepb.ExportTraceServiceResponse{}, nil
}

// startCollector serves c over HTTP and gRPC on loopback and returns their
// base URLs.
func startCollector(t *testing.T, c *collector) (httpURL, grpcURL string) {
	t.Helper()
	hs := httptest.NewServer(c)
	t.Cleanup(hs.Close)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gs := grpc.NewServer()
	coltracepb.RegisterTraceServiceServer(gs, c)
	go gs.Serve(ln)
	t.Cleanup(gs.Stop)
	return hs.URL, "http://" + ln.Addr().String()
}

// TestTracingExport: with an endpoint, by flag or environment, over
// OTLP/HTTP or gRPC, the spans reach the collector by the time the
// shutdown func returns, at the path the specification says, with
// service.name flowserve (or OTEL_SERVICE_NAME) and service.version.
func TestTracingExport(t *testing.T) {
	c := &collector{}
	httpURL, grpcURL := startCollector(t, c)
	tests := []struct {
		name    string
		args    []string
		env     map[string]string
		path    string // where the spans went: an HTTP path, or grpc
		service string
	}{
		{"http flag", []string{"--otlp-endpoint", httpURL}, nil, "/v1/traces", "flowserve"},
		{"http flag with a path", []string{"--otlp-endpoint", httpURL + "/otlp/traces"}, nil, "/otlp/traces", "flowserve"},
		{"http env", nil, map[string]string{envOTLPEndpoint: httpURL + "/base"}, "/base/v1/traces", "flowserve"},
		{"http traces env", nil, map[string]string{envOTLPTracesEndpoint: httpURL + "/mine", envOTLPEndpoint: "http://127.0.0.1:1"}, "/mine", "flowserve"},
		{"flag over env", []string{"--otlp-endpoint", httpURL, "--otlp-protocol", "http"},
			map[string]string{envOTLPTracesEndpoint: "http://127.0.0.1:1/x", envOTLPProtocol: "grpc"}, "/v1/traces", "flowserve"},
		{"grpc flag", []string{"--otlp-endpoint", grpcURL, "--otlp-protocol", "grpc"}, nil, "grpc", "flowserve"},
		{"grpc env", nil, map[string]string{envOTLPEndpoint: grpcURL, envOTLPProtocol: "grpc"}, "grpc", "flowserve"},
		{"grpc traces protocol env", nil, map[string]string{envOTLPEndpoint: grpcURL, envOTLPTracesProtocol: "grpc", envOTLPProtocol: "http/protobuf"}, "grpc", "flowserve"},
		{"service name", []string{"--otlp-endpoint", httpURL}, map[string]string{"OTEL_SERVICE_NAME": "mcp-edge"}, "/v1/traces", "mcp-edge"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			setEnv(t, tc.env)
			c.mu.Lock()
			c.paths, c.got = nil, nil
			c.mu.Unlock()
			ctx := context.Background()
			tp, shutdown, err := parseTracing(t, tc.args...).provider(ctx, "1.2.3")
			if err != nil {
				t.Fatal(err)
			}
			if tp == nil {
				t.Fatal("no provider")
			}
			_, span := tp.Tracer("test").Start(ctx, "flowserve.round")
			span.End()
			if err := shutdown(ctx); err != nil {
				t.Fatalf("shutdown: %v", err)
			}
			c.mu.Lock()
			defer c.mu.Unlock()
			if len(c.paths) != 1 || c.paths[0] != tc.path {
				t.Fatalf("exports to %v, want one to %s", c.paths, tc.path)
			}
			if len(c.got) != 1 || len(c.got[0].GetScopeSpans()) != 1 {
				t.Fatalf("got %v", c.got)
			}
			spans := c.got[0].GetScopeSpans()[0].GetSpans()
			if len(spans) != 1 || spans[0].GetName() != "flowserve.round" {
				t.Errorf("spans %v", spans)
			}
			res := map[string]string{}
			for _, kv := range c.got[0].GetResource().GetAttributes() {
				res[kv.GetKey()] = kv.GetValue().GetStringValue()
			}
			if res["service.name"] != tc.service || res["service.version"] != "1.2.3" || res["telemetry.sdk.language"] != "go" {
				t.Errorf("resource %v", res)
			}
		})
	}
}

// TestServeTraces runs flowserve serve --otlp-endpoint: a call whose _meta
// carries a traceparent reaches the collector as a flowserve.round span
// of that trace, with the client's span as its parent and the run id.
func TestServeTraces(t *testing.T) {
	c := &collector{}
	httpURL, _ := startCollector(t, c)
	t.Setenv("OTEL_BSP_SCHEDULE_DELAY", "50")
	s := startHTTPServer(t, "--otlp-endpoint", httpURL, exampleFlowsDir)
	const traceID, parentID = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"signup","arguments":{},"_meta":{` +
		`"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}},` +
		`"io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"},"traceparent":"00-` + traceID + `-` + parentID + `-01"}}}`
	req, _ := http.NewRequest(http.MethodPost, s.url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", "signup")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		c.mu.Lock()
		var round *tracepb.Span
		for _, rs := range c.got {
			for _, ss := range rs.GetScopeSpans() {
				for _, sp := range ss.GetSpans() {
					if sp.GetName() == "flowserve.round" {
						round = sp
					}
				}
			}
		}
		c.mu.Unlock()
		if round != nil {
			attrs := map[string]string{}
			for _, kv := range round.GetAttributes() {
				attrs[kv.GetKey()] = kv.GetValue().GetStringValue()
			}
			if hex.EncodeToString(round.GetTraceId()) != traceID || hex.EncodeToString(round.GetParentSpanId()) != parentID ||
				attrs["flowserve.tool"] != "signup" || len(attrs["flowserve.run"]) != 32 {
				t.Errorf("round span: trace %x parent %x attributes %v", round.GetTraceId(), round.GetParentSpanId(), attrs)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no round span reached the collector; stderr:\n%s", s.stderr.String())
		}
	}
}
