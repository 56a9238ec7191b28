package serve_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/flowserve/flowserve/actions"
	_ "github.com/flowserve/flowserve/actions/std" // the built-in actions the example flows use
	"github.com/flowserve/flowserve/dsl"
	"github.com/flowserve/flowserve/flow"
	"github.com/flowserve/flowserve/flow/state"
	"github.com/flowserve/flowserve/serve"
)

// The protocol versions the tests speak.
const (
	v20260728 = "2026-07-28"
	v20251125 = "2025-11-25"
	v20250618 = "2025-06-18"
)

// callTimeout bounds every test's MCP traffic.
const callTimeout = 20 * time.Second

// testCtx returns a context that ends with the test or after callTimeout.
func testCtx(t testing.TB) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	t.Cleanup(cancel)
	return ctx
}

// quietLogger discards the server's logs; set FLOWSERVE_TEST_LOG=1 to see
// them.
func quietLogger() *slog.Logger {
	if os.Getenv("FLOWSERVE_TEST_LOG") != "" {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}

// compileFile loads one flow file the way the CLI does: dsl.Parse, then
// flow.Compile.
func compileFile(t testing.TB, path string, env flow.Env) *flow.Program {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return compileSource(t, path, src, env)
}

// compileSource compiles a flow from its source text.
func compileSource(t testing.TB, path string, src []byte, env flow.Env) *flow.Program {
	t.Helper()
	f, diags := dsl.Parse(path, src)
	if diags.HasErrors() || f == nil {
		t.Fatalf("parse %s:\n%v", path, diags)
	}
	p, diags := flow.Compile(f, env)
	if err := diags.Err(); err != nil {
		t.Fatalf("compile %s: %v", path, err)
	}
	return p
}

// newEngine returns an engine with opts.
func newEngine(t testing.TB, opts flow.EngineOptions) *flow.Engine {
	t.Helper()
	e, err := flow.NewEngine(opts)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// newCodec returns a codec with a fresh random key.
func newCodec(t testing.TB, opts state.Options) *state.Codec {
	t.Helper()
	ring, err := state.EphemeralKeyRing()
	if err != nil {
		t.Fatal(err)
	}
	return state.NewCodec(ring, opts)
}

var (
	examplesOnce sync.Once
	examplesProg []*flow.Program
	examplesErr  error
)

// exampleFlows returns the compiled flows of ../flows, sorted by file
// name. They are compiled once: programs are immutable.
func exampleFlows(t testing.TB) []*flow.Program {
	t.Helper()
	examplesOnce.Do(func() {
		files, err := exampleFlowFiles()
		if err != nil || len(files) == 0 {
			examplesErr = fmt.Errorf("no example flows: %v", err)
			return
		}
		for _, path := range files {
			src, err := os.ReadFile(path)
			if err != nil {
				examplesErr = err
				return
			}
			f, diags := dsl.Parse(path, src)
			if diags.HasErrors() || f == nil {
				examplesErr = fmt.Errorf("parse %s:\n%v", path, diags)
				return
			}
			p, diags := flow.Compile(f, flow.Env{})
			if err := diags.Err(); err != nil {
				examplesErr = fmt.Errorf("compile %s: %v", path, err)
				return
			}
			examplesProg = append(examplesProg, p)
		}
		// Join call nodes to the flows they run (rotate_key and
		// write_file call confirm_action), as project.Load does.
		byName := map[string]*flow.Program{}
		for _, p := range examplesProg {
			byName[p.Name()] = p
		}
		flow.Link(examplesProg, func(name string) *flow.Program { return byName[name] })
	})
	if examplesErr != nil {
		t.Fatal(examplesErr)
	}
	return examplesProg
}

// testFlow compiles serve/testdata/<name>.yaml with opts.
func testFlow(t testing.TB, name string, env flow.Env) *flow.Program {
	t.Helper()
	return compileFile(t, filepath.Join("testdata", name+".yaml"), env)
}

// newServer serves progs with the fs actions confined to root ("" for a
// fresh temporary directory).
func newServer(t testing.TB, progs []*flow.Program, root string) *serve.Server {
	t.Helper()
	return newServerOn(t, progs, root, nil)
}

// newServerOn is newServer running the programs on engine (nil: a new
// one with an ephemeral key).
func newServerOn(t testing.TB, progs []*flow.Program, root string, engine *flow.Engine) *serve.Server {
	t.Helper()
	if root == "" {
		root = t.TempDir()
	}
	srv, err := serve.New(progs, serve.Options{
		Version: "test",
		Logger:  quietLogger(),
		Host:    &actions.Host{FSRoot: root},
		Engine:  engine,
	})
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

// startHTTP serves srv's Streamable HTTP endpoint on loopback and returns
// the endpoint's URL.
func startHTTP(t testing.TB, srv *serve.Server) string {
	t.Helper()
	hs := httptest.NewServer(srv.HTTPHandler(serve.HTTPOptions{}))
	t.Cleanup(hs.Close)
	return hs.URL + serve.EndpointPath
}

// transportKind says how a go-sdk client reaches the server.
type transportKind string

const (
	inMemory transportKind = "inmem"
	overHTTP transportKind = "http"
)

var transports = []transportKind{inMemory, overHTTP}

// connect connects client to srv at the given protocol version. For HTTP,
// header is added to every request the client sends.
func connect(t testing.TB, ctx context.Context, srv *serve.Server, kind transportKind, version string, client *mcp.Client, header http.Header) *mcp.ClientSession {
	t.Helper()
	var tr mcp.Transport
	switch kind {
	case inMemory:
		ct, st := mcp.NewInMemoryTransports()
		ss, err := srv.MCP().Connect(ctx, st, nil)
		if err != nil {
			t.Fatalf("server connect: %v", err)
		}
		t.Cleanup(func() { ss.Close() })
		tr = ct
	case overHTTP:
		hc := &http.Client{Transport: headerTransport{header: header, base: http.DefaultTransport}}
		tr = &mcp.StreamableClientTransport{Endpoint: startHTTP(t, srv), HTTPClient: hc}
	default:
		t.Fatalf("unknown transport %q", kind)
	}
	cs, err := client.Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("client connect at %s over %s: %v", version, kind, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// headerTransport adds fixed headers to each request.
type headerTransport struct {
	header http.Header
	base   http.RoundTripper
}

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if len(h.header) > 0 {
		r = r.Clone(r.Context())
		for k, vs := range h.header {
			r.Header[k] = vs
		}
	}
	return h.base.RoundTrip(r)
}

// question is one scripted elicitation: what the client expects to be
// asked and what it answers.
type question struct {
	id     string   // the inputRequests key (checked where the client sees it)
	mode   string   // "form" (default) or "url"
	has    []string // substrings of the message
	url    string   // prefix of the URL (url mode)
	answer *mcp.ElicitResult
}

// accept, decline and cancel build answers.
func accept(content map[string]any) *mcp.ElicitResult {
	return &mcp.ElicitResult{Action: "accept", Content: content}
}

var (
	declined = &mcp.ElicitResult{Action: "decline"}
	canceled = &mcp.ElicitResult{Action: "cancel"}
)

// script answers elicitations in order and records what it was asked.
type script struct {
	t       testing.TB
	version string // the client's protocol version
	mu      sync.Mutex
	steps   []question
	asked   []*mcp.ElicitParams
	keys    []string // inputRequests keys, when known
}

func newScript(t testing.TB, version string, steps []question) *script {
	return &script{t: t, version: version, steps: steps}
}

// answer checks params against the next scripted question and returns a
// copy of its answer. key is the inputRequests key, or "" when the client
// does not see one (sessions, the SDK's own MRTR loop).
func (s *script) answer(key string, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := len(s.asked)
	cp := *p
	s.asked = append(s.asked, &cp)
	s.keys = append(s.keys, key)
	if n >= len(s.steps) {
		s.t.Errorf("unexpected question %d: %q", n+1, p.Message)
		return nil, fmt.Errorf("the script has no question %d", n+1)
	}
	q := s.steps[n]
	mode := p.Mode
	if mode == "" {
		mode = "form"
	}
	wantMode := q.mode
	if wantMode == "" {
		wantMode = "form"
	}
	if mode != wantMode {
		s.t.Errorf("question %d: mode %q, want %q (message %q)", n+1, mode, wantMode, p.Message)
	}
	if key != "" && q.id != "" && key != q.id {
		s.t.Errorf("question %d: inputRequests key %q, want %q", n+1, key, q.id)
	}
	for _, sub := range q.has {
		if !strings.Contains(p.Message, sub) {
			s.t.Errorf("question %d: message %q lacks %q", n+1, p.Message, sub)
		}
	}
	switch wantMode {
	case "url":
		if !strings.HasPrefix(p.URL, q.url) {
			s.t.Errorf("question %d: url %q, want prefix %q", n+1, p.URL, q.url)
		}
		if p.RequestedSchema != nil {
			s.t.Errorf("question %d: url mode with a requestedSchema", n+1)
		}
		// elicitationId exists on 2025-11-25 only.
		if got := p.ElicitationID != ""; got != (s.version == v20251125) {
			s.t.Errorf("question %d at %s: elicitationId %q", n+1, s.version, p.ElicitationID)
		}
	default:
		if p.RequestedSchema == nil {
			s.t.Errorf("question %d: form mode without a requestedSchema", n+1)
		}
		if p.URL != "" || p.ElicitationID != "" {
			s.t.Errorf("question %d: form mode with url %q, elicitationId %q", n+1, p.URL, p.ElicitationID)
		}
	}
	a := *q.answer
	a.Content = maps.Clone(q.answer.Content) // the SDK applies defaults in place
	return &a, nil
}

// handler is a go-sdk ElicitationHandler answering from the script.
func (s *script) handler(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	return s.answer("", req.Params)
}

// bypass is a client receiving middleware that answers elicitation/create
// from the script before the go-sdk client can check the answer against
// the requested schema: it lets a session client send invalid answers.
func (s *script) bypass(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method == "elicitation/create" {
			return s.answer("", req.GetParams().(*mcp.ElicitParams))
		}
		return next(ctx, method, req)
	}
}

// count returns how many questions were asked.
func (s *script) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.asked)
}

// era is a way for a client to speak to the server.
type era struct {
	name    string
	version string
	manual  bool // 2026-07-28 with the SDK's MRTR loop disabled: the test drives the rounds
}

var eras = []era{
	{name: v20260728, version: v20260728},
	{name: v20260728 + "-manual", version: v20260728, manual: true},
	{name: v20251125, version: v20251125},
	{name: v20250618, version: v20250618},
}

// elicitationCaps returns the elicitation capability a full client
// declares at version: form and URL, except on 2025-06-18, which has
// neither sub-capability ({} means form).
func elicitationCaps(version string) *mcp.ElicitationCapabilities {
	if version < v20251125 {
		return &mcp.ElicitationCapabilities{}
	}
	return &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}, URL: &mcp.URLElicitationCapabilities{}}
}

