// Command flowserve-tickets is a custom flowserve build: the standard
// command plus the ticket actions of package tickets. It is made by copying
// cmd/flowserve/main.go and adding one blank import.
//
//	go run ./examples/custom-actions actions          # lists tickets.create and tickets.get
package main

import (
	"github.com/flowserve/flowserve/cli"

	_ "github.com/flowserve/flowserve/examples/custom-actions/tickets" // registers tickets.*
)

func main() { cli.Main() }
