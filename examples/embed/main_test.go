package main

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/flowserve/flowserve/serve"
)

// TestServesTheExampleFlows serves ../../flows as main does and lists its
// tools with the go-sdk client.
func TestServesTheExampleFlows(t *testing.T) {
	srv, cleanup, err := newServer(context.Background(), []string{"../../flows"})
	if err != nil {
		t.Fatal(err)
	}
	defer cleanup()
	hs := httptest.NewServer(srv.HTTPHandler(serve.HTTPOptions{}))
	defer hs.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "embed-test", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: hs.URL + serve.EndpointPath}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Tools) != len(srv.Tools()) || len(res.Tools) < 5 {
		t.Errorf("tools/list gave %d tools, the server serves %v", len(res.Tools), srv.Tools())
	}
	if _, _, err := newServer(context.Background(), []string{"../../testdata/lint"}); err == nil {
		t.Error("a directory without flows was served")
	}
}
