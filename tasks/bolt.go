package tasks

import (
	"cmp"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/flowserve/flowserve/internal/boltcheck"
	"github.com/flowserve/flowserve/internal/kv"
	"github.com/flowserve/flowserve/internal/kv/kvbolt"
)

// Bolt is a Store in one file on this machine (bbolt): tasks survive
// restarts, and so do dispatches. It is what a server with --data uses;
// one process at a time opens the file.
//
// Dispatch records the task in the file before it queues it in this
// process, and Claim records the claim until Release, so a task
// dispatched but not yet claimed, or claimed by a worker that did not
// finish (it failed, or the process was killed), is dispatched again when
// the file is opened next: the claimed ones first, as takeovers, then the
// others in the order they were dispatched.
//
// DispatchAt records the schedule in the file; a goroutine of the open
// store sleeps until the earliest schedule is due by the store's clock
// (looking again at least every second, and at once when DispatchAt makes
// an earlier one) and moves each due schedule, in one transaction, to the
// dispatches, in the order of their instants. A store opened again
// dispatches at once what fell due while the file was closed.
//
// The file holds five buckets: "tasks" (task id → the task in the
// stored format, Marshal), "queued" (a big-endian 8-byte sequence number
// → the id of a task dispatched and not yet claimed), "claimed" (task
// id → an 8-byte sequence number and the token of the claim not yet
// released), "due" (the big-endian 8-byte unix nanoseconds of a
// schedule's instant, then the task id → nothing) and "open", the index
// of open tasks by principal (boltopen.go).
type Bolt struct {
	f     *kvbolt.File
	now   func() time.Time
	queue *Queue

	// mu orders Dispatch and guards pending: for each task id in the
	// queue, the keys in "queued" of its dispatches, oldest first; and
	// nextLook: when the scheduler looks next at "due" (zero while it
	// looks).
	mu       sync.Mutex
	pending  map[string][]uint64
	nextLook time.Time

	wake      chan struct{}  // DispatchAt made a schedule before nextLook
	done      chan struct{}  // closed by Close; stops the goroutines
	workers   sync.WaitGroup // the sweeper and the scheduler
	closeOnce sync.Once
	closeErr  error
}

// BoltOptions configure OpenBolt.
type BoltOptions struct {
	// Now is the store's clock, which decides when tasks expire; nil
	// means time.Now.
	Now func() time.Time
}

const (
	// boltSweepEvery is how often an open store drops expired tasks.
	boltSweepEvery = time.Minute
	// boltLookEvery bounds how long the scheduler sleeps between looks
	// at the schedules, so that it notices a clock moved by hand
	// (BoltOptions.Now).
	boltLookEvery = time.Second
)

var (
	boltTasks   = []byte("tasks")
	boltQueued  = []byte("queued")
	boltClaimed = []byte("claimed")
	boltDue     = []byte("due")
)

// boltSpec is the file of a Bolt: its buckets, and its names in errors.
var boltSpec = kvbolt.Spec{
	Name:    "task store",
	Kind:    boltcheck.Kind{Store: "run store", Lost: "its tasks are lost"},
	Buckets: [][]byte{boltTasks, boltQueued, boltClaimed, boltDue},
	Closed:  ErrClosed,
	Pass:    []error{ErrNotFound, ErrExists, ErrCorrupt},
}

// OpenBolt opens the task store in the file at path, creating it (mode
// 0600) if it is missing. It drops the tasks that expired while the file
// was closed and dispatches again the tasks that were dispatched and not
// claimed, or claimed and not released. It fails, after a second, when
// another process has the file open. The schedules (DispatchAt) that fell
// due while the file was closed are dispatched at once, after those. Close
// the store when done with it.
//
// OpenBolt checks the file first (boltcheck.Check) and refuses one that
// is damaged or cut short with a *boltcheck.DamagedError ("the run store
// PATH is damaged: ..."), rather than panic or open it empty; a task
// whose record does not decode is no damage to the file: Get and Update
// fail on it with ErrCorrupt, and the other tasks are served.
func OpenBolt(path string, opts BoltOptions) (*Bolt, error) {
	b := &Bolt{
		now:     kv.Clock(opts.Now),
		queue:   NewQueue(),
		pending: map[string][]uint64{},
		wake:    make(chan struct{}, 1),
		done:    make(chan struct{}),
	}
	var takeovers, dispatched []string
	f, err := kvbolt.Open(path, boltSpec, func(tx *bolt.Tx) error {
		if err := b.sweep(tx); err != nil {
			return err
		}
		var err error
		if takeovers, err = b.recoverClaimed(tx); err != nil {
			return err
		}
		dispatched, err = b.recoverQueued(tx)
		return err
	})
	if err != nil {
		return nil, err
	}
	b.f = f
	for _, id := range takeovers {
		b.queue.Push(id, true)
	}
	for _, id := range dispatched {
		b.queue.Push(id, false)
	}
	b.workers.Add(2)
	go b.sweepEvery(boltSweepEvery)
	go b.schedule()
	return b, nil
}

