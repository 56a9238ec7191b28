package dispatch

import (
	"slices"
	"sync"

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
//     than the workers (serve's Options.TaskWorkers) minus a reserve (one in eight workers, at
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
// (serve's Options.MaxTasksPerCaller): at most that many per caller.

// Pool is the claims waiting for a round, by caller, and the rounds
// running: the scheduler Workers starts rounds by.
type Pool struct {
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

// NewPool returns a pool of the given number of workers.
func NewPool(workers int) *Pool {
	reserve := 0
	if workers > 1 {
		reserve = max(1, workers/fairReserve)
	}
	return &Pool{workers: workers, shared: workers - reserve, callers: map[string]*callerClaims{}}
}

// Add puts claim c of caller in the pool; false when the pool has stopped
// (the claim is the caller's to hand back).
func (f *Pool) Add(caller string, c *tasks.Claim) bool {
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

// Next takes the claim whose round is to start now, counting the round as
// running, or reports that none may start.
func (f *Pool) Next() (string, *tasks.Claim, bool) {
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

// Done counts a round of caller as ended.
func (f *Pool) Done(caller string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	cc := f.callers[caller]
	cc.running--
	f.running--
	if cc.running == 0 && len(cc.waiting) == 0 {
		delete(f.callers, caller)
	}
}

// Stop makes the pool start no more rounds and take no more claims, and
// returns the claims that were waiting.
func (f *Pool) Stop() []*tasks.Claim {
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
