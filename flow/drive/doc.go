// Package drive runs a flow round after round: the one loop around
// [flow.Engine.Run].
//
// A call of a flow is a run of rounds. Each round ends with one of the
// engine's results (see [flow.Result]), and what comes next depends on who
// drives the call:
//
//   - Complete or Prompt: the run is over.
//   - Input (questions for the caller): an [Answerer] answers them and the
//     next round runs with the answers; without one, Drive returns the
//     questions (a 2026-07-28 client answers them in a request of its
//     own).
//   - Approval (a question for someone other than the caller): an
//     [Approver] gets its answer, having the round that journals it run
//     ([JournalFunc]), and the run goes on from the state that round
//     gives; without one, Drive returns the approval (a server makes the
//     call a task that waits for it).
//   - Detached (the run goes on as a task): Drive returns it, unless
//     [Driver.RunTasks] says the driver plays the task too.
//   - an error: Drive returns it in [Outcome.Err], as the engine gave it.
//
// Who drives differs only in those parts, so they are interfaces:
// serve's session calls answer with the MCP client (elicitation, sampling,
// roots) and wait for approvals inside the call; flowserve run answers in
// the terminal and approves on a page or in the terminal; flowserve test
// answers and approves from a test case. An [Observer] sees every round
// (serve traces, logs and counts them; flowserve test records their paths
// and task statuses), and [Driver.MaxRounds] bounds them.
//
// Drive maps nothing: what a round's result or error means for a client
// (a JSON-RPC error, an error result) is the caller's business, done once,
// from the results the Observer sees.
//
// A round that journals an approval's answer runs through the same
// driver ([Driver.Journal]), whether the answer comes from an Approver in
// the loop or from a page served elsewhere.
package drive
