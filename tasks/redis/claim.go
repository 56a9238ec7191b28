package redis

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/flowserve/flowserve/tasks"
)

// The claims of a Store (see the package comment): entries of the stream
// read by the consumer group, kept alive while held, taken over once an
// instance stopped keeping them alive for the whole lease.

// held is a claim's entry in the stream, kept alive until it is released.
type held struct {
	entry string
	stop  chan struct{} // closed by Release
	done  chan struct{} // closed when the keep-alive has stopped
	lost  atomic.Bool   // another consumer has the entry now
}

// renew claims a pending entry (ARGV[3]) of the group (ARGV[1]) again
// for its consumer (ARGV[2]), which makes it fresh (idle 0), if that
// consumer still has it; it returns 0 when another consumer took the
// entry over or it was acknowledged. JUSTID leaves the delivery count as
// it is.
var renew = goredis.NewScript(`
if #redis.call('XPENDING', KEYS[1], ARGV[1], ARGV[3], ARGV[3], 1, ARGV[2]) == 0 then
	return 0
end
redis.call('XCLAIM', KEYS[1], ARGV[1], ARGV[2], 0, ARGV[3], 'JUSTID')
return 1
`)

// ack acknowledges and deletes an entry (ARGV[3]) of the group (ARGV[1])
// if its consumer (ARGV[2]) still has it; it returns 0, and leaves the
// entry to the consumer that took it over, otherwise.
var ack = goredis.NewScript(`
if #redis.call('XPENDING', KEYS[1], ARGV[1], ARGV[3], ARGV[3], 1, ARGV[2]) == 0 then
	return 0
end
redis.call('XACK', KEYS[1], ARGV[1], ARGV[3])
redis.call('XDEL', KEYS[1], ARGV[3])
return 1
`)

// Claim waits for an entry of the stream no consumer has had, or one to
// take over, and holds it for the claim, claiming it again every third of
// the lease until Release.
func (s *Store) Claim(ctx context.Context) (*tasks.Claim, error) {
	for {
		if s.r.Closed() {
			return nil, tasks.ErrClosed
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if s.takeoversDue() {
			c, again, err := s.takeOver(ctx)
			if c != nil || err != nil {
				return c, err
			}
			if again {
				continue
			}
		}
		c, err := s.read(ctx)
		if c != nil || err != nil {
			return c, err
		}
	}
}

// takeoversDue reports whether Claim is to look for entries to take over,
// and if so puts the next look off, so that one of the concurrent Claims
// looks.
func (s *Store) takeoversDue() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	if now.Before(s.takeovers) {
		return false
	}
	s.takeovers = now.Add(s.lease / 2)
	return true
}

// takeOver takes over one entry that has been pending for longer than the
// lease, if there is one, and reports whether to look again at once: when
// it skipped the entry of a task that is gone, or there are pending
// entries it did not look at yet.
func (s *Store) takeOver(ctx context.Context) (*tasks.Claim, bool, error) {
	s.mu.Lock()
	start := s.cursor
	s.mu.Unlock()
	msgs, next, err := s.r.Client.XAutoClaim(ctx, &goredis.XAutoClaimArgs{
		Stream:   s.stream,
		Group:    group,
		Consumer: s.consumer,
		MinIdle:  s.lease,
		Start:    start,
		Count:    1,
	}).Result()
	if err != nil {
		if isNoGroup(err) {
			return nil, true, s.createGroup(ctx)
		}
		return nil, false, s.r.Fail(ctx, "take over claims", err)
	}
	s.mu.Lock()
	s.cursor = next
	again := next != "0-0" || len(msgs) > 0
	if again {
		s.takeovers = time.Time{}
	}
	s.mu.Unlock()
	for _, m := range msgs {
		id, _ := m.Values["id"].(string)
		if id != "" {
			n, err := s.r.Client.Exists(ctx, s.Key(id)).Result()
			if err != nil {
				return nil, false, s.r.Fail(ctx, "take over "+id, err)
			}
			if n > 0 {
				c, err := s.hold(m.ID, id, true)
				return c, false, err
			}
		}
		// The task is gone (or the entry is not one of ours): nothing
		// is left to do for the entry.
		if err := ack.Run(ctx, s.r.Client, []string{s.stream}, group, s.consumer, m.ID).Err(); err != nil {
			return nil, false, s.r.Fail(ctx, "acknowledge "+m.ID, err)
		}
	}
	return nil, again, nil
}

