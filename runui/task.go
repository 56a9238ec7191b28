package runui

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/flowserve/flowserve/flow"
)

// taskEvery is how often flowserve run says a long step is still running.
const taskEvery = 5 * time.Second

// taskReporter plays a client that declared the tasks extension: it says
// when the call becomes a task, each status the task enters, and every
// taskEvery that a long step is still running.
type taskReporter struct {
	out      io.Writer
	p        *flow.Program
	mu       sync.Mutex
	last     string
	stopTick chan struct{} // closed to end the ticker of the running long step
}

// start says how the call starts: as a task at once (task: required), or
// as a call that may become one (the Detach to run its rounds with).
func (t *taskReporter) start() (inTask bool, detach *flow.Detach) {
	start, detach := t.p.StartTask(true, flow.DefaultRoundBudget, time.Hour)
	if start == flow.StartTask {
		t.status("working", "the tool runs only as a task")
		return true, nil
	}
	return false, detach
}

// why says why a round detached.
func (t *taskReporter) why(d *flow.Detached) string {
	if d.Node != "" {
		return fmt.Sprintf("step %s is long", d.Node)
	}
	return fmt.Sprintf("more than %d rounds of questions", flow.DefaultRoundBudget)
}

// status prints the task's status when it changes.
func (t *taskReporter) status(s, why string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if s == t.last && why == "" {
		return
	}
	t.last = s
	if why != "" {
		fmt.Fprintf(t.out, "· task %s: %s\n", s, why)
		return
	}
	fmt.Fprintf(t.out, "· task %s\n", s)
}

// onStep reports the steps that run; a long one is reported again every
// taskEvery while it runs.
func (t *taskReporter) onStep(node, action string, _ int, done bool) {
	_, n := t.p.Node(node)
	long := n != nil && n.Step != nil && n.Step.Long
	if !done {
		if long {
			t.tick(node, action)
		}
		return
	}
	if long {
		t.stop()
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	fmt.Fprintf(t.out, "· ran step %s (%s)\n", node, action)
}

// tick starts saying that the long step node is running.
func (t *taskReporter) tick(node, action string) {
	t.stop()
	stop := make(chan struct{})
	t.mu.Lock()
	t.stopTick = stop
	status := t.last
	t.mu.Unlock()
	if status == "" {
		status = "call"
	} else {
		status = "task " + status
	}
	start := time.Now()
	go func() {
		tk := time.NewTicker(taskEvery)
		defer tk.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tk.C:
				t.mu.Lock()
				fmt.Fprintf(t.out, "· %s: step %s (%s) running for %s\n", status, node, action, time.Since(start).Round(time.Second))
				t.mu.Unlock()
			}
		}
	}()
}

// stop ends the ticker of the running long step, if any.
func (t *taskReporter) stop() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.stopTick != nil {
		close(t.stopTick)
		t.stopTick = nil
	}
}
