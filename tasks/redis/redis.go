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
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/flowserve/flowserve/internal/kv"
	"github.com/flowserve/flowserve/internal/kv/kvredis"
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
	r        *kvredis.Conn
	prefix   string
	stream   string
	due      string
	consumer string
	lease    time.Duration
	now      func() time.Time

	// mu guards takeovers, when Claim next looks for entries to take
	// over, and cursor, where in the pending entries it goes on
	// (XAUTOCLAIM's start).
	mu        sync.Mutex
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

// spec names the store in its errors.
var spec = kvredis.Spec{Name: "redis task store", Closed: tasks.ErrClosed,
	Pass: []error{tasks.ErrNotFound, tasks.ErrExists, tasks.ErrCorrupt}}

// New returns a store that keeps tasks through client. It creates the
// stream and its consumer group unless they exist, so it fails when the
// server does not answer. Close does not close a client passed to New.
func New(client goredis.UniversalClient, opts Options) (*Store, error) {
	return newStore(kvredis.New(client, spec), opts)
}

// Open returns a store on the server a URL names:
// redis://[[user]:password@]host[:port][/db][?options],
// rediss:// for TLS, or unix:///path/to/socket[?db=N]; the options are
// go-redis's (dial_timeout, read_timeout, pool_size, …). Like New, it
// fails when the server does not answer. Close the store when done with
// it.
func Open(url string, opts Options) (*Store, error) {
	return kvredis.Open(url, spec, func(r *kvredis.Conn) (*Store, error) { return newStore(r, opts) })
}

// newStore returns a store on r, once the stream's consumer group is
// there, and starts its scheduler.
func newStore(r *kvredis.Conn, opts Options) (*Store, error) {
	s := &Store{
		r:        r,
		prefix:   cmp.Or(opts.Prefix, DefaultPrefix),
		consumer: opts.Consumer,
		lease:    cmp.Or(opts.Lease, DefaultLease),
		now:      kv.Clock(opts.Now),
		cursor:   "0-0",
		done:     make(chan struct{}),
		reader:   make(chan struct{}, 1),
	}
	s.stream = s.prefix + "queue"
	s.due = s.prefix + "due"
	if s.lease < MinLease {
		return nil, fmt.Errorf("redis task store: lease %s is shorter than %s", s.lease, MinLease)
	}
	if s.consumer == "" {
		c, err := defaultConsumer()
		if err != nil {
			return nil, fmt.Errorf("redis task store: name the consumer: %w", err)
		}
		s.consumer = c
	}
	ctx, cancel := context.WithTimeout(context.Background(), kvredis.SetupTimeout)
	defer cancel()
	if err := s.createGroup(ctx); err != nil {
		return nil, err
	}
	s.scheduler.Add(1)
	go s.schedule()
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
	err := s.r.Client.XGroupCreateMkStream(ctx, s.stream, group, "0").Err()
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

// expired reports whether t is past its expiry by the store's clock.
func (s *Store) expired(t *tasks.Task) bool { return !s.now().Before(t.Expires()) }

// life returns how long Redis is to keep t: the time it has left, rounded
// up to the millisecond; 0 when it has expired.
func (s *Store) life(t *tasks.Task) time.Duration {
	d := t.Expires().Sub(s.now())
	if d <= 0 {
		return 0
	}
	return kvredis.PX(d)
}

// transact runs fn in a transaction watching keys, again while another
// client changed one of them first.
func (s *Store) transact(ctx context.Context, fn func(*goredis.Tx) error, keys ...string) error {
	for {
		err := s.r.Client.Watch(ctx, fn, keys...)
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
		score = strconv.FormatInt(kvredis.CeilMilli(t.Expires()), 10)
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
	if s.r.Closed() {
		return nil, tasks.ErrClosed
	}
	b, err := s.r.Client.Get(ctx, s.Key(id)).Bytes()
	if errors.Is(err, goredis.Nil) {
		return nil, tasks.ErrNotFound
	}
	if err != nil {
		return nil, s.r.Fail(ctx, "get "+id, err)
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
	if s.r.Closed() {
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
		return nil, s.r.Fail(ctx, "update "+id, err)
	}
	return stored, nil
}

// Dispatch adds the task's id to the stream, for one instance's worker to
// claim.
func (s *Store) Dispatch(ctx context.Context, id string) error {
	if s.r.Closed() {
		return tasks.ErrClosed
	}
	err := s.r.Client.XAdd(ctx, &goredis.XAddArgs{Stream: s.stream, Values: []string{"id", id}}).Err()
	if err != nil {
		return s.r.Fail(ctx, "dispatch "+id, err)
	}
	return nil
}

// DispatchAt adds the schedule to the sorted set of schedules, for the
// first store whose clock has reached at to move it to the stream; it adds
// the task's id to the stream at once when at has passed.
func (s *Store) DispatchAt(ctx context.Context, id string, at time.Time) error {
	if s.r.Closed() {
		return tasks.ErrClosed
	}
	if !at.After(s.now()) {
		return s.Dispatch(ctx, id)
	}
	ns := max(at.UnixNano(), 0)
	member := fmt.Sprintf("%016x%s", ns, id)
	score := float64((ns + int64(time.Millisecond) - 1) / int64(time.Millisecond))
	if err := s.r.Client.ZAddNX(ctx, s.due, goredis.Z{Score: score, Member: member}).Err(); err != nil {
		return s.r.Fail(ctx, "schedule "+id, err)
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
		n, err := dispatchDue.Run(ctx, s.r.Client, []string{s.due, s.stream}, now, dueBatch).Int()
		cancel()
		if err != nil || n < dueBatch {
			return
		}
	}
}

// Close stops keeping the claims alive, without acknowledging them, so
// that another instance takes them over once the lease has passed, and
// stops moving due schedules to the stream (they stay, for another
// instance or the next store to move); Claims waiting return ErrClosed.
// It closes the client Open made, not one passed to New. Calling Close
// again does nothing.
func (s *Store) Close() error {
	return s.r.Close(func() {
		close(s.done)
		s.keepAlives.Wait()
		s.scheduler.Wait()
	})
}
