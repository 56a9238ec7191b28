// Package redis implements versions.Store on Redis, so that many
// flowserve instances sharing one Redis share the versions they served: a
// round that began on version V on one instance goes on on V on any
// other, during a rolling deploy as after it (DESIGN §13).
//
// The store keeps three kinds of keys:
//
//   - "<prefix><id>", a string holding the version in the stored format
//     (versions.Marshal) as it was first put, with an expiry (PEXPIREAT)
//     at its Until plus ExpiryMargin, so that Redis drops it on its own a
//     while after the store would, and a Get right at Until still finds
//     it whatever the clocks of the instances and of Redis say;
//   - "<prefix>until", a sorted set of the ids of the stored versions,
//     each scored with its Until in unix milliseconds (rounded up): the
//     Until of a version, which Put and Keep extend, is this score, not
//     the one in the string (so extending it does not rewrite the flow
//     file's bytes), and Get says ErrNotFound once it has passed, by the
//     store's clock;
//   - "<prefix>tools", a hash of the tool of each version in the set, by
//     id, so that Retire reports a version's tool even when Redis has
//     dropped its string already.
//
// Put, Keep and Retire are Lua scripts, so each is atomic however many
// instances share the keys. Put stores the version unless a version with
// its id is stored and its Until has not passed, which it extends instead;
// Keep extends the score and the string's expiry only when the new Until
// is later; Retire takes the ids whose score is before now from the set
// and deletes their strings and tools in one step (in batches of
// retireBatch), so that each retired version is returned to one caller
// only.
//
// Redis keeps Until to the millisecond: Get returns it rounded up to one.
//
// On a Redis Cluster the scripts need every key in one slot: give the
// prefix a hash tag ("{flowserve}:version:"). Use a Redis whose eviction
// policy is noeviction: an evicted version is lost.
package redis

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/flowserve/flowserve/internal/kv"
	"github.com/flowserve/flowserve/internal/kv/kvredis"
	"github.com/flowserve/flowserve/versions"
)

// DefaultPrefix starts the keys of a Store whose Options name no prefix.
const DefaultPrefix = "flowserve:version:"

// ExpiryMargin is how long after a version's Until Redis keeps its string.
const ExpiryMargin = time.Minute

// retireBatch is how many versions one run of the retire script takes at
// most; Retire runs it again while it takes that many.
const retireBatch = 100

// Options configure a Store.
type Options struct {
	// Prefix starts every key of the store; "" means DefaultPrefix. The
	// instances that share versions use the same prefix.
	Prefix string
	// Now is the store's clock, which decides when versions expire and
	// what a zero Served becomes; nil means time.Now.
	Now func() time.Time
}

// Store is a version store on a Redis server or cluster. It is safe for
// concurrent use.
type Store struct {
	r      *kvredis.Conn
	prefix string
	until  string
	tools  string
	now    func() time.Time
}

// spec names the store in its errors.
var spec = kvredis.Spec{Name: "redis version store", Closed: versions.ErrClosed}

// put stores a version: KEYS are its string, the set and the hash; ARGV
// its id, its stored format, its Until and the store's now in unix
// milliseconds, the margin in milliseconds and its tool. When the set
// scores the id with an Until not before now and the string is there, it
// extends both to the new Until if that is later and returns 0;
// otherwise it writes all three and returns 1.
var put = goredis.NewScript(`
local to, now, margin = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local old = redis.call('ZSCORE', KEYS[2], ARGV[1])
if old and tonumber(old) >= now and redis.call('EXISTS', KEYS[1]) == 1 then
	if to > tonumber(old) then
		redis.call('ZADD', KEYS[2], to, ARGV[1])
		redis.call('PEXPIREAT', KEYS[1], to + margin)
	end
	return 0
end
redis.call('SET', KEYS[1], ARGV[2])
redis.call('PEXPIREAT', KEYS[1], to + margin)
redis.call('ZADD', KEYS[2], to, ARGV[1])
redis.call('HSET', KEYS[3], ARGV[1], ARGV[6])
return 1
`)

// keep extends a version's Until: KEYS are its string and the set; ARGV
// its id, the new Until and the store's now in unix milliseconds, and the
// margin in milliseconds. It returns 0 when the version is not stored or
// its Until has passed, 1 otherwise.
var keep = goredis.NewScript(`
local to, now, margin = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local old = redis.call('ZSCORE', KEYS[2], ARGV[1])
if not old or tonumber(old) < now or redis.call('EXISTS', KEYS[1]) == 0 then
	return 0
end
if to > tonumber(old) then
	redis.call('ZADD', KEYS[2], 'XX', to, ARGV[1])
	redis.call('PEXPIREAT', KEYS[1], to + margin)
end
return 1
`)

// retire takes from the set KEYS[1] the ids scored before ARGV[1] (unix
// milliseconds), at most ARGV[3] of them, earliest first, deletes each
// one's string (ARGV[2] followed by the id) and its tool in the hash
// KEYS[2], and returns {id, tool, score, …}.
var retire = goredis.NewScript(`
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[1], 'WITHSCORES', 'LIMIT', 0, tonumber(ARGV[3]))
local out = {}
for i = 1, #due, 2 do
	local id = due[i]
	out[#out + 1] = id
	out[#out + 1] = redis.call('HGET', KEYS[2], id) or ''
	out[#out + 1] = due[i + 1]
	redis.call('ZREM', KEYS[1], id)
	redis.call('HDEL', KEYS[2], id)
	redis.call('DEL', ARGV[2] .. id)
end
return out
`)

