package std

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/flowserve/flowserve/actions"
)

// Limits of http.request.
const (
	HTTPMaxRedirects   = 10               // redirects followed before the request fails
	HTTPMaxBody        = 10 << 20         // response body bytes read before the request fails (10 MiB)
	HTTPDefaultTimeout = 30 * time.Second // when the input gives no timeout
	HTTPMaxTimeout     = 5 * time.Minute  // longer timeouts are capped to this
)

var httpMethods = []any{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"}

type httpIn struct {
	Method          string            `json:"method,omitempty" jsonschema:"The HTTP method."`
	URL             string            `json:"url" jsonschema:"The absolute http:// or https:// URL to request."`
	Headers         map[string]string `json:"headers,omitempty" jsonschema:"Request headers, name to value."`
	Query           map[string]string `json:"query,omitempty" jsonschema:"Query parameters added to the URL, name to value; a parameter already in the URL with the same name is replaced."`
	JSON            json.RawMessage   `json:"json,omitempty" jsonschema:"A request body of any JSON value, sent as application/json. Not together with text."`
	Text            *string           `json:"text,omitempty" jsonschema:"A request body of plain text. Not together with json."`
	Timeout         string            `json:"timeout,omitempty" jsonschema:"How long the whole request (redirects and body included) may take, as a Go duration like 10s or 1m30s; longer than 5m is capped to 5m."`
	FollowRedirects string            `json:"follow_redirects,omitempty" jsonschema:"Which redirects are followed: same-host follows those to the URL's own scheme, host and port and fails the step on one elsewhere; always follows every one, without the headers set here (nor Authorization, Cookie, Proxy-Authorization) once one leaves that host; never returns the 3xx response as the output."`
}

type httpOut struct {
	Status  int64             `json:"status" jsonschema:"The response's HTTP status code, like 200 or 404."`
	Headers map[string]string `json:"headers" jsonschema:"Response headers with lower-case names; the values of a repeated header are joined with \", \"."`
	JSON    json.RawMessage   `json:"json,omitempty" jsonschema:"The parsed body, when the response's media type is application/json (or *+json) and the body parses."`
	Text    *string           `json:"text,omitempty" jsonschema:"The body as text, when it is not returned as json."`
}

// text makes a *string field's schema a string, not "string or null".
func text(p *jsonschema.Schema) { p.Type, p.Types = "string", nil }

func httpSpecs(m *actions.Module[*builtins]) []actions.Spec {
	return []actions.Spec{actions.Method(m, "http.request", "Sends an HTTP request and returns the response's status, headers and body.", (*builtins).httpRequest,
		actions.Describe("Sends one HTTP or HTTPS request. The body is `json` (any JSON value, sent with "+
			"`Content-Type: application/json`) or `text` (sent as `text/plain; charset=utf-8`), never both; "+
			"a `Content-Type` in `headers` wins. Redirects are followed, at most 10, by default only within the "+
			"URL's scheme, host and port: a redirect elsewhere fails the step unless `follow_redirects` is "+
			"`always` (the `headers` are then not sent past that host) or `never` (the 3xx response is the output). "+
			"No `Referer` is sent, except one set in `headers`, and that only within the URL's host. A response body over "+
			"10 MiB is an error. A response whose media type is `application/json` (or `*+json`) and "+
			"whose body parses comes back as `json`; any other body comes back as `text`. "+
			"A non-2xx status is not an error: branch on `status`. "+
			"The step runs at least once: for a request with effects, send an idempotency key "+
			"(for example `\"Idempotency-Key\": \"{{ run.id }}\"`)."),
		actions.InputProperty("method", func(p *jsonschema.Schema) {
			p.Enum = httpMethods
			byDefault("GET")(p)
		}),
		actions.InputProperty("url", minLength(1)),
		actions.InputProperty("json", anyJSON),
		actions.InputProperty("text", text),
		actions.InputProperty("timeout", func(p *jsonschema.Schema) {
			byDefault("30s")(p)
			minLength(1)(p)
		}),
		actions.InputProperty("follow_redirects", func(p *jsonschema.Schema) {
			p.Enum = followModes
			byDefault(FollowSameHost)(p)
		}),
		actions.OutputProperty("json", anyJSON),
		actions.OutputProperty("text", text),
	)}
}

func (b *builtins) httpRequest(ctx context.Context, in httpIn) (httpOut, error) {
	method := in.Method
	if method == "" { // absent: Run adds the default, a direct call may not
		method = "GET"
	}
	method = strings.ToUpper(method)
	raw := in.URL
	u, err := url.Parse(raw)
	if err != nil {
		if strings.Contains(raw, "@") { // it may hold a password we cannot redact
			return httpOut{}, fmt.Errorf("url is not valid: %w", errors.Unwrap(err))
		}
		return httpOut{}, fmt.Errorf("url %q is not valid: %w", raw, errors.Unwrap(err))
	}
	shown := raw
	if _, ok := u.User.Password(); ok {
		shown = u.Redacted()
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return httpOut{}, fmt.Errorf("url %q: the scheme must be http or https", shown)
	}
	if u.Host == "" {
		return httpOut{}, fmt.Errorf("url %q has no host", shown)
	}
	if len(in.Query) > 0 {
		q := u.Query()
		for k, v := range in.Query {
			q.Set(k, v)
		}
		u.RawQuery = q.Encode()
	}
	timeout := HTTPDefaultTimeout
	if s := in.Timeout; s != "" {
		if timeout, err = time.ParseDuration(s); err != nil {
			return httpOut{}, fmt.Errorf("timeout %q is not a duration like 30s or 1m30s", s)
		}
		if timeout <= 0 {
			return httpOut{}, fmt.Errorf("timeout %q must be positive", s)
		}
		timeout = min(timeout, HTTPMaxTimeout)
	}
	policy, err := newRedirectPolicy(in.FollowRedirects, in.Headers)
	if err != nil {
		return httpOut{}, err
	}

	var body io.Reader
	var contentType string
	switch {
	case in.JSON != nil && in.Text != nil:
		return httpOut{}, errors.New("give json or text as the request body, not both")
	case in.JSON != nil: // a JSON null is sent as null
		body, contentType = bytes.NewReader(in.JSON), "application/json"
	case in.Text != nil:
		body, contentType = strings.NewReader(*in.Text), "text/plain; charset=utf-8"
	}

	reqCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(reqCtx, method, u.String(), body)
	if err != nil {
		return httpOut{}, fmt.Errorf("%s %s: %w", method, u.Redacted(), err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for k, v := range in.Headers {
		if strings.EqualFold(k, "host") {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}

	fail := func(err error) error {
		var uerr *url.Error
		if errors.As(err, &uerr) {
			err = uerr.Err
		}
		if ctx.Err() == nil && errors.Is(reqCtx.Err(), context.DeadlineExceeded) {
			return fmt.Errorf("%s %s: no complete response within %s: %w", method, u.Redacted(), timeout, context.DeadlineExceeded)
		}
		return fmt.Errorf("%s %s: %w", method, u.Redacted(), err)
	}
	resp, err := httpClient(b.hostOf(ctx), policy).Do(req)
	if err != nil {
		return httpOut{}, fail(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, HTTPMaxBody+1))
	if err != nil {
		return httpOut{}, fail(err)
	}
	if len(data) > HTTPMaxBody {
		return httpOut{}, fmt.Errorf("%s %s: response body exceeds 10 MiB", method, u.Redacted())
	}

	out := httpOut{Status: int64(resp.StatusCode), Headers: make(map[string]string, len(resp.Header))}
	for k, vs := range resp.Header {
		out.Headers[strings.ToLower(k)] = strings.Join(vs, ", ")
	}
	if v, ok := parseJSONBody(resp.Header.Get("Content-Type"), data); ok {
		out.JSON = v
	} else {
		t := string(data)
		out.Text = &t
	}
	return out, nil
}

// errTooManyRedirects is what CheckRedirect returns past the limit.
var errTooManyRedirects = fmt.Errorf("stopped after %d redirects", HTTPMaxRedirects)

// httpClient returns a copy of the host's client (or a new one) that
// follows at most HTTPMaxRedirects redirects, those that p allows, with
// the headers p leaves. The host's own CheckRedirect, if any, runs after
// p's on each redirect p follows.
func httpClient(h *actions.Host, p redirectPolicy) *http.Client {
	var c http.Client
	if h.HTTPClient != nil {
		c = *h.HTTPClient
	}
	prev := c.CheckRedirect
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if len(via) > HTTPMaxRedirects {
			return errTooManyRedirects
		}
		if err := p.check(req, via); err != nil {
			return err
		}
		if prev != nil {
			return prev(req, via)
		}
		return nil
	}
	return &c
}

// parseJSONBody returns data when the media type is JSON and data is one
// JSON value that crosses the action API (see [actions.Normalize]).
func parseJSONBody(contentType string, data []byte) (json.RawMessage, bool) {
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil || (mt != "application/json" && !strings.HasSuffix(mt, "+json")) {
		return nil, false
	}
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, false
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, false // trailing data
	}
	if _, err := actions.Normalize(v); err != nil {
		return nil, false // a number JSON allows and the API does not, like 1e400
	}
	return bytes.TrimSpace(data), true
}
