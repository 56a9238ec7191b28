package flowserve_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/flowserve/flowserve"
	"github.com/flowserve/flowserve/flow"
	"github.com/flowserve/flowserve/serve"
)

const helloFlow = `name: hello
description: Says hello.
nodes:
  - return: "hello"
`

// flowsDir writes the named flows into a new directory.
func flowsDir(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// TestOpenRefuses: each bad Config is refused with an error naming what
// was wrong; the correct ones beside them open.
func TestOpenRefuses(t *testing.T) {
	dir := flowsDir(t, map[string]string{"hello.yaml": helloFlow})
	bad := flowsDir(t, map[string]string{"bad.yaml": "name: bad\ndescription: Bad.\nnodes:\n  - return: \"{{ nope }}\"\n"})
	engine, err := flow.NewEngine(flow.EngineOptions{})
	if err != nil {
		t.Fatal(err)
	}
	notDir := filepath.Join(t.TempDir(), "file")
	os.WriteFile(notDir, []byte("x"), 0o600)
	tests := []struct {
		name string
		cfg  flowserve.Config
		want string // "": opens
	}{
		{"defaults on a directory", flowserve.Config{Paths: []string{dir}}, ""},
		{"flows from an fs.FS", flowserve.Config{Paths: []string{"flows"}, FS: fstest.MapFS{"flows/hello.yaml": {Data: []byte(helloFlow)}}}, ""},
		{"a data directory", flowserve.Config{Paths: []string{dir}, Data: t.TempDir()}, ""},
		{"an engine of one's own", flowserve.Config{Paths: []string{dir}, Server: serve.Options{Engine: engine}}, "Server.Engine is set by Open"},
		{"a go-sdk server in Server", flowserve.Config{Paths: []string{dir}, Server: serve.Options{MCP: mcp.NewServer(&mcp.Implementation{Name: "x"}, nil)}}, "Server.MCP is set by Open"},
		{"negative state TTL", flowserve.Config{Paths: []string{dir}, StateTTL: -1}, "StateTTL must not be negative"},
		{"flows with errors", flowserve.Config{Paths: []string{bad}}, "the flows have errors: "},
		{"no such path", flowserve.Config{Paths: []string{filepath.Join(dir, "nope")}}, "no such"},
		{"a data directory that is a file", flowserve.Config{Paths: []string{dir}, Data: notDir}, "Config.Data: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			tt.cfg.Logger = quiet()
			rt, err := flowserve.Open(ctx, tt.cfg)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("Open: %v", err)
				}
				if err := rt.Close(ctx); err != nil {
					t.Errorf("Close: %v", err)
				}
				if err := rt.Close(ctx); err != nil {
					t.Errorf("second Close: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				rt.Close(ctx)
				t.Fatalf("Open: %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

// TestOpenLoadError: flows with errors come back as a *LoadError with
// every diagnostic; a path that names nothing is a usage error.
func TestOpenLoadError(t *testing.T) {
	bad := flowsDir(t, map[string]string{"bad.yaml": "name: bad\ndescription: Bad.\nnodes:\n  - return: \"{{ nope }}\"\n"})
	var le *flowserve.LoadError
	_, err := flowserve.Open(context.Background(), flowserve.Config{Paths: []string{bad}, Logger: quiet()})
	if !errors.As(err, &le) || len(le.Diagnostics) != 1 || le.Diagnostics[0].Code != "bad-expression" || le.Usage() {
		t.Fatalf("Open: %v, want a LoadError with one bad-expression", err)
	}
	_, err = flowserve.Open(context.Background(), flowserve.Config{Paths: []string{filepath.Join(bad, "nope")}, Logger: quiet()})
	if !errors.As(err, &le) || !le.Usage() {
		t.Fatalf("Open: %v, want a usage LoadError", err)
	}
}

// TestAttachOnce: a runtime serves one go-sdk server; attaching the same
// one again is fine, another one fails, and so does attaching after
// Close.
func TestAttachOnce(t *testing.T) {
	ctx := context.Background()
	dir := flowsDir(t, map[string]string{"hello.yaml": helloFlow})
	rt, err := flowserve.Open(ctx, flowserve.Config{Paths: []string{dir}, Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	mine := mcp.NewServer(&mcp.Implementation{Name: "mine"}, nil)
	if err := rt.Attach(mine); err != nil {
		t.Fatal(err)
	}
	if err := rt.Attach(mine); err != nil {
		t.Errorf("attaching the same server again: %v", err)
	}
	if err := rt.Attach(mcp.NewServer(&mcp.Implementation{Name: "other"}, nil)); err == nil || !strings.Contains(err.Error(), "another go-sdk server") {
		t.Errorf("attaching another server: %v", err)
	}
	if err := rt.Attach(nil); err == nil {
		t.Error("attaching nil")
	}
	srv, err := rt.Server()
	if err != nil || srv.MCP() != mine {
		t.Errorf("Server() serves %v (%v), want the attached server", srv.MCP(), err)
	}
	rt.Close(ctx)
	if _, err := rt.Handler(); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Errorf("Handler after Close: %v", err)
	}
}

// TestReloadKeepsServingOnErrors: a reload whose flows have errors keeps
// the previous flows and says why; a good one swaps them in.
func TestReloadKeepsServingOnErrors(t *testing.T) {
	ctx := context.Background()
	dir := flowsDir(t, map[string]string{"hello.yaml": helloFlow})
	rt, err := flowserve.Open(ctx, flowserve.Config{Paths: []string{dir}, Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close(ctx)
	os.WriteFile(filepath.Join(dir, "hello.yaml"), []byte(strings.Replace(helloFlow, `"hello"`, `"{{ nope }}"`, 1)), 0o600)
	_, diags, err := rt.Reload(ctx)
	if err == nil || !diags.HasErrors() || !strings.Contains(err.Error(), "still serving the previous flows") {
		t.Fatalf("reload with errors: %v (%v)", err, diags)
	}
	os.WriteFile(filepath.Join(dir, "bye.yaml"), []byte(strings.ReplaceAll(helloFlow, "hello", "bye")), 0o600)
	os.WriteFile(filepath.Join(dir, "hello.yaml"), []byte(helloFlow), 0o600)
	ch, _, err := rt.Reload(ctx)
	if err != nil || strings.Join(ch.Added, ",") != "bye" {
		t.Fatalf("reload: %v, %+v", err, ch)
	}
	srv, _ := rt.Server()
	if got := strings.Join(srv.Tools(), ","); got != "bye,hello" {
		t.Errorf("tools %s", got)
	}
	var names []string
	for _, p := range rt.Programs() {
		names = append(names, p.Name())
	}
	if slices.Sort(names); strings.Join(names, ",") != "bye,hello" {
		t.Errorf("Programs after the reload: %v", names)
	}
}
