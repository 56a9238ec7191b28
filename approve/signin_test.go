package approve

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/flowserve/flowserve/approvals"
	"github.com/flowserve/flowserve/internal/oauthtest"
)

// signInBase is the approval server's public URL in the sign-in tests.
const signInBase = "http://approvals.test"

// signInUser is who signs in.
var signInUser = oauthtest.User{Username: "ana", Password: "s3cret-pass", Subject: "user-ana", Email: "ana@example.com", Name: "Ana Lima"}

// newSignInFixture returns a handler whose pages make people sign in at
// as, and the error of NewSignIn. client, when set, is the SignIn's HTTP
// client.
func newSignInFixture(t *testing.T, as *oauthtest.Server, client *http.Client) (*fixture, error) {
	t.Helper()
	as.AddUser(signInUser)
	id, secret := as.WebClient(signInBase + SignInPath)
	si, err := NewSignIn(context.Background(), SignInConfig{Issuer: as.Issuer(), ClientID: id, ClientSecret: secret, Client: client})
	if err != nil {
		return nil, err
	}
	return newFixtureWith(t, Options{SignIn: si, PublicURL: signInBase}), nil
}

// signIn opens the link signed out, signs in at as and comes back: it
// returns the answer to the way back.
func (f *fixture) signIn(t *testing.T, as *oauthtest.Server) *httptest.ResponseRecorder {
	t.Helper()
	w := f.get(approvals.Path(f.token), "")
	authURL := w.Header().Get("Location")
	if w.Code != http.StatusSeeOther || !strings.HasPrefix(authURL, as.Issuer()) || !strings.Contains(authURL, "code_challenge_method=S256") {
		t.Fatalf("GET the link signed out: %d to %q, want a redirect to the issuer with PKCE S256", w.Code, authURL)
	}
	back, err := as.TryLogin(authURL, signInUser)
	if err != nil {
		t.Fatalf("login: %v", err)
	}
	return f.back(w.Result().Cookies(), back.RequestURI())
}

// back serves the way back from the issuer, with the cookies.
func (f *fixture) back(cookies []*http.Cookie, uri string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(http.MethodGet, signInBase+uri, nil)
	for _, c := range cookies {
		r.AddCookie(c)
	}
	w := httptest.NewRecorder()
	f.h.ServeHTTP(w, r)
	return w
}

// TestSignInPKCE: sign-in starts with an issuer whose metadata lists
// S256 or leaves code_challenge_methods_supported out (Microsoft Entra
// ID, Amazon Cognito: S256 is assumed), and signs people in there; it
// refuses at start an issuer that lists methods without S256, naming
// the issuer; and an issuer that then refuses S256 ends the sign-in with
// a page and a log line that say so.
func TestSignInPKCE(t *testing.T) {
	drop := func(doc map[string]any) { delete(doc, "code_challenge_methods_supported") }
	methods := func(v any) func(map[string]any) {
		return func(doc map[string]any) { doc["code_challenge_methods_supported"] = v }
	}
	tests := []struct {
		name     string
		opts     oauthtest.Options
		startErr string // NewSignIn's error; "" means it starts
		refused  bool   // the issuer refuses S256 at sign-in
	}{
		{name: "S256 listed"},
		{name: "field left out", opts: oauthtest.Options{Metadata: drop}},
		{name: "S256 among others", opts: oauthtest.Options{Metadata: methods([]string{"plain", "S256"})}},
		{name: "plain only", opts: oauthtest.Options{Metadata: methods([]string{"plain"})}, startErr: `does not support PKCE with S256 (its metadata lists code_challenge_methods_supported ["plain"]), which approval sign-in requires`},
		{name: "lower-case s256", opts: oauthtest.Options{Metadata: methods([]string{"s256"})}, startErr: "does not support PKCE with S256"},
		{name: "not a list", opts: oauthtest.Options{Metadata: methods("S256")}, startErr: "code_challenge_methods_supported is not a list of strings"},
		{name: "issuer refuses S256", opts: oauthtest.Options{NoPKCE: true}, refused: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			as := oauthtest.New(t, tt.opts)
			f, err := newSignInFixture(t, as, nil)
			if tt.startErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.startErr) || !strings.Contains(err.Error(), as.Issuer()) {
					t.Fatalf("NewSignIn: %v, want an error naming %s with %q", err, as.Issuer(), tt.startErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("NewSignIn: %v", err)
			}
			w := f.signIn(t, as)
			if tt.refused {
				checkBody(t, w.Body.String(), []string{"refused the secure sign-in this server uses (PKCE with S256)"}, []string{"<form"})
				if logs := f.logs.String(); w.Code != http.StatusBadGateway || !strings.Contains(logs, "the issuer refused PKCE with S256") || !strings.Contains(logs, as.Issuer()) {
					t.Fatalf("refused sign-in: %d, logs:\n%s", w.Code, logs)
				}
				return
			}
			if w.Code != http.StatusSeeOther || w.Header().Get("Location") != approvals.Path(f.token) {
				t.Fatalf("back from the issuer: %d to %q\n%s\nlogs:\n%s", w.Code, w.Header().Get("Location"), w.Body, f.logs)
			}
			if !strings.Contains(f.logs.String(), "sub=user-ana") {
				t.Errorf("logs:\n%s", f.logs)
			}
		})
	}
}

