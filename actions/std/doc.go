// Package std holds flowserve's built-in actions:
//
//   - http.request: one HTTP(S) request; at most 10 redirects, 10 MiB bodies, 5m timeouts
//   - time.now, uuid.new, random.int: the clock and randomness that expressions lack
//   - log.info, log.warn, log.error: a structured line in the server's log
//   - fs.stat, fs.read, fs.write, fs.list, fs.remove: files under the fs root
//   - server.reload: reload the served flows (flowserve serve only)
//
// Importing the package registers them in [actions.Default]; [Register]
// adds them to any registry, with [Options]. They are typed actions
// ([actions.Method]) on one module, "std": their schemas are derived from
// the Go types of their inputs and outputs, with a description on every
// property; `flowserve actions` prints them.
//
// They use what the server lends them through an [actions.Host]: fs.* are
// confined to the fs root (Options.FSRoot, or else Host.FSRoot) with
// [os.Root] (no root, no fs actions), http.request uses Host.HTTPClient,
// log.* Host.Logger, time.now Host.Now, uuid.new and random.int Host.Rand,
// server.reload Host.Reload. A server hands the Host over once, by
// provisioning the registry ([actions.Registry.Provision]); on a registry
// it did not provision, the actions read the Host of each call's context
// ([actions.HostFrom]) instead, the way servers lent it before modules
// existed. That fallback is deprecated.
package std
