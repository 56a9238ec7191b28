package tasks_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/flowserve/flowserve/internal/kv/kvtest"
	"github.com/flowserve/flowserve/tasks"
	"github.com/flowserve/flowserve/tasks/storetest"
)

// oldStart is the clock of the store that wrote testdata/tasks-v1.db.gz.
var oldStart = time.Date(2026, 5, 4, 3, 2, 1, 0, time.UTC)

// oldTask returns task id as the store of testdata/tasks-v1.db.gz was
// given it.
func oldTask(id, principal string, st tasks.Status) *tasks.Task {
	return &tasks.Task{ID: id, Tool: "deploy", Version: "9f86d081884c7d65", Principal: principal,
		Identity:  &tasks.Identity{Subject: principal, Scopes: []string{"deploy"}},
		Arguments: json.RawMessage(`{"env":"prod"}`), Client: tasks.Client{Name: "cli", Protocol: "2026-07-28", Form: true},
		State: "sealed-" + id, Status: st, Message: "msg " + id,
		Requests:  map[string]json.RawMessage{"q-1": json.RawMessage(`{"method":"elicitation/create","params":{}}`)},
		Questions: map[string]string{"q-1": "q"}, Answers: map[string]json.RawMessage{"q": json.RawMessage(`"yes"`)},
		Created: oldStart.Add(-time.Minute), Updated: oldStart, TTL: 24 * time.Hour, Asked: 1, Runs: 1}
}

// TestBoltOldFile opens a run store written by an earlier flowserve
// (testdata/tasks-v1.db.gz: five tasks, one claimed and not released, two
// dispatched, one scheduled an hour on): its tasks, its count of open
// tasks, its takeover, its dispatches and its schedule are all there.
func TestBoltOldFile(t *testing.T) {
	ctx := context.Background()
	path := kvtest.Unzip(t, "testdata/tasks-v1.db.gz", "tasks.db")
	clock := kvtest.NewClock(oldStart.Add(time.Minute))
	s := openBolt(t, path, clock.Now)

	want := []*tasks.Task{
		oldTask("00000000000000000000000000000001", "alice", tasks.Working),
		oldTask("00000000000000000000000000000002", "alice", tasks.InputRequired),
		oldTask("00000000000000000000000000000003", "alice", tasks.Completed),
		oldTask("00000000000000000000000000000004", "bob", tasks.Working),
		oldTask("00000000000000000000000000000005", "", tasks.Working),
	}
	want[2].Result = json.RawMessage(`{"content":[]}`)
	want[3].Approval = &tasks.Approval{Key: "ask-1", Node: "ask", Request: json.RawMessage(`{"method":"elicitation/create"}`),
		To: "ops", Asked: oldStart, Expires: oldStart.Add(time.Hour), Deadline: oldStart.Add(2 * time.Hour)}
	for _, w := range want {
		got, err := s.Get(ctx, w.ID)
		if err != nil {
			t.Fatalf("Get(%s): %v", w.ID, err)
		}
		storetest.Same(t, "Get of a task of the old file", got, w)
	}
	for principal, n := range map[string]int{"alice": 2, "bob": 1, "": 1, "carol": 0} {
		if got, err := s.OpenTasks(ctx, principal, 0); err != nil || got != n {
			t.Errorf("OpenTasks(%q) = %d, %v, want %d", principal, got, err, n)
		}
	}
	claims := []struct {
		id       string
		takeover bool
	}{{want[0].ID, true}, {want[1].ID, false}, {want[3].ID, false}}
	for i, w := range claims {
		c := mustClaim(t, s)
		if c.ID != w.id || c.Takeover != w.takeover {
			t.Fatalf("claim %d = {%s, takeover %v}, want {%s, takeover %v}", i, c.ID, c.Takeover, w.id, w.takeover)
		}
		if err := c.Release(); err != nil {
			t.Fatalf("Release: %v", err)
		}
	}
	clock.Advance(time.Hour) // the schedule of the fifth task falls due
	if c := mustClaim(t, s); c.ID != want[4].ID || c.Takeover {
		t.Fatalf("claim of the schedule = {%s, takeover %v}, want {%s, takeover false}", c.ID, c.Takeover, want[4].ID)
	}
}
