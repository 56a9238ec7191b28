package std

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// The values of http.request's follow_redirects.
const (
	// FollowSameHost follows a redirect only to the scheme, host and port
	// of the request's URL; a redirect elsewhere fails the step.
	FollowSameHost = "same-host"
	// FollowAlways follows every redirect; once one leaves the request's
	// scheme, host and port, the headers the flow set, Authorization,
	// Cookie and Proxy-Authorization are no longer sent.
	FollowAlways = "always"
	// FollowNever follows no redirect: the 3xx response is the output.
	FollowNever = "never"
)

var followModes = []any{FollowSameHost, FollowAlways, FollowNever}

// credentialHeaders are dropped on a redirect to another host even when
// the flow did not set them.
var credentialHeaders = []string{"Authorization", "Cookie", "Proxy-Authorization"}

// redirectPolicy is what one http.request needs to decide on the
// redirects its response asks for.
type redirectPolicy struct {
	follow  string   // one of the Follow* constants
	headers []string // the names of the headers the flow set
	referer string   // the Referer the flow set; "" for none
}

// newRedirectPolicy returns the policy of a request whose input says
// follow (empty: FollowSameHost) and whose flow set headers.
func newRedirectPolicy(follow string, headers map[string]string) (redirectPolicy, error) {
	p := redirectPolicy{follow: follow}
	switch follow {
	case "":
		p.follow = FollowSameHost
	case FollowSameHost, FollowAlways, FollowNever:
	default:
		return p, fmt.Errorf("follow_redirects %q must be %q, %q or %q", follow, FollowSameHost, FollowAlways, FollowNever)
	}
	for k, v := range headers {
		p.headers = append(p.headers, k)
		if http.CanonicalHeaderKey(k) == "Referer" {
			p.referer = v
		}
	}
	return p, nil
}

// check is the client's CheckRedirect: it refuses or prepares the
// redirect req, the last of via's requests having been answered by a
// redirect to it. Go's client has copied the first request's headers into
// req and added a Referer holding the previous URL (which may carry a
// secret in its query): check removes that Referer, keeps the flow's own
// only while the chain stays on the first request's origin, and once the
// chain has left that origin removes every header the flow set and the
// credential headers.
func (p redirectPolicy) check(req *http.Request, via []*http.Request) error {
	if p.follow == FollowNever {
		return http.ErrUseLastResponse
	}
	from := origin(via[0].URL)
	left := false
	for _, r := range append(via[1:len(via):len(via)], req) {
		left = left || origin(r.URL) != from
	}
	if left && p.follow != FollowAlways {
		status := 0
		if req.Response != nil {
			status = req.Response.StatusCode
		}
		return fmt.Errorf("redirect (status %d) to another host, %s, refused: follow_redirects is %q, which follows redirects within %s only; "+
			"set follow_redirects to %q to follow it without the request's headers, or to %q to get the %d response as the output",
			status, origin(req.URL), p.follow, from, FollowAlways, FollowNever, status)
	}
	req.Header.Del("Referer")
	if !left {
		if p.referer != "" {
			req.Header.Set("Referer", p.referer)
		}
		return nil
	}
	for _, k := range p.headers {
		req.Header.Del(k)
	}
	for _, k := range credentialHeaders {
		req.Header.Del(k)
	}
	return nil
}

// origin returns u's scheme, host and port as scheme://host:port, in
// lower case and with the scheme's default port when u gives none.
func origin(u *url.URL) string {
	scheme := strings.ToLower(u.Scheme)
	port := u.Port()
	if port == "" {
		switch scheme {
		case "http":
			port = "80"
		case "https":
			port = "443"
		}
	}
	return scheme + "://" + net.JoinHostPort(strings.ToLower(u.Hostname()), port)
}