// recoverClaimed returns the ids of the claims that were not released, in
// the order they were claimed, and forgets those of tasks that are gone.
func (b *Bolt) recoverClaimed(tx *bolt.Tx) ([]string, error) {
	type claimed struct {
		seq uint64
		id  string
	}
	var found []claimed
	tasks := tx.Bucket(boltTasks)
	err := kvbolt.DeleteIf(tx.Bucket(boltClaimed), func(k, v []byte) bool {
		if len(v) < 8 || tasks.Get(k) == nil {
			return true
		}
		found = append(found, claimed{binary.BigEndian.Uint64(v), string(k)})
		return false
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(found, func(a, b claimed) int { return cmp.Compare(a.seq, b.seq) })
	ids := make([]string, len(found))
	for i, c := range found {
		ids[i] = c.id
	}
	return ids, nil
}

// recoverQueued returns the ids of the dispatches not claimed, in the
// order they were made, noting them in b.pending, and forgets those of
// tasks that are gone.
func (b *Bolt) recoverQueued(tx *bolt.Tx) ([]string, error) {
	var ids []string
	tasks := tx.Bucket(boltTasks)
	err := kvbolt.DeleteIf(tx.Bucket(boltQueued), func(k, v []byte) bool {
		if len(k) != 8 || tasks.Get(v) == nil {
			return true
		}
		id := string(v)
		ids = append(ids, id)
		b.pending[id] = append(b.pending[id], binary.BigEndian.Uint64(k))
		return false
	})
	if err != nil {
		return nil, err
	}
	return ids, nil
}

// sweep drops the expired tasks, and the schedules of tasks that are gone.
// A task that does not decode stays, for Get to report as ErrCorrupt.
func (b *Bolt) sweep(tx *bolt.Tx) error {
	now := b.now()
	bk := tx.Bucket(boltTasks)
	err := kvbolt.DeleteIf(bk, func(_, v []byte) bool {
		var life struct {
			Updated time.Time     `json:"updated"`
			TTL     time.Duration `json:"ttl"`
		}
		return json.Unmarshal(v, &life) == nil && !now.Before(life.Updated.Add(life.TTL))
	})
	if err != nil {
		return err
	}
	return kvbolt.DeleteIf(tx.Bucket(boltDue), func(k, _ []byte) bool {
		return len(k) < 8 || bk.Get(k[8:]) == nil
	})
}

// sweepEvery sweeps every d until Close.
func (b *Bolt) sweepEvery(d time.Duration) {
	defer b.workers.Done()
	tick := time.NewTicker(d)
	defer tick.Stop()
	for {
		select {
		case <-b.done:
			return
		case <-tick.C:
			b.f.DB.Update(b.sweep) // a failure leaves the tasks for the next sweep
		}
	}
}

// expired reports whether t is past its expiry by the store's clock.
func (b *Bolt) expired(t *Task) bool { return !b.now().Before(t.Expires()) }

// decode returns the task stored under id as v, or an ErrCorrupt that
// names it: the record does not decode, or it is another task's.
func (b *Bolt) decode(id string, v []byte) (*Task, error) {
	t, err := Unmarshal(v)
	if err == nil && t.ID != id {
		err = fmt.Errorf("%w: it holds task %q", ErrCorrupt, t.ID)
	}
	if err != nil {
		return nil, fmt.Errorf("task %s in the run store %s: %w", id, b.f.Path, err)
	}
	return t, nil
}

// Create stores t, unless a task that has not expired has its id.
func (b *Bolt) Create(ctx context.Context, t *Task) error {
	return b.CreateLimited(ctx, t, 0)
}

// Get returns the task, dropping it when it has expired.
func (b *Bolt) Get(ctx context.Context, id string) (*Task, error) {
	var t *Task
	err := b.f.View(ctx, func(tx *bolt.Tx) error {
		v := tx.Bucket(boltTasks).Get([]byte(id))
		if v == nil {
			return ErrNotFound
		}
		var err error
		t, err = b.decode(id, v) // copies out of the transaction's memory
		return err
	})
	if err != nil {
		return nil, err
	}
	if b.expired(t) {
		if err := b.drop(id); err != nil {
			return nil, err
		}
		return nil, ErrNotFound
	}
	return t, nil
}

// drop deletes task id if it has expired. (It may have been created
// again since it was read: no update makes an expired task live again.)
func (b *Bolt) drop(id string) error {
	return b.f.Fail(b.f.DB.Update(func(tx *bolt.Tx) error {
		bk := tx.Bucket(boltTasks)
		v := bk.Get([]byte(id))
		if v == nil {
			return nil
		}
		t, err := Unmarshal(v)
		if err != nil || !b.expired(t) {
			return nil
		}
		if err := b.unindexOpen(tx, t); err != nil {
			return err
		}
		return bk.Delete([]byte(id))
	}))
}

// Update applies fn to the task in one read-write transaction, so fn runs
// once and no other write to the file happens meanwhile; fn must not call
// the store. An expired task is dropped and ErrNotFound returned.
func (b *Bolt) Update(ctx context.Context, id string, fn func(*Task) error) (*Task, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var (
		stored  *Task
		fnErr   error
		expired bool
	)
	err := b.f.DB.Update(func(tx *bolt.Tx) error {
		bk := tx.Bucket(boltTasks)
		key := []byte(id)
		v := bk.Get(key)
		if v == nil {
			return ErrNotFound
		}
		t, err := b.decode(id, v)
		if err != nil {
			return err
		}
		open, err := b.openIndex(tx)
		if err != nil {
			return err
		}
		if b.expired(t) {
			expired = true
			if err := open.Delete(openKey(t.Principal, id)); err != nil {
				return err
			}
			return bk.Delete(key)
		}
		old := &Task{ID: id, Principal: t.Principal} // its index entry
		if fnErr = fn(t); fnErr != nil {
			return fnErr
		}
		t.ID = id
		enc, err := Marshal(t)
		if err != nil {
			return err
		}
		stored = t
		if err := bk.Put(key, enc); err != nil {
			return err
		}
		return indexOpen(open, old, t)
	})
	switch {
	case fnErr != nil:
		return nil, fnErr
	case err != nil:
		return nil, b.f.Fail(err)
	case expired:
		return nil, ErrNotFound
	}
	return stored.Clone(), nil
}

// Dispatch records the dispatch in the file and queues the task for this
// process's workers.
func (b *Bolt) Dispatch(ctx context.Context, id string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	var seq uint64
	err := b.f.Update(ctx, func(tx *bolt.Tx) error {
		bk := tx.Bucket(boltQueued)
		var err error
		if seq, err = bk.NextSequence(); err != nil {
			return err
		}
		return bk.Put(binary.BigEndian.AppendUint64(nil, seq), []byte(id))
	})
	if err != nil {
		return err
	}
	b.pending[id] = append(b.pending[id], seq)
	return b.queue.Push(id, false)
}

// DispatchAt records the schedule in the file, for the scheduler to
// dispatch the task once the store's clock reaches at; it dispatches the
// task at once when at has passed.
func (b *Bolt) DispatchAt(ctx context.Context, id string, at time.Time) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if !at.After(b.now()) {
		return b.Dispatch(ctx, id)
	}
	err := b.f.Update(ctx, func(tx *bolt.Tx) error {
		return tx.Bucket(boltDue).Put(dueKey(at, id), []byte{})
	})
	if err != nil {
		return err
	}
	b.mu.Lock()
	wake := b.nextLook.IsZero() || at.Before(b.nextLook)
	b.mu.Unlock()
	if wake {
		select {
		case b.wake <- struct{}{}:
		default: // a wake-up is on its way
		}
	}
	return nil
}

// dueKey returns the key in "due" of a schedule of task id at at. Instants
// before 1970 count as 1970.
func dueKey(at time.Time, id string) []byte {
	return append(binary.BigEndian.AppendUint64(nil, uint64(max(at.UnixNano(), 0))), id...)
}

// schedule dispatches the due schedules until Close: it looks at once,
// then whenever the next schedule falls due, DispatchAt makes an earlier
// one, or boltLookEvery has passed.
func (b *Bolt) schedule() {
	defer b.workers.Done()
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-b.done:
			return
		case <-timer.C:
		case <-b.wake:
		}
		b.mu.Lock()
		b.nextLook = time.Time{}
		b.mu.Unlock()
		next, err := b.dispatchDue()
		sleep := boltLookEvery // also after a failure: try again then
		if err == nil && !next.IsZero() {
			sleep = min(sleep, max(next.Sub(b.now()), 0))
		}
		b.mu.Lock()
		b.nextLook = b.now().Add(sleep)
		b.mu.Unlock()
		timer.Reset(sleep)
	}
}

