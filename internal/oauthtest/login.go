package oauthtest

import (
	"errors"
	"fmt"
	"html/template"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"
)

// loginPath is the login page's path under the issuer.
const loginPath = "/login"

// loginPage is the login form: plain HTML with fields named (and with IDs)
// username and password and a submit button with ID submit, so that a
// headless browser or a net/http client can fill it in.
var loginPage = template.Must(template.New("login").Parse(`<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Sign in</title></head>
<body>
<h1>Sign in</h1>
{{if .Error}}<p id="error" role="alert">{{.Error}}</p>
{{end}}<form id="login" method="post" action="{{.Action}}">
<input type="hidden" name="authRequestID" value="{{.ID}}">
<p><label for="username">Username</label> <input id="username" name="username" type="text" autocomplete="username" autofocus required></p>
<p><label for="password">Password</label> <input id="password" name="password" type="password" autocomplete="current-password" required></p>
<p><button id="submit" type="submit">Sign in</button></p>
</form>
</body>
</html>
`))

// loginData fills loginPage.
type loginData struct {
	Action, ID, Error string
}

// serveLogin serves the login page: GET shows the form for the
// authorization request named by authRequestID, POST checks the username
// and password and, if they are right, sends the browser on to the op's
// callback, which redirects to the client's redirect URI with code and state.
func (s *Server) serveLogin(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		http.Error(w, "bad form", http.StatusBadRequest)
		return
	}
	id := r.Form.Get("authRequestID")
	if !s.store.authRequestExists(id) {
		http.Error(w, "unknown or finished authorization request", http.StatusBadRequest)
		return
	}
	data := loginData{Action: s.path + loginPath, ID: id}
	status := http.StatusOK
	switch r.Method {
	case http.MethodGet, http.MethodHead:
	case http.MethodPost:
		err := s.store.login(id, r.PostForm.Get("username"), r.PostForm.Get("password"))
		if err == nil {
			callback := s.AuthorizationEndpoint() + "/callback?id=" + url.QueryEscape(id)
			http.Redirect(w, r, callback, http.StatusSeeOther)
			return
		}
		data.Error, status = err.Error(), http.StatusUnauthorized
	default:
		w.Header().Set("Allow", "GET, HEAD, POST")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = loginPage.Execute(w, data)
}

// Login signs u in for the authorization request authURL (an authorization
// endpoint URL with client_id, redirect_uri, scope, state and a PKCE S256
// code_challenge, e.g. from oauth2.Config.AuthCodeURL) with a net/http
// client that has a cookie jar: it GETs authURL, follows the redirect to
// the login page, POSTs the username and password, follows the redirect to
// the op's callback, and stops at the redirect to the redirect URI, which it
// returns (with ?code=&state=). It fails t if any step fails or if the
// redirect carries an OAuth error.
func (s *Server) Login(t testing.TB, authURL string, u User) (redirect *url.URL) {
	t.Helper()
	redirect, err := s.TryLogin(authURL, u)
	if err != nil {
		t.Fatalf("oauthtest: login: %v", err)
	}
	if e := redirect.Query().Get("error"); e != "" {
		t.Fatalf("oauthtest: login: redirected with error %s: %s", e, redirect.Query().Get("error_description"))
	}
	return redirect
}

// TryLogin does what Login does but returns an error for a failed step, and
// the redirect even if it carries an OAuth error (error=&error_description=),
// for tests of failures.
func (s *Server) TryLogin(authURL string, u User) (*url.URL, error) {
	jar, err := cookiejar.New(nil)
	if err != nil {
		return nil, fmt.Errorf("cookie jar: %w", err)
	}
	host := strings.TrimPrefix(s.base, "http://")
	hc := &http.Client{
		Jar:       jar,
		Transport: s.srv.Client().Transport,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if req.URL.Host != host {
				return http.ErrUseLastResponse
			}
			if len(via) >= 10 {
				return errors.New("too many redirects")
			}
			return nil
		},
	}
	resp, err := hc.Get(authURL)
	if err != nil {
		return nil, fmt.Errorf("authorization request: %w", err)
	}
	if loc, ok := offServer(resp); ok {
		return loc, nil
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
	resp.Body.Close()
	page := resp.Request.URL
	if resp.StatusCode != http.StatusOK || page.Path != s.path+loginPath {
		return nil, fmt.Errorf("authorization request ended at %s with %s: %s", page, resp.Status, body)
	}
	form := url.Values{
		"authRequestID": {page.Query().Get("authRequestID")},
		"username":      {u.Username},
		"password":      {u.Password},
	}
	resp, err = hc.PostForm(page.String(), form)
	if err != nil {
		return nil, fmt.Errorf("login form: %w", err)
	}
	if loc, ok := offServer(resp); ok {
		return loc, nil
	}
	body, _ = io.ReadAll(io.LimitReader(resp.Body, 4<<10))
	resp.Body.Close()
	return nil, fmt.Errorf("login ended at %s with %s: %s", resp.Request.URL, resp.Status, body)
}

// offServer returns the target of resp if it is a redirect that the client
// did not follow, that is one off the server; it closes resp.Body then.
func offServer(resp *http.Response) (*url.URL, bool) {
	if resp.StatusCode < 300 || resp.StatusCode > 399 {
		return nil, false
	}
	loc, err := resp.Location()
	if err != nil {
		return nil, false
	}
	resp.Body.Close()
	return loc, true
}
