package serve_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/flowserve/flowserve/flow"
	"github.com/flowserve/flowserve/flow/state"
	"github.com/flowserve/flowserve/serve"
)

const codeInvalidParams = -32602

// clock is a settable clock for state.Options.Now.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// compileExamples compiles the example flows afresh with opts.
func compileExamples(t testing.TB, env flow.Env) []*flow.Program {
	t.Helper()
	files, err := exampleFlowFiles()
	if err != nil || len(files) == 0 {
		t.Fatalf("no example flows: %v", err)
	}
	var progs []*flow.Program
	for _, f := range files {
		progs = append(progs, compileFile(t, f, env))
	}
	return progs
}

// rawServer serves the example flows over HTTP with a codec on clk and
// TTL, and returns the endpoint URL and the fs root.
func rawServer(t testing.TB, clk *clock, ttl time.Duration) (url, root string) {
	t.Helper()
	_, url, root = rawServerWith(t, clk, ttl)
	return url, root
}

// rawServerWith is rawServer also returning the server.
func rawServerWith(t testing.TB, clk *clock, ttl time.Duration) (srv *serve.Server, url, root string) {
	t.Helper()
	codec := newCodec(t, state.Options{TTL: ttl, Now: clk.now})
	progs := compileExamples(t, flow.Env{})
	root = t.TempDir()
	srv = newServerOn(t, progs, root, newEngine(t, flow.EngineOptions{Codec: codec}))
	return srv, startHTTP(t, srv), root
}

// rawRound sends one tools/call round and decodes its result.
func rawRound(t testing.TB, ctx context.Context, url string, header http.Header, params map[string]any) *rawCallResult {
	t.Helper()
	var res rawCallResult
	postRaw(t, ctx, url, header, "tools/call", params).result(t, &res)
	return &res
}

// wantInputRequired checks that res asks exactly the question key.
func wantInputRequired(t testing.TB, res *rawCallResult, key string) {
	t.Helper()
	if res.ResultType != "input_required" || res.RequestState == "" || len(res.InputRequests) != 1 {
		t.Fatalf("want input_required asking %q, got resultType %q, %d input requests, text %q",
			key, res.ResultType, len(res.InputRequests), res.text())
	}
	if ir := res.inputRequest(t, key); ir.Method != "elicitation/create" {
		t.Errorf("input request %q has method %q", key, ir.Method)
	}
}

// wantComplete checks that res is a complete result with the text.
func wantComplete(t testing.TB, res *rawCallResult, isError bool, has ...string) {
	t.Helper()
	if res.ResultType != "complete" || res.InputRequests != nil || res.RequestState != "" {
		t.Fatalf("want a complete result, got resultType %q, inputRequests %v, requestState %q",
			res.ResultType, res.InputRequests, res.RequestState)
	}
	if res.IsError != isError {
		t.Errorf("isError = %v, want %v; text %q", res.IsError, isError, res.text())
	}
	for _, s := range has {
		if !strings.Contains(res.text(), s) {
			t.Errorf("text %q lacks %q", res.text(), s)
		}
	}
}

func bearer(token string) http.Header {
	return http.Header{"Authorization": {"Bearer " + token}}
}

var (
	adaAnswer   = map[string]any{"action": "accept", "content": ada}
	proceedTrue = map[string]any{"action": "accept", "content": map[string]any{"proceed": true}}
)

// retry builds the params of a later round.
func retry(tool string, args any, st string, responses map[string]any) map[string]any {
	p := callParams(tool, args, formCaps)
	if st != "" {
		p["requestState"] = st
	}
	if responses != nil {
		p["inputResponses"] = responses
	}
	return p
}

