package serve_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/flowserve/flowserve/flow"
	"github.com/flowserve/flowserve/graph"
	"github.com/flowserve/flowserve/resources"
	"github.com/flowserve/flowserve/serve"
)

// conformanceResources is the declaration of the conformance suite's
// resources.
const conformanceResources = "../testdata/conformance/resources/resources.yaml"

// parseResources loads a declaration file, failing on any diagnostic.
func parseResources(t testing.TB, path string) []*resources.Resource {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	rs, ds := resources.Parse(path, src)
	if len(ds) > 0 {
		t.Fatalf("%s:\n%v", path, ds)
	}
	return rs
}

// resourceServer serves the conformance resources and the
// test_simple_text flow.
// It serves the flow's own resources too (Options.FlowResources).
func resourceServer(t testing.TB, opts serve.Options) (*serve.Server, *flow.Program) {
	t.Helper()
	opts.FlowResources = true
	return resourceServerWith(t, opts)
}

// resourceServerWith is resourceServer with opts as they are.
func resourceServerWith(t testing.TB, opts serve.Options) (*serve.Server, *flow.Program) {
	t.Helper()
	p := compileFile(t, "../testdata/conformance/test_simple_text.yaml", flow.Env{})
	opts.Version = "test"
	opts.Logger = quietLogger()
	if opts.Resources == nil {
		opts.Resources = parseResources(t, conformanceResources)
	}
	srv, err := serve.New([]*flow.Program{p}, opts)
	if err != nil {
		t.Fatal(err)
	}
	return srv, p
}

// TestResources lists and reads every kind of resource with go-sdk
// clients of both eras, in memory and over HTTP.
func TestResources(t *testing.T) {
	png, err := os.ReadFile("../testdata/conformance/resources/pixel.png")
	if err != nil {
		t.Fatal(err)
	}
	srv, p := resourceServer(t, serve.Options{})
	source, diagram := string(p.File().Source), graph.Mermaid(p.File())
	reads := []struct {
		uri, mimeType, text string
		blob                []byte
	}{
		{uri: "test://static-text", mimeType: "text/plain", text: "This is the content of the static text resource."},
		{uri: "test://static-binary", mimeType: "image/png", blob: png},
		{uri: "test://template/123/data", mimeType: "application/json", text: `{"id":"123","templateTest":true,"data":"Data for ID: 123"}`},
		{uri: "flow://test_simple_text/source", mimeType: "application/yaml", text: source},
		{uri: "flow://test_simple_text/diagram", mimeType: "text/vnd.mermaid", text: diagram},
	}
	for _, kind := range transports {
		for _, version := range []string{v20260728, v20251125} {
			t.Run(string(kind)+"/"+version, func(t *testing.T) {
				ctx := testCtx(t)
				cs := connect(t, ctx, srv, kind, version, mcp.NewClient(&mcp.Implementation{Name: "resources-test", Version: "1"}, nil), nil)

				list, err := cs.ListResources(ctx, nil)
				if err != nil {
					t.Fatal(err)
				}
				var uris []string
				for _, r := range list.Resources {
					uris = append(uris, r.URI)
					if r.URI == "test://static-text" && (r.Name != "static-text" || r.Description != "A static text resource." || r.MIMEType != "text/plain" || r.Title != "Static text") {
						t.Errorf("static-text listed as %+v", r)
					}
				}
				want := []string{"flow://test_simple_text/diagram", "flow://test_simple_text/source", "test://static-binary", "test://static-text"}
				if !slices.Equal(uris, want) {
					t.Errorf("resources/list = %v; want %v", uris, want)
				}
				tmpls, err := cs.ListResourceTemplates(ctx, nil)
				if err != nil {
					t.Fatal(err)
				}
				if len(tmpls.ResourceTemplates) != 1 || tmpls.ResourceTemplates[0].URITemplate != "test://template/{id}/data" ||
					tmpls.ResourceTemplates[0].MIMEType != "application/json" || tmpls.ResourceTemplates[0].Name != "template-data" {
					t.Errorf("resources/templates/list = %+v", tmpls.ResourceTemplates)
				}

				for _, rd := range reads {
					res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: rd.uri})
					if err != nil {
						t.Errorf("read %s: %v", rd.uri, err)
						continue
					}
					if len(res.Contents) != 1 {
						t.Errorf("read %s: %d contents", rd.uri, len(res.Contents))
						continue
					}
					c := res.Contents[0]
					if c.URI != rd.uri || c.MIMEType != rd.mimeType || c.Text != rd.text || !bytes.Equal(c.Blob, rd.blob) {
						t.Errorf("read %s = %+v; want %+v", rd.uri, c, rd)
					}
					if res.CacheScope != "public" || res.TTLMs != 0 {
						t.Errorf("read %s: ttlMs %d, cacheScope %q; want 0, public", rd.uri, res.TTLMs, res.CacheScope)
					}
				}

				unknown := []string{"test://nonexistent", "test://template/123/other", "flow://test_simple_text/other"}
				if kind == inMemory {
					// Over HTTP the URI also goes in the Mcp-Name header,
					// which cannot carry control characters.
					unknown = append(unknown, "test://\x01ctl")
				}
				for _, uri := range unknown {
					_, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
					checkNotFound(t, err, uri)
				}
			})
		}
	}
}

