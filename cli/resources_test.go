package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/flowserve/flowserve/project"
)

const conformanceDir = "../testdata/conformance"

// notesDecl declares two resources beside a flow.
const notesDecl = `resources:
  - uri: notes://today
    name: today
    description: Today's note.
    text: Buy milk.
  - uriTemplate: notes://days/{day}
    name: day
    description: The note of a day.
    file: "days/{{ day }}.md"
`

// TestServeResourcesStdio serves the conformance fixtures over stdio and
// lists and reads their resources, with and without the flows' own.
func TestServeResourcesStdio(t *testing.T) {
	tests := []struct {
		name  string
		flags []string
		flows bool // the flows' source and diagram are listed
	}{
		{"default: no flow resources", nil, false},
		{"flow resources", []string{"--flow-resources"}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := cliCtx(t, 30*time.Second)
			cs, _ := connectStdio(t, ctx, "2025-11-25", nil, append(slices.Clone(tc.flags), conformanceDir)...)
			defer cs.Close()
			list, err := cs.ListResources(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			var uris []string
			for _, r := range list.Resources {
				uris = append(uris, r.URI)
			}
			if !slices.Contains(uris, "test://static-text") || !slices.Contains(uris, "test://static-binary") {
				t.Errorf("resources %v lack the declared ones", uris)
			}
			if got := slices.Contains(uris, "flow://test_simple_text/source"); got != tc.flows {
				t.Errorf("flow://test_simple_text/source listed: %v; want %v (%v)", got, tc.flows, uris)
			}
			res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://template/7/data"})
			if err != nil || len(res.Contents) != 1 || !strings.Contains(res.Contents[0].Text, `"id":"7"`) {
				t.Errorf("template read: %+v, %v", res, err)
			}
			if tc.flows {
				src, err := os.ReadFile(filepath.Join(conformanceDir, "test_simple_text.yaml"))
				if err != nil {
					t.Fatal(err)
				}
				res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "flow://test_simple_text/source"})
				if err != nil || len(res.Contents) != 1 || res.Contents[0].Text != string(src) {
					t.Errorf("flow source: %+v, %v", res, err)
				}
			}
		})
	}
}

// TestServeRefusesResourcesWithErrors: serve prints the diagnostics of the
// declarations and does not start.
func TestServeRefusesResourcesWithErrors(t *testing.T) {
	dir := writeFlows(t, map[string]string{
		"hello.yaml":     cleanFlow,
		"resources.yaml": "resources:\n  - uri: relative\n    name: x\n    description: X.\n    file: missing.txt\n",
	})
	stdout, stderr, code := runBinary(t, "serve", "--stdio", dir)
	if code != 1 || stdout != "" {
		t.Fatalf("exit %d, stdout %q; want 1 and nothing; stderr:\n%s", code, stdout, stderr)
	}
	decl := filepath.Join(dir, "resources.yaml")
	for _, want := range []string{
		decl + `:2:10: error: uri "relative" is not absolute: it needs a scheme such as test: or https: [bad-uri]`,
		decl + `:5:11: error: file "missing.txt" does not exist in ` + dir + ` [file-not-found]`,
		"flowserve serve: not starting: the resource declarations have errors",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
}

// TestLintResources: lint checks declarations beside flows, or alone, and
// reports them like flow problems.
func TestLintResources(t *testing.T) {
	dir := writeFlows(t, map[string]string{
		"hello.yaml":                 cleanFlow,
		"resources.yaml":             notesDecl,
		"days/monday.md":             "Gym.",
		"bad/x.resources.yml":        "resources:\n  - {uri: notes://a, name: a, description: A., txt: hi}\n",
		"bad/y.resources.yaml":       "resources:\n  - {uri: notes://a, name: a, description: A., text: hi}\n",
		"warn/docs.resources.yaml":   "resources:\n  - {uri: notes://w, name: w, text: hi}\n",
		"warn/not_a_resource.txt":    "ignored",
		"alone/resources.yaml":       notesDecl,
		"alone/days/tuesday.md":      "Swim.",
		"alone/sub/resources_x.yaml": cleanFlow,
	})
	rel := func(p string) string { return filepath.Join(dir, p) }
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout []string
		stderr string
	}{
		{"flows and declarations", []string{rel("hello.yaml"), rel("resources.yaml")}, 0, nil, "0 errors, 0 warnings in 2 files"},
		{"declarations only", []string{rel("alone/resources.yaml")}, 0, nil, "0 errors, 0 warnings in 1 file"},
		{"errors", []string{rel("bad")}, 1, []string{
			rel("bad/x.resources.yml") + `:2:48: error: unknown key "txt" in a resource; did you mean "text"? [unknown-key]`,
			rel("bad/x.resources.yml") + `:2:5: error: a resource needs its content: text (written here) or file (a file beside this one) [missing-key]`,
		}, "2 errors, 0 warnings in 2 files"},
		{"warnings", []string{rel("warn")}, 0, []string{
			rel("warn/docs.resources.yaml") + `:2:5: warning: the resource "w" has no description, which clients show to users and models [missing-description]`,
		}, "0 errors, 1 warning in 1 file"},
		{"whole tree: names and URIs clash across directories", []string{dir}, 1, []string{
			"[unknown-key]", "[missing-description]",
			rel("resources.yaml") + `:2:5: error: resource name "today" is also used at ` + rel("alone/resources.yaml") + `:2:5 [duplicate-name]`,
			rel("resources.yaml") + `:6:5: error: uriTemplate "notes://days/{day}" is also declared at ` + rel("alone/resources.yaml") + `:6:5 [duplicate-uri]`,
		}, "6 errors, 1 warning in 7 files"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := run(t, append([]string{"lint"}, tc.args...)...)
			if code != tc.code {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.code, out, errOut)
			}
			for _, want := range tc.stdout {
				if !strings.Contains(out, want) {
					t.Errorf("stdout lacks %q:\n%s", want, out)
				}
			}
			if strings.TrimSpace(errOut) != tc.stderr {
				t.Errorf("stderr = %q, want %q", errOut, tc.stderr)
			}
		})
	}
	out, _, code := run(t, "lint", "--format", "json", rel("warn"))
	var got []diagnosticJSON
	if err := json.Unmarshal([]byte(out), &got); err != nil || code != 0 || len(got) != 1 || got[0].Code != "missing-description" || got[0].Line != 2 {
		t.Errorf("JSON: exit %d, %v, %+v", code, err, got)
	}
}

