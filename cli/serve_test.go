package cli

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/flowserve/flowserve/replies/redis/redistest"
)

// The flowserve binary, built once by the first test that needs it.
var (
	binDir   string
	binOnce  sync.Once
	binPath  string
	binError error
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "flowserve-cli-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// binary returns the path of a flowserve binary built from this module.
func binary(t testing.TB) string {
	t.Helper()
	binOnce.Do(func() {
		path := filepath.Join(binDir, "flowserve")
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, "go", "build", "-o", path, "./cmd/flowserve")
		cmd.Dir = ".." // the module root
		if out, err := cmd.CombinedOutput(); err != nil {
			binError = fmt.Errorf("go build: %v\n%s", err, out)
			return
		}
		binPath = path
	})
	if binError != nil {
		t.Fatal(binError)
	}
	return binPath
}

const exampleFlowsDir = "../flows"

// cliCtx bounds one test.
func cliCtx(t testing.TB, d time.Duration) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// runBinary runs flowserve to its end and returns its output and exit
// code.
func runBinary(t testing.TB, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	ctx := cliCtx(t, 30*time.Second)
	cmd := exec.CommandContext(ctx, binary(t), args...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit):
		code = exit.ExitCode()
	default:
		t.Fatalf("flowserve %q: %v", args, err)
	}
	if ctx.Err() != nil {
		t.Fatalf("flowserve %q did not end: stderr %s", args, errOut.String())
	}
	return out.String(), errOut.String(), code
}

// writeKeyRing writes a key ring file of keys with the given ids and
// returns its path.
func writeKeyRing(t testing.TB, dir, name string, ids ...string) (path string, lines []string) {
	t.Helper()
	for _, id := range ids {
		var secret [32]byte
		rand.Read(secret[:])
		lines = append(lines, id+":"+base64.StdEncoding.EncodeToString(secret[:]))
	}
	path = filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte("# test ring\n"+strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return path, lines
}

// deleteAnswer confirms delete_file's question.
func deleteAnswer(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	if !strings.HasPrefix(req.Params.Message, "Delete report.txt (11 bytes") {
		return nil, fmt.Errorf("unexpected question %q", req.Params.Message)
	}
	return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"proceed": true}}, nil
}

// TestServeStdio drives `flowserve serve --stdio` as a subprocess with a
// go-sdk client, at 2026-07-28 (server/discover, then MRTR) and on a
// 2025-06-18 session.
func TestServeStdio(t *testing.T) {
	for _, version := range []string{"2026-07-28", "2025-11-25", "2025-06-18"} {
		t.Run(version, func(t *testing.T) {
			ctx := cliCtx(t, 30*time.Second)
			root := t.TempDir()
			if err := os.WriteFile(filepath.Join(root, "report.txt"), []byte("hello world"), 0o644); err != nil {
				t.Fatal(err)
			}
			cs, stderr := connectStdio(t, ctx, version, &mcp.ClientOptions{ElicitationHandler: deleteAnswer}, "--fs-root", root, exampleFlowsDir)
			tools, err := cs.ListTools(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, tool := range tools.Tools {
				names = append(names, tool.Name)
			}
			if got := strings.Join(names, ","); got != "book_meeting,delete_file,expense_approval,github_signin,project_brief,refund_approval,rotate_key,signup,write_file" {
				t.Errorf("tools %s", got)
			}
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "delete_file", Arguments: map[string]any{"path": "report.txt"}})
			if err != nil {
				t.Fatalf("call: %v; stderr:\n%s", err, stderr.String())
			}
			if res.IsError || len(res.Content) != 1 || res.Content[0].(*mcp.TextContent).Text != "Deleted report.txt." {
				t.Errorf("result isError %v, content %v", res.IsError, res.Content)
			}
			if _, err := os.Stat(filepath.Join(root, "report.txt")); !os.IsNotExist(err) {
				t.Errorf("report.txt still exists (%v)", err)
			}
			if err := cs.Close(); err != nil {
				t.Errorf("close: %v", err)
			}
			for _, want := range []string{"no state key ring", "serving on stdio"} {
				if !strings.Contains(stderr.String(), want) {
					t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
				}
			}
		})
	}
}

// syncBuffer is a bytes.Buffer safe for a writing process and a reading
// test.
// connectStdio starts `flowserve serve --stdio ARGS...` as a subprocess and
// connects a go-sdk client with opts at version; it returns the session
// and the server's standard error.
func connectStdio(t *testing.T, ctx context.Context, version string, opts *mcp.ClientOptions, args ...string) (*mcp.ClientSession, *syncBuffer) {
	t.Helper()
	cmd := exec.Command(binary(t), append([]string{"serve", "--stdio"}, args...)...)
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "cli-test", Version: "1"}, opts)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connect: %v; stderr:\n%s", err, stderr.String())
	}
	return cs, stderr
}

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

