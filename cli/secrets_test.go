package cli

import (
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/crypto/chacha20poly1305"
)

// deployFlow sends its secret as a Bearer header to the API its var
// names, between two questions.
const deployFlow = `description: Deploys a version.
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
    ask: "Deploy {{ input.version }}?"
    form:
      ok: {type: boolean}
    required: [ok]
  - id: deploy
    step: http.request
    with:
      method: POST
      url: "{{ vars.api_base }}/deploy"
      headers: {Authorization: "Bearer {{ secrets.deploy_token }}"}
  - id: tell
    ask: "Deployed ({{ deploy.status }}). Tell the team?"
    form:
      yes: {type: boolean}
  - return: "deployed {{ input.version }}: {{ deploy.status }}"
`

const deployTest = `secrets: {deploy_token: test-token}
tests:
  - name: deploys
    vars: {api_base: "http://127.0.0.1:1"}
    mocks:
      deploy: {status: 200, headers: {}}
    answers:
      confirm: {content: {ok: true}}
      tell: {content: {yes: false}}
    expect:
      text: "deployed 1.0: 200"
      step_inputs:
        deploy: {headers: {Authorization: Bearer test-token}}
    args: {version: "1.0"}
`

const cliToken = "cli-s3cret-7a6b5c"

// deployAPI is an HTTP API that counts the deploys sent with the token.
func deployAPI(t *testing.T) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var n atomic.Int32
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+cliToken {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		n.Add(1)
		w.WriteHeader(http.StatusCreated)
	}))
	t.Cleanup(api.Close)
	return api, &n
}

func TestSecretsLintAndTest(t *testing.T) {
	dir := t.TempDir()
	writeTemp(t, dir, "deploy.yaml", deployFlow)
	writeTemp(t, dir, "deploy_test.yaml", deployTest)
	if out, errOut, code := runBinary(t, "lint", dir); code != 0 {
		t.Errorf("lint: exit %d\n%s%s", code, out, errOut)
	}
	if out, errOut, code := runBinary(t, "test", dir); code != 0 || !strings.Contains(out, "1 case") {
		t.Errorf("test: exit %d\n%s%s", code, out, errOut)
	}
}

func TestServeRefusesMissingValues(t *testing.T) {
	dir := t.TempDir()
	flow := writeTemp(t, dir, "deploy.yaml", deployFlow)
	secrets := writeTemp(t, dir, "secrets.yaml", "other: x\n")
	cmd := exec.Command(binary(t), "serve", "--http", "127.0.0.1:0", "--secrets", secrets, flow)
	cmd.Env = append(os.Environ(), "FLOWSERVE_VAR_API_BASE=http://127.0.0.1:1")
	out, err := cmd.CombinedOutput()
	if exit, ok := err.(*exec.ExitError); !ok || exit.ExitCode() != 1 {
		t.Fatalf("serve: %v\n%s", err, out)
	}
	want := flow + ":10:3: error: the deploy flow declares secret deploy_token (Bearer token for the deploy API), and the server has no value for it: " +
		"$FLOWSERVE_SECRET_DEPLOY_TOKEN is not set (or empty) and --secrets " + secrets + " does not give it [missing-value]\n" +
		"flowserve serve: not starting: the flows have errors\n"
	if !strings.HasSuffix(string(out), want) {
		t.Errorf("serve said:\n%s\nwant it to end with:\n%s", out, want)
	}
}

// openSealed decrypts a request state sealed with the key of a ring
// line "id:base64", as flow/state documents the format.
func openSealed(t *testing.T, ringLine, token string) string {
	t.Helper()
	id, b64, _ := strings.Cut(ringLine, ":")
	secret, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		t.Fatal(err)
	}
	kid, payload, _ := strings.Cut(token, ".")
	raw, err := base64.RawURLEncoding.DecodeString(payload)
	if err != nil || kid != id {
		t.Fatalf("state %q: %v", token, err)
	}
	aead, err := chacha20poly1305.New(secret)
	if err != nil {
		t.Fatal(err)
	}
	n := chacha20poly1305.NonceSize
	plain, err := aead.Open(nil, raw[:n], raw[n:], []byte("flowserve/requestState\x01"+id))
	if err != nil {
		t.Fatal(err)
	}
	return string(plain)
}

