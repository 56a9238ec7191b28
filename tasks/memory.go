package tasks

import (
	"context"
	"sync"
	"time"

	"github.com/flowserve/flowserve/internal/kv"
)

// Memory is a Store in this process: tasks last as long as it does. It is
// what a server without --data uses.
type Memory struct {
	now   func() time.Time
	mu    sync.Mutex
	tasks map[string]*Task
	// open indexes the tasks that are open (Task.Open) by principal, so
	// that counting a principal's does not look at every task; an entry
	// may outlive its task's expiry, which counting checks.
	open  map[string]map[string]struct{}
	queue *Queue
	// timers are the schedules of DispatchAt not yet fired.
	timers map[schedule]*time.Timer
}

// schedule is one DispatchAt of Memory: a task and an instant.
type schedule struct {
	id string
	at int64 // unix nanoseconds
}

// NewMemory returns an empty in-memory store; now is its clock (nil means
// time.Now).
func NewMemory(now func() time.Time) *Memory {
	return &Memory{now: kv.Clock(now), tasks: map[string]*Task{}, open: map[string]map[string]struct{}{}, queue: NewQueue(),
		timers: map[schedule]*time.Timer{}}
}

// Create stores a copy of t.
func (m *Memory) Create(ctx context.Context, t *Task) error {
	return m.CreateLimited(ctx, t, 0)
}

// CreateLimited stores a copy of t unless its principal has limit open
// tasks already.
func (m *Memory) CreateLimited(_ context.Context, t *Task, limit int) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.tasks == nil {
		return ErrClosed
	}
	m.sweepLocked()
	if _, ok := m.tasks[t.ID]; ok {
		return ErrExists
	}
	if limit > 0 && m.countLocked(t.Principal, limit) >= limit {
		return ErrTooMany
	}
	m.putLocked(t.Clone())
	return nil
}

// OpenTasks counts the open tasks of principal, up to max.
func (m *Memory) OpenTasks(_ context.Context, principal string, max int) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.tasks == nil {
		return 0, ErrClosed
	}
	return m.countLocked(principal, max), nil
}

// countLocked counts the open tasks of principal that have not expired,
// stopping at max (max <= 0: all), and drops the expired ones it meets.
func (m *Memory) countLocked(principal string, max int) int {
	n := 0
	for id := range m.open[principal] {
		if _, err := m.liveLocked(id); err != nil {
			continue
		}
		if n++; n == max {
			break
		}
	}
	return n
}

// putLocked stores t, keeping the index of open tasks in step.
func (m *Memory) putLocked(t *Task) {
	m.tasks[t.ID] = t
	ids := m.open[t.Principal]
	if !t.Open() {
		delete(ids, t.ID)
		if len(ids) == 0 {
			delete(m.open, t.Principal)
		}
		return
	}
	if ids == nil {
		ids = map[string]struct{}{}
		m.open[t.Principal] = ids
	}
	ids[t.ID] = struct{}{}
}

// deleteLocked drops task t and its entry in the index of open tasks.
func (m *Memory) deleteLocked(t *Task) {
	delete(m.tasks, t.ID)
	if ids := m.open[t.Principal]; ids != nil {
		delete(ids, t.ID)
		if len(ids) == 0 {
			delete(m.open, t.Principal)
		}
	}
}

// Get returns a copy of the task.
func (m *Memory) Get(_ context.Context, id string) (*Task, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	t, err := m.liveLocked(id)
	if err != nil {
		return nil, err
	}
	return t.Clone(), nil
}

// Update applies fn to a copy of the task and keeps the result.
func (m *Memory) Update(_ context.Context, id string, fn func(*Task) error) (*Task, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	t, err := m.liveLocked(id)
	if err != nil {
		return nil, err
	}
	c := t.Clone()
	if err := fn(c); err != nil {
		return nil, err
	}
	c.ID = id
	m.deleteLocked(t) // its index entry, should fn have changed its principal
	m.putLocked(c)
	return c.Clone(), nil
}