// dispatchDue dispatches the schedules that are due, earliest first, each
// in one transaction that moves it from "due" to "queued" (a schedule of
// a task that is gone is dropped), and returns the instant of the next
// schedule, zero when there is none.
func (b *Bolt) dispatchDue() (time.Time, error) {
	for {
		select {
		case <-b.done:
			return time.Time{}, ErrClosed
		default:
		}
		var (
			next     time.Time
			found    bool // a due schedule, dispatched or dropped
			id       string
			seq      uint64
			dispatch bool
		)
		b.mu.Lock()
		err := b.f.DB.Update(func(tx *bolt.Tx) error {
			due := tx.Bucket(boltDue)
			k, _ := due.Cursor().First()
			if k == nil {
				return nil
			}
			if len(k) >= 8 {
				at := time.Unix(0, int64(binary.BigEndian.Uint64(k)))
				if at.After(b.now()) {
					next = at
					return nil
				}
				id = string(k[8:])
			}
			found = true
			if err := due.Delete(slices.Clone(k)); err != nil {
				return err
			}
			if len(k) < 8 || tx.Bucket(boltTasks).Get([]byte(id)) == nil {
				return nil
			}
			bk := tx.Bucket(boltQueued)
			var err error
			if seq, err = bk.NextSequence(); err != nil {
				return err
			}
			dispatch = true
			return bk.Put(binary.BigEndian.AppendUint64(nil, seq), []byte(id))
		})
		if err == nil && dispatch {
			b.pending[id] = append(b.pending[id], seq)
			err = b.queue.Push(id, false)
		}
		b.mu.Unlock()
		if err != nil {
			return time.Time{}, b.f.Fail(err)
		}
		if !found {
			return next, nil
		}
	}
}

