package approve

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/tls"
	"encoding/base64"
	"flag"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/flowserve/flowserve/approvals"
)

var update = flag.Bool("update", false, "rewrite testdata/page.golden.html")

// testNow is the tests' clock: a day before testTicket expires.
var testNow = time.Date(2026, 12, 1, 14, 5, 0, 0, time.UTC)

// testCookie is a CSRF cookie value the tests send.
var testCookie = encoding.EncodeToString(bytes.Repeat([]byte{7}, 32))

// fakeBackend is a Backend of one question.
type fakeBackend struct {
	mu        sync.Mutex
	page      *approvals.Page
	pageErr   error
	reason    string
	submitErr error
	answers   []approvals.Answer
	tickets   []approvals.Ticket
}

func (b *fakeBackend) Page(_ context.Context, t approvals.Ticket) (*approvals.Page, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.tickets = append(b.tickets, t)
	return b.page, b.pageErr
}

func (b *fakeBackend) Submit(_ context.Context, t approvals.Ticket, a approvals.Answer) (string, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.tickets = append(b.tickets, t)
	b.answers = append(b.answers, a)
	return b.reason, b.submitErr
}

// testPage returns the page of the tests' question.
func testPage() *approvals.Page {
	return &approvals.Page{
		Tool: "refund", Title: "Refund a customer", Message: "Refund 30 EUR to ACME?\nThey were charged twice.",
		Schema: everyKind(), To: "finance@example.com", For: "alice (claude-desktop)", Expires: testTicket.Expires,
	}
}

// testSecret is the secret of the tests' sealers.
var testSecret = []byte("0123456789abcdef0123456789abcdef")

// testTicket is the ticket of the tests' links.
var testTicket = approvals.Ticket{
	Task:    "0123456789abcdef0123456789abcdef",
	Key:     "approval-3",
	Expires: time.Date(2026, 12, 2, 14, 5, 0, 0, time.UTC),
}

// testToken is testTicket sealed with testSecret and the nonce 0, 1, …,
// 23: a link that is the same in every run, as the page's golden needs
// (approvals' TestTokenKnownAnswer pins it).
const testToken = "AQABAgMEBQYHCAkKCwwNDg8QERITFBUWF3TQGJmJLwVKWTEJQi5f9DOOC-yu6DsWK3wKq9pslBWTsom7KmyEun6Ax_6ImYCiwkZCtw"

