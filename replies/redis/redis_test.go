package redis_test

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	goredis "github.com/redis/go-redis/v9"

	"github.com/flowserve/flowserve/actions"
	"github.com/flowserve/flowserve/dsl"
	"github.com/flowserve/flowserve/flow"
	"github.com/flowserve/flowserve/flow/state"
	"github.com/flowserve/flowserve/replies/redis"
	"github.com/flowserve/flowserve/replies/redis/redistest"
)

var _ flow.ReplyStore = (*redis.Store)(nil)

func init() { redistest.Quiet() }

// deadAddr returns a loopback address nothing listens on.
func deadAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// TestKeysAndExpiry checks what the store writes: "<prefix><hex of the
// key>", the value as given, and a PX expiry of the ttl.
func TestKeysAndExpiry(t *testing.T) {
	srv := redistest.Start(t)
	raw := srv.Client(t)
	ctx := context.Background()
	var key [32]byte
	for i := range key {
		key[i] = byte(0xa0 + i)
	}
	const hexKey = "a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf"
	cases := []struct {
		name   string
		prefix string
		ttl    time.Duration
		minTTL time.Duration // the PTTL Redis reports is within [minTTL, ttl]
	}{
		{"default prefix, an hour", redis.DefaultPrefix, time.Hour, time.Hour - 5*time.Second},
		{"other prefix, milliseconds", "app1:", 1500*time.Millisecond + 300*time.Microsecond, time.Second},
		{"empty prefix", "", 59*time.Minute + 59*time.Second + 999*time.Millisecond, 59 * time.Minute},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := redis.New(raw, tc.prefix)
			want := tc.prefix + hexKey
			if got := s.Key(key); got != want {
				t.Fatalf("Key = %q, want %q", got, want)
			}
			if err := s.Put(ctx, key, []byte("reply"), tc.ttl); err != nil {
				t.Fatal(err)
			}
			v, err := raw.Get(ctx, want).Result()
			if err != nil || v != "reply" {
				t.Fatalf("GET %s = %q, %v", want, v, err)
			}
			pttl, err := raw.PTTL(ctx, want).Result()
			if err != nil {
				t.Fatal(err)
			}
			if pttl < tc.minTTL || pttl > tc.ttl.Round(time.Millisecond)+time.Millisecond {
				t.Fatalf("PTTL %s = %s, want within [%s, %s]", want, pttl, tc.minTTL, tc.ttl)
			}
			if err := raw.Del(ctx, want).Err(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestPrefixesSeparate checks that stores with different prefixes on one
// server do not see each other's replies.
func TestPrefixesSeparate(t *testing.T) {
	srv := redistest.Start(t)
	raw := srv.Client(t)
	ctx := context.Background()
	a, b := redis.New(raw, "a:"), redis.New(raw, "b:")
	key := [32]byte{7}
	if err := a.Put(ctx, key, []byte("from a"), time.Minute); err != nil {
		t.Fatal(err)
	}
	if v, ok, err := b.Get(ctx, key); err != nil || ok {
		t.Fatalf("b sees a's reply: %q, %v, %v", v, ok, err)
	}
	if v, ok, err := a.Get(ctx, key); err != nil || !ok || string(v) != "from a" {
		t.Fatalf("a: %q, %v, %v", v, ok, err)
	}
}

// TestOpen checks the URLs Open takes and the errors it gives.
func TestOpen(t *testing.T) {
	srv := redistest.Start(t)
	cases := []struct {
		url     string
		wantErr string // "" for success
		ping    bool   // Ping must succeed
	}{
		{url: srv.URL, ping: true},
		{url: "redis://" + srv.Addr, ping: true},
		{url: "redis://" + srv.Addr + "/3?dial_timeout=2s&pool_size=4", ping: true},
		{url: "redis://nobody:secret@" + srv.Addr + "/0"}, // no such user: Ping fails, Open does not
		{url: "http://" + srv.Addr, wantErr: "redis reply store: redis: invalid URL scheme: http"},
		{url: "redis://" + srv.Addr + "/notanumber", wantErr: "redis reply store: redis: invalid database number"},
		{url: "redis://" + srv.Addr + "/0?no_such_option=1", wantErr: "redis reply store: redis: unexpected option: no_such_option"},
		{url: "", wantErr: "redis reply store: redis: invalid URL scheme"},
	}
	for _, tc := range cases {
		t.Run(tc.url, func(t *testing.T) {
			s, err := redis.Open(tc.url)
			if tc.wantErr != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tc.wantErr) {
					t.Fatalf("Open(%q) = %v, want an error starting %q", tc.url, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Open(%q): %v", tc.url, err)
			}
			defer s.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			if err := s.Ping(ctx); (err == nil) != tc.ping {
				t.Fatalf("Ping = %v, want success %v", err, tc.ping)
			}
			if !tc.ping {
				return
			}
			if err := s.Put(ctx, [32]byte{1}, []byte("v"), time.Minute); err != nil {
				t.Fatal(err)
			}
			if v, ok, err := s.Get(ctx, [32]byte{1}); err != nil || !ok || string(v) != "v" {
				t.Fatalf("Get = %q, %v, %v", v, ok, err)
			}
		})
	}
}

// TestCloseLeavesClient checks that Close closes only a client Open made.
func TestCloseLeavesClient(t *testing.T) {
	srv := redistest.Start(t)
	raw := srv.Client(t)
	ctx := context.Background()
	if err := redis.New(raw, "x:").Close(); err != nil {
		t.Fatal(err)
	}
	if err := raw.Ping(ctx).Err(); err != nil {
		t.Fatalf("the caller's client was closed: %v", err)
	}
	s, err := redis.Open(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Get(ctx, [32]byte{}); err == nil || !strings.Contains(err.Error(), "redis reply store: get: redis: client is closed") {
		t.Fatalf("Get after Close = %v", err)
	}
}

// TestDeadServer checks the errors of a store whose server is gone: each
// call fails quickly with an error that says which operation failed.
func TestDeadServer(t *testing.T) {
	s := redis.New(goredis.NewClient(&goredis.Options{Addr: deadAddr(t), MaxRetries: -1, DialerRetries: 1, DialTimeout: time.Second}), "")
	ctx := context.Background()
	cases := []struct {
		name string
		call func() error
		want string
	}{
		{"get", func() error { _, _, err := s.Get(ctx, [32]byte{1}); return err }, "redis reply store: get: "},
		{"put", func() error { return s.Put(ctx, [32]byte{1}, []byte("v"), time.Minute) }, "redis reply store: set: "},
		{"ping", func() error { return s.Ping(ctx) }, "redis reply store: ping: "},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call()
			var op *net.OpError
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) || !errors.As(err, &op) {
				t.Fatalf("%s on a dead server = %v, want a *net.OpError wrapped as %q…", tc.name, err, tc.want)
			}
		})
	}
}

// The engine tests run this flow: one question, then a step that counts
// its calls per run (the side effect a lost reply must not repeat), then
// the result.
const chargeFlow = `
name: charge
description: Charges after a confirmation.
nodes:
  - id: ok
    ask: "Charge?"
    form: {yes: {type: boolean}}
    required: [yes]
  - id: charge
    step: test.charge
  - return: "charged {{ charge.n }} time(s), answer {{ ok.content.yes }}"
`

// effects counts test.charge calls by run id.
type effects struct {
	mu sync.Mutex
	n  map[string]int
}

func (e *effects) registry(t *testing.T) *actions.Registry {
	t.Helper()
	reg := actions.NewRegistry()
	err := reg.Register(actions.Spec{
		Name: "test.charge", Summary: "counts its calls per run",
		Input:  map[string]any{"type": "object"},
		Output: map[string]any{"type": "object", "properties": map[string]any{"n": map[string]any{"type": "integer"}}},
		Func: func(ctx context.Context, _ map[string]any) (any, error) {
			call, _ := actions.CallFrom(ctx)
			e.mu.Lock()
			defer e.mu.Unlock()
			if e.n == nil {
				e.n = map[string]int{}
			}
			e.n[call.RunID]++
			return map[string]any{"n": e.n[call.RunID]}, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

func (e *effects) total() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	n := 0
	for _, c := range e.n {
		n += c
	}
	return n
}

// testCodec returns a codec on a fixed key, so that programs compiled
// apart (as on two instances) open each other's states.
func testCodec(t *testing.T) *state.Codec {
	t.Helper()
	key := state.Key{ID: "k1"}
	for i := range key.Secret {
		key.Secret[i] = byte(i + 1)
	}
	ring, err := state.NewKeyRing(key)
	if err != nil {
		t.Fatal(err)
	}
	return state.NewCodec(ring, state.Options{})
}

// instance is the charge flow compiled and running on an engine of its
// own, as on one server instance.
type instance struct {
	p *flow.Program
	e *flow.Engine
}

// Run runs one round on the instance.
func (in *instance) Run(ctx context.Context, req *flow.Request) (*flow.Result, error) {
	return in.e.Run(ctx, in.p, req)
}

// compileCharge compiles the charge flow with reg and makes it an
// instance whose engine seals with codec and keeps replies in store.
func compileCharge(t *testing.T, reg *actions.Registry, codec *state.Codec, store flow.ReplyStore) *instance {
	t.Helper()
	f, diags := dsl.Parse("charge.yaml", []byte(chargeFlow))
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	p, diags := flow.Compile(f, flow.Env{Actions: reg})
	if err := diags.Err(); err != nil {
		t.Fatal(err)
	}
	e, err := flow.NewEngine(flow.EngineOptions{Codec: codec, Replies: store})
	if err != nil {
		t.Fatal(err)
	}
	return &instance{p: p, e: e}
}

var formClient = flow.Client{Form: true}

// finalRound runs the first round of p and returns the request of the
// final round.
func finalRound(t *testing.T, p *instance) *flow.Request {
	t.Helper()
	first, err := p.Run(context.Background(), &flow.Request{Client: formClient})
	if err != nil || first.Input == nil {
		t.Fatalf("first round: %+v, %v", first, err)
	}
	return &flow.Request{
		State:     first.Input.State,
		Client:    formClient,
		Responses: map[string]json.RawMessage{"ok": json.RawMessage(`{"action":"accept","content":{"yes":true}}`)},
	}
}

func resultText(r *flow.Result) string {
	if r == nil || r.Complete == nil || len(r.Complete.Content) == 0 {
		return ""
	}
	if text, ok := r.Complete.Content[0].(*mcp.TextContent); ok {
		return text.Text
	}
	return ""
}

// TestEngineSharesReplies runs a final round on one instance and retries
// it on another, compiled apart with engines of their own that share the
// codec's key and the Redis store, as two servers do: the retry gets the stored reply and the step
// does not run again. The stored reply expires with the state.
func TestEngineSharesReplies(t *testing.T) {
	srv := redistest.Start(t)
	raw := srv.Client(t)
	eff := &effects{}
	store := redis.New(raw, "engine:")
	reg, codec := eff.registry(t), testCodec(t)
	a, b := compileCharge(t, reg, codec, store), compileCharge(t, reg, codec, store)
	ctx := context.Background()

	final := finalRound(t, a)
	first, err := a.Run(ctx, final)
	if err != nil || first.Replayed || first.StoreErr != nil {
		t.Fatalf("final round: %+v, %v", first, err)
	}
	for i, p := range []*instance{b, a, b} {
		again, err := p.Run(ctx, final)
		if err != nil {
			t.Fatalf("retry %d: %v", i+1, err)
		}
		if !again.Replayed || resultText(again) != resultText(first) || again.Round != first.Round {
			t.Fatalf("retry %d: %q (replayed %v, round %d), want %q from the store", i+1, resultText(again), again.Replayed, again.Round, resultText(first))
		}
	}
	if n := eff.total(); n != 1 {
		t.Fatalf("the step ran %d times, want 1", n)
	}
	keys, err := raw.Keys(ctx, "engine:*").Result()
	if err != nil || len(keys) != 1 {
		t.Fatalf("keys: %v, %v; want one reply", keys, err)
	}
	pttl, err := raw.PTTL(ctx, keys[0]).Result()
	if err != nil || pttl <= state.DefaultTTL-time.Minute || pttl > state.DefaultTTL {
		t.Fatalf("the reply expires in %s (%v), want the state's remaining lifetime (about %s)", pttl, err, state.DefaultTTL)
	}
}

// TestEngineStoreFailures checks what the engine does when the store
// fails. A store that cannot write (here a Redis user allowed GET but not
// SET) does not fail the call: the result comes back with StoreErr set,
// and a retry runs the step again, since nothing was kept. A store that
// cannot be read (a dead server) does not stop the run either: the round
// runs as without a store (a retried final round runs its steps again)
// and StoreErr says why, so a Redis outage degrades to at-least-once
// instead of taking every multi-round flow down.
func TestEngineStoreFailures(t *testing.T) {
	srv := redistest.Start(t)
	raw := srv.Client(t)
	ctx := context.Background()
	if err := raw.Do(ctx, "acl", "setuser", "reader", "on", ">pw", "~*", "+get", "+ping", "+hello", "+client").Err(); err != nil {
		t.Fatalf("create a read-only Redis user: %v", err)
	}
	reader := goredis.NewClient(&goredis.Options{Addr: srv.Addr, Username: "reader", Password: "pw"})
	t.Cleanup(func() { reader.Close() })
	dead := goredis.NewClient(&goredis.Options{Addr: deadAddr(t), MaxRetries: -1, DialerRetries: 1, DialTimeout: time.Second})
	t.Cleanup(func() { dead.Close() })

	cases := []struct {
		name      string
		client    goredis.UniversalClient
		wantErr   string // the Run error of the final round; "" for a result
		storeErr  string // the StoreErr of the result
		wantCalls int    // the step's calls after the round and one retry
	}{
		{name: "read-only store", client: reader, storeErr: "redis reply store: set: NOPERM", wantCalls: 2},
		{name: "dead store", client: dead, storeErr: "redis reply store: get: ", wantCalls: 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			eff := &effects{}
			p := compileCharge(t, eff.registry(t), testCodec(t), redis.New(tc.client, ""))
			final := finalRound(t, p)
			for i := range 2 {
				res, err := p.Run(ctx, final)
				if tc.wantErr != "" {
					if err == nil || !strings.Contains(err.Error(), tc.wantErr) || flow.IsInvalidParams(err) {
						t.Fatalf("round %d: %+v, %v; want an error containing %q", i+1, res, err, tc.wantErr)
					}
					continue
				}
				if err != nil || res.Replayed || !strings.HasPrefix(resultText(res), "charged") {
					t.Fatalf("round %d: %+v, %v; want the result", i+1, res, err)
				}
				if res.StoreErr == nil || !strings.Contains(res.StoreErr.Error(), tc.storeErr) {
					t.Fatalf("round %d: StoreErr = %v, want %q", i+1, res.StoreErr, tc.storeErr)
				}
			}
			if n := eff.total(); n != tc.wantCalls {
				t.Fatalf("the step ran %d times, want %d", n, tc.wantCalls)
			}
		})
	}
}
