package serve_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	dto "github.com/prometheus/client_model/go"

	"github.com/flowserve/flowserve/flow"
	"github.com/flowserve/flowserve/flow/state"
	"github.com/flowserve/flowserve/serve"
)

// TestBodyLimit: a body over HTTPOptions.MaxRequestBodyBytes is 413 on
// the lean 2026-07-28 path and on the go-sdk's session path; a body under
// it is served.
func TestBodyLimit(t *testing.T) {
	const limit = 64 << 10
	srv := serverWith(t, []*flow.Program{testFlow(t, "whoami", flow.Env{})}, serve.Options{})
	url := startHTTPWith(t, srv, serve.HTTPOptions{MaxRequestBodyBytes: limit})
	defaultURL := startHTTPWith(t, srv, serve.HTTPOptions{})
	modern := func(pad int) []byte {
		return modernCallBody(t, "whoami", map[string]any{"pad": strings.Repeat("p", pad)})
	}
	tests := []struct {
		name   string
		url    string
		header http.Header
		body   []byte
		want   int
	}{
		{"2026-07-28 tools/call under the limit", url, modernHeader("whoami"), modern(limit / 2), http.StatusOK},
		{"2026-07-28 tools/call over the limit", url, modernHeader("whoami"), modern(limit), http.StatusRequestEntityTooLarge},
		{"2026-07-28 tools/call over the default limit", defaultURL, modernHeader("whoami"), modern(serve.DefaultMaxRequestBodyBytes), http.StatusRequestEntityTooLarge},
		{"session initialize under the limit", url, nil, initializeBody(t, v20251125, limit/2), http.StatusOK},
		{"session initialize over the limit", url, nil, initializeBody(t, v20251125, limit), http.StatusRequestEntityTooLarge},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			status, _, body := rawPost(t, testCtx(t), tc.url, tc.header, tc.body)
			if status != tc.want {
				t.Errorf("status %d, want %d: %.200s", status, tc.want, body)
			}
			if tc.want == http.StatusRequestEntityTooLarge && !strings.Contains(string(body), "request body exceeds") {
				t.Errorf("413 body %q does not say what the limit is", body)
			}
		})
	}
}

// TestRequestStateTooLargeHTTP: a requestState over the codec's limit is
// a -32602 with the limit in its message, before anything else is done.
func TestRequestStateTooLargeHTTP(t *testing.T) {
	ctx := testCtx(t)
	url, _ := rawServer(t, &clock{t: time.Now()}, time.Hour)
	big := "k." + strings.Repeat("A", state.DefaultMaxSize)
	e := postRaw(t, ctx, url, nil, "tools/call", retry("signup", map[string]any{}, big, map[string]any{"details": adaAnswer})).rpcErr(t)
	if e.Code != codeInvalidParams || e.Message != "requestState is larger than 262144 bytes" {
		t.Errorf("got %d %q, want -32602 about the size", e.Code, e.Message)
	}
	// The server goes on serving.
	wantInputRequired(t, rawRound(t, ctx, url, nil, callParams("signup", map[string]any{}, formCaps)), "details")
}

const loopFlow = `
name: loop
description: Loops through a step and a question.
nodes:
  - id: tick
    step: test.echo
  - id: q
    ask: "Again?"
    form: {ok: {type: boolean}}
  - branch:
      - if: q.content.ok
        then: tick
  - return: done
`

