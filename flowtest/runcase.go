package flowtest

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"time"

	"github.com/flowserve/flowserve/approvals"
	"github.com/flowserve/flowserve/dsl"
	"github.com/flowserve/flowserve/flow"
	"github.com/flowserve/flowserve/flow/drive"
)

// maxRounds bounds the rounds of one case; the journal limit normally
// ends a runaway loop first.
const maxRounds = 1000

// outcome is what a case's call ended with.
type outcome struct {
	result *flow.ToolResult   // a result, or nil
	prompt *flow.PromptResult // a prompt flow's messages, or nil
	err    error              // an error that is not a result
	trace  []string           // the nodes of the last round that returned
	asks   []string           // the questions asked, in order
	msgs   map[string][]string
	inputs map[string]map[string]any // the last input of each step that ran
	rounds int
	// statuses are the task statuses the call went through, without
	// repeats; nil when it never became a task.
	statuses []string
	// approvals counts the approvals asked (not the answers from their
	// pages asked again), and notifications are those of the ones with a
	// webhook, in order.
	approvals     int
	notifications []approvals.Notification
	// fl is the flow the case ran and the flows it calls.
	fl *flows
}

// kind names the kind of the node key names, a step unless it is a call
// or link, for messages.
func (o *outcome) kind(key string) string {
	if o.fl != nil {
		if _, n, _ := o.fl.lookup(key, "", false); n != nil && n.Kind.IsCall() {
			return n.Kind.String()
		}
	}
	return "step"
}

// runCase runs one case through the engine round by round (caseRun).
func runCase(ctx context.Context, engine *flow.Engine, fl *flows, c *Case, cov covers) *CaseReport {
	p := fl.root
	start := time.Now()
	cr := &CaseReport{Name: c.Name, File: c.Pos.File, Line: c.Pos.Line, Col: c.Pos.Col, Path: []string{}, Asks: []string{}}
	defer func() { cr.Elapsed = time.Since(start) }()
	if c.Skip != "" {
		cr.Status = StatusSkip
		cr.SkipReason = c.Skip
		return cr
	}
	r := &caseRun{c: c, fl: fl, cov: cov, used: map[string]int{}, asked: map[string]int{}, approvals: map[string]int{},
		mocked: map[string]bool{}, o: &outcome{msgs: map[string][]string{}, inputs: map[string]map[string]any{}, fl: fl}}
	r.fail = func(pos dsl.Pos, f Failure) {
		f.File, f.Line, f.Col = pos.File, pos.Line, pos.Col
		cr.Failures = append(cr.Failures, f)
	}
	o := r.o
	inTask, detach, refused := taskStart(p, c)
	if err := scopeRefusal(p, c); err != nil {
		inTask, refused = false, err
	}
	r.inTask = inTask
	if inTask {
		o.status(statusWorking)
	}
	// stopped is set once a failure is reported; a call refused before
	// any round (refused) runs none, and is checked like any outcome.
	stopped := false
	o.err = refused
	if refused == nil {
		stopped = r.drive(ctx, engine, detach)
	}
	cr.Rounds = o.rounds
	cr.Path = namedOnly(o.trace)
	cr.Asks = append(cr.Asks, o.asks...)
	if !stopped {
		check(c, o, r.fail)
		r.checkUsed()
	}
	sort.SliceStable(cr.Failures, func(i, j int) bool { return cr.Failures[i].Line < cr.Failures[j].Line })
	cr.Status = StatusPass
	if len(cr.Failures) > 0 {
		cr.Status = StatusFail
	}
	return cr
}

// caseRun drives the call of one case through a drive.Driver, playing
// its client and the server: it answers the questions and the approvals
// from the case (the drive.Answerer and drive.Approver), mocks the steps
// it mocks, and records what the call did in its outcome (the
// drive.Observer: the path, the coverage, the task statuses).
type caseRun struct {
	c    *Case
	fl   *flows
	cov  covers
	o    *outcome
	fail func(pos dsl.Pos, f Failure)
	// used counts the answers taken and asked the times asked, by ask id;
	// approvals the approvals asked, by ask id; mocked the mocks used.
	used, asked, approvals map[string]int
	mocked                 map[string]bool
	// inTask is set once the call is a task.
	inTask bool
}

// errStopped ends a case's drive that reported a failure of its own (a
// question the case has no answer for).
var errStopped = errors.New("the case stopped")

