package serve_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/flowserve/flowserve/flow"
	"github.com/flowserve/flowserve/serve"
)

// The prompt flows of the conformance fixtures.
var conformancePrompts = []string{
	"test_input_required_result_prompt",
	"test_prompt_with_arguments",
	"test_prompt_with_embedded_resource",
	"test_prompt_with_image",
	"test_simple_prompt",
}

// promptFlows returns the conformance prompt flows, the review_prompt test
// flow and the example (tool) flows.
func promptFlows(t testing.TB) []*flow.Program {
	t.Helper()
	progs := slices.Clone(exampleFlows(t))
	for _, name := range conformancePrompts {
		progs = append(progs, compileFile(t, filepath.Join("..", "testdata", "conformance", name+".yaml"), flow.Env{}))
	}
	return append(progs, testFlow(t, "review_prompt", flow.Env{}))
}

// getPrompt gets a prompt as the era's client does: one GetPrompt, or for
// manual eras a loop of rounds answering each inputRequest from sc.
func getPrompt(t testing.TB, ctx context.Context, cs *mcp.ClientSession, e era, sc *script, params *mcp.GetPromptParams) (*mcp.GetPromptResult, int, error) {
	t.Helper()
	if !e.manual {
		res, err := cs.GetPrompt(ctx, params)
		return res, 1, err
	}
	p := *params
	for round := 1; round <= roundsLimit; round++ {
		res, err := cs.GetPrompt(ctx, &p)
		if err != nil {
			return nil, round, err
		}
		if !res.NeedsInput() {
			if res.InputRequests != nil || res.RequestState != "" {
				t.Errorf("round %d: complete result with inputRequests %v, requestState %q", round, res.InputRequests, res.RequestState)
			}
			return res, round, nil
		}
		if len(res.InputRequests) == 0 || res.RequestState == "" || len(res.Messages) > 0 {
			t.Fatalf("round %d: input_required with %d input requests, requestState %q and messages %v", round, len(res.InputRequests), res.RequestState, res.Messages)
		}
		responses, err := answerAll(t, round, sc, res.InputRequests)
		if err != nil {
			return nil, round, err
		}
		p = *params
		p.Meta = maps.Clone(params.Meta)
		p.InputResponses = responses
		p.RequestState = res.RequestState
	}
	t.Fatalf("no result after %d rounds", roundsLimit)
	return nil, 0, nil
}

// TestPromptsList: prompt flows are listed by prompts/list, with their
// arguments in file order, and not by tools/list; tool flows are not
// prompts.
func TestPromptsList(t *testing.T) {
	srv := newServer(t, promptFlows(t), "")
	wantPrompts := append(slices.Clone(conformancePrompts), "review_prompt")
	slices.Sort(wantPrompts)
	if got := srv.Prompts(); !slices.Equal(got, wantPrompts) {
		t.Fatalf("Prompts() = %v, want %v", got, wantPrompts)
	}
	for _, version := range []string{v20260728, v20251125, v20250618} {
		for _, kind := range transports {
			t.Run(version+"/"+string(kind), func(t *testing.T) {
				t.Parallel()
				ctx := testCtx(t)
				cs := connect(t, ctx, srv, kind, version, clientFor(era{version: version}, nil, false, nil, nil), nil)
				res, err := cs.ListPrompts(ctx, nil)
				if err != nil {
					t.Fatal(err)
				}
				var names []string
				byName := map[string]*mcp.Prompt{}
				for _, p := range res.Prompts {
					names = append(names, p.Name)
					byName[p.Name] = p
				}
				if !slices.Equal(names, wantPrompts) {
					t.Errorf("prompts/list = %v, want %v", names, wantPrompts)
				}
				want := &mcp.Prompt{
					Name: "review_prompt", Title: "Code review",
					Description: "Asks how deep to go, then prompts for a review of the code.",
					Arguments: []*mcp.PromptArgument{
						{Name: "code", Title: "Code", Description: "The code to review", Required: true},
						{Name: "lang", Description: "Its language"},
					},
				}
				if !jsonEqual(byName["review_prompt"], want) {
					got, _ := json.Marshal(byName["review_prompt"])
					t.Errorf("review_prompt listed as %s", got)
				}
				if p := byName["test_simple_prompt"]; p == nil || len(p.Arguments) != 0 || p.Description == "" {
					t.Errorf("test_simple_prompt listed as %+v", p)
				}
				tools, err := cs.ListTools(ctx, nil)
				if err != nil {
					t.Fatal(err)
				}
				for _, tool := range tools.Tools {
					if slices.Contains(wantPrompts, tool.Name) {
						t.Errorf("tools/list lists the prompt %s", tool.Name)
					}
				}
				exposed := 0 // the example flows but the private ones (expose: false)
				for _, p := range exampleFlows(t) {
					if !p.Private() {
						exposed++
					}
				}
				if len(tools.Tools) != exposed {
					t.Errorf("tools/list has %d tools, want the %d exposed example flows", len(tools.Tools), exposed)
				}
				if _, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "signup"}); rpcErrorOf(err) == nil || rpcErrorOf(err).Code != jsonrpc.CodeInvalidParams {
					t.Errorf("prompts/get of a tool: %v, want -32602", err)
				}
				if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "test_simple_prompt"}); err == nil {
					t.Errorf("tools/call of a prompt succeeded")
				}
			})
		}
	}
}

