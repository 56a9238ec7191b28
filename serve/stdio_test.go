package serve_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/flowserve/flowserve/serve"
)

// TestStdioReadsOn: over stdio a line that is not a JSON-RPC message gets a
// JSON-RPC error (-32700 for one that is not JSON, -32600 for JSON that is
// no message) and the server reads on; at the end of the input every
// request read before it is answered, a call in progress included.
func TestStdioReadsOn(t *testing.T) {
	srv := newServer(t, exampleFlows(t), "")
	lines := []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`garbage{`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`42`,
		`[]`,
		`{"jsonrpc":"1.0","id":7,"method":"tools/list"}`,
		strings.Repeat(" ", 10) + `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"signup","arguments":{}}}`,
		``,
		`{"jsonrpc":"2.0","id":"four","method":"ping"}`,
	}
	var out strings.Builder
	tr := serve.StdioTransport(strings.NewReader(strings.Join(lines, "\n")+"\n"), &out, 10*time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := srv.MCP().Run(ctx, tr); err != nil && ctx.Err() != nil {
		t.Fatalf("run: %v", err)
	}
	type reply struct {
		ID    any `json:"id"`
		Error *struct {
			Code int64 `json:"code"`
		} `json:"error"`
		Result json.RawMessage `json:"result"`
	}
	got := map[string]int64{} // id → error code, 0 for a result
	var anonymous []int64
	sc := bufio.NewScanner(strings.NewReader(out.String()))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r reply
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("a reply that is not JSON: %q", sc.Text())
		}
		code := int64(0)
		if r.Error != nil {
			code = r.Error.Code
		}
		if r.ID == nil {
			anonymous = append(anonymous, code)
			continue
		}
		got[fmt.Sprint(r.ID)] = code
	}
	want := map[string]int64{"1": 0, "2": 0, "3": 0, "four": 0, "7": -32600}
	for id, code := range want {
		if c, ok := got[id]; !ok || c != code {
			t.Errorf("request %s: reply code %v (answered %v), want %d\n%s", id, c, ok, code, out.String())
		}
	}
	if !slices.Equal(anonymous, []int64{-32700, -32600, -32600}) {
		t.Errorf("errors without an id: %v, want -32700 (garbage), -32600 (42), -32600 (the empty batch)", anonymous)
	}
}
