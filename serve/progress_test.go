package serve_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/flowserve/flowserve/flow"
)

// progressLog collects progress notifications.
type progressLog struct {
	mu    sync.Mutex
	got   []*mcp.ProgressNotificationParams
	added chan struct{}
}

func newProgressLog() *progressLog { return &progressLog{added: make(chan struct{}, 100)} }

func (l *progressLog) handler(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
	l.mu.Lock()
	p := *req.Params
	l.got = append(l.got, &p)
	l.mu.Unlock()
	select {
	case l.added <- struct{}{}:
	default:
	}
}

// wait returns the notifications once there are n, or what came by the
// deadline. Notifications may be handled after the call returns.
func (l *progressLog) wait(ctx context.Context, n int) []*mcp.ProgressNotificationParams {
	deadline := time.NewTimer(2 * time.Second)
	defer deadline.Stop()
	for {
		l.mu.Lock()
		got := slices.Clone(l.got)
		l.mu.Unlock()
		if len(got) >= n {
			return got
		}
		select {
		case <-l.added:
		case <-deadline.C:
			return got
		case <-ctx.Done():
			return got
		}
	}
}

func progressMessages(ps []*mcp.ProgressNotificationParams) []string {
	var out []string
	for _, p := range ps {
		out = append(out, fmt.Sprintf("%v %v %s", p.ProgressToken, p.Progress, p.Message))
	}
	return out
}

// TestProgress: a call with a progress token gets notifications/progress
// before and after each step it runs.
//
// Every era gets one notification before and one after each step, with
// progress counted from the step's journal position (2·pos+1, 2·pos+2),
// so it increases over the whole call even on 2026-07-28, where each
// round is a request of its own that the client may send with the same
// token (the notifications of a round go on its POST's SSE stream over
// HTTP); replayed steps are not reported.
func TestProgress(t *testing.T) {
	steps := testFlow(t, "steps", flow.Env{})
	type want struct {
		token    any
		progress float64
		message  string
	}
	// Positions: one is 0, the question 1, two is 2.
	wants := []want{
		{"tok", 1, "running one (uuid.new)"},
		{"tok", 2, "finished one (uuid.new)"},
		{"tok", 5, "running two (uuid.new)"},
		{"tok", 6, "finished two (uuid.new)"},
	}
	for _, e := range eras {
		for _, kind := range transports {
			t.Run(e.name+"/"+string(kind), func(t *testing.T) {
				ctx := testCtx(t)
				sc := newScript(t, e.version, []question{{id: "proceed", has: []string{"Go on after "}, answer: accept(map[string]any{"go": true})}})
				log := newProgressLog()
				client := clientFor(e, sc, false, nil, &mcp.ClientOptions{ProgressNotificationHandler: log.handler})
				cs := connect(t, ctx, newServer(t, []*flow.Program{steps}, ""), kind, e.version, client, nil)
				params := &mcp.CallToolParams{Name: "steps", Arguments: map[string]any{}}
				params.SetProgressToken("tok")
				res, _, err := callTool(t, ctx, cs, e, sc, params)
				if err != nil {
					t.Fatal(err)
				}
				checkText(t, res, false, "done: ")
				got := log.wait(ctx, len(wants))
				t.Logf("progress: %q", progressMessages(got))
				if len(got) != len(wants) {
					t.Fatalf("%d notifications, want %d: %q", len(got), len(wants), progressMessages(got))
				}
				for i, w := range wants {
					g := got[i]
					if fmt.Sprint(g.ProgressToken) != w.token || g.Progress != w.progress || g.Message != w.message {
						t.Errorf("notification %d: %v %v %q, want %v %v %q", i+1, g.ProgressToken, g.Progress, g.Message, w.token, w.progress, w.message)
					}
				}
			})
		}
	}
}

// TestProgressRaw2026: over HTTP at 2026-07-28, a round's progress
// notifications come on the POST's SSE stream before the result, and no
// notification comes without a progress token.
func TestProgressRaw2026(t *testing.T) {
	ctx := testCtx(t)
	url := startHTTP(t, newServer(t, []*flow.Program{testFlow(t, "steps", flow.Env{})}, ""))
	for _, token := range []any{"tok", 7, nil} {
		t.Run(fmt.Sprint(token), func(t *testing.T) {
			params := callParams("steps", map[string]any{}, formCaps)
			if token != nil {
				params["_meta"].(map[string]any)["progressToken"] = token
			}
			reply := postRaw(t, ctx, url, nil, "tools/call", params)
			var first rawCallResult
			reply.result(t, &first)
			wantInputRequired(t, &first, "proceed")
			checkProgress(t, reply, token, "one", 0)

			params = retry("steps", map[string]any{}, first.RequestState, map[string]any{"proceed": formAnswer(map[string]any{"go": true})})
			if token != nil {
				params["_meta"].(map[string]any)["progressToken"] = token
			}
			reply = postRaw(t, ctx, url, nil, "tools/call", params)
			var res rawCallResult
			reply.result(t, &res)
			wantComplete(t, &res, false, "done: ")
			checkProgress(t, reply, token, "two", 2)
		})
	}
}

// checkProgress checks the notifications of one raw reply: a running and
// a finished notification for the step node at journal position pos, or
// none without a token.
func checkProgress(t *testing.T, reply *httpReply, token any, node string, pos int) {
	t.Helper()
	if token == nil {
		if len(reply.notifications) != 0 {
			t.Errorf("notifications without a progress token: %+v", reply.notifications)
		}
		return
	}
	if !strings.HasPrefix(reply.contentType, "text/event-stream") {
		t.Errorf("reply with notifications is %q, want an SSE stream", reply.contentType)
	}
	var msgs []string
	for _, n := range reply.notifications {
		if n.Method != "notifications/progress" {
			t.Errorf("notification %s", n.Method)
			continue
		}
		var p struct {
			ProgressToken any     `json:"progressToken"`
			Progress      float64 `json:"progress"`
			Message       string  `json:"message"`
		}
		if err := json.Unmarshal(n.Params, &p); err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(p.ProgressToken) != fmt.Sprint(token) {
			t.Errorf("progressToken %v, want %v", p.ProgressToken, token)
		}
		msgs = append(msgs, fmt.Sprintf("%v %s", p.Progress, p.Message))
	}
	want := []string{fmt.Sprintf("%d running %s (uuid.new)", 2*pos+1, node), fmt.Sprintf("%d finished %s (uuid.new)", 2*pos+2, node)}
	if !slices.Equal(msgs, want) {
		t.Errorf("progress %q, want %q", msgs, want)
	}
}
