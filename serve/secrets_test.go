package serve_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/crypto/chacha20poly1305"

	"github.com/flowserve/flowserve/actions"
	"github.com/flowserve/flowserve/flow"
	"github.com/flowserve/flowserve/flow/state"
	"github.com/flowserve/flowserve/serve"
)

// deploySecretsFlow reads a var and a secret: the secret only in a
// step's with values (a header of http.request and a log.info message).
// It asks before the step and after it, so that a state is sealed with
// the step's output in its journal.
const deploySecretsFlow = `name: deploy
description: Deploys a version.
input:
  type: object
  properties:
    version: {type: string}
  required: [version]
vars:
  api_base: {description: Base URL of the deploy API}
secrets:
  deploy_token: {description: Bearer token for the deploy API}
nodes:
  - id: confirm
    ask: "Deploy {{ input.version }} to {{ vars.api_base }}?"
    form:
      ok: {type: boolean}
    required: [ok]
  - id: note
    step: log.info
    with: {message: "deploying with {{ secrets.deploy_token }}"}
  - id: deploy
    step: http.request
    with:
      method: POST
      url: "{{ vars.api_base }}/deploy"
      headers: {Authorization: "Bearer {{ secrets.deploy_token }}"}
      json: {version: "{{ input.version }}"}
  - id: done
    ask: "Deployed: {{ deploy.json.id }} ({{ deploy.status }}). Tell the team?"
    form:
      tell: {type: boolean}
  - return: "Deployed {{ input.version }} as {{ deploy.json.id }}"
`

// brokenSecretsFlow sends the secret in a query parameter to a server that
// is not there: the error of http.request names the whole URL.
const brokenSecretsFlow = `name: broken_deploy
description: Deploys to nowhere.
vars:
  api_base: {description: Base URL}
secrets:
  deploy_token: {description: Token}
nodes:
  - id: deploy
    step: http.request
    with:
      url: "{{ vars.api_base }}/deploy"
      query: {token: "{{ secrets.deploy_token }}"}
      timeout: 5s
    on_error: failed
  - return: unreachable
  - id: failed
    fail: "deploy failed: {{ error }}"
`

// The values the server runs the flows with.
const (
	deployToken = "tok-9f8e7d6c5b4a"
	closedURL   = "http://127.0.0.1:1"
)

// syncBuffer is a buffer written by the server's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// secretsServer serves the deploy flow against an API that requires the
// token: the server, its log (at debug level), the key that seals its
// states, and how many deploys the API took.
type secretsServer struct {
	srv     *serve.Server
	logs    *syncBuffer
	key     state.Key
	mu      sync.Mutex
	deploys int
}

