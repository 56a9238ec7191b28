package serve_test

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/flowserve/flowserve/actions"
	"github.com/flowserve/flowserve/approve"
	"github.com/flowserve/flowserve/flow"
	"github.com/flowserve/flowserve/internal/oauthtest"
	"github.com/flowserve/flowserve/replies/redis/redistest"
	"github.com/flowserve/flowserve/serve"
	"github.com/flowserve/flowserve/tasks"
	taskredis "github.com/flowserve/flowserve/tasks/redis"
)

// The self-approval of #27: a caller without tasks got the approval link
// in every progress notification and in the final error result even when
// the ask had a webhook, and with sign-in any account at the issuer (the
// caller included) could answer.

// TestApprovalLinkOnlyToWebhook: with a webhook, a session client's
// progress notifications and the error result of a call that waited as
// long as it may never carry the link; without one they do (the caller
// is the only channel).
func TestApprovalLinkOnlyToWebhook(t *testing.T) {
	for _, withHook := range []bool{true, false} {
		name := map[bool]string{true: "webhook", false: "no webhook"}[withHook]
		t.Run(name, func(t *testing.T) {
			ctx := testCtx(t)
			args := map[string]any{"amount": 13, "manager": "ana"}
			var h *hook
			if withHook {
				var hookURL string
				h, hookURL = newHook(t, 0)
				args["hook"] = hookURL
			}
			srv, _ := approvalServer(t, "1h", serve.Options{MaxWait: 400 * time.Millisecond})
			var told, linked atomic.Int32
			client := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, &mcp.ClientOptions{
				ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
					if strings.Contains(req.Params.Message, "waiting for ana") {
						told.Add(1)
					}
					if strings.Contains(req.Params.Message, serve.ApprovePath) {
						linked.Add(1)
					}
				}})
			cs := connect(t, ctx, srv, overHTTP, v20251125, client, nil)
			params := &mcp.CallToolParams{Name: "refund", Arguments: args}
			params.SetProgressToken("p")
			res, err := cs.CallTool(ctx, params)
			if err != nil {
				t.Fatal(err)
			}
			text := res.Content[0].(*mcp.TextContent).Text
			if !res.IsError || !strings.Contains(text, "waiting for ana") {
				t.Fatalf("result: %+v %s", res, text)
			}
			if told.Load() == 0 {
				t.Error("no progress notification while the call waited")
			}
			hasLink := strings.Contains(text, serve.ApprovePath)
			if withHook {
				if hasLink || linked.Load() != 0 {
					t.Errorf("the caller got the link although the webhook has it: result %q, %d notifications with it", text, linked.Load())
				}
				if link := h.first(t); !linkPattern.MatchString(link) {
					t.Errorf("the webhook got no link: %q", link)
				}
			} else if !hasLink || linked.Load() == 0 {
				t.Errorf("without a webhook the caller must get the link: result %q, %d notifications with it", text, linked.Load())
			}
		})
	}
}

// TestApprovalSignInWhoMayAnswer: with sign-in, the run's own caller
// cannot answer, even when the question names them; someone the question
// does not name cannot answer; the person it names (by verified email, or
// user:<sub>) can.
func TestApprovalSignInWhoMayAnswer(t *testing.T) {
	ctx := testCtx(t)
	ana := oauthtest.User{Username: "ana", Password: "s3cret-pass", Subject: "user-ana", Email: "ana@example.com", Name: "Ana"}
	boss := oauthtest.User{Username: "boss", Password: "s3cret-pass", Subject: "user-boss", Email: "boss@example.com", Name: "Boss"}
	mal := oauthtest.User{Username: "mal", Password: "s3cret-pass", Subject: "user-mal", Email: "mal@example.com", Name: "Mal"}
	o := startOAuthWith(t, false, func(o *oauthServer) ([]*flow.Program, serve.Options) {
		for _, u := range []oauthtest.User{ana, boss, mal} {
			o.as.AddUser(u)
		}
		id, secret := o.as.WebClient(o.base + approve.SignInPath)
		signIn, err := approve.NewSignIn(ctx, approve.SignInConfig{Issuer: o.as.Issuer(), ClientID: id, ClientSecret: secret})
		if err != nil {
			t.Fatal(err)
		}
		return []*flow.Program{refundProgram(t, "1h")}, serve.Options{PollInterval: 50 * time.Millisecond, ApprovalSignIn: signIn}
	})
	as, endpoint := o.as, o.endpoint
	anaToken := bearer(as.Token(t, oauthtest.TokenRequest{Subject: ana.Subject}))

	// ask starts a refund as Ana, addressed to `to`, and returns its link
	// (from the webhook: the caller is not given it).
	ask := func(to string) string {
		h, hookURL := newHook(t, 0)
		var task wireTask
		postRaw(t, ctx, endpoint, anaToken, "tools/call", callParams("refund", map[string]any{"amount": 50, "manager": to, "hook": hookURL}, tasksCaps)).result(t, &task)
		if task.TaskID == "" {
			t.Fatalf("no task: %+v", task)
		}
		return h.first(t)
	}
	tests := []struct {
		name, to string
		who      oauthtest.User
		ok       bool
		want     string
	}{
		{"the caller, named by sub", "user:user-ana", ana, false, "You made this request"},
		{"the caller, named by email", "ana@example.com", ana, false, "You made this request"},
		{"someone not named", "boss@example.com", mal, false, "This question is for boss@example.com"},
		{"named by email, another case", "Boss@Example.com", boss, true, ""},
		{"named by user:sub", "user:user-boss", boss, true, ""},
		{"named by a bare sub", "user-boss", boss, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			link := ask(tt.to)
			b := signedInBrowser(t, as, link, tt.who)
			status, page := b.get(link)
			if !tt.ok {
				if status != http.StatusForbidden || strings.Contains(page, `name="csrf"`) || !strings.Contains(page, tt.want) {
					t.Fatalf("GET as %s: %d\n%s", tt.who.Username, status, page)
				}
				// Nor can they post an answer.
				form := approveValues("", map[string]string{"approve": "true"})
				form.Set("csrf", "x")
				req, _ := http.NewRequest(http.MethodPost, link, strings.NewReader(form.Encode()))
				req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
				req.Header.Set("Sec-Fetch-Site", "same-origin")
				if resp, err := b.hc.Do(req); err != nil || resp.StatusCode != http.StatusForbidden {
					t.Fatalf("POST as %s: %v %v, want 403", tt.who.Username, resp, err)
				}
				return
			}
			if status != http.StatusOK || !strings.Contains(page, `name="csrf"`) {
				t.Fatalf("GET as %s: %d\n%s", tt.who.Username, status, page)
			}
			if status, page := b.submit(link, approveValues("", map[string]string{"approve": "true"}), false); status != http.StatusOK {
				t.Fatalf("POST as %s: %d\n%s", tt.who.Username, status, page)
			}
		})
	}
}

