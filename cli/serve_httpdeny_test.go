package cli

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/flowserve/flowserve"
)

// TestServeHTTPDenyPrivate: serve's --http-deny-private reaches the
// http.request action of the registry the runtime provisions: a step then
// cannot reach a loopback server; without the flag it can.
func TestServeHTTPDenyPrivate(t *testing.T) {
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "inside")
	}))
	t.Cleanup(web.Close)
	tests := []struct {
		name string
		args []string
		want string // "": the request goes through
	}{
		{"flag set", []string{"--http-deny-private"}, "address 127.0.0.1 is private (loopback): --http-deny-private refuses private addresses"},
		{"flag set to false", []string{"--http-deny-private=false"}, ""},
		{"flag absent", nil, ""},
	}
	dir := t.TempDir()
	flowFile := `name: fetch
description: Fetches a URL.
input:
  type: object
  properties:
    url: {type: string}
  required: [url]
nodes:
  - id: get
    step: http.request
    with: {url: "{{ input.url }}"}
  - return: "{{ get.text }}"
`
	if err := os.WriteFile(filepath.Join(dir, "fetch.yaml"), []byte(flowFile), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var f serveFlags
			var stderr bytes.Buffer
			env := &Env{Stderr: &stderr}
			if err := f.flagSet(env).Parse(append(tt.args, "--stdio")); err != nil {
				t.Fatalf("%v: %s", err, stderr.String())
			}
			ctx := context.Background()
			cfg, _, err := f.config(ctx, env, []string{dir}, slog.New(slog.DiscardHandler))
			if err != nil {
				t.Fatal(err)
			}
			rt, err := flowserve.Open(ctx, cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer rt.Close(ctx)
			srv, err := rt.Server()
			if err != nil {
				t.Fatal(err)
			}
			st, ct := mcp.NewInMemoryTransports()
			if _, err := srv.MCP().Connect(ctx, st, nil); err != nil {
				t.Fatal(err)
			}
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil).Connect(ctx, ct, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "fetch", Arguments: map[string]any{"url": web.URL + "/"}})
			if err != nil {
				t.Fatal(err)
			}
			text := res.Content[0].(*mcp.TextContent).Text
			if tt.want != "" {
				if !res.IsError || !strings.Contains(text, tt.want) {
					t.Fatalf("result %q (isError %v), want an error containing %q", text, res.IsError, tt.want)
				}
				return
			}
			if res.IsError || text != "inside" {
				t.Fatalf("result %q (isError %v), want inside", text, res.IsError)
			}
		})
	}
}
