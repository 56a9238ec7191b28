// Command peer-gosdk serves the book_meeting tool at 2026-07-28 as a
// hand-written go-sdk v1.8.0 tool on the SDK's stateless Streamable HTTP
// handler, with the answers sealed by package peer: the "written by hand
// on the SDK" baseline of docs/performance.md.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/flowserve/flowserve/bench/peer"
)

func main() {
	addr := flag.String("http", "127.0.0.1:0", "listen address")
	flag.Parse()
	sealer, err := peer.NewSealer()
	if err != nil {
		log.Fatal(err)
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "peer-gosdk", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: peer.Tool, Description: "Books a meeting room.", InputSchema: map[string]any{"type": "object"}},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			responses := map[string]json.RawMessage{}
			for k, v := range req.Params.InputResponses {
				b, err := json.Marshal(v)
				if err != nil {
					return nil, &jsonrpc.Error{Code: -32602, Message: err.Error()}
				}
				responses[k] = b
			}
			out, err := sealer.Round(req.Params.RequestState, responses)
			if err != nil {
				return nil, &jsonrpc.Error{Code: -32602, Message: err.Error()}
			}
			if out.Ask != nil {
				return &mcp.CallToolResult{
					InputRequests: mcp.InputRequestMap{out.Key: &mcp.ElicitParams{Mode: "form", Message: out.Ask.Message, RequestedSchema: out.Ask.RequestedSchema}},
					RequestState:  out.State,
				}, nil
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: out.Text}}}, nil
		})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{Stateless: true})
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("peer-gosdk: serving at http://%s/mcp\n", ln.Addr())
	log.Fatal(http.Serve(ln, h))
}
