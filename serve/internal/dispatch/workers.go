// Package dispatch runs the rounds of a run store's tasks: claimers take
// claims from the store (tasks.Store.Claim), a fair pool shares the
// workers among the callers whose claims wait (Pool), and each claim's
// round runs on a goroutine of its own, through the function the server
// gives (Options.Run). It also hands claims no round ran back to the
// store when the workers stop, dispatches a task again after a failure,
// and stops a task's round when the task is cancelled, here or on
// another instance. It knows tasks only as the store has them: what a
// round does is the server's.
package dispatch

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/flowserve/flowserve/tasks"
)

// Options configure Workers.
type Options struct {
	// Store is the run store the tasks are claimed from.
	Store tasks.Store
	// Workers is how many rounds run at once.
	Workers int
	// Poll is how often a running round's task is read to find out it was
	// cancelled on another instance (at least every second).
	Poll time.Duration
	// Log receives the workers' warnings; nil means slog.Default().
	Log *slog.Logger
	// Run runs the round of claim c, and releases c or leaves it for a
	// takeover. ctx ends when Close stops the rounds.
	Run func(ctx context.Context, c *tasks.Claim)
}

// Workers claim tasks from a run store and run their rounds, at most
// Options.Workers at once, shared fairly across callers (Pool).
type Workers struct {
	opts Options
	// claims ends the claiming (StopClaims); rounds ends the rounds
	// running (Close): their tasks are taken over later, by this store
	// opened again or by another instance.
	claims, rounds         context.Context
	stopClaims, stopRounds context.CancelFunc
	wg                     sync.WaitGroup
	fair                   *Pool

	mu      sync.Mutex
	running map[string]context.CancelFunc // task id → cancel of its round here
}

// New returns the workers of a run store; Start starts them.
func New(opts Options) *Workers {
	if opts.Log == nil {
		opts.Log = slog.Default()
	}
	w := &Workers{opts: opts, fair: NewPool(opts.Workers), running: map[string]context.CancelFunc{}}
	w.claims, w.stopClaims = context.WithCancel(context.Background())
	w.rounds, w.stopRounds = context.WithCancel(context.Background())
	return w
}

// Start starts the claimers; they start the rounds.
func (w *Workers) Start() {
	for range claimers(w.opts.Workers) {
		w.wg.Add(1)
		go w.claimTasks()
	}
}

// Claiming is a context that ends when claiming stops (StopClaims,
// Close): for the server's background work around its tasks.
func (w *Workers) Claiming() context.Context { return w.claims }

// StopClaims stops claiming tasks; the rounds running go on.
func (w *Workers) StopClaims() { w.stopClaims() }

// Close stops the workers: no task is claimed any more, and the rounds
// running are let finish until ctx ends; those still running then are
// stopped (their context ends), so that their tasks are taken over. The
// claims waiting for a round are handed back to the store at once.
func (w *Workers) Close(ctx context.Context) error {
	w.stopClaims()
	w.handBack(w.fair.Stop())
	done := make(chan struct{})
	go func() { w.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
	}
	w.stopRounds()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		return fmt.Errorf("task rounds still running after they were stopped: %w", ctx.Err())
	}
	return fmt.Errorf("task rounds stopped before they finished (their tasks are taken over later): %w", ctx.Err())
}

// claimers is how many goroutines take claims from the store: a claim is
// quick to take, and a few keep a store's round trips from holding the
// others up.
func claimers(workers int) int { return min(workers, 4) }

// claimTasks takes claims from the run store until claiming stops, and
// puts each in the pool under its task's caller.
func (w *Workers) claimTasks() {
	defer w.wg.Done()
	for {
		c, err := w.opts.Store.Claim(w.claims)
		if err != nil {
			if w.claims.Err() != nil || errors.Is(err, tasks.ErrClosed) {
				return
			}
			w.opts.Log.Warn("cannot claim a task from the run store; retrying", "err", err)
			select {
			case <-w.claims.Done():
				return
			case <-time.After(time.Second):
			}
			continue
		}
		caller, ok := w.claimCaller(c)
		if !ok {
			continue
		}
		if w.claims.Err() != nil || !w.fair.Add(caller, c) {
			w.handBack([]*tasks.Claim{c})
			return
		}
		w.startRounds()
	}
}

// unknownCaller is the caller of a claim whose task could not be read:
// its round tells what the store says then.
const unknownCaller = "\x00unknown"

// claimCaller returns the caller claim c is to wait under: its task's
// principal. A task that is gone has nothing to run: its claim is
// released, and false returned.
func (w *Workers) claimCaller(c *tasks.Claim) (string, bool) {
	t, err := w.opts.Store.Get(w.claims, c.ID)
	switch {
	case errors.Is(err, tasks.ErrNotFound):
		c.Release()
		return "", false
	case err != nil:
		return unknownCaller, true
	}
	return t.Principal, true
}

// startRounds starts the rounds the pool lets start now, each on a
// goroutine of its own that starts the next ones when it ends.
func (w *Workers) startRounds() {
	for {
		caller, c, ok := w.fair.Next()
		if !ok {
			return
		}
		w.wg.Add(1)
		go func() {
			defer w.wg.Done()
			w.opts.Run(w.rounds, c)
			w.fair.Done(caller)
			w.startRounds()
		}()
	}
}

// handBack dispatches the tasks of claims that no round ran again, then
// releases the claims, so that a store opened again or another instance
// runs them as ordinary dispatches; a claim whose task cannot be
// dispatched stays claimed, to be taken over.
func (w *Workers) handBack(claims []*tasks.Claim) {
	if len(claims) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, c := range claims {
		if err := w.opts.Store.Dispatch(ctx, c.ID); err != nil {
			w.opts.Log.Warn("cannot hand a waiting task back to the run store; it is taken over later", "task", c.ID, "err", err)
			continue
		}
		c.Release()
	}
}
