// Package reliability holds the tests that run several flowserve
// instances over HTTP at once, sharing a key ring and a Redis reply store
// (DESIGN §4–§6, issue 8): example flows completed across instances, key
// rotation while runs are in flight, and the fault and load test. Each
// test starts its own redis-server (replies/redis/redistest).
package reliability

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/flowserve/flowserve/actions"
	_ "github.com/flowserve/flowserve/actions/std" // the built-in actions the example flows use
	"github.com/flowserve/flowserve/flow"
	"github.com/flowserve/flowserve/flow/state"
	"github.com/flowserve/flowserve/project"
	"github.com/flowserve/flowserve/replies/redis"
	"github.com/flowserve/flowserve/replies/redis/redistest"
	"github.com/flowserve/flowserve/serve"
)

const protocol = "2026-07-28"

// quietLogger discards the servers' logs; set FLOWSERVE_TEST_LOG=1 to see
// them.
func quietLogger() *slog.Logger {
	if os.Getenv("FLOWSERVE_TEST_LOG") != "" {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}

// testKey returns a key whose secret is derived from seed.
func testKey(id string, seed byte) state.Key {
	k := state.Key{ID: id}
	for i := range k.Secret {
		k.Secret[i] = seed + byte(i)
	}
	return k
}

// ring returns a key ring of keys, the first one sealing.
func ring(t testing.TB, keys ...state.Key) *state.KeyRing {
	t.Helper()
	r, err := state.NewKeyRing(keys...)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// exampleFlowFiles lists ../flows/*.yaml without the test files.
func exampleFlowFiles(t testing.TB) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "flows", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	files = slices.DeleteFunc(files, func(f string) bool { return strings.HasSuffix(f, "_test.yaml") })
	if len(files) == 0 {
		t.Fatal("no example flows in ../flows")
	}
	return files
}

// config is what an instance is made of. Instances that share a ring and
// a Redis URL behave as one service.
type config struct {
	files    []string          // flow files, compiled afresh at each start
	ring     *state.KeyRing    // nil: a new ephemeral key per start
	redisURL string            // "": a reply store in memory, per start
	actions  *actions.Registry // nil: actions.Default()
	fsRoot   string            // the fs actions' root
}

// instance is one flowserve server on a loopback address, over HTTP,
// that can be stopped and started again on the same address.
type instance struct {
	t    testing.TB
	name string
	cfg  config
	addr string

	mu      sync.Mutex
	hs      *http.Server
	conns   map[net.Conn]http.ConnState // the server's open connections
	store   *redis.Store                // closed at stop
	done    chan struct{}
	served  atomic.Int64 // requests served since the last start
	starts  int
	stopped bool
}

// startInstance compiles cfg's flows and serves them on a free loopback
// port. The instance is stopped when the test ends.
func startInstance(t testing.TB, name string, cfg config) *instance {
	t.Helper()
	in := &instance{t: t, name: name, cfg: cfg}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	in.addr = l.Addr().String()
	if err := in.serve(l); err != nil {
		l.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() { in.stop(5 * time.Second) })
	return in
}

// URL returns the instance's MCP endpoint.
func (in *instance) URL() string { return "http://" + in.addr + serve.EndpointPath }

// programs loads the instance's flows as a fresh process would, with the
// engine that runs them.
func (in *instance) programs() ([]*flow.Program, *flow.Engine, *redis.Store, error) {
	r := in.cfg.ring
	if r == nil {
		var err error
		if r, err = state.EphemeralKeyRing(); err != nil {
			return nil, nil, nil, err
		}
	}
	eopts := flow.EngineOptions{Codec: state.NewCodec(r, state.Options{})}
	var store *redis.Store
	if in.cfg.redisURL != "" {
		var err error
		if store, err = redis.Open(in.cfg.redisURL); err != nil {
			return nil, nil, nil, err
		}
		eopts.Replies = store
	}
	engine, err := flow.NewEngine(eopts)
	if err != nil {
		return nil, nil, nil, err
	}
	set, diags := project.Load(in.cfg.files, project.Options{Actions: in.cfg.actions})
	if err := diags.Err(); err != nil {
		return nil, nil, nil, fmt.Errorf("load flows:\n%v", err)
	}
	return set.Programs, engine, store, nil
}

// serve starts a fresh server on l.
func (in *instance) serve(l net.Listener) error {
	progs, engine, store, err := in.programs()
	if err != nil {
		return err
	}
	srv, err := serve.New(progs, serve.Options{
		Name: "flowserve-" + in.name, Version: "test", Logger: quietLogger(),
		Host: &actions.Host{FSRoot: in.cfg.fsRoot}, Engine: engine,
	})
	if err != nil {
		return err
	}
	h := srv.HTTPHandler(serve.HTTPOptions{})
	in.mu.Lock()
	defer in.mu.Unlock()
	in.served.Store(0)
	conns := map[net.Conn]http.ConnState{}
	in.conns = conns
	in.hs = &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			in.served.Add(1)
			h.ServeHTTP(w, r)
		}),
		ReadHeaderTimeout: 10 * time.Second,
		ConnState: func(c net.Conn, s http.ConnState) {
			in.mu.Lock()
			defer in.mu.Unlock()
			if s == http.StateClosed || s == http.StateHijacked {
				delete(conns, c)
			} else {
				conns[c] = s
			}
		},
	}
	in.store = store
	in.done = make(chan struct{})
	in.starts++
	in.stopped = false
	hs, done := in.hs, in.done
	go func() {
		defer close(done)
		if err := hs.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
			in.t.Errorf("instance %s: %v", in.name, err)
		}
	}()
	return nil
}

