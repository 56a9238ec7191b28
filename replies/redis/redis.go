// Package redis implements flow.ReplyStore on Redis, so that several
// flowserve instances behind a load balancer share the final results of
// runs: a client that lost the reply to a final round and sends it again,
// to any instance, gets the same result without the run's last steps
// running again (DESIGN §4).
//
// Each reply is one Redis string under "<prefix><64 hex digits of the
// key>", set with a PX expiry equal to the remaining lifetime of the
// request state it answers, so Redis drops it when the state could no
// longer be sent anyway. Use a Redis whose eviction policy is noeviction
// or volatile-*: an evicted reply makes a retried final round run its
// last steps again.
package redis

import (
	"context"
	"encoding/hex"
	"errors"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/flowserve/flowserve/internal/kv/kvredis"
)

// DefaultPrefix starts the keys of a Store that Open returns.
const DefaultPrefix = "flowserve:reply:"

// Store is a reply store on a Redis server or cluster. It is safe for
// concurrent use.
type Store struct {
	r      *kvredis.Conn
	prefix string
}

// spec names the store in its errors.
var spec = kvredis.Spec{Name: "redis reply store"}

// New returns a store that keeps replies through client, under keys that
// start with prefix (which may be empty). Close does not close a client
// passed to New.
func New(client goredis.UniversalClient, prefix string) *Store {
	return &Store{r: kvredis.New(client, spec), prefix: prefix}
}

// Open returns a store on the server a URL names, with DefaultPrefix:
// redis://[[user]:password@]host[:port][/db][?options],
// rediss:// for TLS, or unix:///path/to/socket[?db=N]; the options are
// go-redis's (dial_timeout, read_timeout, pool_size, …). Open does not
// connect; use Ping to check the server is there. Close the store when
// done with it.
func Open(url string) (*Store, error) {
	r, err := kvredis.Dial(url, spec)
	if err != nil {
		return nil, err
	}
	return &Store{r: r, prefix: DefaultPrefix}, nil
}

// Key returns the Redis key a reply key is stored under.
func (s *Store) Key(key [32]byte) string {
	return s.prefix + hex.EncodeToString(key[:])
}

// Get returns the reply stored under key, if Redis still holds it.
func (s *Store) Get(ctx context.Context, key [32]byte) ([]byte, bool, error) {
	b, err := s.r.Client.Get(ctx, s.Key(key)).Bytes()
	switch {
	case errors.Is(err, goredis.Nil):
		return nil, false, nil
	case err != nil:
		return nil, false, s.r.Wrap("get", err)
	}
	return b, true, nil
}

// Put stores value under key for ttl, rounded up to the millisecond. A
// ttl of zero or less stores nothing.
func (s *Store) Put(ctx context.Context, key [32]byte, value []byte, ttl time.Duration) error {
	if ttl <= 0 {
		return nil
	}
	ms := kvredis.PX(ttl).Milliseconds()
	if err := s.r.Client.Do(ctx, "set", s.Key(key), value, "px", ms).Err(); err != nil {
		return s.r.Wrap("set", err)
	}
	return nil
}

// Ping checks that the server answers.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.r.Client.Ping(ctx).Err(); err != nil {
		return s.r.Wrap("ping", err)
	}
	return nil
}

// Close closes the client Open made; it does nothing for a store made
// with New.
func (s *Store) Close() error { return s.r.CloseClient() }
