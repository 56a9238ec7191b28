package dispatch

import (
	"context"
	"errors"
	"time"

	"github.com/flowserve/flowserve/tasks"
)

// Redispatch hands task id to a worker again after a pause, until the
// store takes the dispatch or claiming stops. token, when not "", is the
// token of the claim of the worker that gives the task up: the task's
// owner is cleared first, so that the next claim (an ordinary one) may
// take it.
func (w *Workers) Redispatch(id, token string) {
	go func() {
		for wait := time.Second; ; wait = min(2*wait, time.Minute) {
			select {
			case <-w.claims.Done():
				return
			case <-time.After(wait):
			}
			if token != "" {
				_, err := w.opts.Store.Update(w.claims, id, func(t *tasks.Task) error {
					if t.Owner == token {
						t.Owner = ""
					}
					return nil
				})
				if err != nil && !errors.Is(err, tasks.ErrNotFound) {
					continue
				}
				token = ""
			}
			if err := w.opts.Store.Dispatch(w.claims, id); err == nil {
				return
			}
		}
	}()
}

// Running registers the round of task id that runs in ctx: the context
// it returns ends when the task is cancelled (Stop, or its status read
// as ended: cancelled through another instance, which cannot reach this
// round) or when ctx does. Call done when the round ends.
func (w *Workers) Running(ctx context.Context, id string) (rctx context.Context, done func()) {
	rctx, cancel := context.WithCancel(ctx)
	w.mu.Lock()
	w.running[id] = cancel
	w.mu.Unlock()
	go w.watchCancel(rctx, id, cancel)
	return rctx, func() {
		cancel()
		w.mu.Lock()
		delete(w.running, id)
		w.mu.Unlock()
	}
}

// watchCancel cancels the round of task id when the task has ended or
// is gone: it reads the task's status every Options.Poll (at least every
// second).
func (w *Workers) watchCancel(ctx context.Context, id string, cancel context.CancelFunc) {
	every := time.Second
	if w.opts.Poll > 0 {
		every = min(w.opts.Poll, time.Second)
	}
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		t, err := w.opts.Store.Get(ctx, id)
		if errors.Is(err, tasks.ErrNotFound) || (err == nil && t.Status.Terminal()) {
			cancel()
			return
		}
	}
}

// Stop cancels the round of task id if it runs here.
func (w *Workers) Stop(id string) {
	w.mu.Lock()
	cancel := w.running[id]
	w.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}
