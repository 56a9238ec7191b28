// Package std registers flowserve's built-in actions in [actions.Default]
// when it is imported:
//
//   - http.request: one HTTP(S) request; at most 10 redirects, 10 MiB bodies, 5m timeouts
//   - time.now, uuid.new, random.int: the clock and randomness that expressions lack
//   - log.info, log.warn, log.error: a structured line in the server's log
//   - fs.stat, fs.read, fs.write, fs.list, fs.remove: files under the host's fs root
//
// Each action's input and output schemas, with a description on every
// property, are in its registration; `flowserve actions` prints them. The
// actions read what the server lends them from [actions.HostFrom]: fs.* are
// confined to Host.FSRoot with [os.Root] (no root, no fs actions), http.request
// uses Host.HTTPClient, log.* Host.Logger, time.now Host.Now, and uuid.new and
// random.int Host.Rand.
package std