// stop shuts the server down gracefully: it stops accepting, lets the
// rounds in flight finish (within timeout), then closes its store.
// Connections on which no request has arrived are closed at once (Shutdown
// alone would wait 5 seconds for them): the client sees no reply to a
// request that was never served, and sends it again.
func (in *instance) stop(timeout time.Duration) {
	in.mu.Lock()
	if in.stopped {
		in.mu.Unlock()
		return
	}
	in.stopped = true
	hs, done, store := in.hs, in.done, in.store
	in.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	shut := make(chan error, 1)
	go func() { shut <- hs.Shutdown(ctx) }()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for waiting := true; waiting; {
		select {
		case err := <-shut:
			if err != nil {
				hs.Close()
			}
			waiting = false
		case <-tick.C:
			in.mu.Lock()
			for c, s := range in.conns {
				if s == http.StateNew {
					c.Close()
				}
			}
			in.mu.Unlock()
		}
	}
	<-done
	if store != nil {
		store.Close()
	}
}

// restart stops the instance and starts a fresh one, with freshly
// compiled programs, on the same address after down has passed. cfg, when
// not nil, replaces the configuration (a rotated key ring). It may be
// called from any goroutine.
func (in *instance) restart(down time.Duration, cfg *config) error {
	in.stop(10 * time.Second)
	time.Sleep(down)
	if cfg != nil {
		in.cfg = *cfg
	}
	var l net.Listener
	var err error
	for range 50 { // the port may linger for a moment
		if l, err = net.Listen("tcp", in.addr); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		return fmt.Errorf("restart %s on %s: %v", in.name, in.addr, err)
	}
	if err := in.serve(l); err != nil {
		l.Close()
		return fmt.Errorf("restart %s: %v", in.name, err)
	}
	return nil
}

// startRedis starts a redis-server for the test and returns its URL.
func startRedis(t testing.TB) string {
	t.Helper()
	return redistest.Start(t).URL
}

// client speaks raw 2026-07-28 JSON-RPC over HTTP, as an SDK-less client
// would.
type client struct {
	http *http.Client
	caps map[string]any
	ids  atomic.Int64
}

