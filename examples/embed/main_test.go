package main

import (
	"context"
	"errors"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/flowserve/flowserve"
	"github.com/flowserve/flowserve/serve"
)

// TestServesTheExampleFlows serves ../../flows as main does and lists its
// tools with the go-sdk client; a directory whose flows have errors is
// refused with their diagnostics.
func TestServesTheExampleFlows(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rt, err := open(ctx, []string{"../../flows"})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close(ctx)
	h, err := rt.Handler()
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(h)
	defer hs.Close()
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
	srv, _ := rt.Server()
	if len(res.Tools) != len(srv.Tools()) || len(res.Tools) < 5 {
		t.Errorf("tools/list gave %d tools, the server serves %v", len(res.Tools), srv.Tools())
	}
	if _, err := open(ctx, []string{"../../testdata/lint"}); err == nil {
		t.Error("a directory without flows was served")
	}
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(bad, []byte("name: bad\ndescription: Bad.\nnodes:\n  - return: \"{{ nope }}\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var le *flowserve.LoadError
	if _, err := open(ctx, []string{bad}); !errors.As(err, &le) || !le.Diagnostics.HasErrors() {
		t.Errorf("a flow with errors: %v, want a LoadError with its diagnostics", err)
	} else {
		t.Logf("refused: %v", err)
	}
}
