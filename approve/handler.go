package approve

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/flowserve/flowserve/approvals"
)

// Options configures a handler.
type Options struct {
	Now func() time.Time // default time.Now
	Log *slog.Logger     // default slog.Default()
	// SignIn, when set, makes people sign in before they see a form: the
	// answer's By is then their subject at the issuer.
	SignIn *SignIn
	// PublicURL is the server's URL as people reach it, for the sign-in's
	// redirect URI; "" means the scheme and host of each request.
	PublicURL string
}

// maxBody is the largest form the handler reads, in bytes.
const maxBody = 64 << 10

// The notices the handler answers with instead of the form.
var (
	noticeBadLink   = view{Heading: "This link is not valid", Lines: []string{"Check that you opened the whole link as it was sent to you."}}
	noticeAnswered  = view{Heading: "This question has already been answered", Lines: []string{"Each link can be answered once. Nothing more is needed from you."}}
	noticeGone      = view{Heading: "This request is no longer open", Lines: []string{"It was withdrawn or has ended. Nothing more is needed from you."}}
	noticeFailed    = view{Heading: "Something went wrong", Lines: []string{"The page could not be shown. Try again in a moment."}}
	noticeForbidden = view{Heading: "This form cannot be accepted", Lines: []string{"This form has expired or was not sent from this page; open the link again."}}
	noticeMethod    = view{Heading: "This method is not allowed", Lines: []string{"Open the link in a web browser."}}
	noticeTooLarge  = view{Heading: "The answer is too large", Lines: []string{"Open the link again and send a shorter answer."}}
	noticeSignedOut = view{Heading: "You are not signed in", Lines: []string{"Your sign-in has ended. Open the link again to sign in, then answer."}}
	noticeUnread    = view{Heading: "The answer could not be read", Lines: []string{"Open the link again and send the form from that page."}}
)

// handler serves the approval pages.
type handler struct {
	b         approvals.Backend
	s         *approvals.Sealer
	k         *keys
	now       func() time.Time
	log       *slog.Logger
	cop       *http.CrossOriginProtection
	signIn    *SignIn
	publicURL string
}

// NewHandler serves GET and POST /approve/{token} (register it on a mux at
// approvals.PathPrefix): GET shows the form of the question of a link s
// sealed, from b, POST hands its answer to b. With Options.SignIn it also
// serves SignInPath, and shows a form only to someone signed in for that
// link.
func NewHandler(b approvals.Backend, s *approvals.Sealer, opts Options) http.Handler {
	h := &handler{b: b, s: s, k: newKeys(s), now: opts.Now, log: opts.Log, cop: http.NewCrossOriginProtection(),
		signIn: opts.SignIn, publicURL: opts.PublicURL}
	if h.now == nil {
		h.now = time.Now
	}
	if h.log == nil {
		h.log = slog.Default()
	}
	return h
}

// ServeHTTP serves one request.
func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	hd.Set("Content-Security-Policy", contentSecurityPolicy)
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Referrer-Policy", "no-referrer")
	hd.Set("Cache-Control", "no-store")
	hd.Set("X-Frame-Options", "DENY")
	if h.signIn != nil && r.URL.Path == SignInPath {
		h.signedIn(w, r)
		return
	}
	token, ok := strings.CutPrefix(r.URL.Path, approvals.PathPrefix)
	if !ok || token == "" || strings.Contains(token, "/") {
		h.write(w, http.StatusNotFound, noticeBadLink)
		return
	}
	switch r.Method {
	case http.MethodGet:
		h.get(w, r, token)
	case http.MethodPost:
		h.post(w, r, token)
	default:
		hd.Set("Allow", "GET, POST")
		h.write(w, http.StatusMethodNotAllowed, noticeMethod)
	}
}

// get shows the form of token's question.
func (h *handler) get(w http.ResponseWriter, r *http.Request, token string) {
	_, p, ok := h.open(w, r, token)
	if !ok {
		return
	}
	var who *Approver
	if h.signIn != nil {
		if who = h.approver(r, token); who == nil {
			h.begin(w, r, token)
			return
		}
		if h.refuse(w, p, who) {
			return
		}
	}
	cookie := ensureCSRFCookie(w, r)
	f := newForm(p, defaults(p.Schema), nil, nil)
	f.signedIn(who)
	f.CSRF = h.k.csrfField(cookie, token)
	h.write(w, http.StatusOK, view{Heading: f.Tool, Form: f})
}

// post takes the answer to token's question.
func (h *handler) post(w http.ResponseWriter, r *http.Request, token string) {
	if err := h.cop.Check(r); err != nil {
		h.log.Info("approval form refused", "reason", err.Error())
		h.write(w, http.StatusForbidden, noticeForbidden)
		return
	}
	t, p, ok := h.open(w, r, token)
	if !ok {
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxBody)
	if err := r.ParseForm(); err != nil {
		if _, tooLarge := errors.AsType[*http.MaxBytesError](err); tooLarge {
			h.write(w, http.StatusRequestEntityTooLarge, noticeTooLarge)
		} else {
			h.write(w, http.StatusBadRequest, noticeUnread)
		}
		return
	}
	if !h.k.csrfOK(r, token) {
		h.log.Info("approval form refused", "task", t.Task, "key", t.Key, "reason", "csrf check failed")
		h.write(w, http.StatusForbidden, noticeForbidden)
		return
	}
	form := r.PostForm
	a := approvals.Answer{By: strings.TrimSpace(form.Get(nameField)), At: h.now()}
	var nameErr string
	var who *Approver // who signed in, with sign-in
	if h.signIn != nil {
		if who = h.approver(r, token); who == nil {
			h.log.Info("approval form refused", "task", t.Task, "key", t.Key, "reason", "not signed in")
			h.write(w, http.StatusForbidden, noticeSignedOut)
			return
		}
		if h.refuse(w, p, who) {
			h.log.Info("approval form refused", "task", t.Task, "key", t.Key, "sub", who.Subject, "reason", "not an approver of this question")
			return
		}
		a.By = who.Subject
	} else {
		nameErr = nameProblem(a.By)
	}
	var problems []FieldProblem
	switch form.Get("action") {
	case "decline":
		a.Action = "decline"
	case "accept":
		a.Action = "accept"
		a.Content, problems = ParseForm(p.Schema, form)
	default:
		h.reshow(w, r, token, p, who, []string{"Choose Submit or Decline"}, nil, nameErr)
		return
	}
	if len(problems) > 0 || nameErr != "" {
		h.reshow(w, r, token, p, who, nil, problems, nameErr)
		return
	}
	h.submit(w, r, t, token, p, a, who)
}

