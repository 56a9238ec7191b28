package kvredis_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/flowserve/flowserve/internal/kv/kvredis"
	"github.com/flowserve/flowserve/replies/redis/redistest"
)

var (
	errClosed   = errors.New("test store is closed")
	errNotFound = errors.New("no such record")
)

var spec = kvredis.Spec{Name: "redis test store", Closed: errClosed, Pass: []error{errNotFound}}

func init() { redistest.Quiet() }

// TestDial checks the URLs Dial refuses, with the store's name, and that
// it does not reach the server.
func TestDial(t *testing.T) {
	tests := []struct {
		url  string
		want string // "" when Dial succeeds
	}{
		{"redis://127.0.0.1:1/0", ""}, // nothing listens: Dial does not connect
		{"unix:///nowhere/redis.sock?db=2", ""},
		{"http://127.0.0.1:6379", "redis test store: redis: invalid URL scheme: http"},
		{"redis://127.0.0.1:6379/notanumber", "redis test store: redis: invalid database number"},
		{"redis://127.0.0.1:6379/0?no_such_option=1", "redis test store: redis: unexpected option: no_such_option"},
		{"", "redis test store: redis: invalid URL scheme"},
	}
	for _, tc := range tests {
		t.Run(tc.url, func(t *testing.T) {
			c, err := kvredis.Dial(tc.url, spec)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("Dial = %v", err)
				}
				if err := c.Close(nil); err != nil {
					t.Fatalf("Close: %v", err)
				}
				return
			}
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Fatalf("Dial = %v, want an error starting %q", err, tc.want)
			}
		})
	}
}

type store struct{ c *kvredis.Conn }

// TestOpen checks that Open hands the store the connection, and closes
// the client when the store cannot be made.
func TestOpen(t *testing.T) {
	srv := redistest.Start(t)
	ctx := context.Background()
	s, err := kvredis.Open(srv.URL, spec, func(c *kvredis.Conn) (*store, error) { return &store{c}, nil })
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	if err := s.c.Client.Ping(ctx).Err(); err != nil {
		t.Fatalf("Ping through the store's client: %v", err)
	}
	if err := s.c.Close(nil); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := s.c.Client.Ping(ctx).Err(); !errors.Is(err, goredis.ErrClosed) {
		t.Errorf("Ping after Close = %v, want the client closed", err)
	}

	var made *kvredis.Conn
	boom := errors.New("boom")
	_, err = kvredis.Open(srv.URL, spec, func(c *kvredis.Conn) (*store, error) { made = c; return nil, boom })
	if err != boom {
		t.Fatalf("Open with a failing build = %v, want its error", err)
	}
	if err := made.Client.Ping(ctx).Err(); !errors.Is(err, goredis.ErrClosed) {
		t.Errorf("the client of a store that was not made: Ping = %v, want it closed", err)
	}
	if _, err := kvredis.Open("http://x", spec, func(*kvredis.Conn) (*store, error) {
		t.Error("build called on a URL Dial refused")
		return nil, nil
	}); err == nil {
		t.Error("Open of an http URL succeeded")
	}
}

// TestCloseLeavesClient checks that Close closes only a client Dial made,
// runs stop once, and that CloseClient does not mark the connection
// closed.
func TestCloseLeavesClient(t *testing.T) {
	srv := redistest.Start(t)
	ctx := context.Background()
	raw := srv.Client(t)
	c := kvredis.New(raw, spec)
	stops := 0
	for range 2 {
		if err := c.Close(func() { stops++ }); err != nil {
			t.Fatalf("Close: %v", err)
		}
	}
	if stops != 1 {
		t.Errorf("stop ran %d times, want once", stops)
	}
	if err := raw.Ping(ctx).Err(); err != nil {
		t.Fatalf("the caller's client was closed: %v", err)
	}

	d, err := kvredis.Dial(srv.URL, spec)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.CloseClient(); err != nil {
		t.Fatalf("CloseClient: %v", err)
	}
	if d.Closed() {
		t.Error("CloseClient marked the connection closed")
	}
	if err := d.CloseClient(); err == nil || err.Error() != "redis test store: close: redis: client is closed" {
		t.Errorf("second CloseClient = %v, want the client's error, named", err)
	}
}