// TestFlowFilesSkipDeclarations: declaration files are not flows, named or
// found in a directory.
func TestFlowFilesSkipDeclarations(t *testing.T) {
	dir := writeFlows(t, map[string]string{
		"a.yaml":              cleanFlow,
		"resources.yaml":      notesDecl,
		"more.resources.yml":  notesDecl,
		"sub/resources.yaml":  notesDecl,
		"sub/b.yaml":          cleanFlow,
		"sub/b_test.yaml":     "cases: []",
		"sub/resources2.yaml": cleanFlow,
	})
	found, diags := project.Discover([]string{dir, filepath.Join(dir, "resources.yaml"), filepath.Join(dir, "a.yaml")})
	if err := diags.Err(); err != nil {
		t.Fatal(err)
	}
	flows, decls := found.Flows, found.Resources
	rel := func(paths []string) []string {
		var out []string
		for _, p := range paths {
			r, _ := filepath.Rel(dir, p)
			out = append(out, filepath.ToSlash(r))
		}
		return out
	}
	if got, want := rel(flows), []string{"a.yaml", "sub/b.yaml", "sub/resources2.yaml"}; !slices.Equal(got, want) {
		t.Errorf("flows = %v; want %v", got, want)
	}
	if got, want := rel(decls), []string{"more.resources.yml", "resources.yaml", "sub/resources.yaml"}; !slices.Equal(got, want) {
		t.Errorf("declarations = %v; want %v", got, want)
	}
}

// TestServeWatchResources: a changed declaration is served without a
// restart, with a notification; one with errors keeps the previous
// resources; a changed flow serves its new source.
func TestServeWatchResources(t *testing.T) {
	dir := writeFlows(t, map[string]string{
		"other.yaml":     otherFlow,
		"resources.yaml": notesDecl,
		"days/monday.md": "Gym.",
	})
	s := startWatchServer(t, dir)
	ctx := cliCtx(t, 30*time.Second)
	changed := make(chan struct{}, 10)
	client := mcp.NewClient(&mcp.Implementation{Name: "watch-test", Version: "1"}, &mcp.ClientOptions{
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) { changed <- struct{}{} },
	})
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: s.url, HTTPClient: s.hc},
		&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	read := func(uri string) string {
		t.Helper()
		res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		if err != nil {
			return "error: " + err.Error()
		}
		return res.Contents[0].Text
	}
	eventually := func(uri, want string) {
		t.Helper()
		deadline := time.Now().Add(15 * time.Second)
		for got := read(uri); got != want; got = read(uri) {
			if time.Now().After(deadline) {
				t.Fatalf("%s = %q; want %q; log:\n%s", uri, got, want, s.stderr.String())
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	if got := read("notes://today"); got != "Buy milk." {
		t.Fatalf("notes://today = %q", got)
	}
	if got := read("notes://days/monday"); got != "Gym." {
		t.Fatalf("notes://days/monday = %q", got)
	}

	// A data file is read on every read: an edit shows at once.
	if err := os.WriteFile(filepath.Join(dir, "days", "monday.md"), []byte("Run."), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := read("notes://days/monday"); got != "Run." {
		t.Errorf("edited data file: %q", got)
	}

	// A changed declaration is reloaded.
	if err := os.WriteFile(filepath.Join(dir, "resources.yaml"), []byte(strings.Replace(notesDecl, "Buy milk.", "Buy bread.", 1)+
		"  - {uri: notes://new, name: new, description: New., text: fresh}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	eventually("notes://today", "Buy bread.")
	eventually("notes://new", "fresh")
	select {
	case <-changed:
	case <-time.After(5 * time.Second):
		t.Error("no resources/list_changed after the declaration changed")
	}

	// A declaration with errors keeps the previous resources.
	n := s.count("reload failed")
	if err := os.WriteFile(filepath.Join(dir, "resources.yaml"), []byte("resources:\n  - {uri: notes://today, name: today}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s.waitLog(t, "reload failed", n)
	if got := read("notes://new"); got != "fresh" {
		t.Errorf("after a broken declaration: notes://new = %q", got)
	}
	if !strings.Contains(s.stderr.String(), "resources.yaml:2:5: error: a resource needs its content") {
		t.Errorf("the diagnostics were not printed:\n%s", s.stderr.String())
	}

	// Fixed declarations and a changed flow: the flow serves its new
	// source.
	if err := os.WriteFile(filepath.Join(dir, "resources.yaml"), []byte(notesDecl), 0o644); err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(otherFlow, "Says hi.", "Says hello.", 1)
	if err := os.WriteFile(filepath.Join(dir, "other.yaml"), []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	eventually("flow://other/source", edited)
	eventually("notes://today", "Buy milk.")
}