// pngPixel is the image of the conformance fixtures.
const pngPixel = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC"

// TestGetPrompt gets the conformance prompts on every era and transport.
func TestGetPrompt(t *testing.T) {
	srv := newServer(t, promptFlows(t), "")
	text := func(role, s string) map[string]any {
		return map[string]any{"role": role, "content": map[string]any{"type": "text", "text": s}}
	}
	tests := []struct {
		name string
		args map[string]string
		want []map[string]any
	}{
		{name: "test_simple_prompt", want: []map[string]any{text("user", "This is a simple prompt for testing.")}},
		{name: "test_prompt_with_arguments", args: map[string]string{"arg1": "testValue1", "arg2": "testValue2"},
			want: []map[string]any{text("user", "Prompt with arguments: arg1='testValue1', arg2='testValue2'")}},
		{name: "test_prompt_with_embedded_resource", args: map[string]string{"resourceUri": "test://example-resource"},
			want: []map[string]any{
				{"role": "user", "content": map[string]any{"type": "resource", "resource": map[string]any{
					"uri": "test://example-resource", "mimeType": "text/plain", "text": "Embedded resource content for testing."}}},
				text("user", "Please process the embedded resource above."),
			}},
		{name: "test_prompt_with_image", want: []map[string]any{
			{"role": "user", "content": map[string]any{"type": "image", "data": pngPixel, "mimeType": "image/png"}},
			text("user", "Please analyze the image above."),
		}},
	}
	for _, tc := range tests {
		for _, version := range []string{v20260728, v20251125, v20250618} {
			for _, kind := range transports {
				t.Run(tc.name+"/"+version+"/"+string(kind), func(t *testing.T) {
					t.Parallel()
					ctx := testCtx(t)
					cs := connect(t, ctx, srv, kind, version, clientFor(era{version: version}, nil, false, nil, nil), nil)
					res, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: tc.name, Arguments: tc.args})
					if err != nil {
						t.Fatal(err)
					}
					if !jsonEqual(res.Messages, tc.want) {
						got, _ := json.Marshal(res.Messages)
						t.Errorf("messages %s", got)
					}
				})
			}
		}
	}
}