// TestSignInIssuerErrors: an issuer's error on the way back, or at the
// token endpoint, is logged with its description; one about PKCE says
// that the issuer refused PKCE S256, the others that it refused the
// sign-in.
func TestSignInIssuerErrors(t *testing.T) {
	tests := []struct {
		name        string
		query       url.Values // the error the issuer sends back; nil means it sends a code
		tokenAnswer string     // the token endpoint's 400 answer, when query is nil
		pkce        bool
		status      int
		log         string
	}{
		{name: "access denied", query: url.Values{"error": {"access_denied"}, "error_description": {"the user said no"}},
			status: http.StatusForbidden, log: `approval sign-in refused by the issuer" issuer=`},
		{name: "method refused", query: url.Values{"error": {"invalid_request"}, "error_description": {"Unsupported code_challenge_method"}},
			pkce: true, status: http.StatusBadGateway, log: "the issuer refused PKCE with S256"},
		{name: "transform refused", query: url.Values{"error": {"invalid_request"}, "error_description": {"transform algorithm not supported"}},
			pkce: true, status: http.StatusBadGateway, log: "the issuer refused PKCE with S256"},
		{name: "another invalid_request", query: url.Values{"error": {"invalid_request"}, "error_description": {"missing scope"}},
			status: http.StatusForbidden, log: "approval sign-in refused by the issuer"},
		{name: "verifier refused", tokenAnswer: `{"error":"invalid_grant","error_description":"PKCE verification failed"}`,
			pkce: true, status: http.StatusBadGateway, log: "the issuer refused PKCE with S256"},
		{name: "code refused", tokenAnswer: `{"error":"invalid_grant","error_description":"code expired"}`,
			status: http.StatusForbidden, log: "approval sign-in failed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			as := oauthtest.New(t, oauthtest.Options{})
			tokenPath := pathOf(t, as.TokenEndpoint())
			client := &http.Client{Transport: roundTrip(func(r *http.Request) (*http.Response, error) {
				if r.URL.Path == tokenPath && tt.tokenAnswer != "" {
					return &http.Response{StatusCode: http.StatusBadRequest, Header: http.Header{"Content-Type": {"application/json"}},
						Body: io.NopCloser(strings.NewReader(tt.tokenAnswer)), Request: r}, nil
				}
				return http.DefaultTransport.RoundTrip(r)
			})}
			f, err := newSignInFixture(t, as, client)
			if err != nil {
				t.Fatal(err)
			}
			var w *httptest.ResponseRecorder
			if tt.query != nil {
				begin := f.get(approvals.Path(f.token), "")
				authURL, err := url.Parse(begin.Header().Get("Location"))
				if err != nil {
					t.Fatal(err)
				}
				tt.query.Set("state", authURL.Query().Get("state"))
				w = f.back(begin.Result().Cookies(), SignInPath+"?"+tt.query.Encode())
			} else {
				w = f.signIn(t, as)
			}
			want := "Open the link you were sent again to sign in."
			if tt.pkce {
				want = "PKCE with S256"
			}
			checkBody(t, w.Body.String(), []string{want}, []string{"<form"})
			if logs := f.logs.String(); w.Code != tt.status || !strings.Contains(logs, tt.log) {
				t.Fatalf("status %d, want %d; logs want %q:\n%s", w.Code, tt.status, tt.log, logs)
			}
			if d := tt.query.Get("error_description"); d != "" && !strings.Contains(f.logs.String(), d) {
				t.Errorf("the log lacks the issuer's description %q:\n%s", d, f.logs)
			}
		})
	}
}

func TestPKCERefused(t *testing.T) {
	tests := []struct {
		code, description string
		want              bool
	}{
		{"invalid_request", "code_challenge_method S256 is not supported", true},
		{"invalid_request", "PKCE is not enabled for this client", true},
		{"invalid_request", "Invalid code challenge", true},
		{"invalid_grant", "invalid code_verifier", true},
		{"invalid_grant", "Code verifier does not match", true},
		{"invalid_request", "redirect_uri mismatch", false},
		{"invalid_grant", "authorization code expired", false},
		{"access_denied", "PKCE", false},
		{"server_error", "code_challenge", false},
		{"invalid_request", "", false},
	}
	for _, tt := range tests {
		if got := pkceRefused(tt.code, tt.description); got != tt.want {
			t.Errorf("pkceRefused(%q, %q) = %v, want %v", tt.code, tt.description, got, tt.want)
		}
	}
	if got := clip(strings.Repeat("é", 10), 5); got != "éé…" {
		t.Errorf("clip = %q", got)
	}
}

type roundTrip func(*http.Request) (*http.Response, error)

func (f roundTrip) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func pathOf(t *testing.T, u string) string {
	t.Helper()
	p, err := url.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	return p.Path
}
