package cli

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// greetFlow asks two questions; its variants below change it in ways that
// keep or break the journal of a run that answered the first.
const greetFlow = `name: greet
description: Greets someone, version 1.
nodes:
  - id: first
    ask: "What is your first name?"
    form:
      name: {type: string, title: First name}
    required: [name]
  - id: last
    ask: "What is your last name?"
    form:
      name: {type: string, title: Last name}
    required: [name]
  - return: "Hello {{ first.content.name }} {{ last.content.name }}."
`

const otherFlow = `name: other
description: Says hi.
nodes:
  - return: hi
`

// watchServer is `flowserve serve --watch --http` running in-process.
type watchServer struct {
	url    string
	stderr *syncBuffer
	hc     *http.Client
}

// startWatchServer serves dir with --watch on a free port. When the test
// ends, the clients' connections are closed, the server is interrupted
// and must exit 0.
func startWatchServer(t *testing.T, dir string) *watchServer {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	stdout := &syncBuffer{}
	s := &watchServer{stderr: &syncBuffer{}}
	done := make(chan int, 1)
	go func() {
		done <- Run(ctx, []string{"serve", "--watch", "--flow-resources", "--http", "127.0.0.1:0", dir}, strings.NewReader(""), stdout, s.stderr)
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case code := <-done:
			if code != exitOK {
				t.Errorf("serve exited %d; stderr:\n%s", code, s.stderr.String())
			}
		case <-time.After(15 * time.Second):
			t.Errorf("serve did not exit after the interrupt; stderr:\n%s", s.stderr.String())
		}
	})
	deadline := time.Now().Add(15 * time.Second)
	for {
		line, _, _ := strings.Cut(stdout.String(), "\n")
		if m := servingLine.FindStringSubmatch(line); m != nil {
			s.url = m[3]
			break
		}
		select {
		case code := <-done:
			t.Fatalf("serve exited %d; stderr:\n%s", code, s.stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve did not print its address; stderr:\n%s", s.stderr.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections) // before the server shuts down
	s.hc = &http.Client{Transport: tr}
	return s
}

// count returns how many times s is in the server's log.
func (s *watchServer) count(sub string) int { return strings.Count(s.stderr.String(), sub) }

// waitLog waits until the log has sub more than n times.
func (s *watchServer) waitLog(t *testing.T, sub string, n int) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for s.count(sub) <= n {
		if time.Now().After(deadline) {
			t.Fatalf("no new %q in the log:\n%s", sub, s.stderr.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// sessionClient connects a 2025-11-25 session client that reports
// notifications/tools/list_changed on the returned channel.
func sessionClient(t *testing.T, ctx context.Context, s *watchServer) (*mcp.ClientSession, <-chan struct{}) {
	t.Helper()
	changed := make(chan struct{}, 10)
	client := mcp.NewClient(&mcp.Implementation{Name: "watch-test", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
	})
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: s.url, HTTPClient: s.hc},
		&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs, changed
}

// descriptions lists the tools as name: description.
func descriptions(t *testing.T, ctx context.Context, cs *mcp.ClientSession) string {
	t.Helper()
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, tool := range res.Tools {
		out = append(out, tool.Name+": "+tool.Description)
	}
	return strings.Join(out, "\n")
}

// TestServeWatch: changes to the served flows replace the tools and tell
// sessions; a change with errors keeps the previous version serving.
func TestServeWatch(t *testing.T) {
	tests := []struct {
		name     string
		change   func(t *testing.T, dir string)
		log      string // the log line that says the reload is done
		tools    string // tools/list afterwards
		notified bool   // sessions get list_changed
		stderr   []string
	}{
		{
			name: "a good change replaces the tool",
			change: func(t *testing.T, dir string) {
				writeTemp(t, dir, "greet.yaml", strings.Replace(greetFlow, "version 1", "version 2", 1))
			},
			log:      `msg="reloaded flows"`,
			tools:    "greet: Greets someone, version 2.\nother: Says hi.",
			notified: true,
			stderr:   []string{"updated=greet", "added=\"\"", "removed=\"\""},
		},
		{
			name: "a change with errors keeps the previous version",
			change: func(t *testing.T, dir string) {
				bad := strings.Replace(greetFlow, "version 1", "version 2", 1)
				bad = strings.Replace(bad, "first.content.name", "first.content.nmae", 1)
				writeTemp(t, dir, "greet.yaml", bad)
			},
			log:   `reload failed: the flows have errors`,
			tools: "greet: Greets someone, version 1.\nother: Says hi.",
			stderr: []string{
				"still serving the previous flows",
				"greet.yaml:14:", ": error: ",
			},
		},
		{
			name: "a new flow is added",
			change: func(t *testing.T, dir string) {
				writeTemp(t, dir, "third.yaml", strings.Replace(otherFlow, "name: other", "name: third", 1))
			},
			log:      `msg="reloaded flows"`,
			tools:    "greet: Greets someone, version 1.\nother: Says hi.\nthird: Says hi.",
			notified: true,
			stderr:   []string{"added=third"},
		},
		{
			name: "a deleted flow is removed",
			change: func(t *testing.T, dir string) {
				if err := os.Remove(filepath.Join(dir, "other.yaml")); err != nil {
					t.Fatal(err)
				}
			},
			log:      `msg="reloaded flows"`,
			tools:    "greet: Greets someone, version 1.",
			notified: true,
			stderr:   []string{"removed=other"},
		},
		{
			name: "a flow saved by renaming a new file over it",
			change: func(t *testing.T, dir string) {
				tmp := writeTemp(t, dir, ".greet.yaml.swp", strings.Replace(greetFlow, "version 1", "version 3", 1))
				if err := os.Rename(tmp, filepath.Join(dir, "greet.yaml")); err != nil {
					t.Fatal(err)
				}
			},
			log:      `msg="reloaded flows"`,
			tools:    "greet: Greets someone, version 3.\nother: Says hi.",
			notified: true,
		},
		{
			name: "a file written again unchanged, and one that is not a flow",
			change: func(t *testing.T, dir string) {
				writeTemp(t, dir, "notes.txt", "x")
				writeTemp(t, dir, "greet.yaml", greetFlow)
			},
			log:   `msg="no tool changed"`,
			tools: "greet: Greets someone, version 1.\nother: Says hi.",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := cliCtx(t, 60*time.Second)
			dir := t.TempDir()
			writeTemp(t, dir, "greet.yaml", greetFlow)
			writeTemp(t, dir, "other.yaml", otherFlow)
			s := startWatchServer(t, dir)
			cs, changed := sessionClient(t, ctx, s)
			if got, want := descriptions(t, ctx, cs), "greet: Greets someone, version 1.\nother: Says hi."; got != want {
				t.Fatalf("tools before:\n%s\nwant:\n%s", got, want)
			}
			n := s.count(tc.log)
			tc.change(t, dir)
			s.waitLog(t, tc.log, n)
			if got := descriptions(t, ctx, cs); got != tc.tools {
				t.Errorf("tools after:\n%s\nwant:\n%s", got, tc.tools)
			}
			if tc.notified {
				select {
				case <-changed:
				case <-time.After(10 * time.Second):
					t.Error("no notifications/tools/list_changed")
				}
			} else {
				select {
				case <-changed:
					t.Error("notifications/tools/list_changed without a change to the tools")
				default:
				}
			}
			for _, want := range tc.stderr {
				if !strings.Contains(s.stderr.String(), want) {
					t.Errorf("log lacks %q:\n%s", want, s.stderr.String())
				}
			}
			// The tools that are served still work.
			if strings.Contains(tc.tools, "other:") {
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "other", Arguments: map[string]any{}})
				if err != nil || res.IsError || res.Content[0].(*mcp.TextContent).Text != "hi" {
					t.Errorf("other: %+v, %v", res, err)
				}
			}
		})
	}
}

// TestServeWatchInFlight: a 2026-07-28 run that answered its first
// question before the flow changed under --watch finishes on the version
// it began on, whatever the change (it is never asked a question of the
// new version, nor given a result of it), while a new call after the
// reload runs on the new version.
func TestServeWatchInFlight(t *testing.T) {
	tests := []struct {
		name     string
		change   func(src string) string
		newFirst string // what a new call asks first
	}{
		{"unchanged", func(src string) string { return src + "# touched\n" }, "What is your first name?"},
		{"the return text edited", func(src string) string { return strings.Replace(src, "Hello", "Good day", 1) }, "What is your first name?"},
		{"the answered question reworded", func(src string) string {
			return strings.Replace(src, "What is your first name?", "Your given name?", 1)
		}, "Your given name?"},
		{"the pending question reworded", func(src string) string {
			return strings.Replace(src, "What is your last name?", "Your family name?", 1)
		}, "What is your first name?"},
		{"a question added before the answered one", func(src string) string {
			return strings.Replace(src, "nodes:\n", "nodes:\n  - id: title\n    ask: Your title?\n    form:\n      t: {type: string}\n", 1)
		}, "Your title?"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := cliCtx(t, 60*time.Second)
			dir := t.TempDir()
			writeTemp(t, dir, "greet.yaml", greetFlow)
			s := startWatchServer(t, dir)
			cs := connectHTTP(t, ctx, s.hc, s.url)
			call := func(state string, answers mcp.InputResponseMap) (*mcp.CallToolResult, error) {
				return cs.CallTool(ctx, &mcp.CallToolParams{Name: "greet", Arguments: map[string]any{}, RequestState: state, InputResponses: answers})
			}
			res, err := call("", nil)
			if err != nil || !res.NeedsInput() || res.InputRequests["first"] == nil {
				t.Fatalf("round 1: %+v, %v", res, err)
			}
			res, err = call(res.RequestState, mcp.InputResponseMap{"first": &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}})
			if err != nil || !res.NeedsInput() || res.InputRequests["last"] == nil {
				t.Fatalf("round 2: %+v, %v", res, err)
			}
			if msg := res.InputRequests["last"].(*mcp.ElicitParams).Message; msg != "What is your last name?" {
				t.Fatalf("round 2 asks %q", msg)
			}
			state := res.RequestState

			n := s.count(`msg="flows changed; reloading"`)
			writeTemp(t, dir, "greet.yaml", tc.change(greetFlow))
			s.waitLog(t, `msg="flows changed; reloading"`, n)
			waitReloaded(t, s)

			res, err = call(state, mcp.InputResponseMap{"last": &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Lovelace"}}})
			if err != nil || res.NeedsInput() || res.IsError || res.Content[0].(*mcp.TextContent).Text != "Hello Ada Lovelace." {
				t.Fatalf("round 3, on the version the run began on: %+v, %v", res, err)
			}
			res, err = call("", nil)
			if err != nil || !res.NeedsInput() {
				t.Fatalf("new call: %+v, %v", res, err)
			}
			for _, q := range res.InputRequests {
				if msg := q.(*mcp.ElicitParams).Message; msg != tc.newFirst {
					t.Errorf("a new call asks %q, want %q", msg, tc.newFirst)
				}
			}
		})
	}
}

// waitReloaded waits until the last reload has been logged as done.
func waitReloaded(t *testing.T, s *watchServer) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		log := s.stderr.String()
		i := strings.LastIndex(log, `msg="flows changed; reloading"`)
		rest := log[i:]
		if strings.Contains(rest, `msg="reloaded flows"`) || strings.Contains(rest, `msg="no tool changed"`) || strings.Contains(rest, "reload failed") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the reload did not finish:\n%s", log)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestServeWatchStdio: a stdio session is told when the tools change.
func TestServeWatchStdio(t *testing.T) {
	ctx := cliCtx(t, 30*time.Second)
	dir := t.TempDir()
	writeTemp(t, dir, "greet.yaml", greetFlow)
	serverIn, clientOut := io.Pipe()
	clientIn, serverOut := io.Pipe()
	stderr := &syncBuffer{}
	done := make(chan int, 1)
	go func() {
		done <- Run(ctx, []string{"serve", "--stdio", "--watch", dir}, serverIn, serverOut, stderr)
		serverOut.Close()
	}()
	changed := make(chan struct{}, 10)
	client := mcp.NewClient(&mcp.Implementation{Name: "watch-test", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
	})
	cs, err := client.Connect(ctx, &mcp.IOTransport{Reader: clientIn, Writer: clientOut}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-06-18"})
	if err != nil {
		t.Fatalf("connect: %v; stderr:\n%s", err, stderr.String())
	}
	n := strings.Count(stderr.String(), `msg="reloaded flows"`)
	writeTemp(t, dir, "greet.yaml", strings.Replace(greetFlow, "version 1", "version 2", 1))
	select {
	case <-changed:
	case <-time.After(15 * time.Second):
		t.Fatalf("no notifications/tools/list_changed; stderr:\n%s", stderr.String())
	}
	(&watchServer{stderr: stderr}).waitLog(t, `msg="reloaded flows"`, n)
	if got := descriptions(t, ctx, cs); got != "greet: Greets someone, version 2." {
		t.Errorf("tools: %s", got)
	}
	cs.Close()
	select {
	case code := <-done:
		if code != exitOK {
			t.Errorf("serve exited %d; stderr:\n%s", code, stderr.String())
		}
	case <-time.After(15 * time.Second):
		t.Fatal("serve did not exit when the client left")
	}
}

const reloadFlow = `name: reload
description: Reloads the served flows.
nodes:
  - id: r
    step: server.reload
    on_error: failed
  - return: "tools: {{ r.tools.join(', ') }}"
  - id: failed
    fail: "{{ error }}"
`

// TestServeReloadStep: a flow's server.reload step reloads the served
// flows and tells sessions that the tool list changed even when no file
// did; flows with errors fail the step and keep the previous ones serving.
func TestServeReloadStep(t *testing.T) {
	ctx := cliCtx(t, 60*time.Second)
	dir := t.TempDir()
	writeTemp(t, dir, "reload.yaml", reloadFlow)
	writeTemp(t, dir, "other.yaml", otherFlow)
	s := startWatchServer(t, dir)
	cs, changed := sessionClient(t, ctx, s)

	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "reload", Arguments: map[string]any{}})
	if err != nil || res.IsError || res.Content[0].(*mcp.TextContent).Text != "tools: other, reload" {
		t.Fatalf("reload: %+v, %v", res, err)
	}
	select {
	case <-changed:
	case <-time.After(10 * time.Second):
		t.Fatal("no notifications/tools/list_changed after server.reload")
	}

	bad := strings.Replace(otherFlow, "return: hi", "return: \"{{ nope }}\"", 1)
	writeTemp(t, dir, "other.yaml", bad)
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "reload", Arguments: map[string]any{}})
	if err != nil || !res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "the flows have errors; still serving the previous flows") {
		t.Fatalf("reload of a broken flow: %+v, %v", res, err)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "other", Arguments: map[string]any{}})
	if err != nil || res.IsError || res.Content[0].(*mcp.TextContent).Text != "hi" {
		t.Fatalf("other after a failed reload: %+v, %v", res, err)
	}
}
