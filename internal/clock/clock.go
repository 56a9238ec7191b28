// Package clock has Manual, a clock that tests move by hand, so that
// what expires does without the tests sleeping. The stores' contract
// suites (tasks/storetest, versions/storetest) share it.
package clock

import (
	"sync"
	"time"
)

// Manual is a clock that reads the same time until it is advanced. It is
// safe for concurrent use.
type Manual struct {
	mu  sync.Mutex
	now time.Time
}

// NewManual returns a clock that reads start until it is advanced.
func NewManual(start time.Time) *Manual { return &Manual{now: start} }

// Now returns the clock's time.
func (c *Manual) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock d forward.
func (c *Manual) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}