// clientFor returns a go-sdk client for e answering from sc. With raw,
// answers reach the server unchecked by the client (2026-07-28 needs
// manual rounds for that). caps nil means elicitationCaps; an empty
// ClientCapabilities declares no elicitation at all (and then sc may be
// nil).
func clientFor(e era, sc *script, raw bool, caps *mcp.ClientCapabilities, opts *mcp.ClientOptions) *mcp.Client {
	o := &mcp.ClientOptions{}
	if opts != nil {
		*o = *opts
	}
	if caps == nil {
		caps = &mcp.ClientCapabilities{Elicitation: elicitationCaps(e.version)}
	}
	o.Capabilities = caps
	if sc != nil && caps.Elicitation != nil {
		o.ElicitationHandler = sc.handler
	}
	if e.manual {
		o.MultiRoundTrip = &mcp.MultiRoundTripOptions{Disabled: true}
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "serve-test", Version: "1"}, o)
	if raw && sc != nil && e.version < v20260728 {
		c.AddReceivingMiddleware(sc.bypass)
	}
	return c
}

// roundsLimit bounds the manual MRTR loop.
const roundsLimit = 20

// callTool calls a tool as the era's client does: one CallTool, or for
// manual eras a loop of rounds answering each inputRequest from sc. It
// returns the final result and the number of rounds.
func callTool(t testing.TB, ctx context.Context, cs *mcp.ClientSession, e era, sc *script, params *mcp.CallToolParams) (*mcp.CallToolResult, int, error) {
	t.Helper()
	if !e.manual {
		res, err := cs.CallTool(ctx, params)
		return res, 1, err
	}
	p := *params
	for round := 1; round <= roundsLimit; round++ {
		res, err := cs.CallTool(ctx, &p)
		if err != nil {
			return nil, round, err
		}
		if !res.NeedsInput() {
			if res.InputRequests != nil || res.RequestState != "" {
				t.Errorf("round %d: complete result with inputRequests %v, requestState %q", round, res.InputRequests, res.RequestState)
			}
			return res, round, nil
		}
		if len(res.InputRequests) == 0 || res.RequestState == "" {
			t.Fatalf("round %d: input_required with %d input requests and requestState %q", round, len(res.InputRequests), res.RequestState)
		}
		if len(res.Content) > 0 {
			t.Errorf("round %d: input_required result with content %v", round, res.Content)
		}
		responses, err := answerAll(t, round, sc, res.InputRequests)
		if err != nil {
			return nil, round, err
		}
		p = *params
		p.Meta = maps.Clone(params.Meta) // keeps a progress token; the SDK adds its _meta keys in place
		p.InputResponses = responses
		p.RequestState = res.RequestState
	}
	t.Fatalf("no result after %d rounds", roundsLimit)
	return nil, 0, nil
}

