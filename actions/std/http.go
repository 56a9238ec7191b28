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

func init() {
	actions.Register(actions.Spec{
		Name:    "http.request",
		Summary: "Sends an HTTP request and returns the response's status, headers and body.",
		Description: "Sends one HTTP or HTTPS request. The body is `json` (any JSON value, sent with " +
			"`Content-Type: application/json`) or `text` (sent as `text/plain; charset=utf-8`), never both; " +
			"a `Content-Type` in `headers` wins. Redirects are followed, at most 10. A response body over " +
			"10 MiB is an error. A response whose media type is `application/json` (or `*+json`) and " +
			"whose body parses comes back as `json`; any other body comes back as `text`. " +
			"A non-2xx status is not an error: branch on `status`. " +
			"The step runs at least once: for a request with effects, send an idempotency key " +
			"(for example `\"Idempotency-Key\": \"{{ run.id }}\"`).",
		Input: object("", obj{
			"method":  prop("string", "The HTTP method.", "enum", httpMethods, "default", "GET"),
			"url":     prop("string", "The absolute http:// or https:// URL to request.", "minLength", 1),
			"headers": stringMap("Request headers, name to value."),
			"query":   stringMap("Query parameters added to the URL, name to value; a parameter already in the URL with the same name is replaced."),
			"json":    prop("", "A request body of any JSON value, sent as application/json. Not together with text."),
			"text":    prop("string", "A request body of plain text. Not together with json."),
			"timeout": prop("string", "How long the whole request (redirects and body included) may take, as a Go duration like 10s or 1m30s; longer than 5m is capped to 5m.", "default", "30s", "minLength", 1),
		}, "url"),
		Output: object("", obj{
			"status":  prop("integer", "The response's HTTP status code, like 200 or 404."),
			"headers": stringMap("Response headers with lower-case names; the values of a repeated header are joined with \", \"."),
			"json":    prop("", "The parsed body, when the response's media type is application/json (or *+json) and the body parses."),
			"text":    prop("string", "The body as text, when it is not returned as json."),
		}, "status", "headers"),
		Func: httpRequest,
	})
}

func httpRequest(ctx context.Context, in map[string]any) (any, error) {
	method := strings.ToUpper(argString(in, "method", "GET"))
	raw := argString(in, "url", "")
	u, err := url.Parse(raw)
	if err != nil {
		if strings.Contains(raw, "@") { // it may hold a password we cannot redact
			return nil, fmt.Errorf("url is not valid: %w", errors.Unwrap(err))
		}
		return nil, fmt.Errorf("url %q is not valid: %w", raw, errors.Unwrap(err))
	}
	shown := raw
	if _, ok := u.User.Password(); ok {
		shown = u.Redacted()
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("url %q: the scheme must be http or https", shown)
	}
	if u.Host == "" {
		return nil, fmt.Errorf("url %q has no host", shown)
	}
	headers, err := argStringMap(in, "headers")
	if err != nil {
		return nil, err
	}
	query, err := argStringMap(in, "query")
	if err != nil {
		return nil, err
	}
	if len(query) > 0 {
		q := u.Query()
		for k, v := range query {
			q.Set(k, v)
		}
		u.RawQuery = q.Encode()
	}
	timeout := HTTPDefaultTimeout
	if s := argString(in, "timeout", ""); s != "" {
		if timeout, err = time.ParseDuration(s); err != nil {
			return nil, fmt.Errorf("timeout %q is not a duration like 30s or 1m30s", s)
		}
		if timeout <= 0 {
			return nil, fmt.Errorf("timeout %q must be positive", s)
		}
		timeout = min(timeout, HTTPMaxTimeout)
	}

	var body io.Reader
	var contentType string
	jsonBody, hasJSON := in["json"]
	textBody, hasText := in["text"].(string)
	switch {
	case hasJSON && hasText:
		return nil, errors.New("give json or text as the request body, not both")
	case hasJSON:
		b, err := json.Marshal(jsonBody)
		if err != nil {
			return nil, fmt.Errorf("json body: %w", err)
		}
		body, contentType = bytes.NewReader(b), "application/json"
	case hasText:
		body, contentType = strings.NewReader(textBody), "text/plain; charset=utf-8"
	}

	reqCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(reqCtx, method, u.String(), body)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", method, u.Redacted(), err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for k, v := range headers {
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
	resp, err := httpClient(actions.HostFrom(ctx)).Do(req)
	if err != nil {
		return nil, fail(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, HTTPMaxBody+1))
	if err != nil {
		return nil, fail(err)
	}
	if len(data) > HTTPMaxBody {
		return nil, fmt.Errorf("%s %s: response body exceeds 10 MiB", method, u.Redacted())
	}

	outHeaders := make(map[string]any, len(resp.Header))
	for k, vs := range resp.Header {
		outHeaders[strings.ToLower(k)] = strings.Join(vs, ", ")
	}
	out := map[string]any{"status": int64(resp.StatusCode), "headers": outHeaders}
	if v, ok := parseJSONBody(resp.Header.Get("Content-Type"), data); ok {
		out["json"] = v
	} else {
		out["text"] = string(data)
	}
	return out, nil
}

// errTooManyRedirects is what CheckRedirect returns past the limit.
var errTooManyRedirects = fmt.Errorf("stopped after %d redirects", HTTPMaxRedirects)

// httpClient returns a copy of the host's client (or a new one) that
// follows at most HTTPMaxRedirects redirects. The host's own CheckRedirect,
// if any, still runs.
func httpClient(h *actions.Host) *http.Client {
	var c http.Client
	if h.HTTPClient != nil {
		c = *h.HTTPClient
	}
	prev := c.CheckRedirect
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if len(via) > HTTPMaxRedirects {
			return errTooManyRedirects
		}
		if prev != nil {
			return prev(req, via)
		}
		return nil
	}
	return &c
}

// parseJSONBody parses data when the media type is JSON and data is one
// JSON value.
func parseJSONBody(contentType string, data []byte) (any, bool) {
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
	v, err = actions.Normalize(v)
	return v, err == nil
}