// TestRequestStateRejected sends states that are not valid for the call:
// each is a JSON-RPC -32602 that says nothing about why, except expiry.
func TestRequestStateRejected(t *testing.T) {
	const ttl = 10 * time.Minute
	const invalid = "requestState is not valid for this call"
	const expired = "requestState has expired; call the tool again"
	tests := []struct {
		name   string
		tool   string
		args   map[string]any
		header http.Header // of round 1
		// second builds round 2 from round 1's state; it may advance clk.
		second func(t *testing.T, st string, clk *clock) (params map[string]any, header http.Header)
		want   string
	}{
		{name: "tampered", tool: "signup", want: invalid,
			second: func(t *testing.T, st string, _ *clock) (map[string]any, http.Header) {
				b := []byte(st)
				i := len(b) / 2
				if b[i] == 'A' {
					b[i] = 'B'
				} else {
					b[i] = 'A'
				}
				return retry("signup", map[string]any{}, string(b), map[string]any{"details": adaAnswer}), nil
			}},
		{name: "truncated", tool: "signup", want: invalid,
			second: func(t *testing.T, st string, _ *clock) (map[string]any, http.Header) {
				return retry("signup", map[string]any{}, st[:len(st)-6], map[string]any{"details": adaAnswer}), nil
			}},
		{name: "unknown key id", tool: "signup", want: invalid,
			second: func(t *testing.T, st string, _ *clock) (map[string]any, http.Header) {
				_, payload, _ := strings.Cut(st, ".")
				return retry("signup", map[string]any{}, "other."+payload, map[string]any{"details": adaAnswer}), nil
			}},
		{name: "garbage", tool: "signup", want: invalid,
			second: func(t *testing.T, st string, _ *clock) (map[string]any, http.Header) {
				return retry("signup", map[string]any{}, "not a state", map[string]any{"details": adaAnswer}), nil
			}},
		{name: "expired", tool: "signup", want: expired,
			second: func(t *testing.T, st string, clk *clock) (map[string]any, http.Header) {
				clk.advance(ttl)
				return retry("signup", map[string]any{}, st, map[string]any{"details": adaAnswer}), nil
			}},
		{name: "another tool", tool: "signup", want: invalid,
			second: func(t *testing.T, st string, _ *clock) (map[string]any, http.Header) {
				return retry("expense_approval", taxi, st, map[string]any{"decision": map[string]any{"action": "accept", "content": map[string]any{"decision": "approve"}}}), nil
			}},
		{name: "other arguments", tool: "expense_approval", args: taxi, want: invalid,
			second: func(t *testing.T, st string, _ *clock) (map[string]any, http.Header) {
				return retry("expense_approval", map[string]any{"description": "Taxi", "amount": 900}, st,
					map[string]any{"decision": map[string]any{"action": "accept", "content": map[string]any{"decision": "approve"}}}), nil
			}},
		{name: "other defaulted arguments", tool: "expense_approval", args: taxi, want: invalid,
			second: func(t *testing.T, st string, _ *clock) (map[string]any, http.Header) {
				return retry("expense_approval", map[string]any{"description": "Taxi", "amount": 800, "limit": 100}, st,
					map[string]any{"decision": map[string]any{"action": "accept", "content": map[string]any{"decision": "approve"}}}), nil
			}},
		{name: "another principal", tool: "signup", header: bearer("A"), want: invalid,
			second: func(t *testing.T, st string, _ *clock) (map[string]any, http.Header) {
				return retry("signup", map[string]any{}, st, map[string]any{"details": adaAnswer}), bearer("B")
			}},
		{name: "principal dropped", tool: "signup", header: bearer("A"), want: invalid,
			second: func(t *testing.T, st string, _ *clock) (map[string]any, http.Header) {
				return retry("signup", map[string]any{}, st, map[string]any{"details": adaAnswer}), nil
			}},
		{name: "principal added", tool: "signup", want: invalid,
			second: func(t *testing.T, st string, _ *clock) (map[string]any, http.Header) {
				return retry("signup", map[string]any{}, st, map[string]any{"details": adaAnswer}), bearer("A")
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := testCtx(t)
			clk := &clock{t: time.Date(2026, 8, 1, 12, 0, 0, 0, time.UTC)}
			url, _ := rawServer(t, clk, ttl)
			args := tc.args
			if args == nil {
				args = map[string]any{}
			}
			first := rawRound(t, ctx, url, tc.header, callParams(tc.tool, args, formCaps))
			if first.RequestState == "" {
				t.Fatalf("round 1 gave no requestState: %+v", first)
			}
			params, header := tc.second(t, first.RequestState, clk)
			reply := postRaw(t, ctx, url, header, "tools/call", params)
			e := reply.rpcErr(t)
			if e.Code != codeInvalidParams {
				t.Errorf("code %d, want %d (message %q)", e.Code, codeInvalidParams, e.Message)
			}
			if e.Message != tc.want {
				t.Errorf("message %q, want %q", e.Message, tc.want)
			}
		})
	}
}