func TestFail(t *testing.T) {
	c := kvredis.New(goredis.NewClient(&goredis.Options{Addr: "127.0.0.1:1"}), spec)
	defer c.Client.Close()
	ctx := context.Background()
	ended, cancel := context.WithCancel(ctx)
	cancel()
	other := errors.New("connection refused")
	wrapped := fmt.Errorf("get x: %w", errNotFound)
	tests := []struct {
		name string
		ctx  context.Context
		in   error
		want string // the error's text
		is   error
	}{
		{"another error", ctx, other, "redis test store: get x: connection refused", other},
		{"a store error", ctx, errNotFound, "no such record", errNotFound},
		{"a store error, wrapped", ctx, wrapped, "get x: no such record", errNotFound},
		{"the context ended", ended, other, "context canceled", context.Canceled},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := c.Fail(tc.ctx, "get x", tc.in)
			if got == nil || got.Error() != tc.want || !errors.Is(got, tc.is) {
				t.Fatalf("Fail = %v, want %q", got, tc.want)
			}
		})
	}
	if err := c.Wrap("set y", other); err.Error() != "redis test store: set y: connection refused" || !errors.Is(err, other) {
		t.Errorf("Wrap = %v", err)
	}
	c.Close(nil)
	if got := c.Fail(ctx, "get x", other); got != errClosed {
		t.Errorf("Fail once closed = %v, want errClosed", got)
	}
}

// TestWhileOpen checks that fn runs while the connection is open and not
// once Close began, and that Close waits for a fn running.
func TestWhileOpen(t *testing.T) {
	c := kvredis.New(goredis.NewClient(&goredis.Options{Addr: "127.0.0.1:1"}), spec)
	defer c.Client.Close()
	var wg sync.WaitGroup
	if !c.WhileOpen(func() { wg.Add(1) }) {
		t.Fatal("WhileOpen on an open connection did not run fn")
	}
	released := make(chan struct{})
	go func() {
		time.Sleep(50 * time.Millisecond)
		close(released)
		wg.Done()
	}()
	c.Close(func() { wg.Wait() })
	select {
	case <-released:
	default:
		t.Fatal("Close returned before the work WhileOpen started ended")
	}
	if c.WhileOpen(func() { t.Error("fn ran after Close") }) {
		t.Error("WhileOpen after Close reported that it ran fn")
	}
}

func TestCeilMilli(t *testing.T) {
	base := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	ms := base.UnixMilli()
	tests := []struct {
		at   time.Time
		want int64
	}{
		{base, ms},
		{base.Add(time.Nanosecond), ms + 1},
		{base.Add(999 * time.Microsecond), ms + 1},
		{base.Add(time.Millisecond), ms + 1},
		{base.Add(time.Millisecond + 1), ms + 2},
		{time.Unix(0, 0), 0},
		{time.Unix(0, -1), 0},
		{time.Unix(0, -int64(time.Millisecond)), -1},
	}
	for _, tc := range tests {
		if got := kvredis.CeilMilli(tc.at); got != tc.want {
			t.Errorf("CeilMilli(%v) = %d, want %d", tc.at, got, tc.want)
		}
	}
}

func TestPX(t *testing.T) {
	tests := []struct{ d, want time.Duration }{
		{time.Nanosecond, time.Millisecond},
		{time.Millisecond, time.Millisecond},
		{time.Millisecond + 1, 2 * time.Millisecond},
		{1500*time.Millisecond + 300*time.Microsecond, 1501 * time.Millisecond},
		{time.Hour, time.Hour},
	}
	for _, tc := range tests {
		if got := kvredis.PX(tc.d); got != tc.want {
			t.Errorf("PX(%v) = %v, want %v", tc.d, got, tc.want)
		}
	}
}
