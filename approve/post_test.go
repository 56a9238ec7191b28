package approve

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/flowserve/flowserve/approvals"
)

func TestNotices(t *testing.T) {
	expired := testTicket
	expired.Expires = testNow
	tests := []struct {
		name    string
		path    string // "" for the fixture's token
		expired bool   // the link expires at testNow
		pageErr error
		status  int
		want    string
	}{
		{name: "bad token", path: approvals.Path("garbage"), status: http.StatusNotFound, want: "This link is not valid"},
		{name: "no token", path: "/approve/", status: http.StatusNotFound, want: "This link is not valid"},
		{name: "after the token", path: "/approve/TOKEN/more", status: http.StatusNotFound, want: "This link is not valid"},
		{name: "other path", path: "/other/TOKEN", status: http.StatusNotFound, want: "This link is not valid"},
		{name: "expired", expired: true, status: http.StatusGone, want: "This link has expired</h1>\n<p>It was valid until 1 Dec 2026 14:05 UTC.</p>"},
		{name: "answered", pageErr: approvals.ErrAnswered, status: http.StatusGone, want: "This question has already been answered"},
		{name: "gone", pageErr: approvals.ErrGone, status: http.StatusGone, want: "This request is no longer open"},
		{name: "wrapped gone", pageErr: errors.Join(errors.New("task ended"), approvals.ErrGone), status: http.StatusGone, want: "This request is no longer open"},
		{name: "failing backend", pageErr: errors.New("store is down: secret detail"), status: http.StatusInternalServerError, want: "Something went wrong"},
	}
	for _, tt := range tests {
		for _, method := range []string{http.MethodGet, http.MethodPost} {
			t.Run(tt.name+" "+method, func(t *testing.T) {
				f := newFixture(t)
				f.b.pageErr = tt.pageErr
				token := f.token
				if tt.expired {
					var err error
					if token, err = f.s.Seal(expired); err != nil {
						t.Fatal(err)
					}
				}
				path := approvals.Path(token)
				if tt.path != "" {
					path = strings.ReplaceAll(tt.path, "TOKEN", token)
				}
				var w = f.get(path, testCookie)
				if method == http.MethodPost {
					w = f.post(path, testCookie, validForm(f, "accept"))
				}
				checkHeaders(t, w)
				if w.Code != tt.status {
					t.Errorf("status %d, want %d", w.Code, tt.status)
				}
				checkBody(t, w.Body.String(), []string{tt.want}, []string{"<form", "secret detail"})
				if len(f.b.answers) != 0 {
					t.Errorf("the backend got answers %v", f.b.answers)
				}
				if tt.status == http.StatusInternalServerError && !strings.Contains(f.logs.String(), "secret detail") {
					t.Errorf("the error was not logged: %s", f.logs)
				}
			})
		}
	}
}

func TestMethodNotAllowed(t *testing.T) {
	for _, method := range []string{http.MethodPut, http.MethodDelete, http.MethodHead, "PATCH"} {
		f := newFixture(t)
		w := httptest.NewRecorder()
		f.h.ServeHTTP(w, httptest.NewRequest(method, approvals.Path(f.token), nil))
		checkHeaders(t, w)
		if w.Code != http.StatusMethodNotAllowed || w.Header().Get("Allow") != "GET, POST" {
			t.Errorf("%s: status %d, Allow %q; want 405, GET, POST", method, w.Code, w.Header().Get("Allow"))
		}
	}
}

// validForm returns a well-formed answer to the fixture's form.
func validForm(f *fixture, action string) url.Values {
	return url.Values{
		"csrf": {f.k.csrfField(testCookie, f.token)}, "action": {action}, "answered_by": {"  Bob Smith "},
		"f.approve": {"true"}, "f.amount": {"30"}, "f.count": {"2"}, "f.note": {"private note 123"},
		"f.size": {"l"}, "f.priority": {"p6"}, "f.tags": {"a", "c"}, "f.when": {"2026-12-03T09:30"}, "f.email": {""},
	}
}

// typedContent is the content of validForm.
var typedContent = map[string]any{
	"approve": true, "amount": 30.0, "count": int64(2), "note": "private note 123",
	"size": "l", "priority": "p6", "tags": []any{"a", "c"}, "when": "2026-12-03T09:30:00Z",
}

// postCase is a POST of the fixture's form and what it must come to.
type postCase struct {
	name      string
	cookie    string // "-" for none, "" for testCookie
	change    func(url.Values)
	headers   []string
	reason    string
	submitErr error
	status    int
	want      []string
	bad       []string
	answer    *approvals.Answer // nil: no answer submitted
}