// newTestSealer returns a sealer of secret.
func newTestSealer(t testing.TB, secret []byte) *approvals.Sealer {
	t.Helper()
	s, err := approvals.NewSealer(secret)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// fixture is a handler with a fake backend and the token of testTicket.
type fixture struct {
	h     http.Handler
	b     *fakeBackend
	s     *approvals.Sealer
	k     *keys // the handler's
	token string
	logs  *bytes.Buffer
}

// newFixture returns a handler of testPage at testToken; opts' Now and
// Log are set.
func newFixture(t *testing.T) *fixture {
	t.Helper()
	return newFixtureWith(t, Options{})
}

// newFixtureWith is newFixture with opts.
func newFixtureWith(t *testing.T, opts Options) *fixture {
	t.Helper()
	s := newTestSealer(t, testSecret)
	if tk, err := s.Open(testToken); err != nil || tk != testTicket {
		t.Fatalf("Open(testToken) = %+v, %v; want %+v", tk, err, testTicket)
	}
	f := &fixture{b: &fakeBackend{page: testPage()}, s: s, token: testToken, logs: &bytes.Buffer{}}
	opts.Now = func() time.Time { return testNow }
	opts.Log = slog.New(slog.NewTextHandler(f.logs, nil))
	f.h = NewHandler(f.b, s, opts)
	f.k = f.h.(*handler).k
	return f
}

// get serves GET path with the cookie (none when "").
func (f *fixture) get(path, cookie string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(http.MethodGet, path, nil)
	if cookie != "" {
		r.AddCookie(&http.Cookie{Name: csrfCookie, Value: cookie})
	}
	w := httptest.NewRecorder()
	f.h.ServeHTTP(w, r)
	return w
}

// post serves POST path with the form, the cookie (none when "") and the
// headers.
func (f *fixture) post(path, cookie string, form url.Values, headers ...string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(http.MethodPost, path, strings.NewReader(form.Encode()))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for i := 0; i+1 < len(headers); i += 2 {
		r.Header.Set(headers[i], headers[i+1])
	}
	if cookie != "" {
		r.AddCookie(&http.Cookie{Name: csrfCookie, Value: cookie})
	}
	w := httptest.NewRecorder()
	f.h.ServeHTTP(w, r)
	return w
}

// checkHeaders checks the headers every response has.
func checkHeaders(t *testing.T, w *httptest.ResponseRecorder) {
	t.Helper()
	want := map[string]string{
		"X-Content-Type-Options": "nosniff",
		"Referrer-Policy":        "no-referrer",
		"Cache-Control":          "no-store",
		"X-Frame-Options":        "DENY",
		"Content-Type":           "text/html; charset=utf-8",
	}
	for k, v := range want {
		if got := w.Header().Get(k); got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
	csp := w.Header().Get("Content-Security-Policy")
	for _, part := range []string{"default-src 'none'", "style-src 'sha256-" + styleHash() + "'", "form-action 'self'", "frame-ancestors 'none'", "base-uri 'none'"} {
		if !strings.Contains(csp, part) {
			t.Errorf("Content-Security-Policy %q lacks %q", csp, part)
		}
	}
}

// checkBody checks that body has every string of want and none of bad.
func checkBody(t *testing.T, body string, want, bad []string) {
	t.Helper()
	for _, s := range want {
		if !strings.Contains(body, s) {
			t.Errorf("the page lacks %q", s)
		}
	}
	for _, s := range bad {
		if strings.Contains(body, s) {
			t.Errorf("the page has %q", s)
		}
	}
	if n := strings.Count(body, "<h1"); n != 1 {
		t.Errorf("the page has %d <h1>, want 1", n)
	}
	if strings.Contains(body, "<script") {
		t.Error("the page has a script")
	}
}

func TestGetForm(t *testing.T) {
	f := newFixture(t)
	w := f.get(approvals.Path(f.token), "")
	checkHeaders(t, w)
	if w.Code != http.StatusOK {
		t.Fatalf("status %d, want 200", w.Code)
	}
	body := w.Body.String()
	checkBody(t, body, []string{
		`<html lang="en">`,
		`<h1>Refund a customer</h1>`,
		`A question for <strong>finance@example.com</strong>, asked on behalf of <strong>alice (claude-desktop)</strong>.`,
		"Refund 30 EUR to ACME?\nThey were charged twice.",
		`<time datetime="2026-12-02T14:05:00Z">2 Dec 2026 14:05 UTC</time>`,
		`Your answer is recorded with the name you type here.`,
		// boolean
		`<legend>Approve the refund <span class="req">(required)</span></legend>`,
		`<input type="radio" id="f-approve-yes" name="f.approve" value="true" checked required><label for="f-approve-yes">Yes</label>`,
		`<input type="radio" id="f-approve-no" name="f.approve" value="false" required><label for="f-approve-no">No</label>`,
		// number and integer
		`<label for="f-amount">Amount <span class="req">(required)</span></label>`,
		`<p class="hint" id="f-amount-desc">In EUR, as refunded.</p>`,
		`<input type="number" id="f-amount" name="f.amount" value="" required min="0" max="1000" step="any" aria-describedby="f-amount-desc f-amount-hint">`,
		`<input type="number" id="f-count" name="f.count" value="2" min="1" step="1" aria-describedby="f-count-hint">`,
		// strings
		`<label for="f-note">Note for the requester</label>`,
		`<p class="hint" id="f-note-hint">From 2 to 500 characters</p>`,
		`<textarea id="f-note" name="f.note" rows="4" minlength="2" maxlength="500" aria-describedby="f-note-hint"></textarea>`,
		`<input type="email" id="f-email" name="f.email" value="">`,
		`<label for="f-site">site</label>`,
		`<input type="url" id="f-site" name="f.site" value="">`,
		`<input type="date" id="f-day" name="f.day" value="">`,
		`<input type="datetime-local" id="f-when" name="f.when" value="2026-12-03T09:30:00" aria-describedby="f-when-hint">`,
		// single-selects: radios with enumNames, a select of oneOf
		`<input type="radio" id="f-size-1" name="f.size" value="m" checked required><label for="f-size-1">Medium</label>`,
		`<label for="f-priority">Priority</label>`,
		`<select id="f-priority" name="f.priority">`,
		`<option value="p3" selected>Normal</option>`,
		`<option value="p6">Whenever</option>`,
		// multi-selects
		`<legend>Tags <span class="req">(required)</span></legend>`,
		`<p class="hint" id="f-tags-hint">Choose from 1 to 2</p>`,
		`<input type="checkbox" id="f-tags-1" name="f.tags" value="b" checked><label for="f-tags-1">b</label>`,
		`<input type="checkbox" id="f-teams-0" name="f.teams" value="ops"><label for="f-teams-0">Operations</label>`,
		// the name and the buttons
		`<label for="answered_by">Your name <span class="req">(required)</span></label>`,
		`<input type="text" id="answered_by" name="answered_by" value="" required maxlength="200" autocomplete="name" aria-describedby="answered_by-hint">`,
		`<button type="submit" name="action" value="accept">Submit</button>`,
		`<button type="submit" name="action" value="decline" class="secondary" formnovalidate>Decline to answer</button>`,
	}, []string{`role="alert"`, `aria-invalid="true"`})

	// x-order first, then by name.
	last := -1
	for _, id := range []string{"f-approve-yes", "f-amount", "f-count", "f-day", "f-email", "f-note", "f-priority", "f-site", "f-size-0", "f-tags-0", "f-teams-0", "f-when", "answered_by"} {
		i := strings.Index(body, `id="`+id+`"`)
		if i < last {
			t.Errorf("field %s is out of order", id)
		}
		last = i
	}
	// Every control has its label.
	for _, m := range regexp.MustCompile(`<(?:input|select) type="[a-z-]+" id="([^"]+)"|<select id="([^"]+)"`).FindAllStringSubmatch(body, -1) {
		id := m[1] + m[2]
		if !strings.Contains(body, `<label for="`+id+`">`) {
			t.Errorf("control %s has no label", id)
		}
	}
}

func TestGetCookie(t *testing.T) {
	tests := []struct {
		name   string
		cookie string
		tls    bool
		set    bool
	}{
		{"none", "", false, true},
		{"none over TLS", "", true, true},
		{"present", testCookie, false, false},
		{"malformed", "short", false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			r := httptest.NewRequest(http.MethodGet, approvals.Path(f.token), nil)
			if tt.tls {
				r.TLS = &tls.ConnectionState{}
			}
			if tt.cookie != "" {
				r.AddCookie(&http.Cookie{Name: csrfCookie, Value: tt.cookie})
			}
			w := httptest.NewRecorder()
			f.h.ServeHTTP(w, r)
			cookies := w.Result().Cookies()
			if !tt.set {
				if len(cookies) != 0 {
					t.Errorf("set cookies %v, want none", cookies)
				}
				checkBody(t, w.Body.String(), []string{`name="csrf" value="` + f.k.csrfField(testCookie, f.token) + `"`}, nil)
				return
			}
			if len(cookies) != 1 {
				t.Fatalf("set cookies %v, want one", cookies)
			}
			c := cookies[0]
			if c.Name != csrfCookie || !c.HttpOnly || c.SameSite != http.SameSiteStrictMode || c.Path != "/approve/" || c.Secure != tt.tls {
				t.Errorf("cookie %+v, want %s, HttpOnly, SameSite=Strict, Path=/approve/, Secure %v", c, csrfCookie, tt.tls)
			}
			if b, err := encoding.DecodeString(c.Value); err != nil || len(b) != 32 {
				t.Errorf("cookie value %q is not 32 bytes of base64url", c.Value)
			}
			checkBody(t, w.Body.String(), []string{`name="csrf" value="` + f.k.csrfField(c.Value, f.token) + `"`}, nil)
		})
	}
}

func TestPageGolden(t *testing.T) {
	f := newFixture(t)
	w := f.get(approvals.Path(f.token), testCookie)
	if w.Code != http.StatusOK {
		t.Fatalf("status %d", w.Code)
	}
	golden := filepath.Join("testdata", "page.golden.html")
	if *update {
		if err := os.WriteFile(golden, w.Body.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update to write it)", err)
	}
	if got := w.Body.String(); got != string(want) {
		t.Errorf("the page differs from %s (run go test -update after checking it):\n%s", golden, got)
	}
}

func TestGetFormVariants(t *testing.T) {
	tests := []struct {
		name string
		page func(*approvals.Page)
		want []string
		bad  []string
	}{
		{
			name: "no title", page: func(p *approvals.Page) { p.Title = "" },
			want: []string{"<title>refund</title>", "<h1>refund</h1>"},
		},
		{
			name: "no caller", page: func(p *approvals.Page) { p.For = "" },
			want: []string{"A question for <strong>finance@example.com</strong>."}, bad: []string{"on behalf"},
		},
		{
			name: "no expiry", page: func(p *approvals.Page) { p.Expires = time.Time{} },
			want: []string{"This link works until <time datetime=\"2026-12-02T14:05:00Z\">2 Dec 2026 14:05 UTC</time>"},
		},
		{
			name: "escaped", page: func(p *approvals.Page) { p.Message = `<b>"hi"</b>`; p.To = "<x>" },
			want: []string{"&lt;b&gt;&#34;hi&#34;&lt;/b&gt;", "<strong>&lt;x&gt;</strong>"}, bad: []string{"<b>"},
		},
		{
			name: "names that are not ids",
			page: func(p *approvals.Page) {
				p.Schema = map[string]any{"type": "object", "properties": map[string]any{
					"my field": map[string]any{"type": "string"},
					"x-y":      map[string]any{"type": "boolean", "title": "X or Y"},
				}}
			},
			want: []string{`<label for="f-0">my field</label>`, `id="f-0" name="f.my field"`,
				`<input type="radio" id="f-1-yes" name="f.x-y" value="true">`},
		},
		{
			name: "a property named like the name field",
			page: func(p *approvals.Page) {
				p.Schema = map[string]any{"properties": map[string]any{"answered_by": map[string]any{"type": "string"}}}
			},
			want: []string{`<input type="text" id="f-answered_by" name="f.answered_by" value="">`,
				`<input type="text" id="answered_by" name="answered_by" value=""`},
		},
		{
			name: "no schema", page: func(p *approvals.Page) { p.Schema = nil },
			want: []string{`<input type="hidden" name="csrf"`, `id="answered_by"`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			tt.page(f.b.page)
			w := f.get(approvals.Path(f.token), testCookie)
			if w.Code != http.StatusOK {
				t.Fatalf("status %d", w.Code)
			}
			checkBody(t, w.Body.String(), tt.want, tt.bad)
		})
	}
}

// TestStyleHash checks that the page's style is the one the
// Content-Security-Policy allows, byte for byte.
func TestStyleHash(t *testing.T) {
	f := newFixture(t)
	body := f.get(approvals.Path(f.token), testCookie).Body.String()
	m := regexp.MustCompile(`(?s)<style>(.*?)</style>`).FindStringSubmatch(body)
	if m == nil {
		t.Fatal("the page has no style")
	}
	sum := sha256.Sum256([]byte(m[1]))
	if got, want := base64.StdEncoding.EncodeToString(sum[:]), styleHash(); got != want {
		t.Errorf("the style's hash is %s, the policy allows %s", got, want)
	}
	if strings.Count(body, "<style") != 1 || strings.Contains(body, "style=") {
		t.Error("the page has styles besides its style sheet")
	}
}