// refuse writes the page telling who, signed in, that they may not
// answer p's question (see refusal), and reports whether it did.
func (h *handler) refuse(w http.ResponseWriter, p *approvals.Page, who *Approver) bool {
	why := refusal(p, who)
	if why == "" {
		return false
	}
	h.write(w, http.StatusForbidden, view{Heading: "You cannot answer this question",
		Lines: []string{why, "You are signed in as " + who.display() + "."}})
	return true
}

// nameProblem returns what is wrong with the name an answerer typed, or
// "".
func nameProblem(name string) string {
	switch {
	case name == "":
		return "Enter your name"
	case !utf8.ValidString(name):
		return "Your name must be text"
	case utf8.RuneCountInString(name) > maxName:
		return fmt.Sprintf("Your name must be at most %d characters long", maxName)
	}
	return ""
}

// submit hands a, given by who when signed in (else nil), over to the
// backend and shows the outcome.
func (h *handler) submit(w http.ResponseWriter, r *http.Request, t approvals.Ticket, token string, p *approvals.Page, a approvals.Answer, who *Approver) {
	reason, err := h.b.Submit(r.Context(), t, a)
	h.log.Info("approval answer", "task", t.Task, "key", t.Key, "action", a.Action, "by", a.By, "outcome", outcome(reason, err))
	switch {
	case err != nil:
		h.failed(w, t, err)
	case reason != "":
		h.reshow(w, r, token, p, who, []string{reason}, nil, "")
	default:
		by := a.By
		if who != nil {
			by = who.display()
		}
		th := &thanksView{Tool: p.Tool, Message: p.Message, To: p.To, By: by,
			Declined: a.Action == "decline", At: newInstant(a.At), Answers: answerLines(p.Schema, a.Content)}
		if p.Title != "" {
			th.Tool = p.Title
		}
		h.write(w, http.StatusOK, view{Heading: "Thank you — your answer was recorded", Thanks: th})
	}
}

// outcome returns what became of a submitted answer, for the log.
func outcome(reason string, err error) string {
	switch {
	case errors.Is(err, approvals.ErrAnswered):
		return "answered already"
	case errors.Is(err, approvals.ErrGone):
		return "no longer open"
	case err != nil:
		return "failed"
	case reason != "":
		return "not accepted"
	}
	return "recorded"
}

// reshow shows the form again with the person's values and what was
// wrong with them: reasons about the whole answer, the fields' problems
// and the name's.
func (h *handler) reshow(w http.ResponseWriter, r *http.Request, token string, p *approvals.Page, who *Approver, reasons []string, problems []FieldProblem, nameErr string) {
	f := newForm(p, r.PostForm, reasons, problems)
	f.signedIn(who)
	f.setNameError(nameErr)
	f.CSRF = h.k.csrfField(csrfCookieValue(r), token)
	h.write(w, http.StatusUnprocessableEntity, view{Heading: "There is a problem: " + f.Tool, Form: f})
}

// open returns the ticket of token and the page of its question, or
// writes the page saying why there is none and returns false. A page
// without an expiry shows the link's; a nil page is ErrGone.
func (h *handler) open(w http.ResponseWriter, r *http.Request, token string) (approvals.Ticket, *approvals.Page, bool) {
	t, err := h.s.Open(token)
	if err != nil {
		h.write(w, http.StatusNotFound, noticeBadLink)
		return approvals.Ticket{}, nil, false
	}
	if !h.now().Before(t.Expires) {
		h.write(w, http.StatusGone, view{Heading: "This link has expired",
			Lines: []string{"It was valid until " + newInstant(t.Expires).Text + "."}})
		return approvals.Ticket{}, nil, false
	}
	p, err := h.b.Page(r.Context(), t)
	if err == nil && p == nil {
		err = approvals.ErrGone
	}
	if err != nil {
		h.failed(w, t, err)
		return approvals.Ticket{}, nil, false
	}
	if p.Expires.IsZero() {
		cp := *p
		cp.Expires = t.Expires
		p = &cp
	}
	return t, p, true
}

// failed writes the page of a backend's error.
func (h *handler) failed(w http.ResponseWriter, t approvals.Ticket, err error) {
	switch {
	case errors.Is(err, approvals.ErrAnswered):
		h.write(w, http.StatusGone, noticeAnswered)
	case errors.Is(err, approvals.ErrGone):
		h.write(w, http.StatusGone, noticeGone)
	default:
		h.log.Error("approval page failed", "task", t.Task, "key", t.Key, "err", err)
		h.write(w, http.StatusInternalServerError, noticeFailed)
	}
}

// write writes the page of v with status.
func (h *handler) write(w http.ResponseWriter, status int, v view) {
	body, err := render(v)
	if err != nil {
		h.log.Error("approval page failed", "err", err)
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusInternalServerError)
		w.Write([]byte("Something went wrong.\n"))
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	w.Write(body)
}
