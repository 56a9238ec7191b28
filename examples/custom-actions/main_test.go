package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/flowserve/flowserve/actions"
	"github.com/flowserve/flowserve/cli"
	"github.com/flowserve/flowserve/flow"
	"github.com/flowserve/flowserve/project"
)

// TestActionsListed checks that the custom build lists its actions next
// to the built-ins.
func TestActionsListed(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := cli.Run(context.Background(), []string{"actions"}, strings.NewReader(""), &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	for _, name := range []string{"tickets.create", "tickets.get", "fs.stat"} {
		if !strings.Contains(out.String(), name+"\n") {
			t.Errorf("flowserve actions does not list %s", name)
		}
	}
}

// TestTicketFlow runs the example flow through the engine with the
// default registry, which this build's blank import filled, provisioned as
// a server provisions it when it starts.
func TestTicketFlow(t *testing.T) {
	ctx := context.Background()
	reg, err := actions.Default().Provision(ctx, &actions.Host{})
	if err != nil {
		t.Fatal(err)
	}
	defer reg.Cleanup()
	p, diags := project.LoadFile("flows/new_ticket.yaml", project.Options{Actions: reg})
	if err := diags.Err(); err != nil {
		t.Fatal(err)
	}
	engine, err := flow.NewEngine(flow.EngineOptions{})
	if err != nil {
		t.Fatal(err)
	}
	client := flow.Client{Form: true}
	res, err := engine.Run(ctx, p, &flow.Request{Client: client})
	if err != nil {
		t.Fatal(err)
	}
	if res.Input == nil || res.Input.Requests["details"] == nil {
		t.Fatalf("round 1 did not ask for details: %+v", res)
	}
	final := &flow.Request{
		State:     res.Input.State,
		Client:    client,
		Responses: map[string]json.RawMessage{"details": json.RawMessage(`{"action":"accept","content":{"title":"Printer on fire","priority":"high"}}`)},
	}
	want := "Filed T-1 (high): Printer on fire"
	for attempt := 1; attempt <= 2; attempt++ { // the second is a retry after a lost reply
		res, err = engine.Run(ctx, p, final)
		if err != nil {
			t.Fatal(err)
		}
		if res.Complete == nil || res.Complete.Content[0].(*mcp.TextContent).Text != want {
			t.Fatalf("attempt %d: got %+v, want %q", attempt, res.Complete, want)
		}
	}
}
