// Command flowserve-tickets is a custom flowserve build: the standard
// command plus the ticket actions of package tickets. It is made by copying
// cmd/flowserve/main.go and adding one blank import.
//
//	go run ./examples/custom-actions actions          # lists tickets.create and tickets.get
//
// Package tickets shows a typed action API with configuration: its actions
// are methods of a module value that holds a Config and a store, which a
// server provisions when it starts and cleans up when it stops. The blank
// import registers them with the zero Config; an embedder calls
// tickets.Register with its own.
package main

import (
	"github.com/flowserve/flowserve/cli"

	_ "github.com/flowserve/flowserve/examples/custom-actions/tickets" // registers tickets.*
)

func main() { cli.Main() }