// checkNotFound checks that err is SEP-2164's error for uri.
func checkNotFound(t testing.TB, err error, uri string) {
	t.Helper()
	var je *jsonrpc.Error
	if !errors.As(err, &je) {
		t.Errorf("read %q: err = %v; want a JSON-RPC error", uri, err)
		return
	}
	var data struct {
		URI string `json:"uri"`
	}
	if je.Code != jsonrpc.CodeInvalidParams || json.Unmarshal(je.Data, &data) != nil || data.URI != uri {
		t.Errorf("read %q: error %d %q data %s; want -32602 with data.uri", uri, je.Code, je.Message, je.Data)
	}
}

// TestResourcesWire checks the 2026-07-28 results as sent: the caching
// hints of every cacheable result (per-resource ones on reads), and the
// not-found error.
func TestResourcesWire(t *testing.T) {
	dir := t.TempDir()
	decl := filepath.Join(dir, "resources.yaml")
	writeFile(t, dir, "resources.yaml", `cache: {ttl: 5m}
resources:
  - {uri: "test://cached", name: cached, description: Cached., text: cached}
  - {uri: "test://private", name: private, description: Private., text: mine, cache: {ttl: 1500ms, scope: private}}
  - {uriTemplate: "test://t/{x}", name: t, description: T., text: "x={{ x }}", cache: {ttl: 0s}}
`)
	srv, _ := resourceServer(t, serve.Options{Resources: parseResources(t, decl)})
	url := startHTTP(t, srv)
	ctx := testCtx(t)
	meta := map[string]any{"_meta": modernMeta(map[string]any{})}
	type cacheable struct {
		ResultType string `json:"resultType"`
		TTLMs      *int   `json:"ttlMs"`
		CacheScope string `json:"cacheScope"`
	}
	for _, method := range []string{"resources/list", "resources/templates/list"} {
		var res cacheable
		postRaw(t, ctx, url, nil, method, meta).result(t, &res)
		if res.TTLMs == nil || *res.TTLMs != 0 || res.CacheScope != "public" || res.ResultType != "complete" {
			t.Errorf("%s: ttlMs %v, cacheScope %q, resultType %q", method, res.TTLMs, res.CacheScope, res.ResultType)
		}
	}
	tests := []struct {
		uri   string
		ttl   int
		scope string
	}{
		{"test://cached", 300000, "public"},
		{"test://private", 1500, "private"},
		{"test://t/1", 0, "public"},
	}
	for _, tc := range tests {
		params := map[string]any{"uri": tc.uri, "_meta": modernMeta(map[string]any{})}
		var res cacheable
		postRaw(t, ctx, url, http.Header{"Mcp-Name": {tc.uri}}, "resources/read", params).result(t, &res)
		if res.TTLMs == nil || *res.TTLMs != tc.ttl || res.CacheScope != tc.scope {
			t.Errorf("read %s: ttlMs %v, cacheScope %q; want %d, %q", tc.uri, res.TTLMs, res.CacheScope, tc.ttl, tc.scope)
		}
	}
	uri := "test://nope"
	reply := postRaw(t, ctx, url, http.Header{"Mcp-Name": {uri}}, "resources/read", map[string]any{"uri": uri, "_meta": modernMeta(map[string]any{})})
	e := reply.rpcErr(t)
	if e.Code != -32602 || string(e.Data) != `{"uri":"test://nope"}` {
		t.Errorf("unknown URI: %d %q %s", e.Code, e.Message, e.Data)
	}
}

