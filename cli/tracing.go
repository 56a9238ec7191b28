package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/url"
	"os"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// The standard OpenTelemetry environment variables serve reads when its
// tracing flags are not given. The exporters read the others themselves
// (OTEL_EXPORTER_OTLP_HEADERS, _TIMEOUT, _CERTIFICATE, _INSECURE, ...), and
// the SDK OTEL_TRACES_SAMPLER, OTEL_BSP_* and OTEL_RESOURCE_ATTRIBUTES.
const (
	envOTLPEndpoint       = "OTEL_EXPORTER_OTLP_ENDPOINT"
	envOTLPTracesEndpoint = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"
	envOTLPProtocol       = "OTEL_EXPORTER_OTLP_PROTOCOL"
	envOTLPTracesProtocol = "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"
)

// The OTLP protocols, as OTEL_EXPORTER_OTLP_PROTOCOL names them.
const (
	otlpHTTP = "http/protobuf"
	otlpGRPC = "grpc"
)

// otlpTracesPath is where OTLP/HTTP takes spans, under the collector's
// base URL.
const otlpTracesPath = "/v1/traces"

// serviceName is the service.name of flowserve's spans unless
// OTEL_SERVICE_NAME (or service.name in OTEL_RESOURCE_ATTRIBUTES) says
// otherwise.
const serviceName = "flowserve"

// tracingFlags are serve's flags for tracing: where the spans of rounds
// go, over OTLP (see docs/operations.md). Tracing is off unless an
// endpoint is given, by flag or environment.
type tracingFlags struct {
	endpoint string
	protocol string
}

// register defines the flags in fs.
func (t *tracingFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&t.endpoint, "otlp-endpoint", "", "trace rounds, sending the spans over OTLP to this collector URL (http://host:4318 for OTLP/HTTP, which adds "+otlpTracesPath+" to a URL without a path; http://host:4317 for gRPC; https:// for TLS); default: $"+envOTLPTracesEndpoint+" or $"+envOTLPEndpoint+", else no tracing")
	fs.StringVar(&t.protocol, "otlp-protocol", "", "OTLP protocol of --otlp-endpoint: http (http/protobuf) or grpc; default: $"+envOTLPTracesProtocol+" or $"+envOTLPProtocol+", else http")
}

// provider returns the TracerProvider that sends the spans to the
// endpoint, with a batch span processor, the resource's service.name
// flowserve (unless OTEL_SERVICE_NAME says otherwise) and service.version
// version, and the func that flushes the spans still buffered and stops
// it, to call on exit. With no endpoint, by flag or environment, it
// returns a nil provider (no tracing) and a func that does nothing.
func (t *tracingFlags) provider(ctx context.Context, version string) (trace.TracerProvider, func(context.Context) error, error) {
	off := func(context.Context) error { return nil }
	endpoint, source := t.endpoint, "--otlp-endpoint"
	if endpoint == "" {
		endpoint, source = os.Getenv(envOTLPTracesEndpoint), "$"+envOTLPTracesEndpoint
	}
	if endpoint == "" {
		endpoint, source = os.Getenv(envOTLPEndpoint), "$"+envOTLPEndpoint
	}
	if endpoint == "" {
		return nil, off, nil
	}
	u, err := checkEndpoint(endpoint)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", source, err)
	}
	protocol, err := t.protocolOf()
	if err != nil {
		return nil, nil, err
	}
	var exp sdktrace.SpanExporter
	switch protocol {
	case otlpGRPC:
		var opts []otlptracegrpc.Option
		if t.endpoint != "" {
			opts = append(opts, otlptracegrpc.WithEndpointURL(u.String()))
		}
		exp, err = otlptracegrpc.New(ctx, opts...)
	default:
		// From the environment, the exporter reads the URL itself, as
		// the specification says: the traces' URL as it is, the base URL
		// with /v1/traces added.
		var opts []otlptracehttp.Option
		if t.endpoint != "" {
			opts = append(opts, otlptracehttp.WithEndpointURL(u.String()))
			if u.Path == "" || u.Path == "/" {
				opts = append(opts, otlptracehttp.WithURLPath(otlpTracesPath))
			}
		}
		exp, err = otlptracehttp.New(ctx, opts...)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("the OTLP exporter for %s: %w", endpoint, err)
	}
	res, err := resource.New(ctx,
		resource.WithTelemetrySDK(),
		resource.WithHost(),
		resource.WithAttributes(attribute.String("service.name", serviceName), attribute.String("service.version", version)),
		resource.WithFromEnv(), // last: OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES win
	)
	if err != nil && !errors.Is(err, resource.ErrPartialResource) {
		exp.Shutdown(ctx)
		return nil, nil, fmt.Errorf("the traces' resource: %w", err)
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	return tp, tp.Shutdown, nil
}

// checkEndpoint parses a collector URL: http or https, with a host.
func checkEndpoint(s string) (*url.URL, error) {
	u, err := url.Parse(s)
	if err != nil {
		return nil, fmt.Errorf("%q is not a URL: %w", s, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return nil, fmt.Errorf("%q is not an http or https URL such as http://localhost:4318", s)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("%q has a query or a fragment; a collector URL has neither", s)
	}
	return u, nil
}

// protocolOf returns the OTLP protocol: --otlp-protocol, else
// $OTEL_EXPORTER_OTLP_TRACES_PROTOCOL, else $OTEL_EXPORTER_OTLP_PROTOCOL,
// else http/protobuf.
func (t *tracingFlags) protocolOf() (string, error) {
	p, source := t.protocol, "--otlp-protocol"
	if p == "" {
		p, source = os.Getenv(envOTLPTracesProtocol), "$"+envOTLPTracesProtocol
	}
	if p == "" {
		p, source = os.Getenv(envOTLPProtocol), "$"+envOTLPProtocol
	}
	switch strings.ToLower(p) {
	case "", "http", otlpHTTP:
		return otlpHTTP, nil
	case otlpGRPC:
		return otlpGRPC, nil
	case "http/json":
		return "", fmt.Errorf("%s: http/json is not supported; use http/protobuf (http) or grpc", source)
	}
	return "", fmt.Errorf("%s: unknown OTLP protocol %q; use http/protobuf (http) or grpc", source, p)
}