func newSecretsServer(t *testing.T) *secretsServer {
	t.Helper()
	s := &secretsServer{logs: &syncBuffer{}, key: state.Key{ID: "k1"}}
	copy(s.key.Secret[:], "secrets test key, 32 bytes long!")
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+deployToken || r.URL.Path != "/deploy" {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		s.mu.Lock()
		s.deploys++
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"id": "d-1"}`))
	}))
	t.Cleanup(api.Close)
	values := flow.Values{Secrets: map[string]string{"deploy_token": deployToken}}
	values.Vars = map[string]string{"api_base": api.URL}
	ring, err := state.NewKeyRing(s.key)
	if err != nil {
		t.Fatal(err)
	}
	engine := newEngine(t, flow.EngineOptions{Codec: state.NewCodec(ring, state.Options{}), Values: values})
	logger := slog.New(serve.RedactingHandler(slog.NewTextHandler(s.logs, &slog.HandlerOptions{Level: slog.LevelDebug}), values.Redactor()))
	deploy := compileSource(t, "deploy.yaml", []byte(deploySecretsFlow), flow.Env{})
	s.srv, err = serve.New([]*flow.Program{deploy}, serve.Options{
		Version: "test", Logger: logger, Host: &actions.Host{Logger: logger}, Engine: engine, FlowResources: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// noSecret fails the test when text holds the secret.
func noSecret(t *testing.T, what, text string) {
	t.Helper()
	if strings.Contains(text, deployToken) {
		t.Errorf("%s holds the secret:\n%s", what, text)
	}
}

// openState decrypts a sealed state as flow/state documents its format.
func openState(t *testing.T, key state.Key, token string) string {
	t.Helper()
	id, payload, _ := strings.Cut(token, ".")
	raw, err := base64.RawURLEncoding.DecodeString(payload)
	if err != nil || id != key.ID {
		t.Fatalf("state %q: key %q, %v", token, id, err)
	}
	aead, err := chacha20poly1305.New(key.Secret[:])
	if err != nil {
		t.Fatal(err)
	}
	n := chacha20poly1305.NonceSize
	plain, err := aead.Open(nil, raw[:n], raw[n:], []byte("flowserve/requestState\x01"+key.ID))
	if err != nil {
		t.Fatalf("open the state: %v", err)
	}
	return string(plain)
}

func TestSecretsOverModernHTTP(t *testing.T) {
	s := newSecretsServer(t)
	ctx := testCtx(t)
	e := era{name: v20260728 + "-manual", version: v20260728, manual: true}
	cs := connect(t, ctx, s.srv, overHTTP, v20260728, clientFor(e, nil, false, nil, nil), nil)
	params := &mcp.CallToolParams{Name: "deploy", Arguments: map[string]any{"version": "1.2.3"}}
	answers := []mcp.InputResponseMap{
		{"confirm": accept(map[string]any{"ok": true})},
		{"done": accept(map[string]any{"tell": false})},
	}
	var plains []string
	p := *params
	for round := 0; ; round++ {
		res, err := cs.CallTool(ctx, &p)
		if err != nil {
			t.Fatal(err)
		}
		if !res.NeedsInput() {
			checkText(t, res, false, "Deployed 1.2.3 as d-1")
			break
		}
		if round >= len(answers) {
			t.Fatalf("round %d asks again: %v", round+1, res.InputRequests)
		}
		raw, _ := json.Marshal(res)
		noSecret(t, "an input_required result", string(raw))
		plains = append(plains, openState(t, s.key, res.RequestState))
		p = *params
		p.InputResponses, p.RequestState = answers[round], res.RequestState
	}
	if s.deploys != 1 {
		t.Errorf("the API took %d deploys, want 1", s.deploys)
	}
	if len(plains) != 2 || !strings.Contains(plains[1], `"id":"d-1"`) {
		t.Fatalf("states %q: the second should hold the step's output", plains)
	}
	for _, plain := range plains {
		noSecret(t, "a sealed state", plain)
	}
	logs := s.logs.String()
	noSecret(t, "the log", logs)
	if !strings.Contains(logs, "deploying with "+flow.Redacted) || !strings.Contains(logs, "round needs input") {
		t.Errorf("the debug log lacks the redacted log.info line or the rounds:\n%s", logs)
	}
}

func TestSecretsOverSessionHTTP(t *testing.T) {
	s := newSecretsServer(t)
	ctx := testCtx(t)
	e := era{name: v20251125, version: v20251125}
	sc := newScript(t, v20251125, []question{
		{id: "confirm", has: []string{"Deploy 1.2.3 to http://127.0.0.1:"}, answer: accept(map[string]any{"ok": true})},
		{id: "done", has: []string{"Deployed: d-1 (200)"}, answer: accept(map[string]any{"tell": true})},
	})
	cs := connect(t, ctx, s.srv, overHTTP, v20251125, clientFor(e, sc, false, nil, nil), nil)
	res, _, err := callTool(t, ctx, cs, e, sc, &mcp.CallToolParams{Name: "deploy", Arguments: map[string]any{"version": "1.2.3"}})
	if err != nil {
		t.Fatal(err)
	}
	checkText(t, res, false, "Deployed 1.2.3 as d-1")
	if s.deploys != 1 {
		t.Errorf("the API took %d deploys, want 1", s.deploys)
	}
	noSecret(t, "the log", s.logs.String())
}

func TestSecretsInErrorResults(t *testing.T) {
	s := newSecretsServer(t)
	// The broken flow's engine points api_base at a closed port.
	values := flow.Values{Vars: map[string]string{"api_base": closedURL}, Secrets: map[string]string{"deploy_token": deployToken}}
	engine := newEngine(t, flow.EngineOptions{Values: values})
	broken := compileSource(t, "broken_deploy.yaml", []byte(brokenSecretsFlow), flow.Env{})
	logger := slog.New(serve.RedactingHandler(slog.NewTextHandler(s.logs, &slog.HandlerOptions{Level: slog.LevelDebug}), values.Redactor()))
	srv, err := serve.New([]*flow.Program{broken}, serve.Options{Version: "test", Logger: logger, Engine: engine})
	if err != nil {
		t.Fatal(err)
	}
	ctx := testCtx(t)
	for _, e := range []era{{name: v20260728, version: v20260728}, {name: v20250618, version: v20250618}} {
		cs := connect(t, ctx, srv, overHTTP, e.version, clientFor(e, nil, false, nil, nil), nil)
		res, _, err := callTool(t, ctx, cs, e, nil, &mcp.CallToolParams{Name: "broken_deploy"})
		if err != nil {
			t.Fatal(err)
		}
		// http.request's error names the URL, the query with the token
		// included: the engine redacts it.
		checkText(t, res, true, "deploy failed: ", "token="+flow.Redacted)
		noSecret(t, e.name+" error result", resultText(res))
	}
	noSecret(t, "the log", s.logs.String())
}

func TestSecretsNotInFlowResources(t *testing.T) {
	s := newSecretsServer(t)
	ctx := testCtx(t)
	e := era{name: v20260728, version: v20260728}
	cs := connect(t, ctx, s.srv, overHTTP, v20260728, clientFor(e, nil, false, nil, nil), nil)
	list, err := cs.ListResources(ctx, &mcp.ListResourcesParams{})
	if err != nil {
		t.Fatal(err)
	}
	read := 0
	for _, r := range list.Resources {
		if !strings.HasPrefix(r.URI, "flow://deploy/") {
			continue
		}
		res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: r.URI})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range res.Contents {
			noSecret(t, r.URI, c.Text)
			if strings.Contains(c.Text, "http://127.0.0.1") {
				t.Errorf("%s holds the value of api_base:\n%s", r.URI, c.Text)
			}
			if r.URI == "flow://deploy/source" && c.Text != deploySecretsFlow {
				t.Errorf("the source is not the file:\n%s", c.Text)
			}
		}
		read++
	}
	if read != 2 {
		t.Errorf("read %d resources of the deploy flow, want its source and diagram (%v)", read, list.Resources)
	}
}

func TestRedactingHandler(t *testing.T) {
	r := flow.Values{Secrets: map[string]string{"a": deployToken}}.Redactor()
	var buf bytes.Buffer
	logger := slog.New(serve.RedactingHandler(slog.NewJSONHandler(&buf, nil), r)).
		With("preset", "with "+deployToken).WithGroup("g")
	logger.Info("message "+deployToken,
		"s", deployToken, "n", 7, "err", errTest("failed: "+deployToken),
		"fields", map[string]any{"k": deployToken}, slog.Group("inner", "x", deployToken), "plain", map[string]any{"k": 1})
	out := buf.String()
	noSecret(t, "the log line", out)
	var rec map[string]any
	if err := json.Unmarshal(buf.Bytes(), &rec); err != nil {
		t.Fatal(err)
	}
	g, _ := rec["g"].(map[string]any)
	inner, _ := g["inner"].(map[string]any)
	red := flow.Redacted
	if rec["msg"] != "message "+red || rec["preset"] != "with "+red || g["s"] != red || g["n"] != 7.0 ||
		g["err"] != "failed: "+red || g["fields"] != "map[k:"+red+"]" || inner["x"] != red {
		t.Errorf("log line %s", out)
	}
	if plain, _ := g["plain"].(map[string]any); plain["k"] != 1.0 {
		t.Errorf("a value without a secret changed: %s", out)
	}
	h := slog.NewTextHandler(&buf, nil)
	if serve.RedactingHandler(h, nil) != slog.Handler(h) {
		t.Error("a nil Redactor wraps the handler")
	}
}

// errTest is an error with a fixed message.
type errTest string

func (e errTest) Error() string { return string(e) }
