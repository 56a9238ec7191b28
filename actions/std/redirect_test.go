package std

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
)

// sensitive are the request headers the redirect tests send and look for.
var sensitive = []string{"Referer", "X-Api-Key", "Authorization", "Cookie", "Proxy-Authorization"}

// recorder is a server on 127.0.0.1 that answers every request with a JSON
// object of the sensitive headers it got, and keeps them.
type recorder struct {
	*httptest.Server
	mu   sync.Mutex
	seen []http.Header // one per request, in order
}

func newRecorder(t *testing.T) *recorder {
	t.Helper()
	rec := &recorder{}
	rec.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec.mu.Lock()
		rec.seen = append(rec.seen, r.Header.Clone())
		rec.mu.Unlock()
		got := map[string]string{"path": r.URL.Path}
		for _, k := range sensitive {
			if v := r.Header.Get(k); v != "" {
				got[k] = v
			}
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(got)
	}))
	t.Cleanup(rec.Close)
	return rec
}

// requests returns the headers of the requests the recorder got.
func (rec *recorder) requests() []http.Header {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return append([]http.Header(nil), rec.seen...)
}

// redirector is a server on 127.0.0.1 whose /go?to=URL answers 302 to URL,
// /go307?to=URL 307, and whose other paths are the recorder's.
func newRedirector(t *testing.T) *recorder {
	t.Helper()
	rec := newRecorder(t)
	inner := rec.Config.Handler
	rec.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/go":
			http.Redirect(w, r, r.URL.Query().Get("to"), http.StatusFound)
		case "/go307":
			http.Redirect(w, r, r.URL.Query().Get("to"), http.StatusTemporaryRedirect)
		default:
			inner.ServeHTTP(w, r)
		}
	})
	return rec
}

// via returns a URL of a's that redirects to target, with a secret in
// its query (the Referer Go's client would send on holds it).
func via(a *recorder, path, target string) string {
	return a.URL + path + "?token=s3cret&to=" + url.QueryEscape(target)
}

// secretHeaders are the headers a flow sets in the redirect tests.
var secretHeaders = map[string]any{
	"X-Api-Key":           "key-s3cret",
	"Authorization":       "Bearer s3cret",
	"Cookie":              "session=s3cret",
	"Proxy-Authorization": "Basic s3cret",
	"Accept":              "application/json",
}

// TestHTTPRedirectToAnotherHostLeaksNothing reproduces issue 27 item 4: a
// redirect from host A to host B gave B a Referer with A's URL (and the
// secret in its query) and the flow's X-Api-Key. Under follow_redirects:
// always, B gets neither, nor any credential header; nor does A when the
// chain comes back to it.
func TestHTTPRedirectToAnotherHostLeaksNothing(t *testing.T) {
	a, b := newRedirector(t), newRecorder(t)
	// "localhost" names the same address as 127.0.0.1 but is another host.
	localhostA := strings.Replace(a.URL, "127.0.0.1", "localhost", 1)
	tests := []struct {
		name    string
		url     string
		method  string
		target  *recorder // the server that must see no sensitive header
		headers map[string]any
	}{
		{"302 to another port", via(a, "/go", b.URL+"/landing"), "GET", b, secretHeaders},
		{"307 POST to another port", via(a, "/go307", b.URL+"/landing"), "POST", b, secretHeaders},
		{"302 to another host name, same port", via(a, "/go", localhostA+"/landing"), "GET", a, secretHeaders},
		{"the flow's own Referer stays home", via(a, "/go", b.URL+"/landing"), "GET", b, map[string]any{"Referer": "https://app.example/s3cret", "x-api-key": "key-s3cret"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := len(tt.target.requests())
			in := map[string]any{"url": tt.url, "method": tt.method, "headers": tt.headers, "follow_redirects": "always"}
			if tt.method == "POST" {
				in["json"] = map[string]any{"n": int64(1)}
			}
			out, err := run(t, nil, "http.request", in)
			if err != nil {
				t.Fatal(err)
			}
			if out["status"] != int64(200) {
				t.Fatalf("status %v, want the landing page's 200: %v", out["status"], out)
			}
			seen := tt.target.requests()[before:]
			if len(seen) == 0 {
				t.Fatal("the redirect was not followed")
			}
			last := seen[len(seen)-1]
			for _, k := range sensitive {
				if v := last.Get(k); v != "" {
					t.Errorf("the other host got %s: %q", k, v)
				}
			}
			if got := out["json"].(map[string]any); len(got) != 1 {
				t.Errorf("the landing page saw %v", got)
			}
		})
	}
}

