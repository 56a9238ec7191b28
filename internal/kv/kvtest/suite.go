// Package kvtest is the skeleton of the contract suites of flowserve's
// stores (see package kv): a Suite is one table of tests that each
// implementation of a store (memory, bolt, Redis) must pass, run over
// them with RunBackends, each test on a fresh store and a clock the test
// moves by hand; and the checks every bbolt store passes (bolt.go).
//
// What the tests check stays with each store (tasks/storetest,
// versions/storetest, replies' contract test), and so do the
// constructors each backend opens its stores with; BoltBackend and
// RedisBackends make the backends of a store in a file and on Redis (on a
// redis-server replies/redis/redistest starts) from them.
package kvtest

import (
	"io"
	"testing"
	"time"

	"github.com/flowserve/flowserve/internal/clock"
)

// Clock is a clock tests move by hand, so that records expire without the
// tests sleeping (clock.Manual).
type Clock = clock.Manual

// NewClock returns a clock that reads start until it is advanced.
func NewClock(start time.Time) *Clock { return clock.NewManual(start) }

// Start returns where a test's clock starts: behind the current time, in
// UTC, to the millisecond (what Redis keeps of an instant), so that a
// store that also hands expiry to its backend sees realistic lifetimes.
func Start(behind time.Duration) time.Time {
	return time.Now().Add(-behind).UTC().Truncate(time.Millisecond)
}

// Opener returns a new, empty store for the test, whose clock is now.
// The suite closes the store when the test ends (when it has a Close
// method, which must be safe to call twice).
type Opener[S any] func(t *testing.T, now func() time.Time) S

// Reopener returns, for one test, a function that opens a store on the
// same data each time it is called, with the clock now: the first call an
// empty store, each later one a store on what the ones before it left
// (the file of Bolt, the keys of Redis). The test closes each store before
// it opens the next; the suite closes them all when the test ends, so
// Close must be safe to call twice.
type Reopener[S any] func(t *testing.T, now func() time.Time) func() S

// Test is a test of the contract on one store.
type Test[S any] struct {
	Name string
	Run  func(t *testing.T, s S, clock *Clock)
	// Behind is how far the clock starts behind the real time (Start).
	Behind time.Duration
}

// ReopenTest is a test of the contract on stores opened again on the same
// data: open opens the next one (the test closes each before it opens the
// next).
type ReopenTest[S any] struct {
	Name   string
	Run    func(t *testing.T, open func() S, clock *Clock)
	Behind time.Duration
}

// Suite is the contract of a store: Tests, which every implementation
// passes, and Reopen, which those whose data outlives a store (bolt,
// Redis) pass too.
type Suite[S any] struct {
	Tests  []Test[S]
	Reopen []ReopenTest[S]
}

// Backend is one implementation a Suite runs over.
type Backend[S any] struct {
	// Name names the implementation's subtest: "memory", "bolt", "redis".
	Name string
	// Setup, when set, runs once in the subtest before its tests: what
	// they all share (a redis-server) is started there, for t.
	Setup func(t *testing.T)
	// Open makes the stores of an implementation whose data lasts as
	// long as the store; Reopen, when set instead, those of one whose
	// data outlives it, and the suite's Reopen tests run on it too.
	Open   Opener[S]
	Reopen Reopener[S]
}

// RunBackends runs the suite over each backend, each in a subtest named
// after it.
func (s Suite[S]) RunBackends(t *testing.T, backends ...Backend[S]) {
	for _, b := range backends {
		t.Run(b.Name, func(t *testing.T) {
			if b.Setup != nil {
				b.Setup(t)
			}
			if b.Reopen != nil {
				s.RunReopen(t, b.Reopen)
				return
			}
			s.Run(t, b.Open)
		})
	}
}

// Run runs s.Tests, each as a subtest on a store of its own from open,
// whose clock starts at Start(Behind) and stands still unless the test
// moves it.
func (s Suite[S]) Run(t *testing.T, open Opener[S]) {
	for _, tc := range s.Tests {
		t.Run(tc.Name, func(t *testing.T) {
			clock := NewClock(Start(tc.Behind))
			st := open(t, clock.Now)
			closeAtEnd(t, st)
			tc.Run(t, st, clock)
		})
	}
}

// RunReopen runs s.Tests on the first store each test's reopen function
// opens, then s.Reopen, each as a subtest.
func (s Suite[S]) RunReopen(t *testing.T, reopen Reopener[S]) {
	s.Run(t, func(t *testing.T, now func() time.Time) S { return reopen(t, now)() })
	for _, tc := range s.Reopen {
		t.Run(tc.Name, func(t *testing.T) {
			clock := NewClock(Start(tc.Behind))
			open := reopen(t, clock.Now)
			tc.Run(t, func() S {
				st := open()
				closeAtEnd(t, st)
				return st
			}, clock)
		})
	}
}

// closeAtEnd closes s when the test ends, if s has a Close method.
func closeAtEnd(t *testing.T, s any) {
	if c, ok := s.(io.Closer); ok {
		t.Cleanup(func() { c.Close() })
	}
}
