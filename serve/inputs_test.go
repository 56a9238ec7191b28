package serve_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/flowserve/flowserve/flow"
)

// inputsClient is a go-sdk client that answers every kind of input
// request: a form with a name, sampling with a fixed reply, and roots/list
// with one root. It counts the requests of each kind it answered.
type inputsClient struct {
	forms, samples atomic.Int32
}

func (ic *inputsClient) client(version string, caps *mcp.ClientCapabilities) *mcp.Client {
	// The SDK declares a capability for each handler it is given, so a
	// client gets only the handlers of what caps declares.
	o := &mcp.ClientOptions{Capabilities: caps}
	if caps.Elicitation != nil {
		o.ElicitationHandler = func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			ic.forms.Add(1)
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Alice"}}, nil
		}
	}
	if caps.Sampling != nil {
		o.CreateMessageHandler = func(_ context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			ic.samples.Add(1)
			if len(req.Params.Messages) == 0 || req.Params.MaxTokens != 100 && req.Params.MaxTokens != 20 {
				return nil, errors.New("unexpected sampling params")
			}
			return &mcp.CreateMessageResult{Role: "assistant", Content: &mcp.TextContent{Text: "Paris"}, Model: "test-model", StopReason: "endTurn"}, nil
		}
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "inputs-test", Version: "1"}, o)
	c.AddRoots(&mcp.Root{URI: "file:///test/root", Name: "Test Root"})
	return c
}

// allCaps declares elicitation, sampling and roots.
func allCaps(version string) *mcp.ClientCapabilities {
	return &mcp.ClientCapabilities{
		Elicitation: elicitationCaps(version),
		Sampling:    &mcp.SamplingCapabilities{},
		RootsV2:     &mcp.RootCapabilities{ListChanged: true},
	}
}

// TestSamplingRootsAndAll drives the sample, roots and all kinds with
// go-sdk clients at every era and transport: 2026-07-28 clients get the
// questions as inputRequests (several in one round for all), session
// clients as sampling/createMessage, roots/list and elicitation/create
// requests.
func TestSamplingRootsAndAll(t *testing.T) {
	progs := []*flow.Program{
		compileFile(t, "../testdata/conformance/test_input_required_result_multiple_inputs.yaml", flow.Env{}),
		compileFile(t, "../testdata/conformance/test_input_required_result_sampling.yaml", flow.Env{}),
		compileFile(t, "../testdata/conformance/test_input_required_result_list_roots.yaml", flow.Env{}),
		compileFile(t, "../testdata/conformance/test_input_required_result_capabilities.yaml", flow.Env{}),
		compileFile(t, "../testdata/conformance/test_missing_capability.yaml", flow.Env{}),
	}
	srv := newServer(t, progs, "")
	noSampling := func(version string) *mcp.ClientCapabilities {
		c := allCaps(version)
		c.Sampling = nil
		return c
	}
	samplingOnly := func(string) *mcp.ClientCapabilities {
		return &mcp.ClientCapabilities{Sampling: &mcp.SamplingCapabilities{}}
	}
	tests := []struct {
		name    string
		tool    string
		caps    func(version string) *mcp.ClientCapabilities
		has     []string
		forms   int32
		samples int32
		// required, when set, is the -32021 data a 2026-07-28 client gets;
		// session clients get an error result holding lacks.
		required map[string]any
		lacks    string
	}{
		{name: "all three kinds in one round", tool: "test_input_required_result_multiple_inputs", caps: allCaps,
			has: []string{"Alice asked; the model says Paris; 1 roots."}, forms: 1, samples: 1},
		{name: "sampling", tool: "test_input_required_result_sampling", caps: allCaps,
			has: []string{"The model (test-model) says: Paris"}, samples: 1},
		{name: "roots", tool: "test_input_required_result_list_roots", caps: allCaps,
			has: []string{"1 roots: file:///test/root"}},
		{name: "form when the client can elicit", tool: "test_input_required_result_capabilities", caps: allCaps,
			has: []string{"Hello, Alice!"}, forms: 1},
		{name: "sampling when it cannot", tool: "test_input_required_result_capabilities", caps: samplingOnly,
			has: []string{"Hello, Paris!"}, samples: 1},
		{name: "no sampling", tool: "test_missing_capability", caps: noSampling,
			required: map[string]any{"sampling": map[string]any{}}, lacks: "does not support sampling"},
		{name: "no sampling in a group", tool: "test_input_required_result_multiple_inputs", caps: noSampling,
			required: map[string]any{"sampling": map[string]any{}}, lacks: "does not support sampling"},
	}
	for _, version := range []string{v20260728, v20251125, v20250618} {
		for _, kind := range transports {
			for _, tt := range tests {
				t.Run(version+"/"+string(kind)+"/"+tt.name, func(t *testing.T) {
					ctx := testCtx(t)
					ic := &inputsClient{}
					cs := connect(t, ctx, srv, kind, version, ic.client(version, tt.caps(version)), nil)
					res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tt.tool, Arguments: map[string]any{}})
					if tt.required != nil {
						if version == v20260728 {
							var rpcErr *jsonrpc.Error
							if !errors.As(err, &rpcErr) || rpcErr.Code != codeMissingCapability {
								t.Fatalf("want -32021, got %v, %v", res, err)
							}
							var data struct {
								RequiredCapabilities map[string]any `json:"requiredCapabilities"`
							}
							if err := json.Unmarshal(rpcErr.Data, &data); err != nil || !jsonEqual(data.RequiredCapabilities, tt.required) {
								t.Fatalf("data %s, want requiredCapabilities %v", rpcErr.Data, tt.required)
							}
							return
						}
						if err != nil {
							t.Fatal(err)
						}
						checkText(t, res, true, tt.lacks)
						return
					}
					if err != nil {
						t.Fatal(err)
					}
					checkText(t, res, false, tt.has...)
					if f, s := ic.forms.Load(), ic.samples.Load(); f != tt.forms || s != tt.samples {
						t.Errorf("client answered %d forms and %d sampling requests, want %d and %d", f, s, tt.forms, tt.samples)
					}
				})
			}
		}
	}
}

