// Command embed serves a directory of flows from a Go program of its own:
// flowserve.Open wires what `flowserve serve` runs (the built-in actions,
// project.Load, one engine, version pinning, the run and reply stores) and
// the runtime's handler serves Streamable HTTP.
//
//	go run ./examples/embed flows/
package main

import (
	"context"
	"log"
	"net/http"
	"os"

	"github.com/flowserve/flowserve"
	"github.com/flowserve/flowserve/actions"
	"github.com/flowserve/flowserve/actions/std"
	"github.com/flowserve/flowserve/serve"
)

func main() {
	paths := os.Args[1:]
	if len(paths) == 0 {
		paths = []string{"flows"}
	}
	ctx := context.Background()
	rt, err := open(ctx, paths)
	if err != nil {
		log.Fatal(err)
	}
	defer rt.Close(ctx)
	h, err := rt.Handler()
	if err != nil {
		log.Fatal(err)
	}
	log.Print("serving at http://127.0.0.1:8788", serve.EndpointPath)
	log.Fatal(http.ListenAndServe("127.0.0.1:8788", h))
}

// open opens the runtime of the flows of paths, with the built-in actions
// in a registry of its own (no fs root: the fs.* actions refuse) and an
// ephemeral key (give Config.Keys to keep runs across restarts). Flows
// with errors make it fail with a *flowserve.LoadError listing them.
func open(ctx context.Context, paths []string) (*flowserve.Runtime, error) {
	reg := actions.NewRegistry()
	if err := std.Register(reg, nil); err != nil {
		return nil, err
	}
	return flowserve.Open(ctx, flowserve.Config{Paths: paths, Actions: reg})
}