// TestResourcesLegacySessionError checks the not-found error as a
// 2025-11-25 session sends it.
func TestResourcesLegacySessionError(t *testing.T) {
	srv, _ := resourceServer(t, serve.Options{})
	s := newRawSession(t, testCtx(t), srv)
	init := s.initialize(v20251125, map[string]any{})
	if caps, _ := init["capabilities"].(map[string]any); caps["resources"] == nil {
		t.Errorf("initialize declares no resources capability: %v", init["capabilities"])
	}
	resp := s.call("resources/read", map[string]any{"uri": "test://nope"})
	if resp.Error == nil || resp.Error.Code != -32602 || string(resp.Error.Data) != `{"uri":"test://nope"}` {
		t.Fatalf("unknown URI: %+v", resp.Error)
	}
}

// TestReplaceUpdatesResources replaces the flows and the declarations and
// checks the lists that follow, and that only real changes are announced
// to a session.
func TestReplaceUpdatesResources(t *testing.T) {
	srv, p := resourceServer(t, serve.Options{})
	ctx := testCtx(t)
	changed := make(chan struct{}, 16)
	client := mcp.NewClient(&mcp.Implementation{Name: "replace-test", Version: "1"}, &mcp.ClientOptions{
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) { changed <- struct{}{} },
	})
	cs := connect(t, ctx, srv, inMemory, v20251125, client, nil)
	list := func() []string {
		t.Helper()
		var uris []string
		res, err := cs.ListResources(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range res.Resources {
			uris = append(uris, r.URI)
		}
		tmpls, err := cs.ListResourceTemplates(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range tmpls.ResourceTemplates {
			uris = append(uris, r.URITemplate)
		}
		return uris
	}
	check := func(step string, want ...string) {
		t.Helper()
		if got := list(); !slices.Equal(got, want) {
			t.Errorf("%s: resources = %v; want %v", step, got, want)
		}
		if got := srv.Resources(); !slices.Equal(got, slices.Sorted(slices.Values(want))) {
			t.Errorf("%s: Server.Resources() = %v", step, got)
		}
	}
	check("start", "flow://test_simple_text/diagram", "flow://test_simple_text/source", "test://static-binary", "test://static-text", "test://template/{id}/data")

	// The same flows and equal declarations change nothing.
	if err := srv.Replace([]*flow.Program{p}); err != nil {
		t.Fatal(err)
	}
	if err := srv.ReplaceResources(parseResources(t, conformanceResources)); err != nil {
		t.Fatal(err)
	}
	select {
	case <-changed:
		t.Fatal("a replacement that changed nothing was announced")
	case <-time.After(200 * time.Millisecond):
	}

	// Another flow brings its resources; the declarations go.
	other := compileFile(t, "../testdata/conformance/test_error_handling.yaml", flow.Env{})
	if err := srv.Replace([]*flow.Program{other}); err != nil {
		t.Fatal(err)
	}
	if err := srv.ReplaceResources(nil); err != nil {
		t.Fatal(err)
	}
	wait(t, changed, "resources/list_changed after a replacement")
	check("replaced", "flow://test_error_handling/diagram", "flow://test_error_handling/source")

	// A changed flow file serves its new source.
	src := append(slices.Clone(other.File().Source), "# edited\n"...)
	edited := compileSource(t, other.File().Path, src, flow.Env{})
	if err := srv.Replace([]*flow.Program{edited}); err != nil {
		t.Fatal(err)
	}
	res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "flow://test_error_handling/source"})
	if err != nil || len(res.Contents) != 1 || res.Contents[0].Text != string(src) {
		t.Fatalf("edited source: %+v, %v", res, err)
	}
	_, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://static-text"})
	checkNotFound(t, err, "test://static-text")
}