// signedInBrowser signs who in at as for link's page and returns the
// browser.
func signedInBrowser(t *testing.T, as *oauthtest.Server, link string, who oauthtest.User) *browser {
	t.Helper()
	b := newBrowser(t)
	noFollow := func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	b.hc.CheckRedirect = noFollow
	resp, err := b.hc.Get(link)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	back := as.Login(t, resp.Header.Get("Location"), who)
	resp, err = b.hc.Get(back.String())
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("back from the issuer as %s: %d", who.Username, resp.StatusCode)
	}
	b.hc.CheckRedirect = nil
	return b
}

// TestApprovalSecretsNotAtRest: the run store keeps neither the rendered
// webhook URL (which holds a secret here) nor a live link, on bolt (the
// file's bytes) and on Redis; the webhook is still notified with a link
// that works, and tasks/get still gives the link of an ask without one.
func TestApprovalSecretsNotAtRest(t *testing.T) {
	for _, kind := range []string{"bolt", "redis"} {
		t.Run(kind, func(t *testing.T) {
			ctx := testCtx(t)
			var (
				store tasks.Store
				file  string
			)
			switch kind {
			case "bolt":
				file = filepath.Join(t.TempDir(), "tasks.db")
				b, err := tasks.OpenBolt(file, tasks.BoltOptions{})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { b.Close() })
				store = b
			case "redis":
				rs, err := taskredis.Open(redistest.Start(t).URL, taskredis.Options{})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { rs.Close() })
				store = rs
			}
			h, hookURL := newHook(t, 0)
			// The deployment's webhook, a var: its URL holds a token.
			values := flow.Values{Vars: map[string]string{"approvals_webhook": hookURL + "/services/hook-s3cr3t-t0ken?key=k3y-s3cr3t"}}
			src := strings.Replace(strings.Replace(refundFlow, "TIMEOUT", "1h", 1),
				`notify: {webhook: "{{ input.?hook.orValue('') }}"}`, `notify: {webhook: "{{ input.?hook.orValue('') == '' ? '' : vars.approvals_webhook }}"}`, 1)
			src = strings.Replace(src, "nodes:", "vars:\n  approvals_webhook: {description: the approvals channel}\nnodes:", 1)
			srv := serverWith(t, []*flow.Program{compileSource(t, "refund.yaml", []byte(src), flow.Env{Actions: actions.Default()})},
				serve.Options{Tasks: store, PollInterval: 50 * time.Millisecond, Engine: newEngine(t, flow.EngineOptions{Values: values})})
			t.Cleanup(func() {
				ctx, cancel := context.WithCancel(context.Background())
				cancel()
				srv.Close(ctx)
			})
			u := startHTTP(t, srv)
			hooked := taskCall(t, ctx, u, "refund", map[string]any{"amount": 5, "manager": "ana", "hook": "yes"})
			link := h.first(t)
			plain := taskCall(t, ctx, u, "refund", map[string]any{"amount": 6, "manager": "bo"})
			plainLink := waitingLink(t, ctx, u, plain.TaskID)
			for _, id := range []string{hooked.TaskID, plain.TaskID} {
				stored, err := store.Get(ctx, id)
				if err != nil {
					t.Fatal(err)
				}
				b, err := tasks.Marshal(stored)
				if err != nil {
					t.Fatal(err)
				}
				if bytes.Contains(b, []byte("s3cr3t")) || bytes.Contains(b, []byte(serve.ApprovePath)) {
					t.Errorf("task %s stored with a secret or a link:\n%s", id, b)
				}
			}
			if file != "" {
				raw, err := os.ReadFile(file)
				if err != nil {
					t.Fatal(err)
				}
				if bytes.Contains(raw, []byte("s3cr3t")) || bytes.Contains(raw, []byte(serve.ApprovePath)) {
					t.Error("tasks.db holds the webhook's secret or a link in clear")
				}
			}
			// Both links work.
			for l, amount := range map[string]string{link: "5", plainLink: "6"} {
				if status, _ := newBrowser(t).submit(l, approveValues("Ana", map[string]string{"approve": "true"}), false); status != http.StatusOK {
					t.Fatalf("answer for %s: %d", amount, status)
				}
			}
			for id, want := range map[string]string{hooked.TaskID: "refunded 5, approved by Ana", plain.TaskID: "refunded 6, approved by Ana"} {
				if done := waitTask(t, ctx, u, id, terminal); done.Result.text() != want {
					t.Fatalf("task: %+v", done)
				}
			}
		})
	}
}
