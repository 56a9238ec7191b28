package serve_test

import (
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/flowserve/flowserve/approvals"
	"github.com/flowserve/flowserve/approve"
	"github.com/flowserve/flowserve/flow"
	"github.com/flowserve/flowserve/internal/oauthtest"
	"github.com/flowserve/flowserve/serve"
)

// TestApprovalSignIn: with sign-in, the approval page sends the person to
// the issuer first, shows who signed in instead of asking a name, and
// records the answer with their subject; a browser that did not sign in
// for that link gets no form.
func TestApprovalSignIn(t *testing.T) {
	ctx := testCtx(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	as := oauthtest.New(t, oauthtest.Options{})
	ana := oauthtest.User{Username: "ana", Password: "s3cret-pass", Subject: "user-ana", Email: "ana@example.com", Name: "Ana Lima"}
	as.AddUser(ana)
	id, secret := as.WebClient(base + approve.SignInPath)
	signIn, err := approve.NewSignIn(ctx, approve.SignInConfig{Issuer: as.Issuer(), ClientID: id, ClientSecret: secret})
	if err != nil {
		t.Fatal(err)
	}
	srv := serverWith(t, []*flow.Program{refundProgram(t, "1h")}, serve.Options{PollInterval: 50 * time.Millisecond, ApprovalSignIn: signIn})
	hs := httptest.NewUnstartedServer(srv.HTTPHandler(serve.HTTPOptions{}))
	hs.Listener.Close()
	hs.Listener = ln
	hs.Start()
	t.Cleanup(hs.Close)
	u := base + serve.EndpointPath

	task := taskCall(t, ctx, u, "refund", map[string]any{"amount": 120, "manager": "ana@example.com"})
	link := waitingLink(t, ctx, u, task.TaskID)

	b := newBrowser(t)
	b.hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := b.hc.Get(link)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	authURL := resp.Header.Get("Location")
	if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(authURL, as.Issuer()) || !strings.Contains(authURL, "code_challenge_method=S256") {
		t.Fatalf("GET the link signed out: %d, to %q; want a redirect to the issuer with PKCE", resp.StatusCode, authURL)
	}
	back := as.Login(t, authURL, ana)
	// Someone else's browser cannot finish this sign-in.
	if status, page := newBrowser(t).get(back.String()); status != http.StatusForbidden || strings.Contains(page, "<form") {
		t.Fatalf("another browser finishing the sign-in: %d\n%s", status, page)
	}
	resp, err = b.hc.Get(back.String())
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != approvals.Path(link[strings.LastIndex(link, "/")+1:]) {
		t.Fatalf("back from the issuer: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	status, page := b.get(link)
	if status != http.StatusOK || !strings.Contains(page, "Signed in as <strong>Ana Lima (ana@example.com)</strong>") || strings.Contains(page, `name="answered_by"`) {
		t.Fatalf("GET the link signed in: %d\n%s", status, page)
	}
	// A browser without the sign-in is sent to sign in (and lands on
	// the issuer's page), and cannot post the form.
	if _, page := newBrowser(t).get(link); strings.Contains(page, `name="csrf"`) || !strings.Contains(page, "Sign in") {
		t.Fatalf("another browser got:\n%s", page)
	}
	other := newBrowser(t)
	other.hc.CheckRedirect = b.hc.CheckRedirect
	form := approveValues("Mallory", map[string]string{"approve": "true"})
	form.Set("csrf", "x")
	req, _ := http.NewRequest(http.MethodPost, link, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	if resp, err := other.hc.Do(req); err != nil || resp.StatusCode != http.StatusForbidden {
		t.Fatalf("a post without sign-in: %v %v", resp, err)
	}
	status, page = b.submit(link, approveValues("Mallory", map[string]string{"approve": "true"}), false)
	if status != http.StatusOK || !strings.Contains(page, "Ana Lima") {
		t.Fatalf("answer: %d\n%s", status, page)
	}
	done := waitTask(t, ctx, u, task.TaskID, terminal)
	if done.Status != "completed" || done.Result.text() != "refunded 120, approved by user-ana" {
		t.Fatalf("task: %+v %s", done, done.Result.text())
	}
}