// TestNoFlowResources serves declarations without the flows' resources,
// as a server does unless Options.FlowResources.
func TestNoFlowResources(t *testing.T) {
	srv, _ := resourceServerWith(t, serve.Options{})
	want := []string{"test://static-binary", "test://static-text", "test://template/{id}/data"}
	if got := srv.Resources(); !slices.Equal(got, want) {
		t.Errorf("Resources() = %v; want %v", got, want)
	}
}

// TestReplaceResourcesRefuses checks the declarations a server refuses.
func TestReplaceResourcesRefuses(t *testing.T) {
	rs := parseResources(t, conformanceResources)
	srv, _ := resourceServer(t, serve.Options{})
	tests := []struct {
		name string
		rs   []*resources.Resource
		want string
	}{
		{"twice", []*resources.Resource{rs[0], rs[0]}, "declared twice"},
		{"flow scheme", []*resources.Resource{{URI: "flow://x/source", Name: "x"}}, "reserved"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := srv.ReplaceResources(tc.rs)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v; want %q", err, tc.want)
			}
			if _, err := serve.New(nil, serve.Options{Logger: quietLogger(), Resources: tc.rs}); err == nil {
				t.Fatal("New accepted them")
			}
		})
	}
	// A refused replacement leaves the resources as they were.
	if got := srv.Resources(); len(got) != 5 {
		t.Errorf("Resources() = %v after refused replacements", got)
	}
}

// TestReadFailure checks that a file that cannot be read is an internal
// error that names no path, not a crash or a not-found.
func TestReadFailure(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "resources.yaml", `resources:
  - {uriTemplate: "test://big/{name}", name: big, description: Big., file: "{{ name }}"}
`)
	big := filepath.Join(dir, "big.bin")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(resources.MaxFileSize + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	srv, _ := resourceServer(t, serve.Options{Resources: parseResources(t, filepath.Join(dir, "resources.yaml"))})
	ctx := testCtx(t)
	cs := connect(t, ctx, srv, inMemory, v20251125, mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil), nil)
	_, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://big/big.bin"})
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != -32603 || strings.Contains(je.Message, dir) {
		t.Fatalf("err = %v; want -32603 naming no path", err)
	}
}

// wait waits for a notification, or fails after a while.
func wait(t testing.TB, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(5 * time.Second):
		t.Fatalf("no %s", what)
	}
}

// TestPromptFlowResources: prompt flows have their source and diagram
// resources too.
func TestPromptFlowResources(t *testing.T) {
	p := compileFile(t, "../testdata/conformance/test_simple_prompt.yaml", flow.Env{})
	srv, err := serve.New([]*flow.Program{p}, serve.Options{Logger: quietLogger(), FlowResources: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx := testCtx(t)
	cs := connect(t, ctx, srv, inMemory, v20251125, mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil), nil)
	list, err := cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range list.Resources {
		got = append(got, r.URI+" "+r.Description)
	}
	want := []string{
		"flow://test_simple_prompt/diagram A Mermaid flowchart of the flow behind the test_simple_prompt prompt.",
		"flow://test_simple_prompt/source The YAML source of the flow behind the test_simple_prompt prompt.",
	}
	if !slices.Equal(got, want) {
		t.Errorf("resources = %q; want %q", got, want)
	}
}