// newClient returns a client keeping up to conns connections per
// instance. It closes them when the test ends, before the instances stop.
func newClient(t testing.TB, conns int) *client {
	cl := &client{
		http: &http.Client{Timeout: 15 * time.Second, Transport: &http.Transport{
			MaxIdleConns: conns, MaxIdleConnsPerHost: conns, IdleConnTimeout: time.Minute,
		}},
		caps: map[string]any{"elicitation": map[string]any{"form": map[string]any{}, "url": map[string]any{}}, "sampling": map[string]any{}, "roots": map[string]any{}},
	}
	t.Cleanup(cl.http.CloseIdleConnections)
	return cl
}

// call is one tools/call request.
type call struct {
	Tool      string
	Args      any
	State     string
	Responses map[string]json.RawMessage
}

// rpcError is a JSON-RPC error as sent.
type rpcError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data"`
}

func (e *rpcError) Error() string { return fmt.Sprintf("JSON-RPC error %d: %s", e.Code, e.Message) }

// inputRequest is one entry of inputRequests.
type inputRequest struct {
	Method string `json:"method"`
	Params struct {
		Mode            string         `json:"mode"`
		Message         string         `json:"message"`
		URL             string         `json:"url"`
		RequestedSchema map[string]any `json:"requestedSchema"`
	} `json:"params"`
}

// result is a tools/call result as sent.
type result struct {
	ResultType        string                  `json:"resultType"`
	Content           []map[string]any        `json:"content"`
	StructuredContent map[string]any          `json:"structuredContent"`
	IsError           bool                    `json:"isError"`
	InputRequests     map[string]inputRequest `json:"inputRequests"`
	RequestState      string                  `json:"requestState"`
}

// text joins the result's text blocks.
func (r *result) text() string {
	var parts []string
	for _, c := range r.Content {
		if s, ok := c["text"].(string); ok {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, "\n")
}

// complete reports whether the call finished.
func (r *result) complete() bool { return r.ResultType == "complete" }

// errTransport marks errors where no reply arrived: the request may or may
// not have been served.
var errTransport = errors.New("no reply")

// do sends c to url. A JSON-RPC error comes back as *rpcError; a failure
// to get any reply wraps errTransport.
func (cl *client) do(ctx context.Context, url string, c call) (*result, error) {
	params := map[string]any{
		"name":      c.Tool,
		"arguments": c.Args,
		"_meta": map[string]any{
			"io.modelcontextprotocol/protocolVersion":    protocol,
			"io.modelcontextprotocol/clientCapabilities": cl.caps,
			"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "reliability-test", "version": "1"},
		},
	}
	if c.State != "" {
		params["requestState"] = c.State
	}
	if c.Responses != nil {
		params["inputResponses"] = c.Responses
	}
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": cl.ids.Add(1), "method": "tools/call", "params": params})
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", protocol)
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", c.Tool)
	resp, err := cl.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errTransport, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("%w: read: %v", errTransport, err)
	}
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		return nil, fmt.Errorf("HTTP %d, %s: %.300s", resp.StatusCode, resp.Header.Get("Content-Type"), data)
	}
	var msg struct {
		Result *result   `json:"result"`
		Error  *rpcError `json:"error"`
	}
	if err := json.Unmarshal(data, &msg); err != nil {
		return nil, fmt.Errorf("HTTP %d: reply is not JSON-RPC: %.300s", resp.StatusCode, data)
	}
	if msg.Error != nil {
		return nil, msg.Error
	}
	if msg.Result == nil {
		return nil, fmt.Errorf("HTTP %d: reply has neither result nor error: %.300s", resp.StatusCode, data)
	}
	return msg.Result, nil
}

// invalidParams reports whether err is a JSON-RPC -32602.
func invalidParams(err error) bool {
	var re *rpcError
	return errors.As(err, &re) && re.Code == -32602
}

// answer encodes an accepted elicitation result with content.
func answer(content map[string]any) json.RawMessage {
	b, err := json.Marshal(map[string]any{"action": "accept", "content": content})
	if err != nil {
		panic(err)
	}
	return b
}

// keyID returns the key id a sealed state names.
func keyID(token string) string {
	id, _, _ := strings.Cut(token, ".")
	return id
}