// liveLocked returns the stored task, dropping it when it has expired.
func (m *Memory) liveLocked(id string) (*Task, error) {
	if m.tasks == nil {
		return nil, ErrClosed
	}
	t, ok := m.tasks[id]
	if !ok {
		return nil, ErrNotFound
	}
	if !m.now().Before(t.Expires()) {
		m.deleteLocked(t)
		return nil, ErrNotFound
	}
	return t, nil
}

// sweepLocked drops expired tasks; Create calls it, so the store holds no
// more than the tasks created within one TTL.
func (m *Memory) sweepLocked() {
	now := m.now()
	for _, t := range m.tasks {
		if !now.Before(t.Expires()) {
			m.deleteLocked(t)
		}
	}
}

// Dispatch queues the task for this process's workers.
func (m *Memory) Dispatch(_ context.Context, id string) error {
	return m.queue.Push(id, false)
}

// DispatchAt queues the task for this process's workers once at has
// come, with a timer of what separates at from the store's clock now (the
// timer runs in real time: a clock moved by hand after DispatchAt does not
// move it). Close stops the timers.
func (m *Memory) DispatchAt(_ context.Context, id string, at time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.tasks == nil {
		return ErrClosed
	}
	d := at.Sub(m.now())
	if d <= 0 {
		return m.queue.Push(id, false)
	}
	key := schedule{id, at.UnixNano()}
	if _, ok := m.timers[key]; ok {
		return nil
	}
	var timer *time.Timer
	timer = time.AfterFunc(d, func() {
		m.mu.Lock()
		fire := m.timers[key] == timer // not stopped by Close
		delete(m.timers, key)
		m.mu.Unlock()
		if fire {
			m.queue.Push(id, false)
		}
	})
	m.timers[key] = timer
	return nil
}

// Claim waits for a dispatched task.
func (m *Memory) Claim(ctx context.Context) (*Claim, error) {
	id, takeover, err := m.queue.Pop(ctx)
	if err != nil {
		return nil, err
	}
	return NewClaim(id, takeover, nil)
}

// Close drops every task and every schedule.
func (m *Memory) Close() error {
	m.mu.Lock()
	m.tasks, m.open = nil, nil
	for _, timer := range m.timers {
		timer.Stop()
	}
	m.timers = nil
	m.mu.Unlock()
	m.queue.Close()
	return nil
}

// Queue is an unbounded in-process queue of task ids for Claim, for stores
// whose workers are all in this process (Memory, Bolt).
type Queue struct {
	mu     sync.Mutex
	items  []queued
	wake   chan struct{} // closed and replaced when an item arrives
	closed bool
}

type queued struct {
	id       string
	takeover bool
}

// NewQueue returns an empty queue.
func NewQueue() *Queue { return &Queue{wake: make(chan struct{})} }

// Push queues id; takeover marks a task claimed before whose claim did not
// end.
func (q *Queue) Push(id string, takeover bool) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return ErrClosed
	}
	q.items = append(q.items, queued{id, takeover})
	close(q.wake)
	q.wake = make(chan struct{})
	return nil
}

// Pop waits for an id.
func (q *Queue) Pop(ctx context.Context) (string, bool, error) {
	for {
		q.mu.Lock()
		if q.closed {
			q.mu.Unlock()
			return "", false, ErrClosed
		}
		if len(q.items) > 0 {
			it := q.items[0]
			q.items[0] = queued{}
			q.items = q.items[1:]
			q.mu.Unlock()
			return it.id, it.takeover, nil
		}
		wake := q.wake
		q.mu.Unlock()
		select {
		case <-ctx.Done():
			return "", false, ctx.Err()
		case <-wake:
		}
	}
}

// Close wakes every Pop with ErrClosed.
func (q *Queue) Close() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if !q.closed {
		q.closed = true
		close(q.wake)
	}
}