// TestRequestStateAccepted is the other side of TestRequestStateRejected:
// the same principal, arguments and tool, within the TTL.
func TestRequestStateAccepted(t *testing.T) {
	const ttl = 10 * time.Minute
	tests := []struct {
		name           string
		first, second  http.Header
		advance        time.Duration
		args1, args2   map[string]any
		wantSecondText string
	}{
		{name: "same bearer", first: bearer("A"), second: bearer("A")},
		{name: "same bearer, other scheme case", first: bearer("A"), second: http.Header{"Authorization": {"bearer A"}}},
		{name: "no bearer", first: nil, second: nil},
		{name: "just before expiry", advance: ttl - time.Second},
		// Defaults are applied before the digest: the omitted limit is 500.
		{name: "explicit default argument", args1: taxi, args2: map[string]any{"description": "Taxi", "amount": 800, "limit": 500}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := testCtx(t)
			clk := &clock{t: time.Date(2026, 8, 1, 12, 0, 0, 0, time.UTC)}
			url, _ := rawServer(t, clk, ttl)
			if tc.args1 != nil {
				first := rawRound(t, ctx, url, tc.first, callParams("expense_approval", tc.args1, formCaps))
				wantInputRequired(t, first, "decision")
				clk.advance(tc.advance)
				res := rawRound(t, ctx, url, tc.second, retry("expense_approval", tc.args2, first.RequestState,
					map[string]any{"decision": map[string]any{"action": "accept", "content": map[string]any{"decision": "reject"}}}))
				wantComplete(t, res, false, "Rejected 800 EUR for Taxi.")
				return
			}
			first := rawRound(t, ctx, url, tc.first, callParams("signup", map[string]any{}, formCaps))
			wantInputRequired(t, first, "details")
			clk.advance(tc.advance)
			res := rawRound(t, ctx, url, tc.second, retry("signup", map[string]any{}, first.RequestState, map[string]any{"details": adaAnswer}))
			wantComplete(t, res, false, "Signed up Ada Lovelace")
		})
	}
}

// TestStateFromAnotherServer: a state sealed with another key is rejected
// like a forged one.
func TestStateFromAnotherServer(t *testing.T) {
	ctx := testCtx(t)
	clk := &clock{t: time.Now()}
	urlA, _ := rawServer(t, clk, time.Hour)
	urlB, _ := rawServer(t, clk, time.Hour)
	first := rawRound(t, ctx, urlA, nil, callParams("signup", map[string]any{}, formCaps))
	wantInputRequired(t, first, "details")
	e := postRaw(t, ctx, urlB, nil, "tools/call", retry("signup", map[string]any{}, first.RequestState, map[string]any{"details": adaAnswer})).rpcErr(t)
	if e.Code != codeInvalidParams {
		t.Errorf("code %d (%s), want %d", e.Code, e.Message, codeInvalidParams)
	}
}

// TestMalformedInputResponses sends inputResponses entries that are not
// elicitation results, over HTTP and over stdio (the new protocol on an
// IO transport). Over HTTP, flowserve's own 2026-07-28 handler keeps the
// answers raw and the engine rejects every malformed one with -32602
// naming the entry. Over stdio some never reach flowserve: the SDK
// decodes inputResponses itself (probing for action, role or roots) and
// rejects what it cannot decode with its own -32602. Never code 0.
func TestMalformedInputResponses(t *testing.T) {
	tests := []struct {
		name  string
		value any
		// sdk: rejected by go-sdk's params decoding on stdio, not flowserve.
		sdk bool
	}{
		{name: "number", value: 12345, sdk: true},
		{name: "string", value: "yes", sdk: true},
		{name: "array", value: []any{1}, sdk: true},
		{name: "null", value: nil, sdk: true},
		{name: "object without action", value: map[string]any{"content": map[string]any{}}, sdk: true},
		{name: "action not a string", value: map[string]any{"action": 5}, sdk: true},
		{name: "content not an object", value: map[string]any{"action": "accept", "content": "x"}, sdk: true},
		{name: "unknown action", value: map[string]any{"action": "maybe"}},
		{name: "empty action", value: map[string]any{"action": ""}},
		{name: "sampling result", value: map[string]any{"role": "assistant", "content": map[string]any{"type": "text", "text": "hi"}, "model": "m"}},
		{name: "roots result", value: map[string]any{"roots": []any{}}},
	}
	ctx := testCtx(t)
	srv, url, _ := rawServerWith(t, &clock{t: time.Now()}, time.Hour)
	stdio := newRawSession(t, ctx, srv)
	send := map[string]func(params map[string]any) *rpcMessage{
		"http": func(params map[string]any) *rpcMessage {
			return postRaw(t, ctx, url, nil, "tools/call", params).response
		},
		"stdio": func(params map[string]any) *rpcMessage { return stdio.call("tools/call", params) },
	}
	for _, kind := range []string{"http", "stdio"} {
		var first rawCallResult
		if resp := send[kind](callParams("signup", map[string]any{}, formCaps)); resp.Error != nil {
			t.Fatalf("%s: round 1: %d %s", kind, resp.Error.Code, resp.Error.Message)
		} else if err := json.Unmarshal(resp.Result, &first); err != nil {
			t.Fatal(err)
		}
		wantInputRequired(t, &first, "details")
		for _, tc := range tests {
			for _, withState := range []bool{true, false} {
				name := kind + "/" + tc.name
				st := first.RequestState
				if !withState {
					name += "/without state"
					st = ""
				}
				t.Run(name, func(t *testing.T) {
					resp := send[kind](retry("signup", map[string]any{}, st, map[string]any{"details": tc.value}))
					if resp == nil || resp.Error == nil {
						t.Fatalf("want a JSON-RPC error, got %+v", resp)
					}
					e := resp.Error
					if e.Code != codeInvalidParams {
						t.Errorf("code %d, want %d (message %q)", e.Code, codeInvalidParams, e.Message)
					}
					bySDK := tc.sdk && kind == "stdio"
					if ours := strings.Contains(e.Message, `inputResponses["details"] is not a valid elicitation result`); ours == bySDK {
						t.Errorf("rejected by flowserve: %v, want %v: %q", ours, !bySDK, e.Message)
					}
					t.Logf("%d %q", e.Code, e.Message)
				})
			}
		}
	}
}

