// Command embed serves a directory of flows from a Go program of its own:
// project.Load turns the files into programs (refusing what lint rejects),
// one flow.Engine runs them, and serve.Server is an http.Handler.
//
//	go run ./examples/embed flows/
package main

import (
	"log"
	"net/http"
	"os"

	_ "github.com/flowserve/flowserve/actions/std" // the built-in actions
	"github.com/flowserve/flowserve/flow"
	"github.com/flowserve/flowserve/project"
	"github.com/flowserve/flowserve/serve"
)

func main() {
	paths := os.Args[1:]
	if len(paths) == 0 {
		paths = []string{"flows"}
	}
	srv, err := newServer(paths)
	if err != nil {
		log.Fatal(err)
	}
	log.Print("serving ", srv.Tools(), " at http://127.0.0.1:8788/mcp")
	log.Fatal(http.ListenAndServe("127.0.0.1:8788", srv.HTTPHandler(serve.HTTPOptions{})))
}

// newServer loads the flows of paths and serves them on one engine (an
// ephemeral key: give flow.EngineOptions a Codec to keep runs across
// restarts).
func newServer(paths []string) (*serve.Server, error) {
	set, diags := project.Load(paths, project.Options{})
	for _, d := range diags {
		log.Print(d)
	}
	if err := diags.Err(); err != nil {
		return nil, err
	}
	engine, err := flow.NewEngine(flow.EngineOptions{})
	if err != nil {
		return nil, err
	}
	return serve.New(set.Programs, serve.Options{Engine: engine, Resources: set.Resources})
}