// New returns a store that keeps versions through client. It fails when
// the server does not answer PING. Close does not close a client passed
// to New.
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

// newStore returns a store on r, once the server answers PING.
func newStore(r *kvredis.Conn, opts Options) (*Store, error) {
	s := &Store{r: r, prefix: cmp.Or(opts.Prefix, DefaultPrefix), now: kv.Clock(opts.Now)}
	s.until = s.prefix + "until"
	s.tools = s.prefix + "tools"
	ctx, cancel := context.WithTimeout(context.Background(), kvredis.SetupTimeout)
	defer cancel()
	if err := r.Client.Ping(ctx).Err(); err != nil {
		return nil, fmt.Errorf("redis version store: %w", err)
	}
	return s, nil
}

// Key returns the Redis key version id is stored under.
func (s *Store) Key(id string) string { return s.prefix + id }

// Until returns the key of the sorted set of the versions' Until.
func (s *Store) Until() string { return s.until }

// Tools returns the key of the hash of the versions' tools.
func (s *Store) Tools() string { return s.tools }

// nowMillis returns the store's clock in unix milliseconds, rounded down:
// a version is live while its Until, rounded up, is not before it.
func (s *Store) nowMillis() int64 { return s.now().UnixMilli() }

// Put stores v, or extends the Until of the version stored under its ID.
func (s *Store) Put(ctx context.Context, v *versions.Version) error {
	if s.r.Closed() {
		return versions.ErrClosed
	}
	if err := versions.Check(v); err != nil {
		return err
	}
	now := s.now()
	until := kvredis.CeilMilli(v.Until)
	if until < now.UnixMilli() {
		return nil // it would extend no live version, nor be stored
	}
	c := *v
	if c.Served.IsZero() {
		c.Served = now
	}
	enc, err := versions.Marshal(&c)
	if err != nil {
		return err
	}
	keys := []string{s.Key(v.ID), s.until, s.tools}
	err = put.Run(ctx, s.r.Client, keys, v.ID, enc, until, now.UnixMilli(), ExpiryMargin.Milliseconds(), v.Tool).Err()
	if err != nil {
		return s.r.Fail(ctx, "put "+v.ID, err)
	}
	return nil
}

// Get returns the version, with the Until the set scores it with.
func (s *Store) Get(ctx context.Context, id string) (*versions.Version, error) {
	if s.r.Closed() {
		return nil, versions.ErrClosed
	}
	if !versions.ValidID(id) {
		return nil, versions.ErrNotFound
	}
	var (
		val   *goredis.StringCmd
		score *goredis.FloatCmd
	)
	_, err := s.r.Client.TxPipelined(ctx, func(p goredis.Pipeliner) error {
		val = p.Get(ctx, s.Key(id))
		score = p.ZScore(ctx, s.until, id)
		return nil
	})
	if errors.Is(err, goredis.Nil) {
		return nil, versions.ErrNotFound
	}
	if err != nil {
		return nil, s.r.Fail(ctx, "get "+id, err)
	}
	until := int64(score.Val())
	if until < s.nowMillis() {
		return nil, versions.ErrNotFound
	}
	b, err := val.Bytes()
	if err != nil {
		return nil, s.r.Fail(ctx, "get "+id, err)
	}
	v, err := versions.Unmarshal(b)
	if err != nil {
		return nil, err
	}
	if v.ID != id {
		return nil, versions.ErrCorrupt
	}
	v.Until = time.UnixMilli(until).UTC()
	return v, nil
}

// Keep extends the version's Until to until when that is later.
func (s *Store) Keep(ctx context.Context, id string, until time.Time) error {
	if s.r.Closed() {
		return versions.ErrClosed
	}
	if !versions.ValidID(id) {
		return versions.ErrNotFound
	}
	keys := []string{s.Key(id), s.until}
	n, err := keep.Run(ctx, s.r.Client, keys, id, kvredis.CeilMilli(until), s.nowMillis(), ExpiryMargin.Milliseconds()).Int()
	if err != nil {
		return s.r.Fail(ctx, "keep "+id, err)
	}
	if n == 0 {
		return versions.ErrNotFound
	}
	return nil
}

// Retire removes the versions whose Until is before now and returns their
// IDs, tools and Until, earliest Until first, running the retire script
// until it finds no more of them. Each run is atomic: a version another
// instance retired is not returned again. When Redis fails after some
// runs, Retire returns what those took along with the error.
func (s *Store) Retire(ctx context.Context, now time.Time) ([]*versions.Version, error) {
	if s.r.Closed() {
		return nil, versions.ErrClosed
	}
	var retired []*versions.Version
	for {
		res, err := retire.Run(ctx, s.r.Client, []string{s.until, s.tools}, now.UnixMilli(), s.prefix, retireBatch).StringSlice()
		if err != nil {
			return retired, s.r.Fail(ctx, "retire", err)
		}
		for i := 0; i+2 < len(res); i += 3 {
			ms, err := strconv.ParseFloat(res[i+2], 64)
			if err != nil {
				return retired, fmt.Errorf("redis version store: retire: the score of %s: %w", res[i], err)
			}
			retired = append(retired, &versions.Version{ID: res[i], Tool: res[i+1], Until: time.UnixMilli(int64(ms)).UTC()})
		}
		if len(res)/3 < retireBatch {
			return retired, nil
		}
	}
}

// Close releases the store, and the client when Open made it. Calling it
// again does nothing.
func (s *Store) Close() error { return s.r.Close(nil) }