// TestMissingAnswers: a round without the answer it needs asks the same
// question again (input_required, not an error), with a new state.
func TestMissingAnswers(t *testing.T) {
	tests := []struct {
		name      string
		responses map[string]any
	}{
		{name: "no inputResponses"},
		{name: "empty inputResponses", responses: map[string]any{}},
		{name: "answers to other questions", responses: map[string]any{"confirm": proceedTrue, "bogus": adaAnswer}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := testCtx(t)
			url, _ := rawServer(t, &clock{t: time.Now()}, time.Hour)
			first := rawRound(t, ctx, url, nil, callParams("signup", map[string]any{}, formCaps))
			wantInputRequired(t, first, "details")
			again := rawRound(t, ctx, url, nil, retry("signup", map[string]any{}, first.RequestState, tc.responses))
			wantInputRequired(t, again, "details")
			if a, b := first.inputRequest(t, "details").Params.Message, again.inputRequest(t, "details").Params.Message; a != b {
				t.Errorf("asked again with message %q, first %q", b, a)
			}
			if again.RequestState == first.RequestState {
				t.Errorf("the same requestState came back")
			}
			res := rawRound(t, ctx, url, nil, retry("signup", map[string]any{}, again.RequestState, map[string]any{"details": adaAnswer}))
			wantComplete(t, res, false, "Signed up Ada Lovelace")
		})
	}
}

// TestUnknownResponseKeysIgnored: answers to questions that were not
// asked are ignored.
func TestUnknownResponseKeysIgnored(t *testing.T) {
	ctx := testCtx(t)
	url, _ := rawServer(t, &clock{t: time.Now()}, time.Hour)

	first := rawRound(t, ctx, url, nil, callParams("signup", map[string]any{}, formCaps))
	wantInputRequired(t, first, "details")
	res := rawRound(t, ctx, url, nil, retry("signup", map[string]any{}, first.RequestState, map[string]any{
		"details": adaAnswer,
		"bogus":   map[string]any{"action": "decline"},
		"confirm": proceedTrue,
	}))
	wantComplete(t, res, false, "Signed up Ada Lovelace")

	// An answer to a question the round has not asked yet is not used:
	// revised is asked after decision's answer, in a later round.
	first = rawRound(t, ctx, url, nil, callParams("expense_approval", taxi, formCaps))
	wantInputRequired(t, first, "decision")
	res = rawRound(t, ctx, url, nil, retry("expense_approval", taxi, first.RequestState, map[string]any{
		"decision": map[string]any{"action": "accept", "content": map[string]any{"decision": "revise"}},
		"revised":  map[string]any{"action": "accept", "content": map[string]any{"amount": 100}},
	}))
	wantInputRequired(t, res, "revised")
}

