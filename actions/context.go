package actions

import (
	"context"
	"crypto/rand"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"time"
)

// A Call identifies the step an action runs for. The engine puts one in the
// context of every step it runs.
type Call struct {
	RunID    string // the run's id (`run.id` in expressions), stable across rounds
	Node     string // the step node's id
	Position int    // the step's position in the run's journal
	// Task is the id of the MCP task the run goes on as, or "" when it is
	// not one. A task's run keeps its run id, so IdempotencyKey is the
	// same for a step whether a task worker, or one that took the task
	// over, runs it.
	Task string
}

// IdempotencyKey returns "<run id>/<node>/<position>": the same on every
// retry and replay of this step in this run, different for any other step
// (node ids contain no "/"). Pass it to services that deduplicate requests
// (an Idempotency-Key header, a conditional insert).
func (c Call) IdempotencyKey() string {
	return c.RunID + "/" + c.Node + "/" + strconv.Itoa(c.Position)
}

type callKey struct{}

// WithCall returns a context carrying c.
func WithCall(ctx context.Context, c Call) context.Context {
	return context.WithValue(ctx, callKey{}, c)
}

// CallFrom returns the Call in ctx, if the engine put one there.
func CallFrom(ctx context.Context) (Call, bool) {
	c, ok := ctx.Value(callKey{}).(Call)
	return c, ok
}

// A Host is what the server or CLI lends actions: where files live, how to
// reach the network, where to log. Every field is optional; the zero Host
// is valid, and each action says what it does without a field.
//
// A server hands its Host to [Registry.Provision] when it starts, and
// module values keep it ([Provisioner]). A server that does not provision
// its registry puts the Host in each step's context instead ([WithHost]),
// where [HostFrom] finds it; that way is deprecated for actions, which
// should take the Host they were provisioned with.
type Host struct {
	// FSRoot is the directory fs.* actions are confined to. Empty: fs
	// actions refuse to run.
	FSRoot string
	// HTTPClient makes the requests of http.request. Nil: a client on
	// http.DefaultTransport.
	HTTPClient *http.Client
	// Logger receives log.* lines. Nil: slog.Default().
	Logger *slog.Logger
	// Now is the clock of time.now. Nil: time.Now. Tests (and
	// `flowserve test`) pin it.
	Now func() time.Time
	// Rand is the randomness of uuid.new and random.int. Nil:
	// crypto/rand.Reader. Tests pin it.
	Rand io.Reader
	// Reload reloads the served flows and tells clients that the lists
	// changed, returning the names of the tools served after it; the
	// action server.reload calls it. Nil: the host cannot reload (the
	// action fails).
	Reload func(ctx context.Context) ([]string, error)
}

type hostKey struct{}

// WithHost returns a context carrying h.
func WithHost(ctx context.Context, h *Host) context.Context {
	return context.WithValue(ctx, hostKey{}, h)
}

// HostFrom returns the Host in ctx. It is never nil: without one (or with a
// nil one) it returns a new zero Host. Actions on a provisioned registry
// use the Host given to Provision; reading the context's is the deprecated
// fallback for registries nobody provisioned.
func HostFrom(ctx context.Context) *Host {
	if h, ok := ctx.Value(hostKey{}).(*Host); ok && h != nil {
		return h
	}
	return &Host{}
}

// Log returns h.Logger, or slog.Default() when it is nil.
func (h *Host) Log() *slog.Logger {
	if h.Logger != nil {
		return h.Logger
	}
	return slog.Default()
}

// Time returns h.Now(), or time.Now() when Now is nil.
func (h *Host) Time() time.Time {
	if h.Now != nil {
		return h.Now()
	}
	return time.Now()
}

// Entropy returns h.Rand, or crypto/rand.Reader when it is nil.
func (h *Host) Entropy() io.Reader {
	if h.Rand != nil {
		return h.Rand
	}
	return rand.Reader
}
