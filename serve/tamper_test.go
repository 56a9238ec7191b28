package serve_test

import (
	"encoding/base64"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/flowserve/flowserve/flow"
	"github.com/flowserve/flowserve/flow/state"
	"github.com/flowserve/flowserve/serve"
)

// The messages of a rejected requestState (DESIGN §5): the same for every
// way a state can be wrong, except expiry.
const (
	msgInvalid = "requestState is not valid for this call"
	msgExpired = "requestState has expired; call the tool again"
)

// tamperKey returns a key with a fixed secret, so the test is
// reproducible.
func tamperKey(t testing.TB, id string, fill byte) state.Key {
	k := state.Key{ID: id}
	for i := range k.Secret {
		k.Secret[i] = fill + byte(i)
	}
	return k
}

// tamperServer serves the example flows over HTTP with a codec on ring
// and clk, accepting alice's and bob's tokens, and returns the URL.
func tamperServer(t testing.TB, clk *clock, keys ...state.Key) string {
	t.Helper()
	ring, err := state.NewKeyRing(keys...)
	must(t, err)
	codec := state.NewCodec(ring, state.Options{TTL: 10 * time.Minute, Now: clk.now})
	srv := serverWith(t, compileExamples(t, flow.Env{}), serve.Options{Engine: newEngine(t, flow.EngineOptions{Codec: codec})})
	return startHTTPWith(t, srv, serve.HTTPOptions{Tokens: testTokens(t)})
}

