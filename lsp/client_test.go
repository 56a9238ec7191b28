package lsp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf16"
)

// testClient is an LSP client for tests: it talks to a Server over a
// pair of pipes, with real framed JSON-RPC messages.
type testClient struct {
	t      *testing.T
	w      io.Writer
	mu     sync.Mutex
	nextID int
	calls  map[int]chan rpcResponse
	diags  chan PublishDiagnosticsParams
	done   chan error // Serve's result
}

// rpcResponse is a response as the client reads it.
type rpcResponse struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// startServer starts a server with opts on a pipe pair and returns the
// client of it.
func startServer(t *testing.T, opts Options) *testClient {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := &testClient{t: t, w: inW, calls: map[int]chan rpcResponse{},
		diags: make(chan PublishDiagnosticsParams, 64), done: make(chan error, 1)}
	srv := New(opts)
	go func() {
		err := srv.Serve(context.Background(), inR, outW)
		outW.Close()
		c.done <- err
	}()
	go c.read(outR)
	t.Cleanup(func() { inW.Close() })
	return c
}

// read reads the server's messages until the pipe closes.
func (c *testClient) read(r io.Reader) {
	br := bufio.NewReader(r)
	for {
		body, err := readFrame(br)
		if err != nil {
			return
		}
		var m struct {
			ID     *int            `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
			rpcResponse
		}
		if err := json.Unmarshal(body, &m); err != nil {
			c.t.Errorf("the server sent %q: %v", body, err)
			return
		}
		switch {
		case m.Method == "textDocument/publishDiagnostics":
			var p PublishDiagnosticsParams
			if err := json.Unmarshal(m.Params, &p); err != nil {
				c.t.Errorf("publishDiagnostics %s: %v", m.Params, err)
			}
			c.diags <- p
		case m.ID != nil:
			c.mu.Lock()
			ch := c.calls[*m.ID]
			c.mu.Unlock()
			if ch == nil {
				c.t.Errorf("a response to no request: %s", body)
				continue
			}
			ch <- m.rpcResponse
		}
	}
}

// send writes one framed message.
func (c *testClient) send(msg map[string]any) {
	c.t.Helper()
	msg["jsonrpc"] = "2.0"
	body, err := json.Marshal(msg)
	if err != nil {
		c.t.Fatal(err)
	}
	if _, err := fmt.Fprintf(c.w, "Content-Length: %d\r\n\r\n%s", len(body), body); err != nil {
		c.t.Fatalf("writing to the server: %v", err)
	}
}

// notify sends a notification.
func (c *testClient) notify(method string, params any) {
	c.t.Helper()
	c.send(map[string]any{"method": method, "params": params})
}

// call sends a request and decodes its result into result (which may be
// nil); it returns the response's error message, if any.
func (c *testClient) call(method string, params, result any) string {
	c.t.Helper()
	c.mu.Lock()
	c.nextID++
	id := c.nextID
	ch := make(chan rpcResponse, 1)
	c.calls[id] = ch
	c.mu.Unlock()
	c.send(map[string]any{"id": id, "method": method, "params": params})
	select {
	case r := <-ch:
		if r.Error != nil {
			return r.Error.Message
		}
		if result != nil {
			if err := json.Unmarshal(r.Result, result); err != nil {
				c.t.Fatalf("%s: decoding %s: %v", method, r.Result, err)
			}
		}
		return ""
	case <-time.After(10 * time.Second):
		c.t.Fatalf("%s: no response in 10 s", method)
		return ""
	}
}

// waitDiagnostics returns the next diagnostics published for uri.
func (c *testClient) waitDiagnostics(uri string) PublishDiagnosticsParams {
	c.t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case p := <-c.diags:
			if p.URI == uri {
				return p
			}
		case <-deadline:
			c.t.Fatalf("no diagnostics for %s in 10 s", uri)
		}
	}
}

// posOf returns the protocol position of the n-th (0-based) occurrence
// of marker in src, plus shift characters, counting UTF-16 units by
// encoding the line: an oracle independent of the server's conversion.
func posOf(t testing.TB, src, marker string, n, shift int) Position {
	t.Helper()
	at := -1
	for i := 0; i <= n; i++ {
		j := strings.Index(src[at+1:], marker)
		if j < 0 {
			t.Fatalf("%q occurs %d times, not %d", marker, i, n+1)
		}
		at += 1 + j
	}
	before := src[:at]
	line := strings.Count(before, "\n")
	col := before[strings.LastIndex(before, "\n")+1:]
	return Position{Line: line, Character: len(utf16.Encode([]rune(col))) + shift}
}
