// Package kvredis is the Redis plumbing of flowserve's stores (see
// package kv): a store's client, made from a URL (and closed with the
// store) or given by the caller (and left open), the store's closed
// state and errors, and the millisecond rounding of Redis expiries.
package kvredis

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	goredis "github.com/redis/go-redis/v9"
)

// SetupTimeout bounds what a store does on the server as it is made (a
// PING, making a stream's consumer group).
const SetupTimeout = 10 * time.Second

// Spec says what a store on Redis is, for its errors.
type Spec struct {
	// Name starts the store's errors: "redis task store" in "redis task
	// store: get ID: ...".
	Name string
	// Closed is what Fail returns once Close was called: the store's
	// ErrClosed.
	Closed error
	// Pass are the store's own errors (ErrNotFound, ErrCorrupt, …),
	// which Fail returns as they are.
	Pass []error
}

// Conn is a store's connection to Redis. It is safe for concurrent use.
type Conn struct {
	// Client is the store's client.
	Client goredis.UniversalClient

	spec   Spec
	owned  bool // Close closes Client
	mu     sync.Mutex
	closed bool
}

// New returns a connection through client, which Close leaves open.
func New(client goredis.UniversalClient, spec Spec) *Conn {
	return &Conn{Client: client, spec: spec}
}

// Dial returns a connection on a client of its own, which Close closes,
// to the server a URL names: redis://[[user]:password@]host[:port][/db][?options],
// rediss:// for TLS, or unix:///path/to/socket[?db=N]; the options are
// go-redis's (dial_timeout, read_timeout, pool_size, …). It does not
// reach the server; it fails on a URL it cannot read ("redis task store:
// redis: invalid URL scheme: http").
func Dial(url string, spec Spec) (*Conn, error) {
	o, err := goredis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", spec.Name, err)
	}
	return &Conn{Client: goredis.NewClient(o), spec: spec, owned: true}, nil
}

// Open dials the server url names (Dial) and makes a store on the
// connection with build; when build fails, it closes the client and
// returns build's error.
func Open[S any](url string, spec Spec, build func(*Conn) (S, error)) (S, error) {
	var zero S
	c, err := Dial(url, spec)
	if err != nil {
		return zero, err
	}
	s, err := build(c)
	if err != nil {
		c.Client.Close()
		return zero, err
	}
	return s, nil
}

// Closed reports whether Close was called.
func (c *Conn) Closed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closed
}

// WhileOpen runs fn unless Close was called, and reports whether it ran
// it. A Close waits for fn to return, so what fn starts (a goroutine a
// store's Close waits for) is started before Close marks the connection
// closed, or not at all.
func (c *Conn) WhileOpen(fn func()) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return false
	}
	fn()
	return true
}

// Wrap returns err saying what failed: "redis task store: get ID: ...".
func (c *Conn) Wrap(what string, err error) error {
	return fmt.Errorf("%s: %s: %w", c.spec.Name, what, err)
}

// Fail returns err, the error of what, as the store's error: Spec.Closed
// once Close was called, ctx's error as it is, the errors of Spec.Pass as
// they are, and others wrapped (Wrap).
func (c *Conn) Fail(ctx context.Context, what string, err error) error {
	switch {
	case c.Closed():
		return c.spec.Closed
	case ctx.Err() != nil:
		return ctx.Err()
	}
	for _, pass := range c.spec.Pass {
		if errors.Is(err, pass) {
			return err
		}
	}
	return c.Wrap(what, err)
}

// Close marks the connection closed, runs stop (nil: nothing), which
// stops what the store runs in the background, and closes the client if
// Dial made it. Calling it again does nothing.
func (c *Conn) Close(stop func()) error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	c.mu.Unlock()
	if stop != nil {
		stop()
	}
	return c.CloseClient()
}

// CloseClient closes the client if Dial made it, without marking the
// connection closed; it does nothing for a client given to New.
func (c *Conn) CloseClient() error {
	if !c.owned {
		return nil
	}
	if err := c.Client.Close(); err != nil {
		return c.Wrap("close", err)
	}
	return nil
}

// CeilMilli returns t in unix milliseconds, rounded up: what a store
// gives Redis as an instant (a score, PEXPIREAT) that must not come
// before t.
func CeilMilli(t time.Time) int64 {
	ms := t.UnixMilli() // rounded down
	if t.After(time.UnixMilli(ms)) {
		ms++
	}
	return ms
}

// PX returns d rounded up to the millisecond: what a store gives Redis as
// an expiry (SET's PX) that must not end before d has passed.
func PX(d time.Duration) time.Duration {
	return (d + time.Millisecond - 1).Truncate(time.Millisecond)
}
