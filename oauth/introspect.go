package oauth

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"
)

// DefaultIntrospectionTTL is Introspection.CacheTTL when it is zero.
const DefaultIntrospectionTTL = time.Minute

// Bounds of the introspection cache.
const (
	maxCached         = 10000
	inactiveCacheTTL  = 10 * time.Second
	maxIntrospectBody = 1 << 20
)

// introspector asks the issuer about opaque tokens (RFC 7662) and keeps
// its answers for a while, keyed by a digest of the token.
type introspector struct {
	endpoint string
	cfg      Introspection
	client   *http.Client
	v        *Verifier

	mu    sync.Mutex
	cache map[[sha256.Size]byte]cached
}

// cached is one answer: a principal, or a refusal.
type cached struct {
	p     *Principal
	err   error
	until time.Time
}

func newIntrospector(endpoint string, cfg Introspection, client *http.Client, v *Verifier) *introspector {
	if cfg.CacheTTL == 0 {
		cfg.CacheTTL = DefaultIntrospectionTTL
	}
	return &introspector{endpoint: endpoint, cfg: cfg, client: client, v: v, cache: map[[sha256.Size]byte]cached{}}
}

// introspect checks token with the issuer, or its cached answer.
func (in *introspector) introspect(ctx context.Context, token string) (*Principal, error) {
	key := sha256.Sum256([]byte(token))
	now := in.v.now()
	in.mu.Lock()
	c, ok := in.cache[key]
	in.mu.Unlock()
	if ok && now.Before(c.until) {
		return c.p, c.err
	}
	answer, err := in.ask(ctx, token)
	if err != nil {
		return nil, err
	}
	p, err := in.check(answer, now)
	in.keep(key, cached{p: p, err: err, until: in.until(p, err, now)})
	return p, err
}

// until is how long an answer may be kept.
func (in *introspector) until(p *Principal, err error, now time.Time) time.Time {
	if in.cfg.CacheTTL < 0 {
		return now
	}
	if err != nil {
		return now.Add(min(inactiveCacheTTL, in.cfg.CacheTTL))
	}
	until := now.Add(in.cfg.CacheTTL)
	if !p.Expiry.IsZero() && p.Expiry.Before(until) {
		until = p.Expiry
	}
	return until
}

// keep caches an answer; a full cache first drops what has expired, and
// is emptied when that is not enough.
func (in *introspector) keep(key [sha256.Size]byte, c cached) {
	if !c.until.After(in.v.now()) {
		return
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	if len(in.cache) >= maxCached {
		now := in.v.now()
		for k, old := range in.cache {
			if !now.Before(old.until) {
				delete(in.cache, k)
			}
		}
		if len(in.cache) >= maxCached {
			clear(in.cache)
		}
	}
	in.cache[key] = c
}

// introspection is the endpoint's answer (RFC 7662 §2.2).
type introspection struct {
	Active    bool     `json:"active"`
	Scope     string   `json:"scope"`
	ClientID  string   `json:"client_id"`
	Subject   string   `json:"sub"`
	Issuer    string   `json:"iss"`
	Audience  audience `json:"aud"`
	Expiry    *float64 `json:"exp"`
	NotBefore *float64 `json:"nbf"`

	claims map[string]any
}

// audience is aud: a string or a list of strings.
type audience []string

func (a *audience) UnmarshalJSON(b []byte) error {
	var one string
	if json.Unmarshal(b, &one) == nil {
		*a = audience{one}
		return nil
	}
	var many []string
	if err := json.Unmarshal(b, &many); err != nil {
		return fmt.Errorf("aud is neither a string nor a list of strings")
	}
	*a = many
	return nil
}

// ask posts the token to the endpoint.
func (in *introspector) ask(ctx context.Context, token string) (*introspection, error) {
	form := url.Values{"token": {token}, "token_type_hint": {"access_token"}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, in.endpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, unavailable("introspect", err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	// RFC 6749 §2.3.1: the id and secret are form-encoded first.
	req.SetBasicAuth(url.QueryEscape(in.cfg.ClientID), url.QueryEscape(in.cfg.ClientSecret))
	resp, err := in.client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, unavailable("introspect", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, unavailable("introspect", fmt.Errorf("%s answered %s", in.endpoint, resp.Status))
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxIntrospectBody))
	if err != nil {
		return nil, unavailable("introspect", err)
	}
	var answer introspection
	if err := json.Unmarshal(body, &answer); err != nil {
		return nil, unavailable("introspect", fmt.Errorf("the answer of %s is not an introspection response: %w", in.endpoint, err))
	}
	if err := json.Unmarshal(body, &answer.claims); err != nil {
		return nil, unavailable("introspect", err)
	}
	return &answer, nil
}

// check turns an active answer about a token for this server into its
// principal.
func (in *introspector) check(a *introspection, now time.Time) (*Principal, error) {
	v := in.v
	switch {
	case !a.Active:
		return nil, refused(ReasonInactive)
	case a.Issuer != "" && a.Issuer != v.issuer:
		return nil, refused(ReasonIssuer)
	case !slices.Contains(a.Audience, v.audience):
		return nil, refused(ReasonAudience)
	case a.Subject == "":
		return nil, refused(ReasonNoSubject)
	case a.Expiry != nil && now.After(unix(*a.Expiry).Add(v.skew)):
		return nil, refused(ReasonExpired)
	case a.NotBefore != nil && now.Add(v.skew).Before(unix(*a.NotBefore)):
		return nil, refused(ReasonNotYetValid)
	}
	p := &Principal{Subject: a.Subject, Scopes: strings.Fields(a.Scope), ClientID: a.ClientID, Claims: a.claims}
	if a.Expiry != nil {
		p.Expiry = unix(*a.Expiry)
	}
	return p, nil
}

func unix(f float64) time.Time { return time.Unix(int64(f), 0) }
