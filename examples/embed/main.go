// Command embed serves a directory of flows from a Go program of its own:
// the built-in actions go into a registry of its own (std.Register) that
// the server provisions, project.Load turns the files into programs
// (refusing what lint rejects), one flow.Engine runs them, and
// serve.Server is an http.Handler.
//
//	go run ./examples/embed flows/
package main

import (
	"context"
	"log"
	"log/slog"
	"net/http"
	"os"

	"github.com/flowserve/flowserve/actions"
	"github.com/flowserve/flowserve/actions/std"
	"github.com/flowserve/flowserve/flow"
	"github.com/flowserve/flowserve/project"
	"github.com/flowserve/flowserve/serve"
)

func main() {
	paths := os.Args[1:]
	if len(paths) == 0 {
		paths = []string{"flows"}
	}
	srv, cleanup, err := newServer(context.Background(), paths)
	if err != nil {
		log.Fatal(err)
	}
	defer cleanup()
	log.Print("serving ", srv.Tools(), " at http://127.0.0.1:8788/mcp")
	log.Fatal(http.ListenAndServe("127.0.0.1:8788", srv.HTTPHandler(serve.HTTPOptions{})))
}

// newServer loads the flows of paths and serves them on one engine (an
// ephemeral key: give flow.EngineOptions a Codec to keep runs across
// restarts), with the built-in actions; cleanup releases the actions.
func newServer(ctx context.Context, paths []string) (srv *serve.Server, cleanup func(), err error) {
	reg := actions.NewRegistry()
	if err := std.Register(reg, nil); err != nil { // no fs root: the fs.* actions refuse
		return nil, nil, err
	}
	served, err := reg.Provision(ctx, &actions.Host{Logger: slog.Default()})
	if err != nil {
		return nil, nil, err
	}
	set, diags := project.Load(paths, project.Options{Actions: served})
	for _, d := range diags {
		log.Print(d)
	}
	engine, err := flow.NewEngine(flow.EngineOptions{})
	if err == nil {
		err = diags.Err()
	}
	if err == nil {
		srv, err = serve.New(set.Programs, serve.Options{Engine: engine, Resources: set.Resources})
	}
	if err != nil {
		served.Cleanup()
		return nil, nil, err
	}
	return srv, func() { served.Cleanup() }, nil
}