// diagLine is a diagnostic as flowserve prints it.
var diagLine = regexp.MustCompile(`^(\S+):(\d+):(\d+): error: .+ \[[a-z0-9-]+\]$`)

// TestServeRefusesFlowsWithErrors: serve prints the diagnostics of every
// flow, one a line, and does not start.
func TestServeRefusesFlowsWithErrors(t *testing.T) {
	dir := t.TempDir()
	good, err := os.ReadFile(filepath.Join(exampleFlowsDir, "signup.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"signup.yaml": string(good),
		"broken.yaml": `name: broken
description: Asks a question and branches on a field the form does not have.
nodes:
  - id: q
    ask: "Which colour?"
    form:
      colour: {type: string, title: Colour}
    required: [colour]
  - branch:
      - if: q.content.color == "red"
        then: nowhere
  - return: done
`,
		"bad_yaml.yaml": "name: [unclosed\n",
	}
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	stdout, stderr, code := runBinary(t, "serve", "--stdio", dir)
	if code != 1 {
		t.Fatalf("exit %d, want 1; stderr:\n%s", code, stderr)
	}
	if stdout != "" {
		t.Errorf("stdout %q", stdout)
	}
	var diags []string
	for _, line := range strings.Split(strings.TrimSpace(stderr), "\n") {
		if m := diagLine.FindStringSubmatch(line); m != nil {
			diags = append(diags, line)
			if base := filepath.Base(m[1]); base != "broken.yaml" && base != "bad_yaml.yaml" {
				t.Errorf("diagnostic for %s: %s", m[1], line)
			}
		}
	}
	for _, file := range []string{"broken.yaml", "bad_yaml.yaml"} {
		if !strings.Contains(strings.Join(diags, "\n"), file+":") {
			t.Errorf("no diagnostic for %s in:\n%s", file, stderr)
		}
	}
	for _, want := range []string{
		`broken.yaml:11:15: error: no node has id "nowhere" [unknown-target]`,
		`bad_yaml.yaml:1:1: error: `,
		"flowserve serve: not starting: the flows have errors",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	t.Logf("stderr:\n%s", stderr)
}

// TestServeCommandLineErrors: usage errors exit 2, problems with what the
// flags name exit 1, and serve never starts.
func TestServeCommandLineErrors(t *testing.T) {
	dir := t.TempDir()
	notDir := filepath.Join(dir, "file")
	badRing := filepath.Join(dir, "bad.keys")
	for path, content := range map[string]string{notDir: "x", badRing: "k1:not-base64\n"} {
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	empty := t.TempDir()
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"http and stdio", []string{"--http", "127.0.0.1:0", "--stdio"}, 2, "--http and --stdio cannot be used together"},
		{"stdio and http", []string{"--stdio", "--http=127.0.0.1:0"}, 2, "--http and --stdio cannot be used together"},
		{"zero state ttl", []string{"--stdio", "--state-ttl", "0s"}, 2, "--state-ttl must be positive"},
		{"negative state ttl", []string{"--stdio", "--state-ttl", "-1m"}, 2, "--state-ttl must be positive"},
		{"bad state ttl", []string{"--stdio", "--state-ttl", "soon"}, 2, "invalid value"},
		{"bad log level", []string{"--stdio", "--log-level", "loud"}, 2, "--log-level"},
		{"unknown flag", []string{"--stdio", "--bogus"}, 2, "flag provided but not defined"},
		{"fs root not a directory", []string{"--stdio", "--fs-root", notDir, exampleFlowsDir}, 1, "is not a directory"},
		{"missing key ring", []string{"--stdio", "--keys", filepath.Join(dir, "none.keys"), exampleFlowsDir}, 1, "key ring"},
		{"bad key ring", []string{"--stdio", "--keys", badRing, exampleFlowsDir}, 1, "line 1"},
		{"no such path", []string{"--stdio", filepath.Join(dir, "nowhere")}, 2, "no such file or directory"},
		{"no flows", []string{"--stdio", empty}, 2, "no flow files"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, stderr, code := runBinary(t, append([]string{"serve"}, tc.args...)...)
			if code != tc.code || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want exit %d containing %q", code, stderr, tc.code, tc.want)
			}
		})
	}
}

// httpServer is a `flowserve serve --http` subprocess.
type httpServer struct {
	url    string
	stderr *syncBuffer
}