// TestRunLimitsOverHTTP: each limit of a run (journal entries, node
// visits, expression cost, step timeout, the size of the state to send)
// ends the call with an error result naming the limit, on the lean
// 2026-07-28 path and on a session over HTTP: never a hang, never a
// JSON-RPC error, never code 0.
func TestRunLimitsOverHTTP(t *testing.T) {
	b := newBlocker()
	t.Cleanup(b.open)
	reg := opsRegistry(t, b)
	tests := []struct {
		name   string
		src    string
		limits flow.Limits
		cost   uint64 // the expression cost limit; 0 for the default
		args   map[string]any
		want   string
	}{
		{"journal", loopFlow, flow.Limits{Journal: 4}, 0, nil, "node tick: the run has reached the limit of 4 journal entries"},
		{"visits", `
name: spin
description: Spins.
nodes:
  - id: a
    set: {x: 1}
  - branch:
      - if: "true"
        then: a
`, flow.Limits{Visits: 50}, 0, nil, "node a: more than 50 node visits in one round"},
		{"cost", `
name: costly
description: An expensive expression.
nodes:
  - return: "{{ [1,2,3,4,5,6,7,8,9,10].map(a, [1,2,3,4,5,6,7,8,9,10].map(b, [1,2,3,4,5,6,7,8,9,10].map(c, a*b*c))) }}"
`, flow.Limits{}, 100, nil, "actual cost limit exceeded"},
		{"step timeout", `
name: slow
description: A step that outlives its timeout.
nodes:
  - id: wait
    step: test.block
    timeout: 50ms
  - return: unreachable
`, flow.Limits{}, 0, nil, "node wait: test.block failed: timed out after 50ms"},
		{"state too large to send", `
name: big
description: A step result too big for the request state.
nodes:
  - id: big
    step: test.big
    with: {n: 300000}
  - id: q
    ask: "?"
    form: {v: {type: string}}
  - return: done
`, flow.Limits{}, 0, nil, "the run's state is too large to send"},
	}
	yes := map[string]any{"action": "accept", "content": map[string]any{"ok": true}}
	for _, tc := range tests {
		p := compileSource(t, tc.name+".yaml", []byte(tc.src), flow.Env{Actions: reg, CostLimit: tc.cost})
		srv := serverWith(t, []*flow.Program{p}, serve.Options{Engine: newEngine(t, flow.EngineOptions{Limits: tc.limits})})
		url := startHTTPWith(t, srv, serve.HTTPOptions{})
		args := tc.args
		if args == nil {
			args = map[string]any{}
		}
		t.Run(tc.name+"/"+v20260728, func(t *testing.T) {
			ctx := testCtx(t)
			params := callParams(p.Name(), args, formCaps)
			for round := 1; ; round++ {
				res := rawRound(t, ctx, url, nil, params)
				if res.ResultType == "complete" {
					wantComplete(t, res, true, tc.want)
					return
				}
				if round > 10 {
					t.Fatalf("no result after %d rounds", round)
				}
				params = retry(p.Name(), args, res.RequestState, map[string]any{"q": yes})
			}
		})
		t.Run(tc.name+"/"+v20251125, func(t *testing.T) {
			ctx := testCtx(t)
			cs, err := connectURL(t, ctx, url, v20251125, sessionClient(func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				return accept(map[string]any{"ok": true}), nil
			}), nil)
			must(t, err)
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: p.Name(), Arguments: args})
			if err != nil {
				t.Fatalf("want an error result, got error %v", err)
			}
			checkText(t, res, true, tc.want)
		})
	}
}

