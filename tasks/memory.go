package tasks

import (
	"context"
	"sync"
	"time"
)

// Memory is a Store in this process: tasks last as long as it does. It is
// what a server without --data uses.
type Memory struct {
	now   func() time.Time
	mu    sync.Mutex
	tasks map[string]*Task
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
	if now == nil {
		now = time.Now
	}
	return &Memory{now: now, tasks: map[string]*Task{}, queue: NewQueue(), timers: map[schedule]*time.Timer{}}
}

// Create stores a copy of t.
func (m *Memory) Create(_ context.Context, t *Task) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.tasks == nil {
		return ErrClosed
	}
	m.sweepLocked()
	if _, ok := m.tasks[t.ID]; ok {
		return ErrExists
	}
	m.tasks[t.ID] = t.Clone()
	return nil
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
	m.tasks[id] = c
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
		delete(m.tasks, id)
		return nil, ErrNotFound
	}
	return t, nil
}

// sweepLocked drops expired tasks; Create calls it, so the store holds no
// more than the tasks created within one TTL.
func (m *Memory) sweepLocked() {
	now := m.now()
	for id, t := range m.tasks {
		if !now.Before(t.Expires()) {
			delete(m.tasks, id)
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
	m.tasks = nil
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
