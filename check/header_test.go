package check

import (
	"context"
	"fmt"
	"github.com/flowserve/flowserve/dsl"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/flowserve/flowserve/check/codes"
)

// addToolPanics reports whether go-sdk's AddTool refuses (panics on) a
// tool with the given input schema, as serve would call it.
func addToolPanics(schema map[string]any) (panicked bool, msg string) {
	s := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	defer func() {
		if r := recover(); r != nil {
			panicked, msg = true, fmt.Sprint(r)
		}
	}()
	s.AddTool(&mcp.Tool{Name: "t", InputSchema: schema}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{}, nil
	})
	return false, ""
}

// TestCheckHeadersAgreeWithSDK checks that lint reports bad-mcp-header
// exactly for the input schemas go-sdk's AddTool panics on, at the
// annotation.
func TestCheckHeadersAgreeWithSDK(t *testing.T) {
	tests := []struct {
		props string // the input schema's properties, a YAML flow mapping
		want  string // the bad-mcp-header finding ("" when none)
		// sdkSilent marks a schema go-sdk cannot decode (a type that is not
		// a string): it then reads no annotation of the tool, and neither
		// refuses the tool nor sends the header.
		sdkSilent bool
	}{
		{`{region: {type: string, x-mcp-header: Region}}`, "", false},
		{`{n: {type: integer, x-mcp-header: N}, b: {type: boolean, x-mcp-header: "X-Flag_1.~!"}}`, "", false},
		{`{amount: {type: number, x-mcp-header: Amount}}`, `4:39 bad-mcp-header: property "amount": x-mcp-header goes only on a property of type string, integer or boolean, not "number": a header carries one plain value`, false},
		{`{tags: {type: array, x-mcp-header: Tags}}`, `4:36 bad-mcp-header: property "tags": x-mcp-header goes only on a property of type string, integer or boolean, not "array": a header carries one plain value`, false},
		{`{any: {x-mcp-header: Any}}`, `4:22 bad-mcp-header: property "any": x-mcp-header goes only on a property of type string, integer or boolean, it has no type: a header carries one plain value`, false},
		{`{r: {type: string, x-mcp-header: ""}}`, `4:48 bad-mcp-header: property "r": x-mcp-header must name an HTTP header (Mcp-Param-<name>), not an empty string`, false},
		{`{r: {type: string, x-mcp-header: 5}}`, `4:48 bad-mcp-header: property "r": x-mcp-header must name an HTTP header (Mcp-Param-<name>), not an integer`, false},
		{`{r: {type: string, x-mcp-header: "Two Words"}}`, `4:48 bad-mcp-header: property "r": x-mcp-header "Two Words" is not an HTTP header name: ' ' is not allowed (letters, digits and !#$%&'*+-.^_` + "`" + `|~ only)`, false},
		{`{r: {type: string, x-mcp-header: "Région"}}`, `4:48 bad-mcp-header: property "r": x-mcp-header "Région" is not an HTTP header name: 'é' is not allowed (letters, digits and !#$%&'*+-.^_` + "`" + `|~ only)`, false},
		{`{a: {type: string, x-mcp-header: Region}, b: {type: string, x-mcp-header: region}}`, `4:89 bad-mcp-header: property "b": x-mcp-header "region" is the header of property "a" too (line 4); header names are case-insensitive, so each property needs its own`, false},
		{`{o: {type: object, properties: {r: {type: string, x-mcp-header: R}}}}`, "", false},
		{`{r: {type: string, x-mcp-header: null}}`, `4:48 bad-mcp-header: property "r": x-mcp-header must name an HTTP header (Mcp-Param-<name>), not null`, false},
		{`{r: {type: [string, "null"], x-mcp-header: R}}`, `4:44 bad-mcp-header: property "r": x-mcp-header goes only on a property of type string, integer or boolean, not a list of types: a header carries one plain value`, true},
		{`{o: {type: object, properties: {r: {type: number, x-mcp-header: R}}}}`, `4:65 bad-mcp-header: property "o.r": x-mcp-header goes only on a property of type string, integer or boolean, not "number": a header carries one plain value`, false},
		{`{r: {type: string, x-mcp-header: R}, o: {type: object, properties: {s: {type: string, x-mcp-header: r}}}}`, `4:115 bad-mcp-header: property "o.s": x-mcp-header "r" is the header of property "r" too (line 4); header names are case-insensitive, so each property needs its own`, false},
	}
	for _, tc := range tests {
		src := "description: d\ninput:\n  type: object\n  properties: " + tc.props + "\nnodes:\n  - return: ok\n"
		got := ""
		for _, l := range check(t, src) {
			if strings.Contains(l, " "+codes.BadMcpHeader+":") {
				got = l
			}
		}
		if got != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.props, got, tc.want)
		}
		f, _ := dsl.Parse("flow.yaml", []byte(src))
		if panicked, msg := addToolPanics(f.Input.Value); panicked != (got != "" && !tc.sdkSilent) {
			t.Errorf("%s: go-sdk panics: %v (%s), but lint reports %q", tc.props, panicked, msg, got)
		}
	}
}
