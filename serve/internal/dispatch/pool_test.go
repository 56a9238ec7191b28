package dispatch

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/flowserve/flowserve/tasks"
)

// pool drives a Pool in a test: claims are named "<caller><n>".
type pool struct {
	t *testing.T
	f *Pool
	n map[string]int
}

func (p *pool) add(caller string, count int) {
	p.t.Helper()
	for range count {
		p.n[caller]++
		c, err := tasks.NewClaim(fmt.Sprintf("%s%d", caller, p.n[caller]), false, nil)
		if err != nil {
			p.t.Fatal(err)
		}
		if !p.f.Add(caller, c) {
			p.t.Fatalf("add %s: the pool has stopped", c.ID)
		}
	}
}

// start takes every claim whose round may start now, and returns their
// ids, in the order they start.
func (p *pool) start() []string {
	var ids []string
	for {
		_, c, ok := p.f.Next()
		if !ok {
			return ids
		}
		ids = append(ids, c.ID)
	}
}

// TestFairPool: the caller running the fewest rounds goes first, callers
// take turns among equals; a caller that runs no round may take any free
// worker; callers that run rounds already share all workers but the
// reserve.
func TestFairPool(t *testing.T) {
	tests := []struct {
		name    string
		workers int
		run     func(p *pool) []string // the rounds started, step by step
		want    []string
	}{
		{"a backlog leaves the reserve to others", 2, func(p *pool) []string {
			p.add("a", 5)
			first := p.start()
			p.add("b", 1)
			return []string{strings.Join(first, " "), strings.Join(p.start(), " ")}
		}, []string{"a1", "b1"}},
		{"no one past the workers", 2, func(p *pool) []string {
			p.add("a", 5)
			p.add("b", 5)
			p.add("c", 5)
			return []string{strings.Join(p.start(), " ")}
		}, []string{"a1 b1"}},
		{"turns", 1, func(p *pool) []string {
			p.add("a", 4)
			p.add("b", 2)
			var got []string
			for range 6 {
				started := p.start()
				got = append(got, strings.Join(started, " "))
				for range started {
					p.f.Done(string(started[0][0]))
				}
			}
			return got
		}, []string{"a1", "b1", "a2", "b2", "a3", "a4"}},
		{"first rounds first", 16, func(p *pool) []string {
			p.add("a", 20)
			first := p.start() // a takes all but the reserve of 2
			p.add("b", 3)
			p.add("c", 1)
			second := p.start() // b and c start on the reserve; b's second waits
			p.f.Done("a")
			third := p.start() // the worker a freed is kept for a caller running nothing
			p.f.Done("a")
			p.f.Done("a")
			fourth := p.start() // one worker of the shared ones: to b, who runs fewer than a
			return []string{fmt.Sprint(len(first)), strings.Join(second, " "), strings.Join(third, " "), strings.Join(fourth, " ")}
		}, []string{"14", "b1 c1", "", "b2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &pool{t: t, f: NewPool(tt.workers), n: map[string]int{}}
			if got := tt.run(p); !slices.Equal(got, tt.want) {
				t.Errorf("rounds started %q, want %q", got, tt.want)
			}
		})
	}
}

func TestFairPoolStop(t *testing.T) {
	p := &pool{t: t, f: NewPool(2), n: map[string]int{}}
	p.add("a", 3)
	p.add("b", 1)
	if got := p.start(); !slices.Equal(got, []string{"a1", "b1"}) {
		t.Fatalf("started %q", got)
	}
	var back []string
	for _, c := range p.f.Stop() {
		back = append(back, c.ID)
	}
	if !slices.Equal(back, []string{"a2", "a3"}) {
		t.Errorf("handed back %q, want a2 a3", back)
	}
	c, _ := tasks.NewClaim("late", false, nil)
	if p.f.Add("a", c) {
		t.Error("a stopped pool took a claim")
	}
	p.f.Done("a")
	if _, c, ok := p.f.Next(); ok {
		t.Errorf("a stopped pool started %s", c.ID)
	}
}
