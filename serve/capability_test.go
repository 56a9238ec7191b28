package serve_test

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/flowserve/flowserve/flow"
)

const codeMissingCapability = -32021

// Client capabilities of the capability tests.
var (
	noElicitation = func(string) *mcp.ClientCapabilities { return &mcp.ClientCapabilities{} }
	formOnly      = func(string) *mcp.ClientCapabilities {
		return &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}}
	}
	formAndURL = func(string) *mcp.ClientCapabilities {
		return &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}, URL: &mcp.URLElicitationCapabilities{}}}
	}
)

// TestMissingCapability calls flows from clients that cannot answer their
// questions: an `unavailable` node takes over where there is one;
// otherwise 2026-07-28 gets -32021 with data.requiredCapabilities and
// sessions an error result saying what the client lacks.
func TestMissingCapability(t *testing.T) {
	progs := append(slices.Clone(exampleFlows(t)), testFlow(t, "url_only", flow.Env{}))
	tests := []struct {
		name  string
		tool  string
		args  map[string]any
		caps  func(version string) *mcp.ClientCapabilities
		eras  []string
		files map[string]string
		// One of: a -32021 error requiring this capability object, or a
		// result.
		required map[string]any
		isError  bool
		want     []string
		check    func(testing.TB, string)
	}{
		{name: "form question, no unavailable node", tool: "signup", caps: noElicitation,
			eras: []string{v20260728}, required: map[string]any{"elicitation": map[string]any{"form": map[string]any{}}}},
		{name: "form question in a loop, no unavailable node", tool: "expense_approval", args: taxi, caps: noElicitation,
			eras: []string{v20260728}, required: map[string]any{"elicitation": map[string]any{"form": map[string]any{}}}},
		{name: "url question, no unavailable node", tool: "url_only", caps: formOnly,
			eras: []string{v20260728}, required: map[string]any{"elicitation": map[string]any{"url": map[string]any{}}}},
		{name: "url question, no elicitation at all", tool: "url_only", caps: noElicitation,
			eras: []string{v20260728}, required: map[string]any{"elicitation": map[string]any{"url": map[string]any{}}}},

		{name: "form question, no unavailable node", tool: "signup", caps: noElicitation,
			eras: sessionEras, isError: true, want: []string{"signup", `"details"`, "does not support elicitation in form mode"}},
		{name: "form question in a loop, no unavailable node", tool: "expense_approval", args: taxi, caps: noElicitation,
			eras: sessionEras, isError: true, want: []string{"expense_approval", `"decision"`, "does not support elicitation in form mode"}},
		{name: "url question, no unavailable node", tool: "url_only", caps: formOnly,
			eras: sessionEras, isError: true, want: []string{"url_only", `"open"`, "does not support elicitation in url mode"}},
		// 2025-06-18 has no URL mode, whatever the client declares.
		{name: "url question, url declared", tool: "url_only", caps: formAndURL,
			eras: []string{v20250618}, isError: true, want: []string{"does not support elicitation in url mode"}},

		// Every era: the unavailable node, or no question at all.
		{name: "unavailable node", tool: "delete_file", args: report, files: reportFile, caps: noElicitation,
			isError: true, want: []string{"Deleting needs a confirmation, and this client cannot ask for one."},
			check: fileKept("report.txt")},
		{name: "url unavailable node", tool: "github_signin", args: issueBody, caps: formOnly,
			isError: true, want: []string{"needs a GitHub sign-in in the browser"}},
		{name: "url unavailable node, no elicitation", tool: "github_signin", args: issueBody, caps: noElicitation,
			isError: true, want: []string{"needs a GitHub sign-in in the browser"}},
		{name: "no question reached", tool: "expense_approval", args: map[string]any{"description": "Pens", "amount": 12},
			caps: noElicitation, want: []string{"Filed 12 EUR for Pens (receipt "}},
	}
	for _, tc := range tests {
		for _, version := range []string{v20260728, v20251125, v20250618} {
			if tc.eras != nil && !slices.Contains(tc.eras, version) {
				continue
			}
			for _, kind := range transports {
				t.Run(tc.tool+"/"+tc.name+"/"+version+"/"+string(kind), func(t *testing.T) {
					t.Parallel()
					ctx := testCtx(t)
					root := t.TempDir()
					for name, content := range tc.files {
						writeFile(t, root, name, content)
					}
					e := era{name: version, version: version}
					sc := newScript(t, version, nil) // asks nothing
					client := clientFor(e, sc, false, tc.caps(version), nil)
					cs := connect(t, ctx, newServer(t, progs, root), kind, version, client, nil)
					res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tc.tool, Arguments: tc.args})
					if tc.required != nil {
						var werr *jsonrpc.Error
						if !errors.As(err, &werr) {
							t.Fatalf("got result %v, error %v; want JSON-RPC error %d", res, err, codeMissingCapability)
						}
						if werr.Code != codeMissingCapability {
							t.Errorf("code %d (%s), want %d", werr.Code, werr.Message, codeMissingCapability)
						}
						var data struct {
							RequiredCapabilities map[string]any `json:"requiredCapabilities"`
						}
						if err := json.Unmarshal(werr.Data, &data); err != nil {
							t.Fatalf("error data %s: %v", werr.Data, err)
						}
						if !jsonEqual(data.RequiredCapabilities, tc.required) {
							t.Errorf("requiredCapabilities = %s, want %v", werr.Data, tc.required)
						}
						if !strings.Contains(werr.Message, "elicitation") {
							t.Errorf("message %q does not mention elicitation", werr.Message)
						}
						return
					}
					if err != nil {
						t.Fatalf("call: %v", err)
					}
					checkText(t, res, tc.isError, tc.want...)
					if n := sc.count(); n != 0 {
						t.Errorf("the client was asked %d questions", n)
					}
					if tc.check != nil {
						tc.check(t, root)
					}
				})
			}
		}
	}
}

// TestMissingCapabilityRaw checks the -32021 error as sent over HTTP.
func TestMissingCapabilityRaw(t *testing.T) {
	ctx := testCtx(t)
	url := startHTTP(t, newServer(t, exampleFlows(t), ""))
	for _, caps := range []map[string]any{
		{},
		{"sampling": map[string]any{}},
		{"elicitation": map[string]any{"url": map[string]any{}}},
	} {
		reply := postRaw(t, ctx, url, nil, "tools/call", callParams("signup", map[string]any{}, caps))
		e := reply.rpcErr(t)
		if e.Code != codeMissingCapability {
			t.Errorf("caps %v: code %d (%s), want %d", caps, e.Code, e.Message, codeMissingCapability)
		}
		var data map[string]any
		if err := json.Unmarshal(e.Data, &data); err != nil {
			t.Fatalf("caps %v: data %s: %v", caps, e.Data, err)
		}
		want := map[string]any{"requiredCapabilities": map[string]any{"elicitation": map[string]any{"form": map[string]any{}}}}
		if !jsonEqual(data, want) {
			t.Errorf("caps %v: data %s, want %v", caps, e.Data, want)
		}
	}
}
