package main

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/flowserve/flowserve"
	"github.com/flowserve/flowserve/serve"
)

// mainEnv makes the test binary run main, for the stdio test.
const mainEnv = "ATTACH_EXAMPLE_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(mainEnv) == "1" {
		os.Args = []string{"attach", "-stdio", "-flows", "flows"}
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// eras are the protocol versions the go-sdk client speaks to the example.
var eras = []string{"2026-07-28", "2025-11-25", "2025-06-18"}

// answers answers the flows' questions as a person would.
func answers(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	switch {
	case strings.HasPrefix(req.Params.Message, "What is your name"):
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
	case strings.HasPrefix(req.Params.Message, "Which size of"):
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"size": "large"}}, nil
	}
	return nil, fmt.Errorf("unexpected question %q", req.Params.Message)
}

// exercise lists the tools of a session and calls each: the Go tool and
// both flows.
func exercise(t *testing.T, ctx context.Context, cs *mcp.ClientSession) {
	t.Helper()
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	if got := strings.Join(names, ","); got != "add,greet,order_pizza" {
		t.Errorf("tools %s, want add,greet,order_pizza", got)
	}
	for _, c := range []struct {
		name string
		args map[string]any
		want string
	}{
		{"add", map[string]any{"a": 2, "b": 3}, "5"},
		{"greet", nil, "Hello, Ada!"},
		{"order_pizza", map[string]any{"topping": "mushroom"}, "Ordered a large mushroom pizza for 14 EUR."},
	} {
		if got := callText(t, ctx, cs, c.name, c.args); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

// callText calls a tool and returns its one text block, failing on an
// error result.
func callText(t *testing.T, ctx context.Context, cs *mcp.ClientSession, name string, args map[string]any) string {
	t.Helper()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if res.IsError || len(res.Content) != 1 {
		t.Fatalf("%s: isError %v, content %v", name, res.IsError, res.Content)
	}
	return res.Content[0].(*mcp.TextContent).Text
}

// startHTTP serves the example's server, made on the flows in dir, with
// the runtime's handler.
func startHTTP(t *testing.T, dir string) (*flowserve.Runtime, string) {
	t.Helper()
	_, rt, err := newServer(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close(context.Background()) })
	h, err := rt.Handler()
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(h)
	t.Cleanup(hs.Close)
	return rt, hs.URL + serve.EndpointPath
}

// connect connects a go-sdk client at version.
func connect(t *testing.T, ctx context.Context, tr mcp.Transport, version string, elicit func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error)) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "attach-test", Version: "1"}, &mcp.ClientOptions{ElicitationHandler: elicit})
	cs, err := client.Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connect at %s: %v", version, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// TestAttachHTTP: the Go tool and the flows answer on one go-sdk server
// over Streamable HTTP, at every era.
func TestAttachHTTP(t *testing.T) {
	_, url := startHTTP(t, "flows")
	for _, version := range eras {
		t.Run(version, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			exercise(t, ctx, connect(t, ctx, &mcp.StreamableClientTransport{Endpoint: url}, version, answers))
		})
	}
}

// TestAttachStdio: the same over stdio, with the example as a subprocess
// serving the server on go-sdk's own stdio transport.
func TestAttachStdio(t *testing.T) {
	for _, version := range eras[:2] {
		t.Run(version, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			cmd := exec.Command(os.Args[0])
			cmd.Env = append(os.Environ(), mainEnv+"=1")
			var stderr strings.Builder
			cmd.Stderr = &stderr
			cs := connect(t, ctx, &mcp.CommandTransport{Command: cmd}, version, answers)
			exercise(t, ctx, cs)
			if t.Failed() {
				t.Logf("stderr:\n%s", stderr.String())
			}
		})
	}
}

// TestAttachPinsVersions: a flow changed and reloaded while a 2026-07-28
// run waits for its answer: the run finishes on the version it began on,
// and the next call runs the new one. Nothing but Open and Attach is
// configured.
func TestAttachPinsVersions(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"greet.yaml", "order_pizza.yaml"} {
		b, err := os.ReadFile(filepath.Join("flows", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	rt, url := startHTTP(t, dir)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	changed := false
	reloadMidRun := func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		if !changed {
			changed = true
			next := strings.Replace(readFile(t, filepath.Join(dir, "greet.yaml")), `"Hello, {{ who.content.name }}!"`,
				`"Good day, {{ who.content.name }}, from the new version."`, 1)
			next = strings.Replace(next, "What is your name?", "What is your name, please?", 1)
			if err := os.WriteFile(filepath.Join(dir, "greet.yaml"), []byte(next), 0o600); err != nil {
				return nil, err
			}
			ch, diags, err := rt.Reload(ctx)
			if err != nil || !slices.Equal(ch.Updated, []string{"greet"}) {
				return nil, fmt.Errorf("reload: %v, %v (%v)", err, ch, diags)
			}
		}
		return answers(ctx, req)
	}
	cs := connect(t, ctx, &mcp.StreamableClientTransport{Endpoint: url}, "2026-07-28", reloadMidRun)
	if got := callText(t, ctx, cs, "greet", nil); got != "Hello, Ada!" {
		t.Errorf("the run in flight: %q, want the version it began on", got)
	}
	if !changed {
		t.Fatal("the flow did not ask")
	}
	if got := callText(t, ctx, cs, "greet", nil); got != "Good day, Ada, from the new version." {
		t.Errorf("a new run: %q, want the new version", got)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