// TestPromptAsks gets a prompt that asks first, on every era: MRTR rounds
// on 2026-07-28 (the SDK's loop, or the test's), elicitation inside the
// call on sessions.
func TestPromptAsks(t *testing.T) {
	srv := newServer(t, promptFlows(t), "")
	want := []map[string]any{
		{"role": "user", "content": map[string]any{"type": "text", "text": "Review this code (thorough): x := 1"}},
		{"role": "assistant", "content": map[string]any{"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}},
		{"role": "user", "content": map[string]any{"type": "resource", "resource": map[string]any{
			"uri": "file:///code.txt", "mimeType": "text/plain", "text": "x := 1"}}},
	}
	for _, e := range eras {
		for _, kind := range transports {
			t.Run(e.name+"/"+string(kind), func(t *testing.T) {
				t.Parallel()
				ctx := testCtx(t)
				sc := newScript(t, e.version, []question{{id: "depth", has: []string{"How deep should the review of x := 1 go?"},
					answer: accept(map[string]any{"depth": "thorough"})}})
				cs := connect(t, ctx, srv, kind, e.version, clientFor(e, sc, false, nil, nil), nil)
				res, rounds, err := getPrompt(t, ctx, cs, e, sc, &mcp.GetPromptParams{Name: "review_prompt", Arguments: map[string]string{"code": "x := 1"}})
				if err != nil {
					t.Fatal(err)
				}
				if res.Description != "A thorough review" || !jsonEqual(res.Messages, want) {
					got, _ := json.Marshal(res)
					t.Errorf("result %s", got)
				}
				if sc.count() != 1 {
					t.Errorf("asked %d questions, want 1", sc.count())
				}
				if e.manual && rounds != 2 {
					t.Errorf("%d rounds, want 2", rounds)
				}
			})
		}
	}
}

// TestPromptErrors: prompts have no error results, so a prompt flow's
// failures are JSON-RPC errors on every era: a fail node is -32603 with
// its message, invalid arguments -32602 naming each, an unknown prompt
// -32602; a question the client cannot answer is -32021 on 2026-07-28
// and -32603 on sessions.
func TestPromptErrors(t *testing.T) {
	srv := newServer(t, promptFlows(t), "")
	tests := []struct {
		name   string
		prompt string
		args   map[string]string
		caps   *mcp.ClientCapabilities
		eras   []string
		code   int64
		has    []string
	}{
		{name: "fail node", prompt: "review_prompt", args: map[string]string{"code": "fail"},
			code: jsonrpc.CodeInternalError, has: []string{"Cannot review fail."}},
		{name: "missing argument", prompt: "review_prompt", args: map[string]string{"lang": "go"},
			code: jsonrpc.CodeInvalidParams, has: []string{"invalid arguments", "code"}},
		{name: "two bad arguments", prompt: "test_prompt_with_arguments", args: map[string]string{"arg3": "x"},
			code: jsonrpc.CodeInvalidParams, has: []string{"arg1", "arg2"}},
		{name: "unknown prompt", prompt: "nope", code: jsonrpc.CodeInvalidParams, has: []string{`unknown prompt "nope"`}},
		{name: "no elicitation", prompt: "review_prompt", args: map[string]string{"code": "x"}, caps: &mcp.ClientCapabilities{},
			eras: []string{v20260728}, code: codeMissingCapability, has: []string{"elicitation"}},
		{name: "no elicitation", prompt: "review_prompt", args: map[string]string{"code": "x"}, caps: &mcp.ClientCapabilities{},
			eras: sessionEras, code: jsonrpc.CodeInternalError, has: []string{"review_prompt prompt needs to ask the user a question", "form mode"}},
	}
	for _, tc := range tests {
		for _, version := range []string{v20260728, v20251125, v20250618} {
			if tc.eras != nil && !slices.Contains(tc.eras, version) {
				continue
			}
			for _, kind := range transports {
				t.Run(tc.name+"/"+version+"/"+string(kind), func(t *testing.T) {
					t.Parallel()
					ctx := testCtx(t)
					sc := newScript(t, version, nil)
					cs := connect(t, ctx, srv, kind, version, clientFor(era{version: version}, sc, false, tc.caps, nil), nil)
					res, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: tc.prompt, Arguments: tc.args})
					e := rpcErrorOf(err)
					if e == nil {
						t.Fatalf("result %+v, error %v; want JSON-RPC error %d", res, err, tc.code)
					}
					if e.Code != tc.code {
						t.Errorf("code %d (%s), want %d", e.Code, e.Message, tc.code)
					}
					for _, s := range tc.has {
						if !strings.Contains(e.Message, s) {
							t.Errorf("message %q lacks %q", e.Message, s)
						}
					}
				})
			}
		}
	}
}