// TestSessionCap: HTTPOptions.MaxSessions bounds the open session-era
// sessions. A new session over the cap is refused with 503 and a
// JSON-RPC error; the open sessions and 2026-07-28 calls go on; a closed
// session frees its place.
func TestSessionCap(t *testing.T) {
	ctx := testCtx(t)
	srv := serverWith(t, []*flow.Program{testFlow(t, "whoami", flow.Env{})}, serve.Options{})
	url := startHTTPWith(t, srv, serve.HTTPOptions{MaxSessions: 2})
	open := func() (*mcp.ClientSession, error) {
		return connectURL(t, ctx, url, v20251125, sessionClient(nil), nil)
	}
	first, err := open()
	must(t, err)
	second, err := open()
	must(t, err)
	if _, err := open(); err == nil || !strings.Contains(err.Error(), "Service Unavailable") {
		t.Fatalf("third session: got %v, want a 503 refusal", err)
	}
	status, header, body := rawPost(t, ctx, url, nil, initializeBody(t, v20251125, 0))
	var msg rpcMessage
	if err := json.Unmarshal(body, &msg); err != nil || status != http.StatusServiceUnavailable || msg.Error == nil ||
		msg.Error.Code != -32000 || string(msg.ID) != "1" || header.Get("Retry-After") == "" ||
		msg.Error.Message != "the server has as many open sessions as it may (2); try again later" {
		t.Errorf("raw initialize over the cap: %d (Retry-After %q) %s", status, header.Get("Retry-After"), body)
	}
	// The open sessions and stateless calls are served.
	res, err := second.CallTool(ctx, &mcp.CallToolParams{Name: "whoami"})
	must(t, err)
	checkText(t, res, false, "ops-session")
	wantComplete(t, rawRound(t, ctx, url, nil, callParams("whoami", map[string]any{}, formCaps)), false, v20260728)

	// Closing a session frees its place (once the server sees it close).
	must(t, first.Close())
	deadline := time.Now().Add(5 * time.Second)
	for {
		if _, err := open(); err == nil {
			break
		} else if time.Now().After(deadline) {
			t.Fatalf("no place after a session closed: %v", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestLegacyCallCap: Options.MaxLegacyCalls bounds the session-era calls
// in progress, parked ones included. A call over the cap is a JSON-RPC
// error saying the server is busy; other sessions' calls and 2026-07-28
// calls go on, and the place is free again when the parked call ends.
func TestLegacyCallCap(t *testing.T) {
	ctx := testCtx(t)
	srv := serverWith(t, append(compileExamples(t, flow.Env{}), testFlow(t, "whoami", flow.Env{})), serve.Options{MaxLegacyCalls: 1})
	url := startHTTPWith(t, srv, serve.HTTPOptions{})
	parked, answer := make(chan struct{}), make(chan struct{})
	a, err := connectURL(t, ctx, url, v20251125, sessionClient(func(ctx context.Context, _ *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		close(parked)
		<-answer
		return accept(ada), nil
	}), nil)
	must(t, err)
	b, err := connectURL(t, ctx, url, v20251125, sessionClient(nil), nil)
	must(t, err)

	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		res, err := a.CallTool(ctx, &mcp.CallToolParams{Name: "signup", Arguments: map[string]any{}})
		if err != nil {
			t.Errorf("parked call: %v", err)
			return
		}
		checkText(t, res, false, "Signed up Ada Lovelace")
	}()
	<-parked
	_, err = b.CallTool(ctx, &mcp.CallToolParams{Name: "whoami"})
	if e := rpcErrorOf(err); e == nil || e.Code != -32000 || !strings.Contains(e.Message, "the server is busy") {
		t.Errorf("call over the cap: got %v, want JSON-RPC -32000 saying the server is busy", err)
	}
	wantComplete(t, rawRound(t, ctx, url, nil, callParams("whoami", map[string]any{}, formCaps)), false, v20260728)
	close(answer)
	wg.Wait()
	res, err := b.CallTool(ctx, &mcp.CallToolParams{Name: "whoami"})
	must(t, err)
	checkText(t, res, false, "ops-session")
}

// TestHTTPServerTimeouts: HTTPServer applies the read, idle and write
// timeouts: a client that stalls sending headers or a body, or keeps a
// connection idle, is disconnected; a round or a session stream that
// outlives WriteTimeout is not cut, but a client that stops reading is.
func TestHTTPServerTimeouts(t *testing.T) {
	b := newBlocker()
	t.Cleanup(b.open)
	reg := opsRegistry(t, b)
	slow := compileSource(t, "slow.yaml", []byte(`
name: slow
description: Waits for the test.
nodes:
  - id: wait
    step: test.block
  - return: finished
`), flow.Env{Actions: reg})
	big := compileSource(t, "big.yaml", []byte(`
name: big
description: Returns a large result.
nodes:
  - id: big
    step: test.big
    with: {n: 16000000}
  - return: "{{ big.blob }}"
`), flow.Env{Actions: reg})
	progs := append(compileExamples(t, flow.Env{}), slow, big, testFlow(t, "whoami", flow.Env{}))
	srv := serverWith(t, progs, serve.Options{})
	const short = 150 * time.Millisecond
	hs, url := startServer(t, srv, serve.HTTPOptions{ReadHeaderTimeout: short, ReadTimeout: 2 * short, IdleTimeout: short, WriteTimeout: short})
	if hs.ReadHeaderTimeout != short || hs.ReadTimeout != 2*short || hs.IdleTimeout != short || hs.WriteTimeout != 0 || hs.MaxHeaderBytes != serve.DefaultMaxHeaderBytes {
		t.Errorf("http.Server timeouts %v %v %v %v, header limit %d", hs.ReadHeaderTimeout, hs.ReadTimeout, hs.IdleTimeout, hs.WriteTimeout, hs.MaxHeaderBytes)
	}
	addr := strings.TrimSuffix(strings.TrimPrefix(url, "http://"), serve.EndpointPath)

	// closedWithin reports whether the server closes conn within d, after
	// whatever it sends first.
	closedWithin := func(conn net.Conn, d time.Duration) bool {
		conn.SetReadDeadline(time.Now().Add(d))
		_, err := io.Copy(io.Discard, conn)
		return err == nil // EOF: closed by the server; a timeout is an error
	}
	body := string(modernCallBody(t, "whoami", map[string]any{}))
	request := "POST /mcp HTTP/1.1\r\nHost: " + addr + "\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n" +
		"Mcp-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: whoami\r\n"
	t.Run("stalled headers", func(t *testing.T) {
		conn, err := net.Dial("tcp", addr)
		must(t, err)
		defer conn.Close()
		io.WriteString(conn, "POST /mcp HTTP/1.1\r\nHost: "+addr+"\r\n")
		if !closedWithin(conn, 10*short) {
			t.Error("the connection is still open")
		}
	})
	t.Run("stalled body", func(t *testing.T) {
		conn, err := net.Dial("tcp", addr)
		must(t, err)
		defer conn.Close()
		io.WriteString(conn, request+"Content-Length: 1000\r\n\r\n"+body[:20])
		if !closedWithin(conn, 10*short) {
			t.Error("the connection is still open")
		}
	})
	t.Run("idle keep-alive", func(t *testing.T) {
		conn, err := net.Dial("tcp", addr)
		must(t, err)
		defer conn.Close()
		io.WriteString(conn, request+"Content-Length: "+itoa(len(body))+"\r\n\r\n"+body)
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		must(t, err)
		io.Copy(io.Discard, resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("status %d", resp.StatusCode)
		}
		if !closedWithin(conn, 10*short) {
			t.Error("the idle connection is still open")
		}
	})
	t.Run("round longer than the write timeout", func(t *testing.T) {
		ctx := testCtx(t)
		go func() {
			<-b.started
			time.Sleep(3 * short)
			b.open()
		}()
		wantComplete(t, rawRound(t, ctx, url, nil, callParams("slow", map[string]any{}, formCaps)), false, "finished")
	})
	t.Run("session stream longer than the write timeout", func(t *testing.T) {
		ctx := testCtx(t)
		cs, err := connectURL(t, ctx, url, v20251125, sessionClient(func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			time.Sleep(3 * short)
			return accept(ada), nil
		}), nil)
		must(t, err)
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "signup", Arguments: map[string]any{}})
		must(t, err)
		checkText(t, res, false, "Signed up Ada Lovelace")
	})
	t.Run("client that stops reading", func(t *testing.T) {
		conn, err := net.Dial("tcp", addr)
		must(t, err)
		defer conn.Close()
		big := string(modernCallBody(t, "big", map[string]any{}))
		io.WriteString(conn, strings.Replace(request, "Mcp-Name: whoami", "Mcp-Name: big", 1)+"Content-Length: "+itoa(len(big))+"\r\n\r\n"+big)
		// Once the round is done, the server fills the sockets' buffers,
		// then times out and closes the connection: the client reads what
		// was buffered, then the end.
		done := srv.Metrics().Rounds.WithLabelValues(v20260728, "big", "complete", "")
		for deadline := time.Now().Add(callTimeout); ; {
			var m dto.Metric
			must(t, done.Write(&m))
			if m.GetCounter().GetValue() > 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("the round did not finish")
			}
			time.Sleep(10 * time.Millisecond)
		}
		time.Sleep(5 * short)
		conn.SetReadDeadline(time.Now().Add(20 * short))
		n, err := io.Copy(io.Discard, conn)
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			t.Fatalf("the connection is still open after %d bytes", n)
		}
		if n >= 16000000 {
			t.Errorf("read %d bytes: the whole reply, though the client stopped reading for longer than the write timeout", n)
		}
	})
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}
