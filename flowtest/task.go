package flowtest

import (
	"fmt"
	"time"

	"github.com/flowserve/flowserve/dsl"
	"github.com/flowserve/flowserve/flow"
)

// status records that the case's task entered status s.
func (o *outcome) status(s string) {
	if n := len(o.statuses); n == 0 || o.statuses[n-1] != s {
		o.statuses = append(o.statuses, s)
	}
}

// taskStart says how a case's call starts, as a 2026-07-28 server decides
// it (serve/tasks.go): as a task from the start (a task: required flow
// and a client with tasks), refused (the same flow and a client without),
// or as a call that may detach into a task (Detach set).
func taskStart(p *flow.Program, c *Case) (inTask bool, detach *flow.Detach, err error) {
	if p.IsPrompt() {
		return false, nil, nil
	}
	switch mode := p.File().TaskMode(); {
	case mode == dsl.TaskRequired && !c.Client.Tasks:
		return false, nil, fmt.Errorf("the %s tool runs only as a task: a client without the tasks extension gets JSON-RPC -32021 (give the case client: {tasks: true})", p.Name())
	case mode == dsl.TaskRequired:
		return true, nil, nil
	case mode == dsl.TaskAuto && c.Client.Tasks:
		return false, &flow.Detach{Rounds: flow.DefaultRoundBudget, TTL: time.Hour}, nil
	}
	return false, nil, nil
}

// The task statuses a case reports (expect.statuses), as tasks/get does.
const (
	statusWorking       = "working"
	statusInputRequired = "input_required"
	statusCompleted     = "completed"
	statusFailed        = "failed"
)