var servingLine = regexp.MustCompile(`^flowserve: serving (\d+) tools? \(([^)]*)\) at (http://127\.0\.0\.1:\d+/mcp)$`)

// startHTTPServer starts flowserve serving the example flows over HTTP
// on a free loopback port and returns once it prints its address. It is
// interrupted, and must exit 0, when the test ends.
func startHTTPServer(t *testing.T, args ...string) *httpServer {
	t.Helper()
	s, tools := startServeCmd(t, exec.Command(binary(t), append([]string{"serve", "--http", "127.0.0.1:0"}, args...)...))
	if tools != "9 book_meeting, delete_file, expense_approval, github_signin, project_brief, refund_approval, rotate_key, signup, write_file" {
		t.Errorf("serving %s", tools)
	}
	return s
}

// startServeCmd starts cmd, a flowserve serve --http command, and returns
// once it prints its address, with the tools it serves ("N name, ...").
// It is interrupted, and must exit 0, when the test ends.
func startServeCmd(t *testing.T, cmd *exec.Cmd) (*httpServer, string) {
	t.Helper()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	s := &httpServer{stderr: &syncBuffer{}}
	cmd.Stderr = s.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Read stdout to its end (the process's); hand over the first line.
	first := make(chan string, 1)
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			select {
			case first <- sc.Text():
			default:
			}
		}
	}()
	stop := func() error {
		cmd.Process.Signal(syscall.SIGINT)
		exited := make(chan error, 1)
		go func() {
			<-drained // Wait closes the pipe: read it all first
			exited <- cmd.Wait()
		}()
		select {
		case err := <-exited:
			return err
		case <-time.After(15 * time.Second):
			cmd.Process.Kill()
			return errors.New("flowserve did not exit within 15s of SIGINT")
		}
	}
	var tools string
	select {
	case line := <-first:
		m := servingLine.FindStringSubmatch(line)
		if m == nil {
			stop()
			t.Fatalf("first line of stdout %q does not match %s; stderr:\n%s", line, servingLine, s.stderr.String())
		}
		s.url, tools = m[3], m[1]+" "+m[2]
	case <-drained:
		stop()
		t.Fatalf("flowserve exited without serving; stderr:\n%s", s.stderr.String())
	case <-time.After(30 * time.Second):
		stop()
		t.Fatalf("flowserve did not print its address; stderr:\n%s", s.stderr.String())
	}
	t.Cleanup(func() {
		if err := stop(); err != nil {
			t.Errorf("flowserve after SIGINT: %v; stderr:\n%s", err, s.stderr.String())
		}
	})
	return s, tools
}