// TestPromptRaw runs a prompt's rounds as sent over HTTP, through the lean
// path: input_required with the question and a state, then the messages;
// a tampered state and mismatched headers are rejected as for tools/call.
func TestPromptRaw(t *testing.T) {
	ctx := testCtx(t)
	url := startHTTP(t, newServer(t, promptFlows(t), ""))
	params := func(name string, extra map[string]any) map[string]any {
		p := map[string]any{"name": name, "_meta": modernMeta(formCaps)}
		maps.Copy(p, extra)
		return p
	}
	first := postRaw(t, ctx, url, nil, "prompts/get", params("test_input_required_result_prompt", nil))
	var r1 struct {
		rawCallResult
		Messages json.RawMessage `json:"messages"`
	}
	first.result(t, &r1)
	if r1.ResultType != "input_required" || r1.RequestState == "" || r1.Messages != nil {
		t.Fatalf("round 1: %s", first.body)
	}
	q := r1.inputRequest(t, "user_context")
	if q.Method != "elicitation/create" || q.Params.Message != "What context should the prompt use?" ||
		!jsonEqual(q.Params.RequestedSchema["required"], []any{"context"}) {
		t.Errorf("round 1 asks %+v", q)
	}
	answer := map[string]any{"user_context": map[string]any{"action": "accept", "content": map[string]any{"context": "test context"}}}
	second := postRaw(t, ctx, url, nil, "prompts/get", params("test_input_required_result_prompt", map[string]any{
		"inputResponses": answer, "requestState": r1.RequestState}))
	var r2 struct {
		ResultType string `json:"resultType"`
		Meta       struct {
			ServerInfo map[string]any `json:"io.modelcontextprotocol/serverInfo"`
		} `json:"_meta"`
		Messages []map[string]any `json:"messages"`
	}
	second.result(t, &r2)
	want := []map[string]any{{"role": "user", "content": map[string]any{"type": "text", "text": "Please answer with this context in mind: test context"}}}
	if r2.ResultType != "complete" || !jsonEqual(r2.Messages, want) || r2.Meta.ServerInfo["name"] != "flowserve" {
		t.Errorf("round 2: %s", second.body)
	}
	if second.contentType != "application/json" {
		t.Errorf("round 2 content type %q", second.contentType)
	}

	errs := []struct {
		name   string
		method string
		params map[string]any
		header map[string]string
		status int
		code   int
		has    string
	}{
		{name: "tampered state", method: "prompts/get", params: params("test_input_required_result_prompt", map[string]any{
			"inputResponses": answer, "requestState": r1.RequestState + "-TAMPERED"}), status: 400, code: -32602, has: "requestState"},
		{name: "state of another prompt", method: "prompts/get", params: params("review_prompt", map[string]any{
			"arguments": map[string]any{"code": "x"}, "inputResponses": answer, "requestState": r1.RequestState}), status: 400, code: -32602, has: "requestState"},
		{name: "Mcp-Name mismatch", method: "prompts/get", params: params("test_simple_prompt", nil),
			header: map[string]string{"Mcp-Name": "other"}, status: 400, code: -32020, has: "Mcp-Name"},
		{name: "Mcp-Method mismatch", method: "prompts/get", params: params("test_simple_prompt", nil),
			header: map[string]string{"Mcp-Method": "tools/call"}, status: 400, code: -32020, has: "Mcp-Method"},
		{name: "unknown prompt", method: "prompts/get", params: params("signup", nil), status: 400, code: -32602, has: `unknown prompt "signup"`},
		{name: "a prompt called as a tool", method: "tools/call", params: params("test_simple_prompt", nil), status: 400, code: -32602, has: `unknown tool "test_simple_prompt"`},
		{name: "argument that is not a string", method: "prompts/get", params: params("test_prompt_with_arguments", map[string]any{
			"arguments": map[string]any{"arg1": 1, "arg2": "b"}}), status: 400, code: -32602, has: "arg1"},
		{name: "fail node", method: "prompts/get", params: params("review_prompt", map[string]any{
			"arguments": map[string]any{"code": "fail"}}), status: 200, code: -32603, has: "Cannot review fail."},
		{name: "no elicitation", method: "prompts/get", params: map[string]any{"name": "review_prompt",
			"arguments": map[string]any{"code": "x"}, "_meta": modernMeta(map[string]any{})}, status: 400, code: -32021, has: "elicitation"},
	}
	for _, tc := range errs {
		t.Run(tc.name, func(t *testing.T) {
			h := map[string][]string{}
			for k, v := range tc.header {
				h[k] = []string{v}
			}
			reply := postRaw(t, ctx, url, h, tc.method, tc.params)
			e := reply.rpcErr(t)
			if reply.status != tc.status || e.Code != tc.code || !strings.Contains(e.Message, tc.has) {
				t.Errorf("HTTP %d, error %d %q; want HTTP %d, error %d containing %q", reply.status, e.Code, e.Message, tc.status, tc.code, tc.has)
			}
		})
	}
}

