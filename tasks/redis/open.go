package redis

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strconv"

	goredis "github.com/redis/go-redis/v9"

	"github.com/flowserve/flowserve/tasks"
)

// The index of each principal's open tasks (see the package comment),
// which CreateLimited and OpenTasks count.

// index keeps the entry of a task (ARGV[1]) in the sorted set of its
// principal's open tasks (KEYS[1]) in step with the task: scored with its
// expiry (ARGV[2], unix milliseconds) while it is open, removed when
// ARGV[2] is "" (it ended, or expired). It drops the entries that expired
// by ARGV[3] (now, unix milliseconds) and expires the set with its last
// entry.
var index = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[3])
if ARGV[2] == '' then
	redis.call('ZREM', KEYS[1], ARGV[1])
else
	redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
end
local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
if #last == 0 then
	return 0
end
redis.call('PEXPIRE', KEYS[1], math.max(1, tonumber(last[2]) - tonumber(ARGV[3])))
return 1
`

// OpenKey returns the key of the sorted set of principal's open tasks.
func (s *Store) OpenKey(principal string) string {
	sum := sha256.Sum256([]byte(principal))
	return s.prefix + "open:" + hex.EncodeToString(sum[:16])
}

// unindex queues in p the removal of task t's entry from the index of open
// tasks.
func (s *Store) unindex(ctx context.Context, p goredis.Pipeliner, t *tasks.Task) {
	p.Eval(ctx, index, []string{s.OpenKey(t.Principal)}, t.ID, "", s.now().UnixMilli())
}

// countOpen counts the entries of the index key whose task has not
// expired, as c (a transaction, or the client) reads them, stopping at
// max (max <= 0: all of them).
func (s *Store) countOpen(ctx context.Context, c goredis.Cmdable, key string, max int) (int, error) {
	n, err := c.ZCount(ctx, key, "("+strconv.FormatInt(s.now().UnixMilli(), 10), "+inf").Result()
	if err != nil {
		return 0, err
	}
	if max > 0 && n > int64(max) {
		n = int64(max)
	}
	return int(n), nil
}

// CreateLimited is Create unless t's principal has limit open tasks
// already: it counts them and stores t in one transaction that watches the
// task's key and the principal's index of open tasks.
func (s *Store) CreateLimited(ctx context.Context, t *tasks.Task, limit int) error {
	if s.r.Closed() {
		return tasks.ErrClosed
	}
	enc, err := tasks.Marshal(t)
	if err != nil {
		return err
	}
	key, open := s.Key(t.ID), s.OpenKey(t.Principal)
	watch := []string{key}
	if limit > 0 {
		watch = append(watch, open)
	}
	err = s.transact(ctx, func(tx *goredis.Tx) error {
		old, err := load(ctx, tx, key)
		switch {
		case errors.Is(err, tasks.ErrCorrupt):
			return tasks.ErrExists
		case errors.Is(err, tasks.ErrNotFound):
		case err != nil:
			return err
		case !s.expired(old):
			return tasks.ErrExists
		}
		if limit > 0 {
			n, err := s.countOpen(ctx, tx, open, limit)
			if err != nil {
				return err
			}
			if n >= limit {
				return tasks.ErrTooMany
			}
		}
		_, err = tx.TxPipelined(ctx, func(p goredis.Pipeliner) error {
			if old != nil {
				s.unindex(ctx, p, old)
			}
			s.store(ctx, p, key, t, enc)
			return nil
		})
		return err
	}, watch...)
	if errors.Is(err, tasks.ErrTooMany) {
		return err
	}
	if err != nil {
		return s.r.Fail(ctx, "create "+t.ID, err)
	}
	return nil
}

// OpenTasks counts the entries of principal's index of open tasks whose
// task has not expired, up to max.
func (s *Store) OpenTasks(ctx context.Context, principal string, max int) (int, error) {
	if s.r.Closed() {
		return 0, tasks.ErrClosed
	}
	n, err := s.countOpen(ctx, s.r.Client, s.OpenKey(principal), max)
	if err != nil {
		return 0, s.r.Fail(ctx, "count the open tasks", err)
	}
	return n, nil
}
