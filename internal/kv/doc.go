// Package kv is the plumbing that flowserve's stores share: the run store
// (package tasks), the version store (package versions) and the reply
// store (package replies), each of which has an implementation in memory,
// in a bbolt file and on Redis.
//
// What is the same in every store lives here:
//
//   - kv (this package): the stored format's decoding, where a record
//     that does not decode or is not valid is the store's ErrCorrupt
//     (Decode), and a store's clock (Clock);
//   - kv/kvbolt: opening a store's bbolt file after checking it
//     (internal/boltcheck: a damaged or truncated file is refused with an
//     error that says how to recover, never a panic), waiting a second
//     for another process to let go of it, making its buckets, the
//     store's errors (closed, in use, naming the file), and deleting the
//     records a walk of a bucket picks (DeleteIf);
//   - kv/kvredis: a store's Redis client, made from a URL or given by the
//     caller (and then not closed by the store), its closed state, its
//     errors, and the millisecond rounding of Redis expiries;
//   - kv/kvtest: the skeleton of a store's contract suite, one table of
//     tests run over each implementation (memory, bolt, Redis), the bolt
//     and Redis backends made from a store's constructors (each test on a
//     file of its own, on a redis-server started for the test), and the
//     checks every bbolt store passes (a file in use, a file that is not
//     a store, the error of a damaged file).
//
// What a store is stays in its package: its records and their stored
// format (tasks.Task, versions.Version, the bytes of a reply), its
// buckets and keys and what they hold, its Redis scripts, its own rules
// (the dispatch queue, claims and schedules of tasks; the extended Until
// and Retire of versions; the bounded, least-recently-used memory of
// replies), and the tests of its contract. None of the plumbing here
// writes a byte of a store's data: a file or a Redis written before it
// existed opens as it did.
package kv
