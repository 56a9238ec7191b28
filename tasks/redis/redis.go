// Package redis implements tasks.Store on Redis, so that many flowserve
// instances sharing one Redis share their durable runs: any instance
// answers tasks/get for any task, and a task whose worker stopped is
// taken over by another instance (DESIGN §11).
//
// Each task is one Redis string under "<prefix><id>" holding the task in
// the stored format (tasks.Marshal), set with a PX expiry equal to the
// time the task has left (Task.Expires), so Redis drops it when the store
// would. Update reads and writes it in an optimistic transaction (WATCH,
// MULTI, EXEC), run again when another write raced it.
//
// Dispatch and takeover use Redis streams, not a lease protocol of their
// own. Dispatch adds the task id to the stream "<prefix>queue", read by
// one consumer group, "workers", in which each instance is a consumer.
// Claim reads entries no consumer has had (XREADGROUP) and, now and then,
// takes over entries that stayed pending longer than the lease
// (XAUTOCLAIM): those of an instance that stopped. While a claim is held,
// the store claims its entry again every third of the lease (XCLAIM,
// which makes the entry fresh), so a live worker's long step is never
// taken over; Release acknowledges and deletes the entry. Both do so only
// while the entry is still this instance's (a short script checks
// XPENDING first), so an instance that was too slow to keep a claim alive
// neither takes the entry back from the instance that took it over nor
// acknowledges it under that instance's feet. Close stops claiming
// entries again without acknowledging them, so another instance takes
// those claims over once the lease has passed.
//
// DispatchAt adds a schedule to the sorted set "<prefix>due", scored with
// its instant in unix milliseconds (rounded up), its member the instant in
// unix nanoseconds as 16 hex digits followed by the task id, so that the
// same task scheduled again at the same instant is one schedule. Every
// instance runs a script every quarter of a second that moves the
// schedules due by its clock to the stream, each as one entry like
// Dispatch's, and removes them from the set, atomically, so that however
// many instances share the set each schedule is dispatched once. A
// schedule outlives every instance: the first one to run again
// dispatches what fell due meanwhile. On a Redis Cluster the script needs
// the set and the stream in one slot: give the prefix a hash tag
// ("{flowserve}:task:"), which puts every key of the store in that slot.
//
// The open tasks (tasks.Task.Open) of each principal are indexed in a
// sorted set, "<prefix>open:<32 hex digits of the principal's SHA-256>",
// whose members are task ids scored with their expiry in unix
// milliseconds (rounded up): Create and Update write the task and its
// entry in one transaction, an entry is removed when its task ends, and
// one whose task expired is not counted (its score has passed) and is
// removed by the next write to the set, which also expires the set with
// its last task. CreateLimited counts the principal's entries and creates
// the task in one optimistic transaction watching the task's key and the
// set, so that instances creating tasks of one principal at once never
// exceed the limit. On a Redis Cluster the transaction needs the task and
// the set in one slot: the hash tag of the prefix does that too.
//
// Use a Redis whose eviction policy is noeviction: an evicted task is
// lost, and an evicted stream loses the dispatches in it.
package redis

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/flowserve/flowserve/tasks"
)

// DefaultPrefix starts the keys of a Store whose Options name no prefix.
const DefaultPrefix = "flowserve:task:"

// DefaultLease is the lease of a Store whose Options name none.
const DefaultLease = 30 * time.Second

// MinLease is the shortest lease a Store accepts.
const MinLease = 30 * time.Millisecond

const (
	// group is the consumer group of every instance.
	group = "workers"
	// maxBlock bounds one wait of Claim for a new entry, so that Claim
	// notices its context ending (go-redis does not interrupt a blocked
	// read) and looks for entries to take over.
	maxBlock = 2 * time.Second
	// setupTimeout bounds what New does on the server.
	setupTimeout = 10 * time.Second
	// dueEvery is how often each store moves the due schedules to the
	// stream, and dueBatch how many it moves in one run of the script
	// (it runs it again at once when there may be more).
	dueEvery = 250 * time.Millisecond
	dueBatch = 100
)

// Options configure a Store.
type Options struct {
	// Prefix starts every key of the store; "" means DefaultPrefix. The
	// instances that share tasks use the same prefix.
	Prefix string
	// Consumer names this instance in the consumer group; "" means
	// "<hostname>-<pid>-<random>". Each live instance needs a name of its
	// own. A name that stays the same across restarts (a pod's name)
	// keeps the group from collecting the names of instances long gone.
	Consumer string
	// Lease is how long a claim outlives the instance that held it before
	// another instance takes it over; 0 means DefaultLease. The instances
	// sharing tasks should use the same lease.
	Lease time.Duration
	// Now is the store's clock, which decides when tasks expire; nil
	// means time.Now.
	Now func() time.Time
}