// connectHTTP connects a 2026-07-28 client that drives rounds itself,
// through hc.
func connectHTTP(t *testing.T, ctx context.Context, hc *http.Client, url string) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "cli-test", Version: "1"}, &mcp.ClientOptions{
		Capabilities:   &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}},
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
	})
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: hc}, nil)
	if err != nil {
		t.Fatalf("connect %s: %v", url, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

var signupAnswer = mcp.InputResponseMap{"details": &mcp.ElicitResult{Action: "accept", Content: map[string]any{
	"name": "Ada Lovelace", "email": "ada@example.com", "interests": []any{"research"},
}}}

// TestServeHTTPSharedKeyRing: servers sharing a key ring file continue
// each other's runs; a key ring whose first key is new but which still
// holds the old one (rotation) opens the old states and seals with the
// new key; a server with another key refuses them with -32602.
func TestServeHTTPSharedKeyRing(t *testing.T) {
	ctx := cliCtx(t, 60*time.Second)
	dir := t.TempDir()
	ring, lines := writeKeyRing(t, dir, "ring.keys", "k1")
	// Rotated: k2 seals, k1 still opens.
	rotated := filepath.Join(dir, "rotated.keys")
	_, newLines := writeKeyRing(t, dir, "new.keys", "k2")
	if err := os.WriteFile(rotated, []byte(newLines[0]+"\n"+lines[0]+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	other, _ := writeKeyRing(t, dir, "other.keys", "k1")

	a := startHTTPServer(t, "--keys", ring, exampleFlowsDir)
	b := startHTTPServer(t, "--keys", ring, exampleFlowsDir)
	c := startHTTPServer(t, "--keys", rotated, exampleFlowsDir)
	d := startHTTPServer(t, "--keys", other, exampleFlowsDir)
	e := startHTTPServer(t, exampleFlowsDir) // ephemeral key
	// The client's own transport: its connections, idle or dialed and
	// unused, are closed before the servers shut down (which waits 5s
	// for a connection that never sent a request).
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	hc := &http.Client{Transport: tr}
	if !strings.Contains(e.stderr.String(), "ephemeral key") {
		t.Errorf("no warning about the ephemeral key:\n%s", e.stderr.String())
	}
	if strings.Contains(a.stderr.String(), "ephemeral key") {
		t.Errorf("warning about an ephemeral key with --keys:\n%s", a.stderr.String())
	}

	firstRound := func(t *testing.T, s *httpServer) string {
		t.Helper()
		res, err := connectHTTP(t, ctx, hc, s.url).CallTool(ctx, &mcp.CallToolParams{Name: "signup", Arguments: map[string]any{}})
		if err != nil {
			t.Fatal(err)
		}
		if !res.NeedsInput() || res.RequestState == "" || res.InputRequests["details"] == nil {
			t.Fatalf("round 1 on %s: not input_required: %+v", s.url, res)
		}
		return res.RequestState
	}
	secondRound := func(t *testing.T, s *httpServer, st string) (*mcp.CallToolResult, error) {
		t.Helper()
		return connectHTTP(t, ctx, hc, s.url).CallTool(ctx, &mcp.CallToolParams{
			Name: "signup", Arguments: map[string]any{}, InputResponses: signupAnswer, RequestState: st,
		})
	}
	tests := []struct {
		name     string
		from, to *httpServer
		ok       bool
		keyID    string // of round 1's state
	}{
		{"a to b", a, b, true, "k1"},
		{"b to a", b, a, true, "k1"},
		{"a to rotated", a, c, true, "k1"},
		{"rotated to a", c, a, false, "k2"}, // a does not know k2 yet
		{"a to another key", a, d, false, "k1"},
		{"a to ephemeral", a, e, false, "k1"},
		{"ephemeral to a", e, a, false, "ephemeral"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st := firstRound(t, tc.from)
			if id, _, _ := strings.Cut(st, "."); id != tc.keyID {
				t.Errorf("state sealed with key %q, want %q", id, tc.keyID)
			}
			res, err := secondRound(t, tc.to, st)
			if !tc.ok {
				var werr *jsonrpc.Error
				if !errors.As(err, &werr) || werr.Code != -32602 || werr.Message != "requestState is not valid for this call" {
					t.Fatalf("got %+v, %v; want -32602 requestState is not valid for this call", res, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if res.NeedsInput() || res.IsError || len(res.Content) == 0 ||
				!strings.HasPrefix(res.Content[0].(*mcp.TextContent).Text, "Signed up Ada Lovelace") {
				t.Errorf("round 2: %+v", res)
			}
		})
	}
}

// TestServeHTTPSharedRedis: two flowserve processes sharing a key ring
// file and a Redis reply store (--replies) serve one run round by round,
// and a final round retried on the other instance after a lost reply gets
// the stored result: the receipt step does not run again.
func TestServeHTTPSharedRedis(t *testing.T) {
	ctx := cliCtx(t, 60*time.Second)
	dir := t.TempDir()
	ring, _ := writeKeyRing(t, dir, "ring.keys", "k1")
	rs := redistest.Start(t)
	a := startHTTPServer(t, "--keys", ring, "--replies", rs.URL, exampleFlowsDir)
	b := startHTTPServer(t, "--keys", ring, "--replies", rs.URL, exampleFlowsDir)
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	hc := &http.Client{Transport: tr}

	args := map[string]any{"description": "Laptop", "amount": 1200}
	first, err := connectHTTP(t, ctx, hc, a.url).CallTool(ctx, &mcp.CallToolParams{Name: "expense_approval", Arguments: args})
	if err != nil || !first.NeedsInput() || first.InputRequests["decision"] == nil {
		t.Fatalf("round 1 on a: %+v, %v", first, err)
	}
	final := &mcp.CallToolParams{Name: "expense_approval", Arguments: args, RequestState: first.RequestState,
		InputResponses: mcp.InputResponseMap{"decision": &mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": "approve"}}}}
	var texts []string
	for _, s := range []*httpServer{b, a} { // the reply from b is "lost": the client retries on a
		res, err := connectHTTP(t, ctx, hc, s.url).CallTool(ctx, final)
		if err != nil || res.IsError || res.NeedsInput() || len(res.Content) == 0 {
			t.Fatalf("final round on %s: %+v, %v", s.url, res, err)
		}
		texts = append(texts, res.Content[0].(*mcp.TextContent).Text)
	}
	if !strings.HasPrefix(texts[0], "Filed 1200 EUR for Laptop (receipt ") || texts[0] != texts[1] {
		t.Fatalf("final results %q: the retry on the other instance ran the final step again", texts)
	}
}