// TestTamperMatrix sends every kind of wrong requestState through a real
// client (the go-sdk's, over HTTP, with bearer tokens): bit flips at
// every byte of a real sealed state and changes at every character of its
// wire form, truncations, swapped and unknown key ids, states of another
// tool, other arguments and another principal, an expired state and one
// sealed with a key retired from the ring. Each must be a JSON-RPC -32602
// with exactly the documented message, and the server must go on serving
// good runs in between.
func TestTamperMatrix(t *testing.T) {
	ctx := testCtx(t)
	clk := &clock{t: time.Date(2026, 8, 1, 12, 0, 0, 0, time.UTC)}
	k1, k2 := tamperKey(t, "k1", 1), tamperKey(t, "k2", 101)
	oldURL := tamperServer(t, clk, k1)      // before the rotation: k1 seals
	mainURL := tamperServer(t, clk, k2, k1) // k2 seals, k1 still opens
	retiredURL := tamperServer(t, clk, k2)  // k1 retired
	client := func(url, token string) *mcp.ClientSession {
		cs, err := connectURL(t, ctx, url, v20260728, manualClient(), bearer(token))
		must(t, err)
		return cs
	}
	alice, bob := client(mainURL, aliceToken), client(mainURL, bobToken)
	aliceOld, aliceRetired := client(oldURL, aliceToken), client(retiredURL, aliceToken)

	signupAnswer := mcp.InputResponseMap{"details": accept(ada)}
	decision := mcp.InputResponseMap{"decision": accept(map[string]any{"decision": "approve"})}
	round1 := func(cs *mcp.ClientSession, tool string, args map[string]any) string {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
		must(t, err)
		if !res.NeedsInput() || res.RequestState == "" {
			t.Fatalf("%s round 1: no requestState", tool)
		}
		return res.RequestState
	}
	// good completes a signup run: the server still serves.
	goods := 0
	good := func() {
		t.Helper()
		st := round1(alice, "signup", map[string]any{})
		res, err := alice.CallTool(ctx, &mcp.CallToolParams{Name: "signup", Arguments: map[string]any{}, RequestState: st, InputResponses: signupAnswer})
		if err != nil {
			t.Fatalf("a good run after tampered ones: %v", err)
		}
		checkText(t, res, false, "Signed up Ada Lovelace")
		goods++
	}

	signupState := round1(alice, "signup", map[string]any{})
	expenseState := round1(alice, "expense_approval", taxi)
	oldState := round1(aliceOld, "signup", map[string]any{})
	if !strings.HasPrefix(signupState, "k2.") || !strings.HasPrefix(oldState, "k1.") {
		t.Fatalf("states sealed with %q and %q", signupState[:3], oldState[:3])
	}

	type tcase struct {
		category  string
		cs        *mcp.ClientSession
		tool      string
		args      map[string]any
		state     string
		responses mcp.InputResponseMap
		want      string
	}
	var cases []tcase
	add := func(category string, cs *mcp.ClientSession, tool string, args map[string]any, st string, responses mcp.InputResponseMap, want string) {
		cases = append(cases, tcase{category, cs, tool, args, st, responses, want})
	}
	signup := func(category, st string) {
		add(category, alice, "signup", map[string]any{}, st, signupAnswer, msgInvalid)
	}

	// Bit flips in the sealed bytes: one bit in each byte (nonce,
	// ciphertext, tag), the bit moving along.
	id, payload, _ := strings.Cut(signupState, ".")
	raw, err := base64.RawURLEncoding.DecodeString(payload)
	must(t, err)
	for i := range raw {
		b := append([]byte(nil), raw...)
		b[i] ^= 1 << (i % 8)
		signup("bit flip in the sealed bytes", id+"."+base64.RawURLEncoding.EncodeToString(b))
	}
	// A different character at each position of the wire string, key id
	// and dot included.
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	for i := range signupState {
		c := signupState[i]
		var repl byte = 'A'
		if j := strings.IndexByte(alphabet, c); j >= 0 {
			repl = alphabet[(j+1)%len(alphabet)]
		}
		signup("changed character of the wire string", signupState[:i]+string(repl)+signupState[i+1:])
	}
	// Truncations and extensions.
	n := len(signupState)
	for _, l := range []int{1, 2, 3, 10, n / 4, n / 2, 3 * n / 4, n - 4, n - 3, n - 2, n - 1} {
		signup("truncated", signupState[:l])
	}
	for _, tail := range []string{"A", "AA", "AAAA", "=", "\n", " "} {
		signup("extended", signupState+tail)
	}
	add("over the size limit", alice, "signup", map[string]any{}, signupState+strings.Repeat("A", state.DefaultMaxSize), signupAnswer,
		fmt.Sprintf("requestState is larger than %d bytes", state.DefaultMaxSize))
	// Key ids: swapped for the other key of the ring, unknown, empty.
	signup("swapped key id", "k1."+payload)
	signup("unknown key id", "k9."+payload)
	signup("no key id", "."+payload)
	signup("no key id", payload)
	// Bound to something else: another tool, other arguments, another
	// principal (bob's valid token, or none would be a 401).
	add("state of another tool", alice, "expense_approval", taxi, signupState, decision, msgInvalid)
	add("state of another tool", alice, "signup", map[string]any{}, expenseState, signupAnswer, msgInvalid)
	add("other arguments", alice, "expense_approval", map[string]any{"description": "Taxi", "amount": 801}, expenseState, decision, msgInvalid)
	add("other arguments", alice, "expense_approval", map[string]any{"description": "Cab", "amount": 800}, expenseState, decision, msgInvalid)
	add("other arguments", alice, "expense_approval", map[string]any{"description": "Taxi", "amount": 800, "limit": 1000}, expenseState, decision, msgInvalid)
	add("other principal", bob, "signup", map[string]any{}, signupState, signupAnswer, msgInvalid)
	add("other principal", bob, "expense_approval", taxi, expenseState, decision, msgInvalid)
	// A state sealed with a key the server no longer has.
	add("key retired from the ring", aliceRetired, "signup", map[string]any{}, oldState, signupAnswer, msgInvalid)

	tried := map[string]int{}
	rejected := map[string]int{}
	check := func(tc tcase) {
		tried[tc.category]++
		_, err := tc.cs.CallTool(ctx, &mcp.CallToolParams{Name: tc.tool, Arguments: tc.args, RequestState: tc.state, InputResponses: tc.responses})
		e := rpcErrorOf(err)
		if e == nil || e.Code != codeInvalidParams || e.Message != tc.want {
			t.Errorf("%s (state %.40q…): got %v, want -32602 %q", tc.category, tc.state, err, tc.want)
			return
		}
		rejected[tc.category]++
	}
	for i, tc := range cases {
		check(tc)
		if i%25 == 24 {
			good()
		}
	}
	good()

	// After the rotation the old key still opens its states where the
	// ring keeps it.
	res, err := alice.CallTool(ctx, &mcp.CallToolParams{Name: "signup", Arguments: map[string]any{}, RequestState: oldState, InputResponses: signupAnswer})
	must(t, err)
	checkText(t, res, false, "Signed up Ada Lovelace")

	// Expired: the TTL has passed; a new run is served.
	clk.advance(10 * time.Minute)
	check(tcase{"expired", alice, "signup", map[string]any{}, signupState, signupAnswer, msgExpired})
	check(tcase{"expired", alice, "expense_approval", taxi, expenseState, decision, msgExpired})
	good()

	var total, totalRejected int
	var lines []string
	for c, n := range tried {
		total += n
		totalRejected += rejected[c]
		lines = append(lines, fmt.Sprintf("  %-40s %4d / %4d", c, rejected[c], n))
	}
	sort.Strings(lines)
	t.Logf("tamper matrix: %d of %d tampered states rejected with -32602 and the exact message; %d good runs completed in between\n%s",
		totalRejected, total, goods, strings.Join(lines, "\n"))
	if totalRejected != total {
		t.Errorf("%d tampered states were not rejected as they should be", total-totalRejected)
	}
}
