package oauth

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// MinKeyRefresh is the least time between two fetches of the key set that
// a token with an unknown key makes; MaxKeyAge is how long a fetched set
// is used before it is fetched again on the next token.
const (
	MinKeyRefresh = 10 * time.Second
	MaxKeyAge     = time.Hour
)

// maxKeySetBytes bounds the key set document.
const maxKeySetBytes = 1 << 20

// keySet is the issuer's JSON Web Key Set, fetched when first needed and
// again when a token names a key it lacks or it is older than MaxKeyAge.
// It is safe for concurrent use; concurrent fetches are made once.
type keySet struct {
	url    string
	client *http.Client
	now    func() time.Time

	mu      sync.Mutex
	keys    []jose.JSONWebKey
	fetched time.Time     // when keys were fetched; zero before the first fetch
	tried   time.Time     // when a fetch was last started
	flight  chan struct{} // closed when the fetch in progress ends; nil when none is
	err     error         // the last fetch's error
}

// lookup returns the keys that may have signed a token with the given
// key id and algorithm: the key with that id, or with no id every key of
// the algorithm. It fetches the set when it has none, when it is older
// than MaxKeyAge, or when no key matches and the last fetch was at least
// MinKeyRefresh ago.
func (k *keySet) lookup(ctx context.Context, kid, alg string) ([]jose.JSONWebKey, error) {
	k.mu.Lock()
	stale := k.fetched.IsZero() || k.now().Sub(k.fetched) > MaxKeyAge
	keys := k.keys
	k.mu.Unlock()
	if !stale {
		if found := match(keys, kid, alg); len(found) > 0 {
			return found, nil
		}
	}
	keys, err := k.refresh(ctx, stale)
	if found := match(keys, kid, alg); len(found) > 0 {
		return found, nil
	}
	if err != nil {
		return nil, err
	}
	return nil, refused(ReasonUnknownKey)
}

// refresh fetches the set, or waits for the fetch in progress, unless the
// last one started less than MinKeyRefresh ago (and force is false). It
// returns the keys it has then: on a failed fetch, the ones it had.
func (k *keySet) refresh(ctx context.Context, force bool) ([]jose.JSONWebKey, error) {
	k.mu.Lock()
	if k.flight == nil && (force && k.now().Sub(k.tried) >= time.Second || k.now().Sub(k.tried) >= MinKeyRefresh) {
		k.flight = make(chan struct{})
		k.tried = k.now()
		go k.fetch(k.flight)
	}
	flight := k.flight
	k.mu.Unlock()
	if flight != nil {
		select {
		case <-flight:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.keys == nil && k.err != nil {
		return nil, unavailable("fetch the key set", k.err)
	}
	return k.keys, nil
}

// fetch fetches the set and closes done. It runs on its own: a caller
// that goes away does not cancel it for the others.
func (k *keySet) fetch(done chan struct{}) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	keys, err := k.get(ctx)
	k.mu.Lock()
	k.err = err
	if err == nil {
		k.keys, k.fetched = keys, k.now()
	}
	k.flight = nil
	k.mu.Unlock()
	close(done)
}

// get fetches and decodes the key set document.
func (k *keySet) get(ctx context.Context) ([]jose.JSONWebKey, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, k.url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := k.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s answered %s", k.url, resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxKeySetBytes+1))
	if err != nil {
		return nil, err
	}
	if len(body) > maxKeySetBytes {
		return nil, fmt.Errorf("the key set at %s is over %d bytes", k.url, maxKeySetBytes)
	}
	var set jose.JSONWebKeySet
	if err := json.Unmarshal(body, &set); err != nil {
		return nil, fmt.Errorf("the key set at %s is not a JWK set: %w", k.url, err)
	}
	keys := make([]jose.JSONWebKey, 0, len(set.Keys))
	for _, key := range set.Keys {
		if (key.Use == "" || key.Use == "sig") && key.IsPublic() && key.Valid() {
			keys = append(keys, key)
		}
	}
	return keys, nil
}

// match returns the keys of keys that may verify a token with the given
// key id and algorithm.
func match(keys []jose.JSONWebKey, kid, alg string) []jose.JSONWebKey {
	var out []jose.JSONWebKey
	for _, key := range keys {
		if kid != "" && key.KeyID != kid {
			continue
		}
		if key.Algorithm != "" && key.Algorithm != alg {
			continue
		}
		out = append(out, key)
	}
	return out
}