// TestHTTPRedirectBackHomeStaysStripped: once a chain has left the first
// host, a redirect back to it does not get the flow's headers again (the
// other host chose where to send them).
func TestHTTPRedirectBackHomeStaysStripped(t *testing.T) {
	a, b := newRedirector(t), newRedirector(t)
	back := via(b, "/go", a.URL+"/home")
	out, err := run(t, nil, "http.request", map[string]any{"url": via(a, "/go", back), "headers": secretHeaders, "follow_redirects": "always"})
	if err != nil {
		t.Fatal(err)
	}
	got := out["json"].(map[string]any)
	if got["path"] != "/home" || len(got) != 1 {
		t.Fatalf("the first host, redirected back to, saw %v", got)
	}
}

// TestHTTPRedirectSameHost: the default follows a redirect within the
// URL's origin with the flow's headers but no Referer Go would make up,
// and refuses one to another origin, which then sees no request.
func TestHTTPRedirectSameHost(t *testing.T) {
	a, b := newRedirector(t), newRecorder(t)
	localhostA := strings.Replace(a.URL, "127.0.0.1", "localhost", 1)
	refused := func(target string) string {
		return `redirect (status 302) to another host, ` + target + `, refused: follow_redirects is "same-host", which follows redirects within ` + a.URL
	}
	tests := []struct {
		name    string
		in      map[string]any
		want    map[string]any // what the landing page saw; nil: wantErr
		wantErr string
	}{
		{"same origin keeps the flow's headers", map[string]any{"url": via(a, "/go", "/landing"), "headers": map[string]any{"X-Api-Key": "k"}},
			map[string]any{"path": "/landing", "X-Api-Key": "k"}, ""},
		{"same origin, absolute Location", map[string]any{"url": via(a, "/go", a.URL+"/landing"), "headers": map[string]any{"Authorization": "Bearer t"}, "follow_redirects": "same-host"},
			map[string]any{"path": "/landing", "Authorization": "Bearer t"}, ""},
		{"same origin keeps the flow's own Referer", map[string]any{"url": via(a, "/go", "/landing"), "headers": map[string]any{"referer": "https://app.example/"}},
			map[string]any{"path": "/landing", "Referer": "https://app.example/"}, ""},
		{"another port is refused", map[string]any{"url": via(a, "/go", b.URL+"/landing?k=s3cret"), "headers": secretHeaders},
			nil, refused(b.URL)},
		{"another host name is refused", map[string]any{"url": via(a, "/go", localhostA+"/landing")},
			nil, refused(localhostA)},
		{"another scheme is refused", map[string]any{"url": via(a, "/go", "https"+strings.TrimPrefix(a.URL, "http")+"/landing")},
			nil, refused("https" + strings.TrimPrefix(a.URL, "http"))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := len(b.requests())
			out, err := run(t, nil, "http.request", tt.in)
			if tt.want == nil {
				wantErr(t, err, tt.wantErr)
				if !strings.Contains(err.Error(), `set follow_redirects to "always"`) {
					t.Errorf("the error does not say how to follow it: %v", err)
				}
				if n := len(b.requests()) - before; n != 0 {
					t.Errorf("the other host got %d requests", n)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := out["json"].(map[string]any)
			if len(got) != len(tt.want) {
				t.Errorf("the landing page saw %v, want %v", got, tt.want)
			}
			for k, v := range tt.want {
				if got[k] != v {
					t.Errorf("the landing page saw %s = %v, want %v", k, got[k], v)
				}
			}
		})
	}
}

// TestHTTPRedirectNever: follow_redirects: never returns the 3xx response
// as the output, and the target gets no request.
func TestHTTPRedirectNever(t *testing.T) {
	a, b := newRedirector(t), newRecorder(t)
	for _, target := range []string{b.URL + "/landing", "/landing"} {
		out, err := run(t, nil, "http.request", map[string]any{"url": via(a, "/go", target), "follow_redirects": "never", "headers": secretHeaders})
		if err != nil {
			t.Fatal(err)
		}
		h := out["headers"].(map[string]any)
		if out["status"] != int64(302) || h["location"] != target {
			t.Errorf("out = %v, want the 302 to %s", out, target)
		}
	}
	if n := len(b.requests()); n != 0 {
		t.Errorf("the target got %d requests", n)
	}
	if n := len(a.requests()); n != 0 {
		t.Errorf("the landing page on the first host got %d requests", n)
	}
}

// TestHTTPNoRefererOnFirstRequest: no Referer is sent unless the flow
// sets one.
func TestHTTPNoRefererOnFirstRequest(t *testing.T) {
	a := newRecorder(t)
	for _, tt := range []struct {
		headers map[string]any
		want    string
	}{{nil, ""}, {map[string]any{"Referer": "https://app.example/"}, "https://app.example/"}} {
		out, err := run(t, nil, "http.request", map[string]any{"url": a.URL + "/p?token=s3cret", "headers": tt.headers})
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := out["json"].(map[string]any)["Referer"].(string); got != tt.want {
			t.Errorf("headers %v: Referer %q, want %q", tt.headers, got, tt.want)
		}
	}
}

// TestHTTPFollowRedirectsInput: the key's value is checked, by the schema
// (lint and Run) and by the action when called directly.
func TestHTTPFollowRedirectsInput(t *testing.T) {
	_, err := run(t, nil, "http.request", map[string]any{"url": "http://127.0.0.1:1/", "follow_redirects": "sometimes"})
	wantErr(t, err, `follow_redirects: must be one of same-host, always, never`)
	_, err = newRedirectPolicy("sometimes", nil)
	wantErr(t, err, `follow_redirects "sometimes" must be "same-host", "always" or "never"`)
	for _, mode := range []string{"", FollowSameHost, FollowAlways, FollowNever} {
		if _, err := newRedirectPolicy(mode, nil); err != nil {
			t.Errorf("%q: %v", mode, err)
		}
	}
}

func TestOrigin(t *testing.T) {
	tests := []struct{ a, b string }{
		{"http://Example.COM/x", "http://example.com:80/y?q"},
		{"https://example.com", "HTTPS://example.com:443/"},
		{"http://[::1]:8080/", "http://[::1]:8080/z"},
	}
	for _, tt := range tests {
		ua, _ := url.Parse(tt.a)
		ub, _ := url.Parse(tt.b)
		if origin(ua) != origin(ub) {
			t.Errorf("origin(%s) = %s, origin(%s) = %s: want equal", tt.a, origin(ua), tt.b, origin(ub))
		}
	}
	different := [][2]string{
		{"http://example.com", "https://example.com"},
		{"http://example.com", "http://example.com:8080"},
		{"http://example.com", "http://api.example.com"},
		{"http://127.0.0.1:80", "http://localhost:80"},
	}
	for _, d := range different {
		ua, _ := url.Parse(d[0])
		ub, _ := url.Parse(d[1])
		if origin(ua) == origin(ub) {
			t.Errorf("origin(%s) = origin(%s) = %s: want different", d[0], d[1], origin(ua))
		}
	}
}