// answerAll answers a round's input requests, all elicitations, from sc.
func answerAll(t testing.TB, round int, sc *script, reqs mcp.InputRequestMap) (mcp.InputResponseMap, error) {
	t.Helper()
	responses := mcp.InputResponseMap{}
	for _, key := range slices.Sorted(maps.Keys(reqs)) {
		ep, ok := reqs[key].(*mcp.ElicitParams)
		if !ok {
			t.Fatalf("round %d: input request %q is a %T, want elicitation", round, key, reqs[key])
		}
		a, err := sc.answer(key, ep)
		if err != nil {
			return nil, err
		}
		responses[key] = a
	}
	return responses, nil
}

// resultText joins the text content of a result.
func resultText(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// checkText reports a result whose error flag or text is not as wanted.
func checkText(t testing.TB, res *mcp.CallToolResult, isError bool, has ...string) {
	t.Helper()
	if res == nil {
		t.Fatal("no result")
	}
	text := resultText(res)
	if res.IsError != isError {
		t.Errorf("isError = %v, want %v; text %q", res.IsError, isError, text)
	}
	for _, sub := range has {
		if !strings.Contains(text, sub) {
			t.Errorf("result text %q lacks %q", text, sub)
		}
	}
}

// jsonEqual reports whether a and b marshal to the same JSON value.
func jsonEqual(a, b any) bool {
	var x, y any
	ab, _ := json.Marshal(a)
	bb, _ := json.Marshal(b)
	if json.Unmarshal(ab, &x) != nil || json.Unmarshal(bb, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

// rpcError is a JSON-RPC error object as sent.
type rpcError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data"`
}

// rpcMessage is any JSON-RPC message as sent.
type rpcMessage struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *rpcError       `json:"error,omitempty"`
}

// httpReply is the reply to one raw POST: the status, the response and
// the notifications that came before it on the SSE stream.
type httpReply struct {
	status        int
	contentType   string
	body          []byte
	response      *rpcMessage
	notifications []rpcMessage
}

// result decodes the response's result into v, failing on an error.
func (r *httpReply) result(t testing.TB, v any) {
	t.Helper()
	if r.response == nil {
		t.Fatalf("no JSON-RPC response (HTTP %d): %s", r.status, r.body)
	}
	if r.response.Error != nil {
		t.Fatalf("JSON-RPC error %d: %s", r.response.Error.Code, r.response.Error.Message)
	}
	if err := json.Unmarshal(r.response.Result, v); err != nil {
		t.Fatalf("decode result %s: %v", r.response.Result, err)
	}
}

// rpcErr returns the response's error, failing when there is none.
func (r *httpReply) rpcErr(t testing.TB) *rpcError {
	t.Helper()
	if r.response == nil {
		t.Fatalf("no JSON-RPC response (HTTP %d): %s", r.status, r.body)
	}
	if r.response.Error == nil {
		t.Fatalf("want a JSON-RPC error, got result %s", r.response.Result)
	}
	return r.response.Error
}

// modernMeta is the _meta of a 2026-07-28 request from a client with the
// given capabilities.
func modernMeta(caps map[string]any) map[string]any {
	return map[string]any{
		"io.modelcontextprotocol/protocolVersion":    v20260728,
		"io.modelcontextprotocol/clientCapabilities": caps,
		"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "raw-test", "version": "1"},
	}
}

// formCaps is the clientCapabilities of a client answering form mode.
var formCaps = map[string]any{"elicitation": map[string]any{}}

var rawIDs struct {
	mu sync.Mutex
	n  int
}

// postRaw sends one 2026-07-28 JSON-RPC request over HTTP, as a client
// without an SDK would. params must carry its _meta; name goes in the
// Mcp-Name header.
func postRaw(t testing.TB, ctx context.Context, url string, header http.Header, method string, params map[string]any) *httpReply {
	t.Helper()
	rawIDs.mu.Lock()
	rawIDs.n++
	id := rawIDs.n
	rawIDs.mu.Unlock()
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", v20260728)
	req.Header.Set("Mcp-Method", method)
	if name, ok := params["name"].(string); ok {
		req.Header.Set("Mcp-Name", name)
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", method, err)
	}
	defer resp.Body.Close()
	out := &httpReply{status: resp.StatusCode, contentType: resp.Header.Get("Content-Type")}
	out.body, err = io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("read reply: %v", err)
	}
	var msgs [][]byte
	if strings.HasPrefix(out.contentType, "text/event-stream") {
		sc := bufio.NewScanner(bytes.NewReader(out.body))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data:"); ok {
				msgs = append(msgs, []byte(strings.TrimSpace(data)))
			}
		}
	} else if len(bytes.TrimSpace(out.body)) > 0 {
		msgs = append(msgs, out.body)
	}
	for _, m := range msgs {
		var msg rpcMessage
		if err := json.Unmarshal(m, &msg); err != nil {
			t.Fatalf("reply is not JSON-RPC: %v: %s", err, m)
		}
		if msg.Method != "" {
			out.notifications = append(out.notifications, msg)
			continue
		}
		if out.response != nil {
			t.Fatalf("two responses in one reply: %s", out.body)
		}
		out.response = &msg
	}
	return out
}