// postCases returns the cases of TestPost: validForm with a change.
func postCases() []postCase {
	return []postCase{
		{
			name: "accepted", status: http.StatusOK,
			want:   []string{"Thank you — your answer was recorded", "You answered", "<dt>Approve the refund</dt><dd>Yes</dd>", "<dd>private note 123</dd>", "answered by <strong>Bob Smith</strong> on <time datetime=\"2026-12-01T14:05:00Z\">1 Dec 2026 14:05 UTC</time>"},
			bad:    []string{"<form"},
			answer: &approvals.Answer{Action: "accept", Content: typedContent, By: "Bob Smith", At: testNow},
		},
		{
			name: "declined", status: http.StatusOK,
			change: func(v url.Values) { v["f.amount"] = []string{"not checked"}; v.Set("action", "decline") },
			want:   []string{"Thank you — your answer was recorded", "You declined"},
			bad:    []string{"<form"},
			answer: &approvals.Answer{Action: "decline", By: "Bob Smith", At: testNow},
		},
		{name: "no csrf field", change: func(v url.Values) { v.Del("csrf") }, status: http.StatusForbidden, want: []string{"This form has expired or was not sent from this page; open the link again"}, bad: []string{"<form"}},
		{name: "wrong csrf field", change: func(v url.Values) { v.Set("csrf", testCookie) }, status: http.StatusForbidden, want: []string{"open the link again"}, bad: []string{"<form"}},
		{name: "no cookie", cookie: "-", status: http.StatusForbidden, want: []string{"open the link again"}, bad: []string{"<form"}},
		{name: "other cookie", cookie: encoding.EncodeToString(make([]byte, 32)), status: http.StatusForbidden, want: []string{"open the link again"}, bad: []string{"<form"}},
		{name: "cross-site", headers: []string{"Sec-Fetch-Site", "cross-site"}, status: http.StatusForbidden, want: []string{"open the link again"}, bad: []string{"<form"}},
		{name: "other origin", headers: []string{"Origin", "https://evil.example"}, status: http.StatusForbidden, want: []string{"open the link again"}, bad: []string{"<form"}},
		{
			name: "same origin", headers: []string{"Sec-Fetch-Site", "same-origin"}, status: http.StatusOK,
			want: []string{"Thank you"}, answer: &approvals.Answer{Action: "accept", Content: typedContent, By: "Bob Smith", At: testNow},
		},
		{
			name: "no name", change: func(v url.Values) { v.Set("answered_by", "   ") }, status: http.StatusUnprocessableEntity,
			want: []string{`role="alert"`, `<a href="#answered_by">Enter your name</a>`, `aria-invalid="true"`,
				`aria-describedby="answered_by-hint answered_by-error"`, `>private note 123</textarea>`, `value="30"`,
				`value="c" checked`, `value="p6" selected`, `name="csrf" value="`},
		},
		{
			name: "no name to decline", change: func(v url.Values) { v.Del("answered_by"); v.Set("action", "decline") },
			status: http.StatusUnprocessableEntity, want: []string{"Enter your name", "<form"},
		},
		{
			name: "long name", change: func(v url.Values) { v.Set("answered_by", strings.Repeat("é", 201)) },
			status: http.StatusUnprocessableEntity, want: []string{"Your name must be at most 200 characters long"},
		},
		{
			name: "bad number", change: func(v url.Values) { v.Set("f.amount", "thirty") }, status: http.StatusUnprocessableEntity,
			want: []string{`<a href="#f-amount">Amount must be a number</a>`, `id="f-amount-error"`, `value="thirty"`,
				`aria-describedby="f-amount-desc f-amount-hint f-amount-error" aria-invalid="true"`, `value="Bob Smith"`},
		},
		{
			name: "bad choice", change: func(v url.Values) { v.Set("f.size", "xl") }, status: http.StatusUnprocessableEntity,
			want: []string{`<a href="#f-size-0">Size: &#34;xl&#34; is not one of the choices</a>`},
		},
		{
			name: "no action", change: func(v url.Values) { v.Del("action") }, status: http.StatusUnprocessableEntity,
			want: []string{"Choose Submit or Decline"},
		},
		{
			name: "backend reason", reason: "Amount must be at most 25 (the refund limit)", status: http.StatusUnprocessableEntity,
			want:   []string{`<li>Amount must be at most 25 (the refund limit)</li>`, `>private note 123</textarea>`, `value="Bob Smith"`},
			answer: &approvals.Answer{Action: "accept", Content: typedContent, By: "Bob Smith", At: testNow},
		},
		{
			name: "answered meanwhile", submitErr: approvals.ErrAnswered, status: http.StatusGone,
			want: []string{"This question has already been answered"}, bad: []string{"<form"},
			answer: &approvals.Answer{Action: "accept", Content: typedContent, By: "Bob Smith", At: testNow},
		},
		{
			name: "gone meanwhile", submitErr: approvals.ErrGone, status: http.StatusGone,
			want: []string{"This request is no longer open"}, bad: []string{"<form"},
			answer: &approvals.Answer{Action: "accept", Content: typedContent, By: "Bob Smith", At: testNow},
		},
		{
			name: "failing submit", submitErr: errors.New("disk full"), status: http.StatusInternalServerError,
			want: []string{"Something went wrong"}, bad: []string{"<form", "disk full"},
			answer: &approvals.Answer{Action: "accept", Content: typedContent, By: "Bob Smith", At: testNow},
		},
	}
}