func TestServeSecretsOverHTTP(t *testing.T) {
	ctx := cliCtx(t, 60*time.Second)
	api, deploys := deployAPI(t)
	dir := t.TempDir()
	flow := writeTemp(t, dir, "deploy.yaml", deployFlow)
	vars := writeTemp(t, dir, "vars.yaml", "api_base: "+api.URL+"\n")
	ring, lines := writeKeyRing(t, dir, "ring.keys", "k1")
	cmd := exec.Command(binary(t), "serve", "--http", "127.0.0.1:0", "--keys", ring, "--vars", vars,
		"--log-level", "debug", "--flow-resources", flow)
	// The file's api_base wins over the environment's.
	cmd.Env = append(os.Environ(), "FLOWSERVE_SECRET_DEPLOY_TOKEN="+cliToken, "FLOWSERVE_VAR_API_BASE=http://127.0.0.1:1")
	s, tools := startServeCmd(t, cmd)
	if tools != "1 deploy" {
		t.Errorf("serving %s", tools)
	}
	cs := connectHTTP(t, ctx, http.DefaultClient, s.url)
	params := mcp.CallToolParams{Name: "deploy", Arguments: map[string]any{"version": "2.0"}}
	answers := []mcp.InputResponseMap{
		{"confirm": &mcp.ElicitResult{Action: "accept", Content: map[string]any{"ok": true}}},
		{"tell": &mcp.ElicitResult{Action: "accept", Content: map[string]any{"yes": true}}},
	}
	var states []string
	p := params
	for round := 0; ; round++ {
		res, err := cs.CallTool(ctx, &p)
		if err != nil {
			t.Fatal(err)
		}
		if !res.NeedsInput() {
			if text := res.Content[0].(*mcp.TextContent).Text; res.IsError || text != "deployed 2.0: 201" {
				t.Errorf("result %q (isError %v)", text, res.IsError)
			}
			break
		}
		if round == len(answers) {
			t.Fatalf("asked again: %v", res.InputRequests)
		}
		states = append(states, openSealed(t, lines[0], res.RequestState))
		p = params
		p.InputResponses, p.RequestState = answers[round], res.RequestState
	}
	if deploys.Load() != 1 {
		t.Errorf("the API took %d deploys with the token, want 1", deploys.Load())
	}
	if len(states) != 2 || !strings.Contains(states[1], `"status":201`) {
		t.Errorf("states %q: the second should hold the step's output", states)
	}
	for _, r := range []string{"flow://deploy/source", "flow://deploy/diagram"} {
		res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: r})
		if err != nil {
			t.Fatal(err)
		}
		states = append(states, res.Contents[0].Text)
	}
	for i, text := range append(states, s.stderr.String()) {
		if strings.Contains(text, cliToken) {
			t.Errorf("text %d (states, resources, then the log) holds the secret:\n%s", i, text)
		}
	}
	if log := s.stderr.String(); !strings.Contains(log, "round needs input") {
		t.Errorf("the log is not at debug level:\n%s", log)
	}
}

func TestRunReadsValues(t *testing.T) {
	api, deploys := deployAPI(t)
	dir := t.TempDir()
	flow := writeTemp(t, dir, "deploy.yaml", deployFlow)
	secrets := writeTemp(t, dir, "secrets.yaml", "deploy_token: "+cliToken+"\n")
	answers := writeTemp(t, dir, "answers.yaml", "confirm: {content: {ok: true}}\ntell: {content: {yes: true}}\n")
	cmd := exec.Command(binary(t), "run", "--answers", answers, "--args", `{"version": "3.0"}`, "--secrets", secrets, flow)
	cmd.Env = append(os.Environ(), "FLOWSERVE_VAR_API_BASE="+api.URL)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "deployed 3.0: 201") || deploys.Load() != 1 {
		t.Errorf("run: %v, %d deploys\n%s", err, deploys.Load(), out)
	}
	if strings.Contains(string(out), cliToken) {
		t.Errorf("run shows the secret:\n%s", out)
	}

	cmd = exec.Command(binary(t), "run", "--answers", answers, "--args", `{"version": "3.0"}`, filepath.Join(dir, "deploy.yaml"))
	cmd.Env = append(os.Environ(), "FLOWSERVE_VAR_API_BASE="+api.URL)
	out, err = cmd.CombinedOutput()
	if exit, ok := err.(*exec.ExitError); !ok || exit.ExitCode() != 1 ||
		!strings.Contains(string(out), "$FLOWSERVE_SECRET_DEPLOY_TOKEN is not set (or empty) and no --secrets file was given [missing-value]") {
		t.Errorf("run without the secret: %v\n%s", err, out)
	}
}
