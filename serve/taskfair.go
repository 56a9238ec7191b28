package serve

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/flowserve/flowserve/tasks"
)

// Fair dispatch across callers. The run store hands out dispatched tasks
// first in, first out: on its own, one caller's backlog (thousands of long
// tasks) would take every worker and sit in front of every other caller's
// task until it drained. So a few claimers take claims from the store as
// they come, whoever's they are, and the claims wait here, by caller, for
// a round to run them:
//
//   - The next round is of the caller running the fewest rounds, and
//     among those, of the one whose turn comes first (each caller goes to
//     the end of the turns when a round of theirs starts), so a caller's
//     backlog delays another's next task by at most one round.
//   - A caller with no round running may use any free worker; callers who
//     run a round already share the rest: together they never hold more
//     than Options.TaskWorkers minus a reserve (one in eight workers, at
//     least one). So a caller's backlog never holds every worker, and
//     another caller's first task starts at once, without waiting for one
//     of its rounds to end (rounds are not cut, and a long step may take
//     hours).
//
// A claim that waits here stays claimed in the store, which is what makes
// it durable: if this process dies, Bolt dispatches it again as a takeover
// when its file is opened next, and another instance takes a Redis claim
// over once its lease has passed, as for a round that was running. When
// the server closes, the claims still waiting are handed back: dispatched
// again, then released, so that the store opened again, or another
// instance, runs them as ordinary dispatches. Nothing here polls: the
// claimers block in the store's Claim, and a round starts when a claim
// arrives or another round ends.
//
// A per-caller cap on running rounds was chosen over round robin inside
// the stores' queues: the stores stay first in, first out (Redis streams
// have no fair order across consumers, and a fair queue in the file or on
// Redis would be a scheduler of its own to keep consistent across
// instances), and only a cap on running rounds keeps a backlog of long
// steps from holding every worker, which no queue order can. What bounds
// the claims waiting here is the per-caller limit of open tasks
// (Options.MaxTasksPerCaller): at most that many per caller.

// fairPool is the claims waiting for a round, by caller, and the rounds
// running.
type fairPool struct {
	mu sync.Mutex
	// workers bounds the rounds running; shared bounds them when the
	// claim to start is of a caller that runs a round already.
	workers, shared int
	running         int
	callers         map[string]*callerClaims
	// turns are the callers with claims waiting, in the order of their
	// turns.
	turns   []string
	stopped bool
}

// callerClaims is one caller's rounds running and claims waiting.
type callerClaims struct {
	running int
	waiting []*tasks.Claim
}

// fairReserve is the share of the workers kept for callers that run no
// round: 1/fairReserve of them, at least one.
const fairReserve = 8

// newFairPool returns a pool of the given number of workers.
func newFairPool(workers int) *fairPool {
	reserve := 0
	if workers > 1 {
		reserve = max(1, workers/fairReserve)
	}
	return &fairPool{workers: workers, shared: workers - reserve, callers: map[string]*callerClaims{}}
}

// add puts claim c of caller in the pool; false when the pool has stopped
// (the claim is the caller's to hand back).
func (f *fairPool) add(caller string, c *tasks.Claim) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.stopped {
		return false
	}
	cc := f.callers[caller]
	if cc == nil {
		cc = &callerClaims{}
		f.callers[caller] = cc
	}
	if len(cc.waiting) == 0 {
		f.turns = append(f.turns, caller)
	}
	cc.waiting = append(cc.waiting, c)
	return true
}

// next takes the claim whose round is to start now, counting the round as
// running, or reports that none may start.
func (f *fairPool) next() (string, *tasks.Claim, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.stopped || f.running >= f.workers || len(f.turns) == 0 {
		return "", nil, false
	}
	// The caller running the fewest rounds, the earliest in turn among
	// those.
	i := 0
	for j, caller := range f.turns[1:] {
		if f.callers[caller].running < f.callers[f.turns[i]].running {
			i = j + 1
		}
	}
	caller := f.turns[i]
	cc := f.callers[caller]
	if cc.running > 0 && f.running >= f.shared {
		return "", nil, false
	}
	c := cc.waiting[0]
	cc.waiting[0] = nil
	cc.waiting = cc.waiting[1:]
	cc.running++
	f.running++
	f.turns = slices.Delete(f.turns, i, i+1)
	if len(cc.waiting) > 0 {
		f.turns = append(f.turns, caller)
	}
	return caller, c, true
}

// done counts a round of caller as ended.
func (f *fairPool) done(caller string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	cc := f.callers[caller]
	cc.running--
	f.running--
	if cc.running == 0 && len(cc.waiting) == 0 {
		delete(f.callers, caller)
	}
}

// stop makes the pool start no more rounds and take no more claims, and
// returns the claims that were waiting.
func (f *fairPool) stop() []*tasks.Claim {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.stopped = true
	var waiting []*tasks.Claim
	for _, caller := range f.turns {
		cc := f.callers[caller]
		waiting = append(waiting, cc.waiting...)
		cc.waiting = nil
	}
	f.turns = nil
	return waiting
}

// claimers is how many goroutines take claims from the store: a claim is
// quick to take, and a few keep a store's round trips from holding the
// others up.
func claimers(workers int) int { return min(workers, 4) }

// claimTasks takes claims from the run store until claiming stops, and
// puts each in the pool under its task's caller.
func (s *Server) claimTasks() {
	defer s.work.wg.Done()
	for {
		c, err := s.tasks.Claim(s.work.claims)
		if err != nil {
			if s.work.claims.Err() != nil || errors.Is(err, tasks.ErrClosed) {
				return
			}
			s.log.Warn("cannot claim a task from the run store; retrying", "err", err)
			select {
			case <-s.work.claims.Done():
				return
			case <-time.After(time.Second):
			}
			continue
		}
		caller, ok := s.claimCaller(c)
		if !ok {
			continue
		}
		if s.work.claims.Err() != nil || !s.work.fair.add(caller, c) {
			s.handBack([]*tasks.Claim{c})
			return
		}
		s.startRounds()
	}
}

// unknownCaller is the caller of a claim whose task could not be read:
// its round tells what the store says then.
const unknownCaller = "\x00unknown"

// claimCaller returns the caller claim c is to wait under: its task's
// principal. A task that is gone has nothing to run: its claim is
// released, and false returned.
func (s *Server) claimCaller(c *tasks.Claim) (string, bool) {
	t, err := s.tasks.Get(s.work.claims, c.ID)
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
func (s *Server) startRounds() {
	for {
		caller, c, ok := s.work.fair.next()
		if !ok {
			return
		}
		s.work.wg.Add(1)
		go func() {
			defer s.work.wg.Done()
			s.advance(c)
			s.work.fair.done(caller)
			s.startRounds()
		}()
	}
}

// handBack dispatches the tasks of claims that no round ran again, then
// releases the claims, so that a store opened again or another instance
// runs them as ordinary dispatches; a claim whose task cannot be
// dispatched stays claimed, to be taken over.
func (s *Server) handBack(claims []*tasks.Claim) {
	if len(claims) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, c := range claims {
		if err := s.tasks.Dispatch(ctx, c.ID); err != nil {
			s.log.Warn("cannot hand a waiting task back to the run store; it is taken over later", "task", c.ID, "err", err)
			continue
		}
		c.Release()
	}
}
