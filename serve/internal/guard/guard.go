// Package guard is the HTTP endpoint's access control that needs no
// server: the Host and Origin checks against DNS rebinding, the bearer
// tokens of a tokens file (Tokens) and the principal a bearer token
// names. Package serve runs a Guard before every request reaches an MCP
// handler; OAuth, which needs the served flows' scopes, is serve's.
package guard

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"regexp"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/flowserve/flowserve/metrics"
)

// Tokens is a set of accepted bearer tokens, each optionally naming its
// caller for the logs. Only SHA-256 digests of the tokens are kept. It is
// immutable and safe for concurrent use.
type Tokens struct {
	entries []tokenEntry
	names   map[string]string // principal → name, for named tokens
}

type tokenEntry struct {
	sum  [sha256.Size]byte
	name string
}

// tokenNamePattern is what a caller's name in a tokens file looks like.
var tokenNamePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.@-]{0,63}$`)

// tokenPattern is RFC 6750's b64token, the syntax of a bearer token.
var tokenPattern = regexp.MustCompile(`^[A-Za-z0-9._~+/-]+=*$`)

// MinTokenLength is the shortest token a tokens file may hold.
const MinTokenLength = 16

// LoadTokens reads a tokens file (see ParseTokens).
func LoadTokens(path string) (*Tokens, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read tokens: %w", err)
	}
	t, err := parseTokens(data)
	if err != nil {
		return nil, fmt.Errorf("tokens file %s: %w", path, err)
	}
	return t, nil
}

// ParseTokens reads the text of a tokens file: one token per line,
// optionally preceded by a caller's name and a colon ("ci-bot:6f1c…"),
// which the logs show as the caller. Blank lines are ignored, and so is
// everything from a '#' to the end of its line. A token is at least
// MinTokenLength characters of RFC 6750's token syntax (letters, digits
// and -._~+/, then optional '=' padding); a name is 1 to 64 letters,
// digits and _.@- starting with a letter or digit. Two lines may name the
// same caller (to rotate its token) but not hold the same token.
//
// Errors name the line and what is wrong, and never include a token.
func ParseTokens(data []byte) (*Tokens, error) {
	t, err := parseTokens(data)
	if err != nil {
		return nil, fmt.Errorf("tokens: %w", err)
	}
	return t, nil
}

func parseTokens(data []byte) (*Tokens, error) {
	t := &Tokens{names: map[string]string{}}
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	seen := map[[sha256.Size]byte]int{} // digest → line
	for n, line := range strings.Split(string(data), "\n") {
		lineNo := n + 1
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		var name string
		token := line
		if before, after, ok := strings.Cut(line, ":"); ok {
			name, token = strings.TrimSpace(before), strings.TrimSpace(after)
			if !tokenNamePattern.MatchString(name) {
				return nil, fmt.Errorf("line %d: the name before ':' is not valid: use 1 to 64 letters, digits, '_', '.', '@' or '-'", lineNo)
			}
		}
		switch {
		case token == "":
			return nil, fmt.Errorf("line %d: no token", lineNo)
		case !tokenPattern.MatchString(token):
			return nil, fmt.Errorf("line %d: the token has characters a bearer token cannot have (use letters, digits and -._~+/)", lineNo)
		case len(token) < MinTokenLength:
			return nil, fmt.Errorf("line %d: the token is shorter than %d characters", lineNo, MinTokenLength)
		}
		sum := sha256.Sum256([]byte(token))
		if first, dup := seen[sum]; dup {
			return nil, fmt.Errorf("line %d: the same token as line %d", lineNo, first)
		}
		seen[sum] = lineNo
		t.entries = append(t.entries, tokenEntry{sum: sum, name: name})
		if name != "" {
			t.names[principalOf(sum)] = name
		}
	}
	if len(t.entries) == 0 {
		return nil, errors.New("no tokens (want lines of [name:]token)")
	}
	return t, nil
}

// Len returns the number of tokens.
func (t *Tokens) Len() int { return len(t.entries) }

// Valid reports whether token is one of the set. It compares digests in
// constant time, and always compares against every entry.
func (t *Tokens) Valid(token string) bool {
	sum := sha256.Sum256([]byte(token))
	found := 0
	for i := range t.entries {
		found |= subtle.ConstantTimeCompare(sum[:], t.entries[i].sum[:])
	}
	return found == 1
}

// NameOf returns the caller's name of a principal, or "".
func (t *Tokens) NameOf(principal string) string {
	if t == nil || principal == "" {
		return ""
	}
	return t.names[principal]
}

// BearerToken returns the token of an "Authorization: Bearer <token>"
// header (the scheme in any case).
func BearerToken(h http.Header) (string, bool) {
	scheme, token, ok := strings.Cut(strings.TrimSpace(h.Get("Authorization")), " ")
	token = strings.TrimSpace(token)
	if !ok || !strings.EqualFold(scheme, "Bearer") || token == "" || strings.ContainsAny(token, " \t") {
		return "", false
	}
	return token, true
}

// Principal identifies the caller of a request with the headers h: a
// digest of its HTTP bearer token, or "" when there is none (stdio). The
// token itself is never kept.
func Principal(h http.Header) string {
	token, ok := BearerToken(h)
	if !ok {
		return ""
	}
	return principalOf(sha256.Sum256([]byte(token)))
}

// principalOf is the principal of a token's digest.
func principalOf(sum [sha256.Size]byte) string {
	return "bearer:" + hex.EncodeToString(sum[:16])
}

// Guard is what serve's HTTPHandler checks before a request reaches an MCP
// handler: the Host and Origin headers (DNS rebinding) and the bearer
// token.
type Guard struct {
	hosts     []string // lower-case names; "*.example.com" matches subdomains
	anyHost   bool
	origins   map[string]bool // scheme://host[:port], lower case
	anyOrigin bool
	tokens    *Tokens
	metrics   *metrics.Metrics
}

// Options are what a Guard lets through: serve's HTTPOptions of the
// same names.
type Options struct {
	// AllowedHosts lists the host names the Host header may name
	// ("*.example.com" matches its subdomains, "*" any host); none means
	// that a request that arrived on loopback must name a loopback host.
	AllowedHosts []string
	// AllowedOrigins lists the browser origins allowed besides those on
	// an allowed host and loopback origins on loopback connections.
	AllowedOrigins []string
	// Tokens, when set, are the bearer tokens accepted.
	Tokens *Tokens
}

// New returns the guard of opts, counting its refusals in m.
func New(opts Options, m *metrics.Metrics) *Guard {
	g := &Guard{origins: map[string]bool{}, tokens: opts.Tokens, metrics: m}
	for _, h := range opts.AllowedHosts {
		h = strings.ToLower(strings.TrimSpace(h))
		switch {
		case h == "":
		case h == "*":
			g.anyHost = true
		default:
			if !strings.HasPrefix(h, "*.") {
				h = hostname(h)
			}
			g.hosts = append(g.hosts, h)
		}
	}
	for _, o := range opts.AllowedOrigins {
		o = strings.ToLower(strings.TrimRight(strings.TrimSpace(o), "/"))
		switch o {
		case "":
		case "*":
			g.anyOrigin = true
		default:
			g.origins[o] = true
		}
	}
	return g
}

// Check answers a request that may not go on (403 for its Host or
// Origin, 401 without a valid token) and reports whether it may.
func (g *Guard) Check(w http.ResponseWriter, r *http.Request) bool {
	onLoopback := arrivedOnLoopback(r)
	if !g.CheckHost(w, r) {
		return false
	}
	if origin := r.Header.Values("Origin"); len(origin) > 0 && !g.originAllowed(origin, onLoopback) {
		g.metrics.Rejected.WithLabelValues(metrics.RejectOrigin).Inc()
		http.Error(w, fmt.Sprintf("Forbidden: invalid Origin header %q", origin[0]), http.StatusForbidden)
		return false
	}
	if g.tokens == nil {
		return true
	}
	token, ok := BearerToken(r.Header)
	if !ok || !g.tokens.Valid(token) {
		g.metrics.Rejected.WithLabelValues(metrics.RejectUnauthorized).Inc()
		challenge := `Bearer realm="flowserve"`
		msg := "Unauthorized: this server needs an Authorization: Bearer token"
		if ok {
			challenge += `, error="invalid_token"`
			msg = "Unauthorized: the bearer token is not valid"
		}
		w.Header().Set("WWW-Authenticate", challenge)
		http.Error(w, msg, http.StatusUnauthorized)
		return false
	}
	return true
}

// BindSessions wraps h so that the go-sdk sees each request's principal
// as the user of its token: a session-era session opened with one token
// then refuses requests with another (403 "session user mismatch"). The
// guard has checked the token already.
func BindSessions(h http.Handler) http.Handler {
	return auth.RequireBearerToken(func(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
		return &auth.TokenInfo{UserID: principalOf(sha256.Sum256([]byte(token)))}, nil
	}, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})(h)
}

// CheckHost applies the Host rule of Check alone (403), for the approval
// pages: browsers of people with a link reach them, not MCP clients.
func (g *Guard) CheckHost(w http.ResponseWriter, r *http.Request) bool {
	if !g.hostAllowed(r.Host, arrivedOnLoopback(r)) {
		g.metrics.Rejected.WithLabelValues(metrics.RejectHost).Inc()
		// The go-sdk's message for the same check.
		http.Error(w, fmt.Sprintf("Forbidden: invalid Host header %q", r.Host), http.StatusForbidden)
		return false
	}
	return true
}

// hostAllowed applies the Host rule: with no AllowedHosts, a request that
// arrived on a loopback address must name a loopback host (the go-sdk's
// rule); with AllowedHosts, the host must be one of them, or a loopback
// name on a loopback connection.
func (g *Guard) hostAllowed(host string, onLoopback bool) bool {
	if g.anyHost {
		return true
	}
	name := hostname(host)
	if len(g.hosts) == 0 {
		return !onLoopback || isLoopback(name)
	}
	return g.listed(name) || (onLoopback && isLoopback(name))
}

// originAllowed applies the Origin rule: the origin is listed in
// AllowedOrigins, or its host is one of AllowedHosts, or it is a loopback
// origin on a loopback connection.
func (g *Guard) originAllowed(values []string, onLoopback bool) bool {
	if g.anyOrigin {
		return true
	}
	for _, v := range values {
		o := strings.ToLower(strings.TrimSpace(v))
		u, err := url.Parse(o)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil || (u.Path != "" && u.Path != "/") {
			return false
		}
		name := hostname(u.Host)
		if !g.origins[u.Scheme+"://"+u.Host] && !g.listed(name) && !(onLoopback && isLoopback(name)) {
			return false
		}
	}
	return true
}

// listed reports whether a host name is one of AllowedHosts.
func (g *Guard) listed(name string) bool {
	for _, h := range g.hosts {
		if suffix, ok := strings.CutPrefix(h, "*"); ok {
			if strings.HasSuffix(name, suffix) && len(name) > len(suffix) {
				return true
			}
		} else if name == h {
			return true
		}
	}
	return false
}

// hostname returns the lower-case host name of a host or host:port,
// without brackets or a trailing dot.
func hostname(hostport string) string {
	h := hostport
	if host, _, err := net.SplitHostPort(hostport); err == nil {
		h = host
	}
	h = strings.TrimSuffix(strings.Trim(h, "[]"), ".")
	return strings.ToLower(h)
}

// arrivedOnLoopback reports whether the request came in on a loopback
// address of this host.
func arrivedOnLoopback(r *http.Request) bool {
	local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	return ok && local != nil && isLoopback(local.String())
}

// isLoopback reports whether a host or host:port names the loopback
// interface.
func isLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = strings.Trim(addr, "[]")
	}
	if host == "localhost" {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}