// Claim waits for a dispatched task and records the claim in the file,
// where it stays until Release.
func (b *Bolt) Claim(ctx context.Context) (*Claim, error) {
	id, takeover, err := b.queue.Pop(ctx)
	if err != nil {
		return nil, err
	}
	var c *Claim
	c, err = NewClaim(id, takeover, func() error { return b.release(id, c.Token) })
	if err != nil {
		return nil, err
	}
	// A takeover comes from "claimed", a dispatch from "queued".
	var seq uint64
	var queued bool
	if !takeover {
		b.mu.Lock()
		if s := b.pending[id]; len(s) > 0 {
			seq, queued = s[0], true
			if len(s) == 1 {
				delete(b.pending, id)
			} else {
				b.pending[id] = s[1:]
			}
		}
		b.mu.Unlock()
	}
	err = b.f.DB.Update(func(tx *bolt.Tx) error {
		if queued {
			if err := tx.Bucket(boltQueued).Delete(binary.BigEndian.AppendUint64(nil, seq)); err != nil {
				return err
			}
		}
		bk := tx.Bucket(boltClaimed)
		n, err := bk.NextSequence()
		if err != nil {
			return err
		}
		return bk.Put([]byte(id), append(binary.BigEndian.AppendUint64(nil, n), c.Token...))
	})
	if err != nil {
		return nil, b.f.Fail(err)
	}
	return c, nil
}

// release forgets the claim with token of task id, unless a later claim
// of the task replaced it.
func (b *Bolt) release(id, token string) error {
	return b.f.Fail(b.f.DB.Update(func(tx *bolt.Tx) error {
		bk := tx.Bucket(boltClaimed)
		if v := bk.Get([]byte(id)); len(v) >= 8 && string(v[8:]) == token {
			return bk.Delete([]byte(id))
		}
		return nil
	}))
}

// Close stops the sweeper and the scheduler, wakes waiting Claims with
// ErrClosed and closes the file. The claims not released stay recorded,
// to be taken over when the file is opened next, and so do the schedules
// not yet due. Calling Close again does nothing.
func (b *Bolt) Close() error {
	b.closeOnce.Do(func() {
		close(b.done)
		b.workers.Wait()
		b.queue.Close()
		b.closeErr = b.f.Close()
	})
	return b.closeErr
}
