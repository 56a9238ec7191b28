package approvals

import "time"

// The expiry policy. An approval's question waits, and its links work:
//
//   - with a timeout, until the timeout, when the run goes on down its
//     on_timeout node;
//   - without one, for as long as the run can still be continued: the
//     run's lifetime from the asking (on a server the task's lifetime,
//     --task-ttl). The question never outlives the run, so no link works
//     for a run that is gone, and no run waits for a link that no longer
//     works.
//
// A run that waits for an approval with a timeout is kept for at least
// the timeout plus its lifetime (Lifetime), so that it can go on after the
// timeout as after an answer. The same rule holds on a server, in
// `flowserve run` and in `flowserve test`; the last two give their runs
// DefaultLifetime, a server's default.

// DefaultLifetime is how long a run is kept after its last change unless
// told otherwise: a server's default task lifetime (serve.DefaultTaskTTL,
// --task-ttl), and the lifetime of the runs of `flowserve run` and
// `flowserve test`. An approval without a timeout waits that long.
const DefaultLifetime = 24 * time.Hour

// Expires returns until when the question of an approval asked at asked
// waits and its links work: asked plus timeout, or, when timeout is 0 (the
// ask has none), asked plus lifetime, how long the run can be continued
// from the asking.
func Expires(asked time.Time, timeout, lifetime time.Duration) time.Time {
	if timeout > 0 {
		return asked.Add(timeout)
	}
	return asked.Add(lifetime)
}

// Lifetime returns how long a run must be kept, from the asking, once it
// waits for an approval with timeout: its lifetime so far, stretched to
// the timeout plus base when shorter, so that the run outlives its
// timeout by base (how long a run is kept after its last change, a
// server's --task-ttl) as it would outlive an answer. Without a timeout
// the run keeps its lifetime, which Expires gives the question.
func Lifetime(lifetime, timeout, base time.Duration) time.Duration {
	if timeout > 0 && lifetime < timeout+base {
		return timeout + base
	}
	return lifetime
}
