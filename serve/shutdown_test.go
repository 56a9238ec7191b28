package serve_test

import (
	"context"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/flowserve/flowserve/flow"
	"github.com/flowserve/flowserve/serve"
)

const blockingFlow = `
name: slow
description: Waits for the test.
nodes:
  - id: wait
    step: test.block
  - return: finished
`

// TestGracefulShutdown: Server.Shutdown stops accepting connections,
// lets a round in flight finish, ends a session call parked on a question
// with an error result telling the user to call again, closes the
// sessions, and returns once everything is done.
func TestGracefulShutdown(t *testing.T) {
	ctx := testCtx(t)
	b := newBlocker()
	t.Cleanup(b.open)
	slow := compileSource(t, "slow.yaml", []byte(blockingFlow), flow.Env{Actions: opsRegistry(t, b)})
	srv := serverWith(t, append(compileExamples(t, flow.Env{}), slow), serve.Options{})
	hs, url := startServer(t, srv, serve.HTTPOptions{})
	addr := strings.TrimSuffix(strings.TrimPrefix(url, "http://"), serve.EndpointPath)

	// A session client parked on signup's question, with a GET stream
	// open (the go-sdk client opens one).
	parked, stop := make(chan struct{}), make(chan struct{})
	cs, err := connectURL(t, ctx, url, v20251125, sessionClient(func(ctx context.Context, _ *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		close(parked)
		select {
		case <-ctx.Done():
		case <-stop:
		}
		return nil, context.Canceled
	}), nil)
	must(t, err)
	t.Cleanup(func() { close(stop) }) // before the client closes

	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "signup", Arguments: map[string]any{}})
		if err != nil {
			t.Errorf("parked call: %v", err)
			return
		}
		checkText(t, res, true, "The server is shutting down", `before "details" was answered; call the tool again`)
	}()
	// A 2026-07-28 round in flight.
	go func() {
		defer wg.Done()
		wantComplete(t, rawRound(t, ctx, url, nil, callParams("slow", map[string]any{}, formCaps)), false, "finished")
	}()
	<-parked
	<-b.started

	done := make(chan error, 1)
	go func() {
		sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		done <- srv.Shutdown(sctx, hs)
	}()
	// New connections are refused once shutdown has begun.
	deadline := time.Now().Add(5 * time.Second)
	for {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			break
		}
		conn.Close()
		if time.Now().After(deadline) {
			t.Fatal("new connections are still accepted")
		}
		time.Sleep(5 * time.Millisecond)
	}
	select {
	case err := <-done:
		t.Fatalf("Shutdown returned %v with a round in flight", err)
	case <-time.After(50 * time.Millisecond):
	}
	b.open() // the round in flight finishes
	wg.Wait()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Shutdown: %v", err)
		}
	case <-ctx.Done():
		t.Fatal("Shutdown did not return")
	}
	if n := len(openSessions(srv)); n != 0 {
		t.Errorf("%d sessions still open", n)
	}
}

// TestShutdownDeadline: a round that outlives the deadline is cut off,
// and Shutdown says so instead of hanging.
func TestShutdownDeadline(t *testing.T) {
	ctx := testCtx(t)
	b := newBlocker()
	t.Cleanup(b.open)
	slow := compileSource(t, "slow.yaml", []byte(blockingFlow), flow.Env{Actions: opsRegistry(t, b)})
	srv := serverWith(t, []*flow.Program{slow}, serve.Options{})
	hs, url := startServer(t, srv, serve.HTTPOptions{})
	body := modernCallBody(t, "slow", map[string]any{})
	go rawPostErr(ctx, url, modernHeader("slow"), body)
	<-b.started
	sctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	err := srv.Shutdown(sctx, hs)
	if err == nil || !strings.Contains(err.Error(), "rounds still running after the deadline were cut off") {
		t.Errorf("Shutdown: %v", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("Shutdown took %v", d)
	}
}

// openSessions lists the server's session-era sessions.
func openSessions(srv *serve.Server) []*mcp.ServerSession {
	var out []*mcp.ServerSession
	for ss := range srv.MCP().Sessions() {
		if ss.ID() != "" {
			out = append(out, ss)
		}
	}
	return out
}
