package cli

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// warningFlows are flows that lint only warns about, one warning code
// each (docs/cli.md, "Severity"): each runs.
var warningFlows = map[string]struct{ src, code string }{
	"plans.yaml": {`description: Branches on a plan, one case with a value the enum never holds.
input:
  type: object
  properties:
    plan: {type: string, enum: [free, team]}
nodes:
  - branch:
      - if: input.plan == "enterprize"
        then: big
      - else: small
  - id: big
    return: big
  - id: small
    return: small
`, "enum-compare"},
	"quiet.yaml": {`name: quiet
nodes:
  - return: done
`, "missing-description"},
	"again.yaml": {`description: Asks until told to stop.
nodes:
  - id: more
    ask: "Another one?"
    form: {again: {type: boolean}}
  - branch:
      - if: more.content.again
        then: more
  - return: done
`, "unbounded-loop"},
}

// TestServeStartsWithWarnings: serve refuses only errors, so flows lint
// only warns about are served, and their warnings printed.
func TestServeStartsWithWarnings(t *testing.T) {
	dir := t.TempDir()
	for name, f := range warningFlows {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(f.src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out, errOut, code := run(t, "lint", dir)
	if code != exitOK || !strings.HasPrefix(errOut, "0 errors, ") {
		t.Fatalf("lint: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	for name, f := range warningFlows {
		if !strings.Contains(out, name+":") || !strings.Contains(out, ": warning: ") || !strings.Contains(out, "["+f.code+"]") {
			t.Errorf("lint's output lacks the %s warning of %s:\n%s", f.code, name, out)
		}
	}

	ctx := cliCtx(t, 30*time.Second)
	cs, stderr := connectStdio(t, ctx, "2025-11-25", nil, dir)
	defer cs.Close()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	if got := strings.Join(names, ","); got != "again,plans,quiet" {
		t.Errorf("tools %s, want again, plans and quiet; stderr:\n%s", got, stderr.String())
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "plans", Arguments: map[string]any{"plan": "team"}})
	if err != nil || res.IsError || len(res.Content) != 1 || res.Content[0].(*mcp.TextContent).Text != "small" {
		t.Errorf("plans: %+v, %v", res, err)
	}
	if s := stderr.String(); !strings.Contains(s, "warning: ") || strings.Contains(s, "not starting") {
		t.Errorf("stderr lacks the warnings, or says the server is not starting:\n%s", s)
	}
}
