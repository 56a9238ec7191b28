package cli

import (
	"bytes"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// refundArgs are the arguments of refund_approval in these tests.
var refundArgs = []string{"--args", `{"order": "A-1042", "amount": 49.9, "reason": "arrived broken"}`}

// approvalLink matches the line flowserve run prints for the approval
// it waits for.
var approvalLink = regexp.MustCompile(`approval: waiting for finance@example\.com to answer "approval" at (http://127\.0\.0\.1:\d+/approve/[A-Za-z0-9_-]+) \(until \d+ \w+ \d{4} \d\d:\d\d UTC\)\n`)

// TestRunApprovalPage runs refund_approval with its approval on the
// page (the default): the run prints the link and the notification it
// does not post, a browser opens the link and sends the form (with the
// CSRF cookie and field the page gives it), first without the note a
// refusal needs, and the run ends with the answer.
func TestRunApprovalPage(t *testing.T) {
	stdout := &syncBuffer{}
	var stderr bytes.Buffer
	done := make(chan int, 1)
	args := append(append([]string{"run"}, refundArgs...), filepath.Join(exampleFlowsDir, "refund_approval.yaml"))
	go func() { done <- Run(cliCtx(t, 30*time.Second), args, strings.NewReader(""), stdout, &stderr) }()
	waitFor(t, stdout.String, "/approve/")
	waitFor(t, stdout.String, `"text": `)
	m := approvalLink.FindStringSubmatch(stdout.String())
	if m == nil {
		t.Fatalf("no approval line in:\n%s", stdout.String())
	}
	link := m[1]
	for _, want := range []string{
		"? [approval] Refund 49.9 EUR for order A-1042? Reason: arrived broken\n  (an approval for finance@example.com, not the caller; times out after 24h)\n",
		"  flowserve run does not post webhooks: the ask's webhook (hooks.example.com) would get\n  {\n",
		`"tool": "refund_approval"`, `"question": "approval"`, `"to": "finance@example.com"`, `"link": "` + link + `"`,
	} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout.String())
		}
	}

	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Jar: jar, Timeout: 10 * time.Second}
	resp, err := client.Get(link)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	csrf := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindStringSubmatch(string(page))
	if resp.StatusCode != http.StatusOK || csrf == nil || !strings.Contains(string(page), "Approve the refund") {
		t.Fatalf("GET %s: %d\n%s", link, resp.StatusCode, page)
	}
	post := func(form url.Values) (int, string) {
		t.Helper()
		form.Set("csrf", csrf[1])
		resp, err := client.PostForm(link, form)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	if status, body := post(url.Values{"action": {"accept"}, "answered_by": {"Fran"}, "f.approve": {"false"}}); status != http.StatusUnprocessableEntity ||
		!strings.Contains(body, "say in the note why the refund is refused") {
		t.Fatalf("a refusal without a note: %d\n%s", status, body)
	}
	if status, body := post(url.Values{"action": {"accept"}, "answered_by": {"Fran"}, "f.approve": {"false"}, "f.note": {"Past the return window."}}); status != http.StatusOK ||
		!strings.Contains(body, "your answer was recorded") {
		t.Fatalf("a refusal with a note: %d\n%s", status, body)
	}
	select {
	case code := <-done:
		if code != exitOK {
			t.Errorf("exit %d; stderr:\n%s", code, stderr.String())
		}
	case <-time.After(15 * time.Second):
		t.Fatalf("run did not end:\n%s", stdout.String())
	}
	rest := stdout.String()
	for _, want := range []string{
		"✗ Not accepted (on the page): say in the note why the refund is refused\n",
		`→ accept {"approve":false,"note":"Past the return window."} (by Fran)`,
		"Result:\nThe refund of 49.9 EUR for order A-1042 was refused by Fran: Past the return window..\n",
		`"decided_by": "Fran"`,
	} {
		i := strings.Index(rest, want)
		if i < 0 {
			t.Fatalf("stdout lacks %q (in order):\n%s", want, stdout.String())
		}
		rest = rest[i+len(want):]
	}
}

