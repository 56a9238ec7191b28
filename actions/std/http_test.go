package std

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/flowserve/flowserve/actions"
)

// echo answers with a JSON description of the request.
func echo(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Add("X-Multi", "a")
	w.Header().Add("X-Multi", "b")
	json.NewEncoder(w).Encode(map[string]any{
		"method":       r.Method,
		"query":        r.URL.RawQuery,
		"content_type": r.Header.Get("Content-Type"),
		"accept":       r.Header.Get("Accept"),
		"host":         r.Host,
		"body":         string(body),
		"n":            42,
		"f":            1.5,
	})
}

func newServer(t *testing.T) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/echo", echo)
	mux.HandleFunc("/text", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		io.WriteString(w, "hello")
	})
	mux.HandleFunc("/problem", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/problem+json")
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, `{"title":"not found"}`)
	})
	mux.HandleFunc("/json/{body}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, r.PathValue("body"))
	})
	mux.HandleFunc("/badjson", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"a":1} trailing`)
	})
	// /hops/N redirects N more times, then lands on /echo.
	mux.HandleFunc("/hops/{n}", func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.PathValue("n"))
		if n == 0 {
			http.Redirect(w, r, "/echo", http.StatusFound)
			return
		}
		http.Redirect(w, r, fmt.Sprintf("/hops/%d", n-1), http.StatusFound)
	})
	mux.HandleFunc("/loop", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/loop", http.StatusMovedPermanently)
	})
	mux.HandleFunc("/big/{n}", func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.PathValue("n"))
		w.Header().Set("Content-Type", "text/plain")
		chunk := strings.Repeat("x", 1<<16)
		for n > 0 {
			k := min(n, len(chunk))
			if _, err := io.WriteString(w, chunk[:k]); err != nil {
				return
			}
			n -= k
		}
	})
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(10 * time.Second):
		}
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func TestHTTPRequest(t *testing.T) {
	srv := newServer(t)
	tests := []struct {
		name  string
		in    map[string]any
		check func(t *testing.T, out map[string]any)
	}{
		{"get with query", map[string]any{"url": srv.URL + "/echo?a=1&keep=yes", "query": map[string]any{"a": "2", "b": "x y"}, "headers": map[string]any{"Accept": "application/json"}},
			func(t *testing.T, out map[string]any) {
				j := out["json"].(map[string]any)
				if j["method"] != "GET" || j["query"] != "a=2&b=x+y&keep=yes" || j["accept"] != "application/json" || j["body"] != "" {
					t.Errorf("server saw %v", j)
				}
				if j["n"] != int64(42) || j["f"] != 1.5 {
					t.Errorf("numbers came back as %T %v, %T %v", j["n"], j["n"], j["f"], j["f"])
				}
				if out["status"] != int64(200) {
					t.Errorf("status = %v", out["status"])
				}
				h := out["headers"].(map[string]any)
				if h["x-multi"] != "a, b" || h["content-type"] != "application/json" {
					t.Errorf("headers = %v", h)
				}
				if _, ok := out["text"]; ok {
					t.Error("json response also has text")
				}
			}},
		{"post json", map[string]any{"method": "POST", "url": srv.URL + "/echo", "json": map[string]any{"name": "ada", "n": int64(1)}},
			func(t *testing.T, out map[string]any) {
				j := out["json"].(map[string]any)
				if j["method"] != "POST" || j["content_type"] != "application/json" || j["body"] != `{"n":1,"name":"ada"}` {
					t.Errorf("server saw %v", j)
				}
			}},
		{"json null body is sent", map[string]any{"method": "PUT", "url": srv.URL + "/echo", "json": nil},
			func(t *testing.T, out map[string]any) {
				if j := out["json"].(map[string]any); j["body"] != "null" || j["method"] != "PUT" {
					t.Errorf("server saw %v", j)
				}
			}},
		{"post text with own content type", map[string]any{"method": "POST", "url": srv.URL + "/echo", "text": "a,b", "headers": map[string]any{"content-type": "text/csv", "Host": "example.test"}},
			func(t *testing.T, out map[string]any) {
				j := out["json"].(map[string]any)
				if j["body"] != "a,b" || j["content_type"] != "text/csv" || j["host"] != "example.test" {
					t.Errorf("server saw %v", j)
				}
			}},
		{"text response", map[string]any{"url": srv.URL + "/text"},
			func(t *testing.T, out map[string]any) {
				if out["text"] != "hello" {
					t.Errorf("text = %v", out["text"])
				}
				if _, ok := out["json"]; ok {
					t.Error("text response has json")
				}
			}},
		{"head", map[string]any{"method": "HEAD", "url": srv.URL + "/text"},
			func(t *testing.T, out map[string]any) {
				if out["text"] != "" || out["status"] != int64(200) {
					t.Errorf("out = %v", out)
				}
			}},
		{"error status with +json body", map[string]any{"url": srv.URL + "/problem"},
			func(t *testing.T, out map[string]any) {
				if out["status"] != int64(404) || out["json"].(map[string]any)["title"] != "not found" {
					t.Errorf("out = %v", out)
				}
			}},
		{"json null response", map[string]any{"url": srv.URL + "/json/null"},
			func(t *testing.T, out map[string]any) {
				if v, ok := out["json"]; !ok || v != nil {
					t.Errorf("out = %#v", out)
				}
				if _, ok := out["text"]; ok {
					t.Error("json null response has text")
				}
			}},
		{"json number beyond float64 is text", map[string]any{"url": srv.URL + "/json/1e400"},
			func(t *testing.T, out map[string]any) {
				if out["text"] != "1e400" {
					t.Errorf("out = %#v", out)
				}
			}},
		{"json that does not parse is text", map[string]any{"url": srv.URL + "/badjson"},
			func(t *testing.T, out map[string]any) {
				if out["text"] != `{"a":1} trailing` {
					t.Errorf("out = %v", out)
				}
			}},
		{"ten redirects are followed", map[string]any{"url": srv.URL + "/hops/9"},
			func(t *testing.T, out map[string]any) {
				if out["json"].(map[string]any)["method"] != "GET" {
					t.Errorf("out = %v", out)
				}
			}},
		{"body of exactly 10 MiB", map[string]any{"url": srv.URL + "/big/" + strconv.Itoa(HTTPMaxBody)},
			func(t *testing.T, out map[string]any) {
				if len(out["text"].(string)) != HTTPMaxBody {
					t.Errorf("text has %d bytes", len(out["text"].(string)))
				}
			}},
		{"long timeout is capped, not refused", map[string]any{"url": srv.URL + "/text", "timeout": "1h"},
			func(t *testing.T, out map[string]any) {
				if out["text"] != "hello" {
					t.Errorf("out = %v", out)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := run(t, nil, "http.request", tt.in)
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, out)
		})
	}
}

func TestHTTPRequestErrors(t *testing.T) {
	srv := newServer(t)
	tests := []struct {
		name string
		in   map[string]any
		want string
	}{
		{"eleven redirects", map[string]any{"url": srv.URL + "/hops/10"}, "GET " + srv.URL + "/hops/10: stopped after 10 redirects"},
		{"redirect loop", map[string]any{"url": srv.URL + "/loop"}, "stopped after 10 redirects"},
		{"body over 10 MiB", map[string]any{"url": srv.URL + "/big/" + strconv.Itoa(HTTPMaxBody+1)}, "GET " + srv.URL + "/big/10485761: response body exceeds 10 MiB"},
		{"timeout input", map[string]any{"url": srv.URL + "/slow", "timeout": "50ms"}, "GET " + srv.URL + "/slow: no complete response within 50ms: context deadline exceeded"},
		{"ftp url", map[string]any{"url": "ftp://example.com/x"}, `url "ftp://example.com/x": the scheme must be http or https`},
		{"relative url", map[string]any{"url": "/just/a/path"}, `url "/just/a/path": the scheme must be http or https`},
		{"no host", map[string]any{"url": "http:///path"}, `url "http:///path" has no host`},
		{"unparsable url", map[string]any{"url": "http://%zz"}, `url "http://%zz" is not valid`},
		{"not a url", map[string]any{"url": "not a url"}, `url "not a url": the scheme must be http or https`},
		{"unparsable url with password", map[string]any{"url": "http://me:secret@%zz"}, `url is not valid: invalid URL escape "%zz"`},
		{"password is redacted", map[string]any{"url": "gopher://me:secret@example.com"}, `url "gopher://me:xxxxx@example.com"`},
		{"missing url", map[string]any{}, `input of action "http.request": url: is required`},
		{"lower-case method", map[string]any{"url": srv.URL, "method": "post"}, `method: must be one of GET, HEAD, POST`},
		{"json and text", map[string]any{"url": srv.URL, "json": map[string]any{}, "text": "x"}, "give json or text as the request body, not both"},
		{"bad timeout", map[string]any{"url": srv.URL, "timeout": "soon"}, `timeout "soon" is not a duration like 30s or 1m30s`},
		{"negative timeout", map[string]any{"url": srv.URL, "timeout": "-1s"}, `timeout "-1s" must be positive`},
		{"non-string header", map[string]any{"url": srv.URL, "headers": map[string]any{"x-n": int64(1)}}, "headers.x-n: must be a string, not an integer"},
		{"connection refused", map[string]any{"url": "http://127.0.0.1:1/"}, "GET http://127.0.0.1:1/: dial tcp 127.0.0.1:1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := run(t, nil, "http.request", tt.in)
			wantErr(t, err, tt.want)
			if strings.Contains(err.Error(), "secret") {
				t.Errorf("error leaks the password: %v", err)
			}
		})
	}
}

func TestHTTPRequestContextDeadline(t *testing.T) {
	srv := newServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := runCtx(t, ctx, nil, "http.request", map[string]any{"url": srv.URL + "/slow"})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("error = %v, want context.DeadlineExceeded", err)
	}
	if strings.Contains(err.Error(), "no complete response within") {
		t.Errorf("the caller's deadline is reported as the action's timeout: %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("took %v", d)
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestHTTPRequestUsesHostClient(t *testing.T) {
	srv := newServer(t)
	var seen []string
	checked := 0
	host := &actions.Host{HTTPClient: &http.Client{
		Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
			seen = append(seen, r.URL.Path)
			return http.DefaultTransport.RoundTrip(r)
		}),
		CheckRedirect: func(*http.Request, []*http.Request) error { checked++; return nil },
	}}
	out, err := run(t, host, "http.request", map[string]any{"url": srv.URL + "/hops/1"})
	if err != nil {
		t.Fatal(err)
	}
	if out["status"] != int64(200) || strings.Join(seen, " ") != "/hops/1 /hops/0 /echo" || checked != 2 {
		t.Fatalf("status %v, transport saw %v, host CheckRedirect ran %d times", out["status"], seen, checked)
	}
	// The host's client is not modified.
	if host.HTTPClient.Timeout != 0 {
		t.Fatal("host client changed")
	}
	// The redirect limit holds even when the host's client has its own policy.
	_, err = run(t, host, "http.request", map[string]any{"url": srv.URL + "/loop"})
	wantErr(t, err, "stopped after 10 redirects")
}