// Store is a run store on a Redis server or cluster. It is safe for
// concurrent use.
type Store struct {
	client   goredis.UniversalClient
	owned    bool // Close closes client
	prefix   string
	stream   string
	due      string
	consumer string
	lease    time.Duration
	now      func() time.Time

	mu     sync.Mutex
	closed bool
	// takeovers is when Claim next looks for entries to take over, and
	// cursor where in the pending entries it goes on (XAUTOCLAIM's start).
	takeovers time.Time
	cursor    string

	// done is closed by Close: it stops every keep-alive and the
	// scheduler (schedule).
	done       chan struct{}
	keepAlives sync.WaitGroup
	scheduler  sync.WaitGroup
	// reader is held by the one Claim that blocks in XREADGROUP: a
	// blocking read holds a connection of the client's pool for its whole
	// wait, so many workers reading at once would take every connection
	// and starve the store's other commands.
	reader chan struct{}
}

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

// dispatchDue moves the schedules of the sorted set KEYS[1] due at
// ARGV[1] (unix milliseconds), at most ARGV[2] of them, earliest first,
// to the stream KEYS[2], each as an entry {id: the member past its 16
// digits of instant}, and returns how many it moved.
var dispatchDue = goredis.NewScript(`
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))
for _, member in ipairs(due) do
	redis.call('XADD', KEYS[2], '*', 'id', string.sub(member, 17))
	redis.call('ZREM', KEYS[1], member)
end
return #due
`)

// New returns a store that keeps tasks through client. It creates the
// stream and its consumer group unless they exist, so it fails when the
// server does not answer. Close does not close a client passed to New.
func New(client goredis.UniversalClient, opts Options) (*Store, error) {
	s := &Store{
		client:   client,
		prefix:   opts.Prefix,
		consumer: opts.Consumer,
		lease:    opts.Lease,
		now:      opts.Now,
		cursor:   "0-0",
		done:     make(chan struct{}),
		reader:   make(chan struct{}, 1),
	}
	if s.prefix == "" {
		s.prefix = DefaultPrefix
	}
	s.stream = s.prefix + "queue"
	s.due = s.prefix + "due"
	if s.lease == 0 {
		s.lease = DefaultLease
	}
	if s.lease < MinLease {
		return nil, fmt.Errorf("redis task store: lease %s is shorter than %s", s.lease, MinLease)
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.consumer == "" {
		c, err := defaultConsumer()
		if err != nil {
			return nil, fmt.Errorf("redis task store: name the consumer: %w", err)
		}
		s.consumer = c
	}
	ctx, cancel := context.WithTimeout(context.Background(), setupTimeout)
	defer cancel()
	if err := s.createGroup(ctx); err != nil {
		return nil, err
	}
	s.scheduler.Add(1)
	go s.schedule()
	return s, nil
}

// Open returns a store on the server a URL names:
// redis://[[user]:password@]host[:port][/db][?options],
// rediss:// for TLS, or unix:///path/to/socket[?db=N]; the options are
// go-redis's (dial_timeout, read_timeout, pool_size, …). Like New, it
// fails when the server does not answer. Close the store when done with
// it.
func Open(url string, opts Options) (*Store, error) {
	o, err := goredis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("redis task store: %w", err)
	}
	client := goredis.NewClient(o)
	s, err := New(client, opts)
	if err != nil {
		client.Close()
		return nil, err
	}
	s.owned = true
	return s, nil
}

// defaultConsumer returns "<hostname>-<pid>-<8 random hex digits>".
func defaultConsumer() (string, error) {
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "flowserve"
	}
	var b [4]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return fmt.Sprintf("%s-%d-%s", host, os.Getpid(), hex.EncodeToString(b[:])), nil
}

// createGroup creates the stream and the consumer group, unless the group
// exists. The group starts at the stream's first entry, so that no
// dispatch made before it existed is lost.
func (s *Store) createGroup(ctx context.Context) error {
	err := s.client.XGroupCreateMkStream(ctx, s.stream, group, "0").Err()
	if err != nil && !strings.HasPrefix(err.Error(), "BUSYGROUP") {
		return fmt.Errorf("redis task store: create the consumer group: %w", err)
	}
	return nil
}

// Key returns the Redis key task id is stored under.
func (s *Store) Key(id string) string { return s.prefix + id }

// Stream returns the key of the stream of dispatches.
func (s *Store) Stream() string { return s.stream }

// Due returns the key of the sorted set of schedules (DispatchAt).
func (s *Store) Due() string { return s.due }

// Consumer returns the store's name in the consumer group.
func (s *Store) Consumer() string { return s.consumer }

// isClosed reports whether Close was called.
func (s *Store) isClosed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