// TestAllRoundOverHTTP checks the wire of an all node's round on the lean
// 2026-07-28 path: one input_required with the three input requests, and
// a retry answering only some of them is asked the rest alone.
func TestAllRoundOverHTTP(t *testing.T) {
	p := compileFile(t, "../testdata/conformance/test_input_required_result_multiple_inputs.yaml", flow.Env{})
	url := startHTTP(t, newServer(t, []*flow.Program{p}, ""))
	ctx := testCtx(t)
	caps := map[string]any{"elicitation": map[string]any{}, "sampling": map[string]any{}, "roots": map[string]any{}}
	params := callParams(p.Name(), map[string]any{}, caps)
	r1 := postRaw(t, ctx, url, nil, "tools/call", params)
	var res struct {
		ResultType    string                     `json:"resultType"`
		InputRequests map[string]json.RawMessage `json:"inputRequests"`
		RequestState  string                     `json:"requestState"`
		Content       []map[string]any           `json:"content"`
	}
	r1.result(t, &res)
	methods := map[string]string{}
	for k, raw := range res.InputRequests {
		var ir struct {
			Method string         `json:"method"`
			Params map[string]any `json:"params"`
		}
		if err := json.Unmarshal(raw, &ir); err != nil {
			t.Fatal(err)
		}
		methods[k] = ir.Method
	}
	want := map[string]string{"user_name": "elicitation/create", "capital": "sampling/createMessage", "roots": "roots/list"}
	if res.ResultType != "input_required" || !jsonEqual(methods, want) || res.RequestState == "" {
		t.Fatalf("round 1: %s %v state %q, want input_required %v", res.ResultType, methods, res.RequestState, want)
	}

	params["requestState"] = res.RequestState
	params["inputResponses"] = map[string]any{
		"capital": map[string]any{"role": "assistant", "content": map[string]any{"type": "text", "text": "Paris"}, "model": "m"},
	}
	r2 := postRaw(t, ctx, url, nil, "tools/call", params)
	res.InputRequests = nil
	r2.result(t, &res)
	if res.ResultType != "input_required" || len(res.InputRequests) != 2 || res.InputRequests["capital"] != nil {
		t.Fatalf("round 2: %s with %d requests, want the two unanswered ones", res.ResultType, len(res.InputRequests))
	}

	params["requestState"] = res.RequestState
	params["inputResponses"] = map[string]any{
		"user_name": map[string]any{"action": "accept", "content": map[string]any{"name": "Bob"}},
		"roots":     map[string]any{"roots": []any{}},
	}
	r3 := postRaw(t, ctx, url, nil, "tools/call", params)
	res.InputRequests = nil
	r3.result(t, &res)
	if res.ResultType != "complete" || len(res.Content) != 1 || !strings.Contains(res.Content[0]["text"].(string), "Bob asked; the model says Paris; 0 roots.") {
		t.Fatalf("round 3: %s %v", res.ResultType, res.Content)
	}

	// A sampling answer that is not a sampling result is invalid params.
	params["inputResponses"] = map[string]any{"capital": map[string]any{"action": "accept"}}
	delete(params, "requestState")
	r4 := postRaw(t, ctx, url, nil, "tools/call", params)
	if e := r4.rpcErr(t); e.Code != -32602 || !strings.Contains(e.Message, "not a valid sampling result") {
		t.Fatalf("malformed sampling answer: %+v", e)
	}
}

// TestNumberOutOfRange: arguments holding a number no float64 can hold
// (valid JSON) get the engine's precise error on 2026-07-28, as over a
// session or stdio, not the SDK's "failed to extract name" -32020 the lean
// path used to fall back to.
func TestNumberOutOfRange(t *testing.T) {
	ctx := testCtx(t)
	url := startHTTP(t, newServer(t, exampleFlows(t), ""))
	body := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"signup","arguments":{"seats":1e400},` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`)
	status, _, reply := rawPost(t, ctx, url, modernHeader("signup"), body)
	var msg struct {
		Result rawCallResult `json:"result"`
	}
	if err := json.Unmarshal(reply, &msg); err != nil || status != http.StatusOK {
		t.Fatalf("HTTP %d %s", status, reply)
	}
	wantComplete(t, &msg.Result, true, "number 1e400 is out of range")
}

// TestUnparsableBody: a body that is not JSON gets JSON-RPC's parse
// error, -32700 with a null id (HTTP 400), on every era's path.
func TestUnparsableBody(t *testing.T) {
	ctx := testCtx(t)
	url := startHTTP(t, newServer(t, exampleFlows(t), ""))
	for _, tc := range []struct {
		name   string
		header http.Header
	}{
		{"no version header (sessions)", nil},
		{"session version", http.Header{"Mcp-Protocol-Version": {v20251125}}},
		{"2026-07-28", modernHeader("signup")},
	} {
		status, h, reply := rawPost(t, ctx, url, tc.header, []byte(`{"jsonrpc":"2.0","id":1,"method":`))
		var msg struct {
			ID    json.RawMessage `json:"id"`
			Error struct {
				Code    int64  `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal(reply, &msg); err != nil || status != http.StatusBadRequest || msg.Error.Code != -32700 ||
			string(msg.ID) != "null" || !strings.HasPrefix(h.Get("Content-Type"), "application/json") {
			t.Errorf("%s: HTTP %d %s %s", tc.name, status, h.Get("Content-Type"), reply)
		}
	}
}