// drive runs the case's call, starting with detach (see taskStart), and
// records its outcome; it reports whether it stopped on a failure it
// reported.
func (r *caseRun) drive(ctx context.Context, engine *flow.Engine, detach *flow.Detach) bool {
	c, o, p := r.c, r.o, r.fl.root
	client := flow.Client{Name: c.Client.Name, Version: c.Client.Version, Protocol: c.Client.Protocol,
		Form: c.Client.Form, URL: c.Client.URL, Sampling: c.Client.Sampling, Roots: c.Client.Roots}
	sub := ""
	if c.Principal != nil {
		sub = c.Principal.Subject
	}
	req := &flow.Request{Arguments: c.Args, Client: client, Principal: sub, Identity: c.Principal, Detach: detach}
	d := drive.Driver{Engine: engine, Answerer: r, Approver: r, Observer: r, MaxRounds: maxRounds, RunTasks: true}
	ctx = flow.WithMocks(ctx, &flow.Mocks{Step: r.mock, Call: r.mockCall})
	out, err := d.Drive(ctx, p, req)
	o.rounds = out.Rounds
	switch {
	case errors.Is(err, errStopped):
		return true
	case errors.Is(err, drive.ErrRoundLimit):
		r.fail(c.Pos, Failure{Message: fmt.Sprintf("the call did not end after %d rounds", maxRounds)})
		return true
	case err != nil:
		// The round that journals an approval's answer failed.
		out.Err = err
	}
	if out.Err != nil {
		var re *flow.RunError
		if errors.As(out.Err, &re) {
			// A server answers a failed run with this error result.
			o.result = p.FailureResult(out.Err)
			r.cov.visit(r.fl, re.Node)
		} else {
			o.err = out.Err
		}
		if r.inTask && o.err != nil {
			o.status(statusFailed)
		} else if r.inTask {
			o.status(statusCompleted)
		}
		return false
	}
	o.result, o.prompt = out.Result.Complete, out.Result.Prompt
	if r.inTask {
		o.status(statusCompleted)
	}
	return false
}

// mock is the round's Mocks.Step: the case's mock of the step node, recording
// its input for step_inputs.
func (r *caseRun) mock(node string, in map[string]any) *flow.StepMock {
	r.o.inputs[node] = in
	m := r.c.Mocks[node]
	if m == nil {
		return nil
	}
	r.mocked[node] = true
	if m.IsErr {
		return &flow.StepMock{Err: errors.New(m.Err)}
	}
	return &flow.StepMock{Output: m.Output}
}

// mockCall is the round's Mocks.Call. A mocked call node does not run its
// flow: its result is the mock's, checked against that flow's output
// schema by the engine. Its input, the rendered with, is recorded for
// step_inputs as a step's is.
func (r *caseRun) mockCall(node, _ string, in map[string]any) *flow.StepMock {
	return r.mock(node, in)
}

// StartRound says the task works on, when the call is one.
func (r *caseRun) StartRound(ctx context.Context, _ *flow.Request) context.Context {
	if r.inTask {
		r.o.status(statusWorking)
	}
	return ctx
}

// EndRound records the round's path and coverage, and what a server
// would do with an approval or a detached round.
func (r *caseRun) EndRound(req *flow.Request, res *flow.Result, err error) {
	if err != nil {
		return
	}
	o := r.o
	o.trace = res.Trace
	for _, name := range res.Trace {
		r.cov.visit(r.fl, name)
	}
	switch {
	case res.Approval != nil:
		// Someone other than the caller answers it, on the server's
		// page: a client with tasks gets a task that waits (working),
		// others wait inside the call.
		ap := res.Approval
		if r.c.Client.Tasks {
			r.inTask = true
		}
		if r.inTask {
			o.status(statusWorking)
		}
		if req.Approval == nil {
			// A new asking, not an answer from the page asked again:
			// the server mints a link and notifies the webhook.
			r.approvals[ap.Node]++
			o.approvals++
			if ap.Webhook != "" {
				o.notifications = append(o.notifications, testNotification(r.fl.root, ap, r.approvals[ap.Node]))
			}
		}
	case res.Detached != nil && req.Approval == nil:
		// The call becomes a task: its rounds go on without a client
		// round trip, the questions arrive through tasks/update.
		r.inTask = true
		if res.Detached.Input == nil {
			o.status(statusWorking)
		}
	}
}

// Answer answers the questions of in from the case, in the order of
// their ids.
func (r *caseRun) Answer(_ context.Context, in *flow.InputRequired) (map[string]json.RawMessage, error) {
	if r.inTask {
		r.o.status(statusInputRequired)
	}
	responses := map[string]json.RawMessage{}
	for _, id := range slices.Sorted(maps.Keys(in.Requests)) {
		a, ok := r.next(id, in.Requests[id].Message)
		if !ok {
			return nil, errStopped
		}
		responses[id] = a.Raw
	}
	return responses, nil
}

