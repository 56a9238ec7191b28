package versions

import (
	"cmp"
	"context"
	"slices"
	"sync"
	"time"

	"github.com/flowserve/flowserve/internal/kv"
)

// Memory is a Store in this process: versions last as long as it does. It
// is what a server without --data uses.
type Memory struct {
	now      func() time.Time
	mu       sync.Mutex
	versions map[string]*Version // nil once closed
}

// NewMemory returns an empty in-memory store; now is its clock (nil means
// time.Now).
func NewMemory(now func() time.Time) *Memory {
	return &Memory{now: kv.Clock(now), versions: map[string]*Version{}}
}

// Put stores a copy of v, or extends the Until of the version stored
// under its ID.
func (m *Memory) Put(ctx context.Context, v *Version) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := Check(v); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.versions == nil {
		return ErrClosed
	}
	now := m.now()
	if old, ok := m.versions[v.ID]; ok && !old.Expired(now) {
		if v.Until.After(old.Until) {
			old.Until = v.Until
		}
		return nil
	}
	if v.Expired(now) {
		return nil
	}
	c := v.Clone()
	if c.Served.IsZero() {
		c.Served = now
	}
	m.versions[v.ID] = c
	return nil
}

// Get returns a copy of the version.
func (m *Memory) Get(ctx context.Context, id string) (*Version, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	v, err := m.liveLocked(id)
	if err != nil {
		return nil, err
	}
	return v.Clone(), nil
}

// Keep extends the version's Until to until when that is later.
func (m *Memory) Keep(ctx context.Context, id string, until time.Time) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	v, err := m.liveLocked(id)
	if err != nil {
		return err
	}
	if until.After(v.Until) {
		v.Until = until
	}
	return nil
}

// liveLocked returns the stored version unless its Until has passed.
func (m *Memory) liveLocked(id string) (*Version, error) {
	if m.versions == nil {
		return nil, ErrClosed
	}
	v, ok := m.versions[id]
	if !ok || v.Expired(m.now()) {
		return nil, ErrNotFound
	}
	return v, nil
}

// Retire removes the versions whose Until is before now and returns them
// without their Source, earliest Until first.
func (m *Memory) Retire(ctx context.Context, now time.Time) ([]*Version, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.versions == nil {
		return nil, ErrClosed
	}
	var retired []*Version
	for id, v := range m.versions {
		if v.Expired(now) {
			delete(m.versions, id)
			r := *v
			r.Source = nil
			retired = append(retired, &r)
		}
	}
	SortRetired(retired)
	return retired, nil
}

// Close drops every version. Calling it again does nothing.
func (m *Memory) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.versions = nil
	return nil
}

// SortRetired sorts versions as Retire returns them: earliest Until first,
// then by ID.
func SortRetired(vs []*Version) {
	slices.SortFunc(vs, func(a, b *Version) int {
		if c := a.Until.Compare(b.Until); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
}