// callParams builds raw tools/call params.
func callParams(name string, args any, caps map[string]any) map[string]any {
	return map[string]any{"name": name, "arguments": args, "_meta": modernMeta(caps)}
}

// rawCallResult is a tools/call result as sent.
type rawCallResult struct {
	ResultType        string                     `json:"resultType"`
	Content           []map[string]any           `json:"content"`
	StructuredContent any                        `json:"structuredContent"`
	IsError           bool                       `json:"isError"`
	InputRequests     map[string]json.RawMessage `json:"inputRequests"`
	RequestState      string                     `json:"requestState"`
}

func (r *rawCallResult) text() string {
	var parts []string
	for _, c := range r.Content {
		if s, ok := c["text"].(string); ok {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, "\n")
}

// rawInputRequest is one inputRequests entry.
type rawInputRequest struct {
	Method string `json:"method"`
	Params struct {
		Mode            string         `json:"mode"`
		Message         string         `json:"message"`
		URL             string         `json:"url"`
		ElicitationID   string         `json:"elicitationId"`
		RequestedSchema map[string]any `json:"requestedSchema"`
	} `json:"params"`
}

// inputRequest decodes one entry of a result's inputRequests.
func (r *rawCallResult) inputRequest(t testing.TB, key string) *rawInputRequest {
	t.Helper()
	raw, ok := r.InputRequests[key]
	if !ok {
		t.Fatalf("no input request %q in %v", key, slices.Collect(maps.Keys(r.InputRequests)))
	}
	var ir rawInputRequest
	if err := json.Unmarshal(raw, &ir); err != nil {
		t.Fatal(err)
	}
	return &ir
}

// rawSession is a client that speaks newline-delimited JSON-RPC to the
// server over a pipe, byte for byte, as a stdio client would.
type rawSession struct {
	t    testing.TB
	ctx  context.Context
	conn net.Conn
	r    *bufio.Reader
	next int
	// onRequest answers server→client requests; nil answers with an error.
	onRequest func(method string, params json.RawMessage) (any, *rpcError)
	// seen records every message from the server, in order.
	seen []rpcMessage
}

// newRawSession connects a raw client to srv over an in-process pipe.
func newRawSession(t testing.TB, ctx context.Context, srv *serve.Server) *rawSession {
	t.Helper()
	c1, c2 := net.Pipe()
	ss, err := srv.MCP().Connect(ctx, &mcp.IOTransport{Reader: c1, Writer: c1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c2.Close()
		ss.Close()
	})
	return &rawSession{t: t, ctx: ctx, conn: c2, r: bufio.NewReader(c2)}
}

func (s *rawSession) write(msg map[string]any) {
	s.t.Helper()
	msg["jsonrpc"] = "2.0"
	b, err := json.Marshal(msg)
	if err != nil {
		s.t.Fatal(err)
	}
	if dl, ok := s.ctx.Deadline(); ok {
		s.conn.SetWriteDeadline(dl)
	}
	if _, err := s.conn.Write(append(b, '\n')); err != nil {
		s.t.Fatalf("write: %v", err)
	}
}

// notify sends a notification.
func (s *rawSession) notify(method string, params any) {
	s.t.Helper()
	s.write(map[string]any{"method": method, "params": params})
}

// call sends a request and returns its response, answering the server's
// requests in between with onRequest.
func (s *rawSession) call(method string, params any) *rpcMessage {
	s.t.Helper()
	s.next++
	id := s.next
	s.write(map[string]any{"id": id, "method": method, "params": params})
	for {
		if dl, ok := s.ctx.Deadline(); ok {
			s.conn.SetReadDeadline(dl)
		}
		line, err := s.r.ReadBytes('\n')
		if err != nil {
			s.t.Fatalf("waiting for the reply to %s: %v", method, err)
		}
		var msg rpcMessage
		if err := json.Unmarshal(line, &msg); err != nil {
			s.t.Fatalf("server sent %q: %v", line, err)
		}
		s.seen = append(s.seen, msg)
		switch {
		case msg.Method != "" && len(msg.ID) > 0: // a request to the client
			var reply map[string]any
			if s.onRequest == nil {
				reply = map[string]any{"id": msg.ID, "error": &rpcError{Code: jsonrpc.CodeMethodNotFound, Message: "not supported"}}
			} else if res, rerr := s.onRequest(msg.Method, msg.Params); rerr != nil {
				reply = map[string]any{"id": msg.ID, "error": rerr}
			} else {
				reply = map[string]any{"id": msg.ID, "result": res}
			}
			s.write(reply)
		case msg.Method != "": // a notification
		case string(msg.ID) == fmt.Sprint(id):
			return &msg
		default:
			s.t.Fatalf("reply to an unknown request: %s", line)
		}
	}
}

// initialize performs the session handshake asking for version with the
// given capabilities, and returns the initialize result.
func (s *rawSession) initialize(version string, caps map[string]any) map[string]any {
	s.t.Helper()
	resp := s.call("initialize", map[string]any{
		"protocolVersion": version,
		"capabilities":    caps,
		"clientInfo":      map[string]any{"name": "raw-session", "version": "1"},
	})
	if resp.Error != nil {
		s.t.Fatalf("initialize: %d %s", resp.Error.Code, resp.Error.Message)
	}
	var res map[string]any
	if err := json.Unmarshal(resp.Result, &res); err != nil {
		s.t.Fatal(err)
	}
	s.notify("notifications/initialized", map[string]any{})
	return res
}

// requests returns the server→client requests seen with method.
func (s *rawSession) requests(method string) []rpcMessage {
	var out []rpcMessage
	for _, m := range s.seen {
		if m.Method == method && len(m.ID) > 0 {
			out = append(out, m)
		}
	}
	return out
}

// writeFile creates a file under root.
func writeFile(t testing.TB, root, name, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(root, name), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// exists reports whether root/name exists.
func exists(t testing.TB, root, name string) bool {
	t.Helper()
	_, err := os.Stat(filepath.Join(root, name))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return err == nil
}

// exampleFlowFiles lists the example flows, without their test files
// (*_test.yaml).
func exampleFlowFiles() ([]string, error) {
	files, err := filepath.Glob(filepath.Join("..", "flows", "*.yaml"))
	return slices.DeleteFunc(files, func(f string) bool { return strings.HasSuffix(f, "_test.yaml") }), err
}