// Approve answers the approval ap from the case, as its page would, and
// again while the answer is not accepted.
func (r *caseRun) Approve(ctx context.Context, ap *flow.Approval, journal drive.JournalFunc) (string, error) {
	for {
		a, ok := r.next(ap.Node, ap.Question.Message)
		if !ok {
			return "", errStopped
		}
		ans := approvals.Timeout(ap.Node, Clock)
		if !a.Timeout {
			ans = &flow.ApprovalAnswer{Node: ap.Node, Response: a.Raw, By: cmp.Or(a.By, DefaultBy), At: Clock}
		}
		state, again, err := journal(ctx, ans)
		if err != nil || again == nil {
			return state, err
		}
		ap = again
	}
}

// next returns the case's next answer to the question id asked with
// message, or records why there is none and returns false.
func (r *caseRun) next(id, message string) (Answer, bool) {
	o, c := r.o, r.c
	o.asks = append(o.asks, id)
	o.msgs[id] = append(o.msgs[id], message)
	r.asked[id]++
	as := c.Answers[id]
	var msg string
	switch {
	case as == nil:
		msg = fmt.Sprintf("the flow asked %q and the case has no answer for it", id)
	case as.Every:
		return as.List[0], true
	case r.used[id] >= len(as.List):
		msg = fmt.Sprintf("the flow asked %q a %s time and the case has no answer left for it (%d given)", id, ordinal(r.asked[id]), len(as.List))
	default:
		r.used[id]++
		return as.List[r.used[id]-1], true
	}
	pos := c.Pos
	if as != nil {
		pos = as.Pos
	}
	r.fail(pos, Failure{Message: msg, Question: message})
	return Answer{}, false
}

// checkUsed reports the answers the flow never asked for or did not use,
// and the mocks of nodes that never ran.
func (r *caseRun) checkUsed() {
	c := r.c
	for _, id := range slices.Sorted(maps.Keys(c.Answers)) {
		as := c.Answers[id]
		switch {
		case r.asked[id] == 0:
			r.fail(as.Pos, Failure{Message: fmt.Sprintf("answers: the flow never asked %q", id)})
		case !as.Every && r.used[id] < len(as.List):
			r.fail(as.Pos, Failure{Message: fmt.Sprintf("answers: %d of the %d answers to %q were not used", len(as.List)-r.used[id], len(as.List), id)})
		}
	}
	for _, id := range slices.Sorted(maps.Keys(c.Mocks)) {
		if !r.mocked[id] {
			r.fail(c.Mocks[id].Pos, Failure{Message: fmt.Sprintf("mocks: the %s %q never ran", r.o.kind(id), id)})
		}
	}
}

// testNotification is the notification the server would post to the
// webhook of ap, the nth asking of its question in the case: built as the
// server builds it (approvals.NewNotification), with a placeholder link
// https://flowserve.test/approve/<key> (the asking's key, approvals.Key,
// in place of a token), expires when the server's would
// (approvals.Expires: Clock plus the ask's timeout, or, without one, the
// run's lifetime, a server's default approvals.DefaultLifetime), no task
// and the run's id.
func testNotification(p *flow.Program, ap *flow.Approval, n int) approvals.Notification {
	return approvals.NewNotification(approvals.Notice{Tool: p.Name(), Title: p.Title(), Run: ap.Run,
		Question: ap.Node, Message: ap.Question.Asked(), To: ap.To,
		Link:    testBase + approvals.Path(approvals.Key(ap.Node, n)),
		Expires: approvals.Expires(Clock, ap.Timeout, approvals.DefaultLifetime)})
}

// testBase is the server's URL in the links of tests' notifications.
const testBase = "https://flowserve.test"

// namedOnly keeps the nodes of a trace that have ids (those of called
// flows after their call paths, confirm/ok).
func namedOnly(trace []string) []string {
	out := []string{}
	for _, name := range trace {
		if _, anon := anonIndex(lastKey(name)); !anon {
			out = append(out, name)
		}
	}
	return out
}

func ordinal(n int) string {
	suffix := "th"
	switch {
	case n%100 >= 11 && n%100 <= 13:
	case n%10 == 1:
		suffix = "st"
	case n%10 == 2:
		suffix = "nd"
	case n%10 == 3:
		suffix = "rd"
	}
	return strconv.Itoa(n) + suffix
}