// TestRunApprovalTerminal answers refund_approval's approval in the
// terminal (--approvals terminal) and from an answers file, which answers
// approvals too unless --approvals page says otherwise.
func TestRunApprovalTerminal(t *testing.T) {
	dir := t.TempDir()
	flow := filepath.Join(exampleFlowsDir, "refund_approval.yaml")
	tests := []struct {
		name    string
		args    []string
		answers string // an answers file, when set
		input   string
		code    int
		has     []string
		stderr  string
	}{
		{
			name:  "accessible prompts, the name offered from $USER",
			args:  []string{"--approvals", "terminal"},
			input: "1\ny\n\n\n",
			has: []string{
				"How do you respond, as finance@example.com? \n1. Answer\n2. Decline (say no)\n3. Let it time out (as if nobody answered within 24h)\n",
				"Approve the refund [y/N] y\n",
				"Your name [required; 1 to 200 characters; Enter for tess]: \n",
				`→ accept {"approve":true} (by tess)`,
				"· ran step refund (uuid.new)\n",
				"Result:\nRefunded 49.9 EUR for order A-1042 (refund ",
				"approved by tess.\n",
			},
		},
		{
			name:  "refused without a note, then with one under another name",
			args:  []string{"--approvals", "terminal"},
			input: "1\nn\n\n\n" + "\n\nWrong size\nFran\n",
			has: []string{
				`→ accept {"approve":false} (by tess)`,
				"✗ Not accepted: say in the note why the refund is refused\n? [approval]",
				`→ accept {"approve":false,"note":"Wrong size"} (by Fran)`,
				"was refused by Fran: Wrong size.\n",
			},
		},
		{
			name:  "let it time out",
			args:  []string{"--approvals", "terminal"},
			input: "3\n",
			code:  1,
			has:   []string{"→ timeout\n", "Result (isError):\nNobody approved the refund of order A-1042 within a day"},
		},
		{
			name:    "an answers file answers the approval",
			answers: "approval: {action: decline, by: Sam}\n",
			has:     []string{"→ decline (by Sam)\n", "was refused by Sam (declined).\n"},
		},
		{
			name:    "an answers file lets it time out",
			answers: "approval: timeout\n",
			code:    1,
			has:     []string{"→ timeout\n", "within a day"},
		},
		{
			name:    "an approval cannot be cancelled",
			answers: "approval: cancel\n",
			code:    1,
			stderr:  `flowserve run: the approval "approval" cannot be cancelled`,
		},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("USER", "tess")
			args := append([]string{"run"}, tc.args...)
			if tc.answers != "" {
				args = append(args, "--answers", writeTemp(t, dir, "answers"+string(rune('a'+i))+".yaml", tc.answers))
			}
			args = append(append(args, refundArgs...), flow)
			stdout, stderr, code := runCLI(t, cliCtx(t, 20*time.Second), strings.NewReader(tc.input), args...)
			if code != tc.code {
				t.Errorf("exit %d, want %d; stderr:\n%s\nstdout:\n%s", code, tc.code, stderr, stdout)
			}
			checkInOrder(t, "stdout", stdout, tc.has)
			if !strings.Contains(stderr, tc.stderr) {
				t.Errorf("stderr lacks %q:\n%s", tc.stderr, stderr)
			}
			if strings.Contains(stdout, "/approve/") {
				t.Errorf("a terminal run served a page:\n%s", stdout)
			}
		})
	}
}

// TestRunApprovalFlags: --approvals takes page or terminal, and the page
// reports an address it cannot listen on.
func TestRunApprovalFlags(t *testing.T) {
	flow := filepath.Join(exampleFlowsDir, "refund_approval.yaml")
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"bad mode", []string{"--approvals", "browser", flow}, exitUsage, `flowserve run: --approvals must be page or terminal, not "browser"`},
		{"bad address", append(append([]string{"--approval-addr", "256.0.0.1:99999"}, refundArgs...), flow), exitFail, "flowserve run: the approval page cannot listen on 256.0.0.1:99999"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, stderr, code := runCLI(t, cliCtx(t, 10*time.Second), strings.NewReader(""), append([]string{"run"}, tc.args...)...)
			if code != tc.code || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want exit %d containing %q", code, stderr, tc.code, tc.want)
			}
		})
	}
}
