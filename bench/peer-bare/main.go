// Command peer-bare serves the book_meeting tool at 2026-07-28 on bare
// net/http and encoding/json, with the answers sealed by package peer: the
// near-physical limit in docs/performance.md.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"

	"github.com/flowserve/flowserve/bench/peer"
)

type request struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  struct {
		Name           string                     `json:"name"`
		InputResponses map[string]json.RawMessage `json:"inputResponses"`
		RequestState   string                     `json:"requestState"`
	} `json:"params"`
}

func main() {
	addr := flag.String("http", "127.0.0.1:0", "listen address")
	flag.Parse()
	sealer, err := peer.NewSealer()
	if err != nil {
		log.Fatal(err)
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("peer-bare: serving at http://%s/mcp\n", ln.Addr())
	http.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		var req request
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Method != "tools/call" || req.Params.Name != peer.Tool {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		reply := map[string]any{"jsonrpc": "2.0", "id": req.ID}
		out, err := sealer.Round(req.Params.RequestState, req.Params.InputResponses)
		switch {
		case err != nil:
			reply["error"] = map[string]any{"code": -32602, "message": err.Error()}
		case out.Ask != nil:
			reply["result"] = map[string]any{
				"resultType":    "input_required",
				"inputRequests": map[string]any{out.Key: map[string]any{"method": "elicitation/create", "params": out.Ask}},
				"requestState":  out.State,
			}
		default:
			reply["result"] = map[string]any{"resultType": "complete", "content": []any{map[string]any{"type": "text", "text": out.Text}}}
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(reply)
	})
	log.Fatal(http.Serve(ln, nil))
}