// TestCompletion completes prompt arguments from their enum and examples.
func TestCompletion(t *testing.T) {
	many := "kind: prompt\ndescription: Many values.\ninput:\n  type: object\n  properties:\n    n:\n      type: string\n      enum: ["
	for i := range 150 {
		if i > 0 {
			many += ", "
		}
		many += fmt.Sprintf("v%03d", i)
	}
	many += "]\nnodes:\n  - return: hi\n"
	progs := append(promptFlows(t), compileSource(t, "many.yaml", []byte(many), flow.Env{}))
	srv := newServer(t, progs, "")
	tests := []struct {
		name    string
		ref     *mcp.CompleteReference
		arg     string
		value   string
		want    []string
		total   int
		hasMore bool
		code    int64
	}{
		{name: "enum and examples, ignoring case", ref: &mcp.CompleteReference{Type: "ref/prompt", Name: "review_prompt"},
			arg: "lang", value: "G", want: []string{"go", "golang", "Gleam"}, total: 3},
		{name: "every value", ref: &mcp.CompleteReference{Type: "ref/prompt", Name: "review_prompt"},
			arg: "lang", want: []string{"go", "golang", "rust", "python", "Gleam"}, total: 5},
		{name: "no match", ref: &mcp.CompleteReference{Type: "ref/prompt", Name: "review_prompt"}, arg: "lang", value: "x", want: []string{}},
		{name: "no enum", ref: &mcp.CompleteReference{Type: "ref/prompt", Name: "review_prompt"}, arg: "code", value: "x", want: []string{}},
		{name: "unknown argument", ref: &mcp.CompleteReference{Type: "ref/prompt", Name: "review_prompt"}, arg: "nope", want: []string{}},
		{name: "conformance", ref: &mcp.CompleteReference{Type: "ref/prompt", Name: "test_prompt_with_arguments"},
			arg: "arg1", value: "test", want: []string{"testValue1", "test"}, total: 2},
		{name: "at most 100", ref: &mcp.CompleteReference{Type: "ref/prompt", Name: "many"}, arg: "n", value: "v",
			total: 150, hasMore: true},
		{name: "resource", ref: &mcp.CompleteReference{Type: "ref/resource", URI: "test://x"}, arg: "id", value: "1", want: []string{}},
		{name: "unknown prompt", ref: &mcp.CompleteReference{Type: "ref/prompt", Name: "nope"}, arg: "a", code: jsonrpc.CodeInvalidParams},
	}
	for _, version := range []string{v20260728, v20251125} {
		ctx := testCtx(t)
		cs := connect(t, ctx, srv, overHTTP, version, clientFor(era{version: version}, nil, false, nil, nil), nil)
		for _, tc := range tests {
			t.Run(tc.name+"/"+version, func(t *testing.T) {
				res, err := cs.Complete(ctx, &mcp.CompleteParams{Ref: tc.ref, Argument: mcp.CompleteParamsArgument{Name: tc.arg, Value: tc.value}})
				if tc.code != 0 {
					if e := rpcErrorOf(err); e == nil || e.Code != tc.code {
						t.Fatalf("result %+v, error %v; want JSON-RPC error %d", res, err, tc.code)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				c := res.Completion
				if tc.want == nil {
					if len(c.Values) != 100 || c.Values[0] != "v000" || c.Values[99] != "v099" {
						t.Errorf("%d values %v…", len(c.Values), c.Values[:min(3, len(c.Values))])
					}
				} else if !slices.Equal(c.Values, tc.want) {
					t.Errorf("values %q, want %q", c.Values, tc.want)
				}
				if c.Total != tc.total || c.HasMore != tc.hasMore {
					t.Errorf("total %d, hasMore %v; want %d, %v", c.Total, c.HasMore, tc.total, tc.hasMore)
				}
			})
		}
	}
}

// TestReplacePrompts: replacing flows adds and removes prompts, and tells
// session clients that the prompt list changed; names are unique across
// tools and prompts.
func TestReplacePrompts(t *testing.T) {
	ctx := testCtx(t)
	srv := newServer(t, exampleFlows(t), "")
	changed := make(chan struct{}, 10)
	client := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, &mcp.ClientOptions{
		PromptListChangedHandler: func(context.Context, *mcp.PromptListChangedRequest) { changed <- struct{}{} },
	})
	cs := connect(t, ctx, srv, inMemory, v20251125, client, nil)
	list := func() []string {
		t.Helper()
		res, err := cs.ListPrompts(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, p := range res.Prompts {
			names = append(names, p.Name)
		}
		return names
	}
	wait := func() {
		t.Helper()
		select {
		case <-changed:
		case <-ctx.Done():
			t.Fatal("no notifications/prompts/list_changed")
		}
	}
	if got := list(); len(got) != 0 {
		t.Fatalf("prompts before: %v", got)
	}
	review := testFlow(t, "review_prompt", flow.Env{})
	if err := srv.Replace(append(slices.Clone(exampleFlows(t)), review)); err != nil {
		t.Fatal(err)
	}
	wait()
	if got := list(); !slices.Equal(got, []string{"review_prompt"}) || !slices.Equal(srv.Prompts(), got) {
		t.Errorf("prompts after adding: %v (Prompts() %v)", got, srv.Prompts())
	}
	if err := srv.Replace(exampleFlows(t)); err != nil {
		t.Fatal(err)
	}
	wait()
	if got := list(); len(got) != 0 {
		t.Errorf("prompts after removing: %v", got)
	}
	clash := compileSource(t, "signup_prompt.yaml", []byte("name: signup\nkind: prompt\ndescription: x\nnodes: [{return: hi}]\n"), flow.Env{})
	if err := srv.Replace(append(slices.Clone(exampleFlows(t)), clash)); err == nil || !strings.Contains(err.Error(), `"signup" is defined twice`) {
		t.Errorf("Replace with a prompt named like a tool: %v", err)
	}
}

// TestPromptRoundLogs: a prompt's rounds are logged with prompt=<name>,
// and a failing prompt as a protocol error with code -32603.
func TestPromptRoundLogs(t *testing.T) {
	ctx := testCtx(t)
	var logs logBuffer
	srv := serverWith(t, promptFlows(t), serve.Options{Logger: logs.logger(slog.LevelDebug)})
	url := startHTTP(t, srv)
	params := func(args map[string]any) map[string]any {
		return map[string]any{"name": "review_prompt", "arguments": args, "_meta": modernMeta(formCaps)}
	}
	first := postRaw(t, ctx, url, nil, "prompts/get", params(map[string]any{"code": "x"}))
	var r1 rawCallResult
	first.result(t, &r1)
	p := params(map[string]any{"code": "x"})
	p["inputResponses"] = map[string]any{"depth": map[string]any{"action": "accept", "content": map[string]any{"depth": "quick"}}}
	p["requestState"] = r1.RequestState
	var r2 map[string]any
	postRaw(t, ctx, url, nil, "prompts/get", p).result(t, &r2)
	postRaw(t, ctx, url, nil, "prompts/get", params(map[string]any{"code": "fail"})).rpcErr(t)

	var rounds []map[string]any
	for _, r := range logs.records(t) {
		if _, ok := r["outcome"]; ok {
			rounds = append(rounds, r)
		}
	}
	want := []map[string]any{
		{"level": "DEBUG", "msg": "round needs input", "prompt": "review_prompt", "outcome": "input_required", "node": "depth"},
		{"level": "INFO", "msg": "call finished", "prompt": "review_prompt", "outcome": "complete", "round": 2.0},
		{"level": "INFO", "msg": "prompt failed", "prompt": "review_prompt", "outcome": "protocol_error", "code": "-32603", "node": "refuse"},
	}
	if len(rounds) != len(want) {
		t.Fatalf("%d round records, want %d: %v", len(rounds), len(want), rounds)
	}
	for i, w := range want {
		for k, v := range w {
			if rounds[i][k] != v {
				t.Errorf("record %d: %s = %v, want %v (%v)", i, k, rounds[i][k], v, rounds[i])
			}
		}
		if _, ok := rounds[i]["tool"]; ok {
			t.Errorf("record %d names a tool: %v", i, rounds[i])
		}
	}
}
