// Package flowserve is flowserve as a library: Open wires, from one
// Config, what `flowserve serve` runs — the provisioned actions, the flows
// loaded by project.Load, one flow.Engine, the version set that pins each
// run to the version of its flow it began on, the run, reply and version
// stores, tracing — into a Runtime.
//
// A Runtime serves the flows over Streamable HTTP (Handler, HTTPServer),
// over stdio (ServeStdio), or on a go-sdk server the caller owns (Attach),
// next to tools written in Go; Reload and Watch swap in changed flows while
// runs in flight finish on their version; Close releases it all.
//
//	rt, err := flowserve.Open(ctx, flowserve.Config{Paths: []string{"flows"}})
//	if err != nil { ... }
//	defer rt.Close(ctx)
//	h, err := rt.Handler()
//	http.Handle("/", h)
//
// docs/extending.md shows both ways, and docs/architecture.md how a
// tools/call flows through the packages.
package flowserve
