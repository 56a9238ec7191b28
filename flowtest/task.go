package flowtest

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/flowserve/flowserve/flow"
)

// status records that the case's task entered status s.
func (o *outcome) status(s string) {
	if n := len(o.statuses); n == 0 || o.statuses[n-1] != s {
		o.statuses = append(o.statuses, s)
	}
}

// taskStart says how a case's call starts, as a 2026-07-28 server decides
// it (flow.Program.StartTask): as a task from the start, refused (a
// task: required flow and a client without tasks), or as a call that may
// detach into a task (Detach set).
func taskStart(p *flow.Program, c *Case) (inTask bool, detach *flow.Detach, err error) {
	start, detach := p.StartTask(c.Client.Tasks, flow.DefaultRoundBudget, time.Hour)
	switch start {
	case flow.StartRefused:
		return false, nil, fmt.Errorf("the %s tool runs only as a task: a client without the tasks extension gets JSON-RPC -32021 (give the case client: {tasks: true})", p.Name())
	case flow.StartTask:
		return true, nil, nil
	}
	return false, detach, nil
}

// scopeRefusal is why a server checking OAuth tokens would refuse the
// case's call before any round: its principal lacks some of the flow's
// scopes. A case without a principal models a server without OAuth, which
// checks none.
func scopeRefusal(p *flow.Program, c *Case) error {
	if c.Principal == nil {
		return nil
	}
	var missing []string
	for _, s := range p.Scopes() {
		if !slices.Contains(c.Principal.Scopes, s) {
			missing = append(missing, s)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return fmt.Errorf("HTTP 403 insufficient_scope: the %s tool needs the scopes %s; the caller's token lacks %s",
		p.Name(), strings.Join(p.Scopes(), " "), strings.Join(missing, " "))
}

// The task statuses a case reports (expect.statuses), as tasks/get does.
const (
	statusWorking       = "working"
	statusInputRequired = "input_required"
	statusCompleted     = "completed"
	statusFailed        = "failed"
)
