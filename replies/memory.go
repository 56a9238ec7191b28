// Package replies implements flow.ReplyStore: the store of final results
// that lets a client retry a final round whose reply it lost without the
// run's last steps running again. Memory keeps them in this process;
// package replies/redis shares them between instances.
package replies

import (
	"container/list"
	"context"
	"sync"
	"time"

	"github.com/flowserve/flowserve/internal/kv"
)

// DefaultMemoryEntries bounds a Memory store when no size is given.
const DefaultMemoryEntries = 100_000

// Memory is an in-process reply store: bounded (the least recently used
// entries go first when it is full) and with per-entry expiry. It is safe
// for concurrent use.
type Memory struct {
	mu      sync.Mutex
	max     int
	now     func() time.Time
	entries map[[32]byte]*list.Element
	order   *list.List // front: most recently used
}

type memEntry struct {
	key     [32]byte
	value   []byte
	expires time.Time
}

// NewMemory returns a store holding at most maxEntries replies
// (DefaultMemoryEntries when maxEntries <= 0). now is the clock; nil
// means time.Now.
func NewMemory(maxEntries int, now func() time.Time) *Memory {
	if maxEntries <= 0 {
		maxEntries = DefaultMemoryEntries
	}
	return &Memory{max: maxEntries, now: kv.Clock(now), entries: map[[32]byte]*list.Element{}, order: list.New()}
}

// Get returns the value stored under key unless it has expired.
func (m *Memory) Get(_ context.Context, key [32]byte) ([]byte, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	el, ok := m.entries[key]
	if !ok {
		return nil, false, nil
	}
	e := el.Value.(*memEntry)
	if !m.now().Before(e.expires) {
		m.order.Remove(el)
		delete(m.entries, key)
		return nil, false, nil
	}
	m.order.MoveToFront(el)
	return e.value, true, nil
}

// Put stores a copy of value under key for ttl.
func (m *Memory) Put(_ context.Context, key [32]byte, value []byte, ttl time.Duration) error {
	if ttl <= 0 {
		return nil
	}
	v := append([]byte(nil), value...)
	m.mu.Lock()
	defer m.mu.Unlock()
	exp := m.now().Add(ttl)
	if el, ok := m.entries[key]; ok {
		e := el.Value.(*memEntry)
		e.value, e.expires = v, exp
		m.order.MoveToFront(el)
		return nil
	}
	m.entries[key] = m.order.PushFront(&memEntry{key: key, value: v, expires: exp})
	for m.order.Len() > m.max {
		last := m.order.Back()
		m.order.Remove(last)
		delete(m.entries, last.Value.(*memEntry).key)
	}
	return nil
}

// Len returns how many replies the store holds, expired ones included
// until they are looked up or pushed out.
func (m *Memory) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.order.Len()
}