// TestAnswerWithoutState: on a call without state, an answer keyed by the
// first question the flow reaches is taken (DESIGN §4).
func TestAnswerWithoutState(t *testing.T) {
	ctx := testCtx(t)
	url, root := rawServer(t, &clock{t: time.Now()}, time.Hour)
	writeFile(t, root, "report.txt", "hello world")
	res := rawRound(t, ctx, url, nil, retry("signup", map[string]any{}, "", map[string]any{"details": adaAnswer}))
	wantComplete(t, res, false, "Signed up Ada Lovelace")
	res = rawRound(t, ctx, url, nil, retry("delete_file", report, "", map[string]any{"confirm": proceedTrue}))
	wantComplete(t, res, false, "Deleted report.txt.")
	if exists(t, root, "report.txt") {
		t.Error("report.txt was not deleted")
	}
	// Not for a later question.
	res = rawRound(t, ctx, url, nil, retry("github_signin", issueBody, "", map[string]any{"issue": map[string]any{"action": "decline"}}))
	wantComplete(t, res, true, "needs a GitHub sign-in") // formCaps: no URL mode
}

// TestModernRequestMeta: the SDK checks the _meta of 2026-07-28 requests
// before flowserve sees them.
func TestModernRequestMeta(t *testing.T) {
	ctx := testCtx(t)
	url, _ := rawServer(t, &clock{t: time.Now()}, time.Hour)
	params := callParams("signup", map[string]any{}, formCaps)
	delete(params["_meta"].(map[string]any), "io.modelcontextprotocol/clientCapabilities")
	reply := postRaw(t, ctx, url, nil, "tools/call", params)
	if e := reply.rpcErr(t); e.Code != codeInvalidParams {
		t.Errorf("without clientCapabilities: code %d (%s), want %d", e.Code, e.Message, codeInvalidParams)
	}
	reply = postRaw(t, ctx, url, nil, "tools/call", callParams("no_such_tool", map[string]any{}, formCaps))
	if e := reply.rpcErr(t); e.Code != codeInvalidParams {
		t.Errorf("unknown tool: code %d (%s), want %d", e.Code, e.Message, codeInvalidParams)
	}
}

// TestFinalRoundReplay: DESIGN §4 keeps the final round's result for the
// state's lifetime, keyed by (requestState, inputResponses), so a client
// that lost the reply and sends the same final round again gets the same
// result without the steps running again.
func TestFinalRoundReplay(t *testing.T) {
	ctx := testCtx(t)
	url, root := rawServer(t, &clock{t: time.Now()}, time.Hour)

	first := rawRound(t, ctx, url, nil, callParams("expense_approval", taxi, formCaps))
	wantInputRequired(t, first, "decision")
	final := retry("expense_approval", taxi, first.RequestState,
		map[string]any{"decision": map[string]any{"action": "accept", "content": map[string]any{"decision": "approve"}}})
	a := rawRound(t, ctx, url, nil, final)
	wantComplete(t, a, false, "Filed 800 EUR")
	b := rawRound(t, ctx, url, nil, final)
	if a.text() != b.text() {
		t.Errorf("the same final round gave %q, then %q: its step ran again (DESIGN §4: final results are kept)", a.text(), b.text())
	}

	writeFile(t, root, "report.txt", "hello world")
	first = rawRound(t, ctx, url, nil, callParams("delete_file", report, formCaps))
	wantInputRequired(t, first, "confirm")
	final = retry("delete_file", report, first.RequestState, map[string]any{"confirm": proceedTrue})
	a = rawRound(t, ctx, url, nil, final)
	wantComplete(t, a, false, "Deleted report.txt.")
	b = rawRound(t, ctx, url, nil, final)
	if b.IsError || a.text() != b.text() {
		t.Errorf("the same final round gave %q, then %q (isError %v): its step ran again (DESIGN §4: final results are kept)", a.text(), b.text(), b.IsError)
	}
}

// TestModernResultMeta: a 2026-07-28 result names the server in _meta.
func TestModernResultMeta(t *testing.T) {
	ctx := testCtx(t)
	url, _ := rawServer(t, &clock{t: time.Now()}, time.Hour)
	reply := postRaw(t, ctx, url, nil, "tools/call", callParams("signup", map[string]any{}, formCaps))
	var res struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	reply.result(t, &res)
	var info struct{ Name, Version string }
	if err := json.Unmarshal(res.Meta["io.modelcontextprotocol/serverInfo"], &info); err != nil || info.Name != "flowserve" || info.Version != "test" {
		t.Errorf("serverInfo = %s (%v), want flowserve test", res.Meta["io.modelcontextprotocol/serverInfo"], err)
	}
}
