// Command attach adds flows to a go-sdk MCP server of its own, next to a
// tool written in Go: flowserve.Open wires the flows of ./flows (actions,
// engine, version pinning, stores), and Runtime.Attach puts them on the
// server as tools, reloaded in place when Reload or Watch sees a change.
//
// Over HTTP the runtime's handler serves the whole server (the Go tool
// too) at every protocol era, with flowserve's 2026-07-28 path, tasks and
// approval pages; over stdio the server's own go-sdk transport serves it.
//
//	go run ./examples/attach                  # http://127.0.0.1:8789/mcp
//	go run ./examples/attach -stdio           # one client on stdin/stdout
//	go run ./examples/attach -flows DIR -http ADDR
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"net/http"
	"os"
	"os/signal"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/flowserve/flowserve"
	"github.com/flowserve/flowserve/serve"
)

func main() {
	flows := flag.String("flows", "examples/attach/flows", "directory of the flows to attach")
	addr := flag.String("http", "127.0.0.1:8789", "address to serve Streamable HTTP on")
	stdio := flag.Bool("stdio", false, "serve one client over stdin and stdout instead")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, *flows, *addr, *stdio); err != nil {
		log.Fatal(err)
	}
}

// run serves the example server over stdio or HTTP until ctx is done.
func run(ctx context.Context, flows, addr string, stdio bool) error {
	server, rt, err := newServer(ctx, flows)
	if err != nil {
		return err
	}
	defer rt.Close(context.Background())
	if stdio {
		err := server.Run(ctx, &mcp.StdioTransport{})
		if errors.Is(err, context.Canceled) {
			return nil
		}
		return err
	}
	h, err := rt.Handler()
	if err != nil {
		return err
	}
	log.Printf("serving at http://%s%s", addr, serve.EndpointPath)
	hs := &http.Server{Addr: addr, Handler: h}
	go func() {
		<-ctx.Done()
		hs.Shutdown(context.Background())
	}()
	if err := hs.ListenAndServe(); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// newServer makes the go-sdk server with its Go tool, opens the runtime of
// the flows in dir and attaches them to the server. Close the runtime when
// done.
func newServer(ctx context.Context, dir string) (*mcp.Server, *flowserve.Runtime, error) {
	server := mcp.NewServer(&mcp.Implementation{Name: "attach-example", Version: "1.0.0"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "add", Description: "Adds two numbers."}, add)
	rt, err := flowserve.Open(ctx, flowserve.Config{Paths: []string{dir}})
	if err != nil {
		return nil, nil, err
	}
	if err := rt.Attach(server); err != nil {
		rt.Close(ctx)
		return nil, nil, err
	}
	return server, rt, nil
}

// addInput and addOutput are the add tool's arguments and result.
type addInput struct {
	A float64 `json:"a" jsonschema:"the first number"`
	B float64 `json:"b" jsonschema:"the second number"`
}

type addOutput struct {
	Sum float64 `json:"sum"`
}

// add is a tool written in Go, served next to the flows.
func add(ctx context.Context, req *mcp.CallToolRequest, in addInput) (*mcp.CallToolResult, addOutput, error) {
	sum := in.A + in.B
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprint(sum)}}}, addOutput{Sum: sum}, nil
}