// read waits, for a short while, for an entry no consumer has had and
// holds it; it returns no claim and no error when none came.
func (s *Store) read(ctx context.Context) (*tasks.Claim, error) {
	select {
	case s.reader <- struct{}{}:
		defer func() { <-s.reader }()
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-s.done:
		return nil, tasks.ErrClosed
	}
	block := min(maxBlock, s.lease/2)
	if d, ok := ctx.Deadline(); ok {
		block = max(min(block, time.Until(d)), time.Millisecond)
	}
	res, err := s.r.Client.XReadGroup(ctx, &goredis.XReadGroupArgs{
		Group:    group,
		Consumer: s.consumer,
		Streams:  []string{s.stream, ">"},
		Count:    1,
		Block:    block,
	}).Result()
	switch {
	case errors.Is(err, goredis.Nil):
		return nil, nil
	case isNoGroup(err):
		return nil, s.createGroup(ctx)
	case err != nil:
		return nil, s.r.Fail(ctx, "claim", err)
	}
	for _, stream := range res {
		for _, m := range stream.Messages {
			id, _ := m.Values["id"].(string)
			if id == "" {
				ack.Run(ctx, s.r.Client, []string{s.stream}, group, s.consumer, m.ID)
				continue
			}
			// An entry read as the store closes stays pending, for
			// another instance to take over.
			return s.hold(m.ID, id, false)
		}
	}
	return nil, nil
}

func isNoGroup(err error) bool {
	return err != nil && strings.HasPrefix(err.Error(), "NOGROUP")
}

// hold starts keeping entry alive and returns the claim of task id it
// stands for.
func (s *Store) hold(entry, id string, takeover bool) (*tasks.Claim, error) {
	h := &held{entry: entry, stop: make(chan struct{}), done: make(chan struct{})}
	c, err := tasks.NewClaim(id, takeover, func() error { return s.release(h) })
	if err != nil {
		return nil, err
	}
	if !s.r.WhileOpen(func() { s.keepAlives.Add(1) }) {
		return nil, tasks.ErrClosed
	}
	go s.keepAlive(h)
	return c, nil
}

// keepAlive claims h's entry again every third of the lease, until
// Release or Close, or until another consumer has the entry.
func (s *Store) keepAlive(h *held) {
	defer s.keepAlives.Done()
	defer close(h.done)
	every := s.lease / 3
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-h.stop:
			return
		case <-s.done:
			return
		case <-tick.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), every)
		n, err := renew.Run(ctx, s.r.Client, []string{s.stream}, group, s.consumer, h.entry).Int()
		cancel()
		if err == nil && n == 0 {
			h.lost.Store(true)
			return
		}
		// On an error, try again at the next tick: the entry stays ours
		// until it has been idle for the whole lease.
	}
}

// release stops keeping h's entry alive, then acknowledges and deletes it,
// unless the store is closed or another consumer took the entry over.
func (s *Store) release(h *held) error {
	close(h.stop)
	<-h.done
	if s.r.Closed() {
		return tasks.ErrClosed
	}
	if h.lost.Load() {
		return nil
	}
	ctx := context.Background()
	if err := ack.Run(ctx, s.r.Client, []string{s.stream}, group, s.consumer, h.entry).Err(); err != nil {
		return s.r.Fail(ctx, "release "+h.entry, err)
	}
	return nil
}