func TestPost(t *testing.T) {
	tests := postCases()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			f.b.reason, f.b.submitErr = tt.reason, tt.submitErr
			form := validForm(f, "accept")
			if tt.change != nil {
				tt.change(form)
			}
			cookie := testCookie
			if tt.cookie == "-" {
				cookie = ""
			} else if tt.cookie != "" {
				cookie = tt.cookie
			}
			w := f.post(approvals.Path(f.token), cookie, form, tt.headers...)
			checkHeaders(t, w)
			if w.Code != tt.status {
				t.Errorf("status %d, want %d", w.Code, tt.status)
			}
			checkBody(t, w.Body.String(), tt.want, tt.bad)
			checkAnswer(t, f, tt.answer)
		})
	}
}

// checkAnswer checks that the backend got want, or no answer when nil.
func checkAnswer(t *testing.T, f *fixture, want *approvals.Answer) {
	t.Helper()
	if want == nil {
		if len(f.b.answers) != 0 {
			t.Errorf("the backend got %+v, want no answer", f.b.answers)
		}
		return
	}
	if len(f.b.answers) != 1 || !reflect.DeepEqual(f.b.answers[0], *want) {
		t.Errorf("the backend got %#v\nwant %#v", f.b.answers, *want)
		return
	}
	if got := f.b.tickets[len(f.b.tickets)-1]; got != testTicket {
		t.Errorf("submitted for %+v, want %+v", got, testTicket)
	}
	logs := f.logs.String()
	for _, s := range []string{"task=" + testTicket.Task, "key=" + testTicket.Key, "action=" + want.Action, `by="Bob Smith"`} {
		if !strings.Contains(logs, s) {
			t.Errorf("the log lacks %s: %s", s, logs)
		}
	}
	if strings.Contains(logs, "private note") {
		t.Errorf("the log has the content: %s", logs)
	}
}

func TestPostTooLarge(t *testing.T) {
	f := newFixture(t)
	form := validForm(f, "accept")
	form.Set("f.note", strings.Repeat("x", maxBody))
	w := f.post(approvals.Path(f.token), testCookie, form)
	checkHeaders(t, w)
	if w.Code != http.StatusRequestEntityTooLarge {
		t.Errorf("status %d, want 413", w.Code)
	}
	checkAnswer(t, f, nil)
}

// TestRoundTrip answers the way a browser does: the cookie and the field
// of the GET go with the POST.
func TestRoundTrip(t *testing.T) {
	f := newFixture(t)
	w := f.get(approvals.Path(f.token), "")
	cookies := w.Result().Cookies()
	if len(cookies) != 1 {
		t.Fatalf("cookies %v", cookies)
	}
	body := w.Body.String()
	const mark = `name="csrf" value="`
	i := strings.Index(body, mark)
	if i < 0 {
		t.Fatal("no csrf field")
	}
	field := body[i+len(mark):]
	field = field[:strings.IndexByte(field, '"')]
	form := validForm(f, "accept")
	form.Set("csrf", field)
	w = f.post(approvals.Path(f.token), cookies[0].Value, form, "Sec-Fetch-Site", "same-origin")
	if w.Code != http.StatusOK {
		t.Fatalf("status %d: %s", w.Code, w.Body)
	}
	checkAnswer(t, f, &approvals.Answer{Action: "accept", Content: typedContent, By: "Bob Smith", At: testNow})

	// The field is bound to the token: another link's form is refused.
	other, err := f.s.Seal(approvals.Ticket{Task: testTicket.Task, Key: "approval-4", Expires: testTicket.Expires})
	if err != nil {
		t.Fatal(err)
	}
	if w = f.post(approvals.Path(other), cookies[0].Value, form); w.Code != http.StatusForbidden {
		t.Errorf("another link's field: status %d, want 403", w.Code)
	}
}

func TestPath(t *testing.T) {
	if got := approvals.Path("abc"); got != "/approve/abc" {
		t.Errorf("Path = %q", got)
	}
	if _, err := time.Parse(time.RFC3339, newInstant(testNow).ISO); err != nil {
		t.Error(err)
	}
}