// fail returns err as the store's error: ErrClosed once the store is
// closed, the tasks errors and ctx's as they are, others saying what
// failed.
func (s *Store) fail(ctx context.Context, what string, err error) error {
	switch {
	case s.isClosed():
		return tasks.ErrClosed
	case ctx.Err() != nil:
		return ctx.Err()
	case errors.Is(err, tasks.ErrNotFound), errors.Is(err, tasks.ErrExists), errors.Is(err, tasks.ErrCorrupt):
		return err
	}
	return fmt.Errorf("redis task store: %s: %w", what, err)
}

// expired reports whether t is past its expiry by the store's clock.
func (s *Store) expired(t *tasks.Task) bool { return !s.now().Before(t.Expires()) }

// life returns how long Redis is to keep t: the time it has left, rounded
// up to the millisecond; 0 when it has expired.
func (s *Store) life(t *tasks.Task) time.Duration {
	d := t.Expires().Sub(s.now())
	if d <= 0 {
		return 0
	}
	return (d + time.Millisecond - 1).Truncate(time.Millisecond)
}

// transact runs fn in a transaction watching keys, again while another
// client changed one of them first.
func (s *Store) transact(ctx context.Context, fn func(*goredis.Tx) error, keys ...string) error {
	for {
		err := s.client.Watch(ctx, fn, keys...)
		if !errors.Is(err, goredis.TxFailedErr) {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
}

// load returns the task under key as tx sees it, or tasks.ErrNotFound.
func load(ctx context.Context, tx *goredis.Tx, key string) (*tasks.Task, error) {
	b, err := tx.Get(ctx, key).Bytes()
	if errors.Is(err, goredis.Nil) {
		return nil, tasks.ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	return tasks.Unmarshal(b)
}

// store queues in p the write of t under key: SET with PX, or DEL when t
// has expired; and the write of its entry in the index of open tasks.
func (s *Store) store(ctx context.Context, p goredis.Pipeliner, key string, t *tasks.Task, enc []byte) {
	life := s.life(t)
	if life > 0 {
		p.Set(ctx, key, enc, life)
	} else {
		p.Del(ctx, key)
	}
	score := ""
	if life > 0 && t.Open() {
		score = strconv.FormatInt(expiryMilli(t), 10)
	}
	p.Eval(ctx, index, []string{s.OpenKey(t.Principal)}, t.ID, score, s.now().UnixMilli())
}

// Create stores t, unless a task that has not expired has its id. A task
// that has expired already is not stored.
func (s *Store) Create(ctx context.Context, t *tasks.Task) error {
	return s.CreateLimited(ctx, t, 0)
}

// Get returns the task.
func (s *Store) Get(ctx context.Context, id string) (*tasks.Task, error) {
	if s.isClosed() {
		return nil, tasks.ErrClosed
	}
	b, err := s.client.Get(ctx, s.Key(id)).Bytes()
	if errors.Is(err, goredis.Nil) {
		return nil, tasks.ErrNotFound
	}
	if err != nil {
		return nil, s.fail(ctx, "get "+id, err)
	}
	t, err := tasks.Unmarshal(b)
	if err != nil {
		return nil, err
	}
	if s.expired(t) {
		return nil, tasks.ErrNotFound
	}
	return t, nil
}

// Update applies fn to the task and stores the result in a transaction
// watching the task's key; when another write to the task came first, it
// reads the task again and runs fn again. An expired task is deleted and
// ErrNotFound returned.
func (s *Store) Update(ctx context.Context, id string, fn func(*tasks.Task) error) (*tasks.Task, error) {
	if s.isClosed() {
		return nil, tasks.ErrClosed
	}
	key := s.Key(id)
	var (
		stored *tasks.Task
		fnErr  error
	)
	err := s.transact(ctx, func(tx *goredis.Tx) error {
		stored, fnErr = nil, nil
		t, err := load(ctx, tx, key)
		if err != nil {
			return err
		}
		if s.expired(t) {
			if _, err := tx.TxPipelined(ctx, func(p goredis.Pipeliner) error {
				p.Del(ctx, key)
				s.unindex(ctx, p, t)
				return nil
			}); err != nil {
				return err
			}
			return tasks.ErrNotFound
		}
		principal := t.Principal
		if err := fn(t); err != nil {
			fnErr = err
			return err
		}
		t.ID = id
		enc, err := tasks.Marshal(t)
		if err != nil {
			return err
		}
		if _, err := tx.TxPipelined(ctx, func(p goredis.Pipeliner) error {
			if t.Principal != principal {
				s.unindex(ctx, p, &tasks.Task{ID: id, Principal: principal})
			}
			s.store(ctx, p, key, t, enc)
			return nil
		}); err != nil {
			return err
		}
		stored = t
		return nil
	}, key)
	switch {
	case fnErr != nil:
		return nil, fnErr
	case err != nil:
		return nil, s.fail(ctx, "update "+id, err)
	}
	return stored, nil
}

// Dispatch adds the task's id to the stream, for one instance's worker to
// claim.
func (s *Store) Dispatch(ctx context.Context, id string) error {
	if s.isClosed() {
		return tasks.ErrClosed
	}
	err := s.client.XAdd(ctx, &goredis.XAddArgs{Stream: s.stream, Values: []string{"id", id}}).Err()
	if err != nil {
		return s.fail(ctx, "dispatch "+id, err)
	}
	return nil
}

// DispatchAt adds the schedule to the sorted set of schedules, for the
// first store whose clock has reached at to move it to the stream; it adds
// the task's id to the stream at once when at has passed.
func (s *Store) DispatchAt(ctx context.Context, id string, at time.Time) error {
	if s.isClosed() {
		return tasks.ErrClosed
	}
	if !at.After(s.now()) {
		return s.Dispatch(ctx, id)
	}
	ns := max(at.UnixNano(), 0)
	member := fmt.Sprintf("%016x%s", ns, id)
	score := float64((ns + int64(time.Millisecond) - 1) / int64(time.Millisecond))
	if err := s.client.ZAddNX(ctx, s.due, goredis.Z{Score: score, Member: member}).Err(); err != nil {
		return s.fail(ctx, "schedule "+id, err)
	}
	return nil
}

// schedule moves the due schedules to the stream at once, then every
// dueEvery until Close.
func (s *Store) schedule() {
	defer s.scheduler.Done()
	tick := time.NewTicker(dueEvery)
	defer tick.Stop()
	for {
		s.dispatchDue()
		select {
		case <-s.done:
			return
		case <-tick.C:
		}
	}
}

// dispatchDue runs the script that moves the due schedules to the stream
// until it finds no more of them, Close is called, or Redis fails (the
// schedules are then left for the next run).
func (s *Store) dispatchDue() {
	for {
		select {
		case <-s.done:
			return
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		now := s.now().UnixMilli()
		n, err := dispatchDue.Run(ctx, s.client, []string{s.due, s.stream}, now, dueBatch).Int()
		cancel()
		if err != nil || n < dueBatch {
			return
		}
	}
}

// Claim waits for an entry of the stream no consumer has had, or one to
// take over, and holds it for the claim, claiming it again every third of
// the lease until Release.
func (s *Store) Claim(ctx context.Context) (*tasks.Claim, error) {
	for {
		if s.isClosed() {
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
	msgs, next, err := s.client.XAutoClaim(ctx, &goredis.XAutoClaimArgs{
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
		return nil, false, s.fail(ctx, "take over claims", err)
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
			n, err := s.client.Exists(ctx, s.Key(id)).Result()
			if err != nil {
				return nil, false, s.fail(ctx, "take over "+id, err)
			}
			if n > 0 {
				c, err := s.hold(m.ID, id, true)
				return c, false, err
			}
		}
		// The task is gone (or the entry is not one of ours): nothing
		// is left to do for the entry.
		if err := ack.Run(ctx, s.client, []string{s.stream}, group, s.consumer, m.ID).Err(); err != nil {
			return nil, false, s.fail(ctx, "acknowledge "+m.ID, err)
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
	res, err := s.client.XReadGroup(ctx, &goredis.XReadGroupArgs{
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
		return nil, s.fail(ctx, "claim", err)
	}
	for _, stream := range res {
		for _, m := range stream.Messages {
			id, _ := m.Values["id"].(string)
			if id == "" {
				ack.Run(ctx, s.client, []string{s.stream}, group, s.consumer, m.ID)
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
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, tasks.ErrClosed
	}
	s.keepAlives.Add(1)
	s.mu.Unlock()
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
		n, err := renew.Run(ctx, s.client, []string{s.stream}, group, s.consumer, h.entry).Int()
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
	if s.isClosed() {
		return tasks.ErrClosed
	}
	if h.lost.Load() {
		return nil
	}
	ctx := context.Background()
	if err := ack.Run(ctx, s.client, []string{s.stream}, group, s.consumer, h.entry).Err(); err != nil {
		return s.fail(ctx, "release "+h.entry, err)
	}
	return nil
}

// Close stops keeping the claims alive, without acknowledging them, so
// that another instance takes them over once the lease has passed, and
// stops moving due schedules to the stream (they stay, for another
// instance or the next store to move); Claims waiting return ErrClosed.
// It closes the client Open made, not one passed to New. Calling Close
// again does nothing.
func (s *Store) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	close(s.done)
	s.mu.Unlock()
	s.keepAlives.Wait()
	s.scheduler.Wait()
	if s.owned {
		if err := s.client.Close(); err != nil {
			return fmt.Errorf("redis task store: close: %w", err)
		}
	}
	return nil
}
