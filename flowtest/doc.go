// Package flowtest runs flow test files: the engine of `flowserve test`.
//
// A test file sits beside its flow and is named after it: the cases of
// signup_test.yaml run against signup.yaml. A top-level `flow:` key
// (a path relative to the test file) names another flow instead, so one
// flow may have several test files. Each case is a whole tool call: the
// runner loads the flow once with project.Load, together with the flow
// files of its directory (each directory once), as lint and serve load
// flows (a flow lint rejects runs no case; see Sub-flows for the flows
// it calls), and runs each case on
// a flow.Engine round by round, sealing and opening the request state with
// the same codec the server uses (a fixed test key) and one clock, Clock,
// for run.started, state lifetimes and the steps' time.now, answering each
// question from the case, until the call returns a result or fails.
//
// # File format
//
//	flow: signup.yaml              # optional; default: the file's name without _test
//	vars: {api_base: https://…}    # optional: values of the flow's vars for every case
//	secrets: {token: test-token}   # optional: values of its secrets for every case
//	tests:
//	  - name: team plan needs 5 seats    # required, unique per flow
//	    skip: "reason"                   # optional: report the case as skipped
//	    args: {…}                        # the tool arguments; default {}
//	    client: {form: true, url: true}  # what the client can answer; both default
//	                                     # to true (also name, version, protocol)
//	    vars: {…}                        # this case's vars and secrets, over the
//	    secrets: {…}                     # file's
//	    answers:                         # by ask id (a called flow's
//	                                     # by its call path: confirm/ok)
//	      details:                       # a list: one answer per time it is asked
//	        - {action: accept, content: {plan: team, seats: 2}}
//	        - {content: {plan: team, seats: 5}}   # action defaults to accept
//	      confirm: decline                # one answer: used every time it is asked
//	      approval:                       # an approval (an ask with to:), as its page
//	        - {content: {approve: false}, by: Ana}   # answers it; by: who answered
//	        - timeout                     # (default "flowserve test"), or nobody in time
//	    mocks:                           # by step id, or a call's (see
//	                                     # Sub-flows)
//	      size: {bytes: 2048, …}          # the step's output (checked against
//	                                     # the action's output schema)
//	      delete: {error: "disk full"}    # the step fails with this message
//	      other: {output: {error: 1}}     # explicit form, for outputs that look
//	                                     # like {error: …} or {output: …}
//	    expect:
//	      text: "…"                      # the result's text equals
//	      text_contains: "…"             # or a list: contains each
//	      structured: {…}                # structuredContent equals
//	      structured_contains: {…}       # contains: objects may have more keys
//	      is_error: false                # the default: a tool error fails the case
//	      error: "…"                     # the call fails (not a result) with this text
//	      path: [details, save]          # ids of the nodes visited, in order
//	      visits: [[details, save], done]  # each list visited in that order
//	      not_visits: [cannot_ask]
//	      asks: [details, details]       # the questions asked, in order
//	      ask_messages:                  # a question's message contains…
//	        details: "Sign up"           # …the first time it is asked
//	        confirm: ["", "not accepted"]  # …each time, in turn ("" skips one)
//	      step_inputs:                   # a step's (or call's) input, its
//	                                     # rendered with, contains
//	        delete: {path: report.txt}
//	      notifications:                 # the approvals' webhook notifications, in order,
//	        - to: ana@example.com        # one per approval asked with a webhook; each
//	          link: https://flowserve.test/approve/approval-1  # has these fields
//	          text_contains: "Answer by"  # (tool, task, question, message, to, link,
//	                                     # expires, text) and its text contains…
//	      description: "…"               # prompt flows: the prompt's description equals
//	      messages:                      # prompt flows: the messages, in order; each
//	        - {role: user, text: "…"}    # contains these keys ({role, text} is short
//	        - role: user                 # for a text block)
//	          content: {type: resource, resource: {text: "…"}}
//
// A test file is read as flow files are (internal/yamlx): anchors and
// aliases are resolved, merge keys (<<) are honoured, the mapping's own
// keys winning, a key appears once, and a value follows the same rules
// for tags, integers and numbers.
//
// An answer is accept, decline or cancel, or a mapping of action (default
// accept) and content (the form's fields, only with accept); approvals
// take by and timeout too (see Approvals). Answers are
// sent as the client would send them: the engine adds the form's defaults
// and validates them, so an invalid answer makes the flow ask again with
// the reason in the message, and a list of answers can test that. A URL
// question is answered with accept, decline or cancel. The engine decides
// which question is unavailable from client: a case with {form: false}
// (or {url: false}) takes the asks' `unavailable` nodes.
//
// # Approvals
//
// An ask with `to:` is an approval: someone other than the caller answers
// it on the server's page, and the round that reaches it ends waiting for
// that answer (flow.Result.Approval). A case answers it from answers like
// any ask, by the ask's id, as the page would: accept (with content) or
// decline, with `by:` in a mapping answer naming who answered (the
// flow's answered_by; default "flowserve test", DefaultBy) and the time
// Clock (answered_at); or `timeout` (also {action: timeout}), nobody
// answering before the ask's timeout, so that the flow takes its
// on_timeout node. The runner sends the answer in a round of its own
// (flow.Request.Approval) and goes on from the state it returns. An
// answer the form's schema or validate rules refuse is asked again, the
// reason in the message, and the next answer of the list is used, as for
// any ask; such re-asks, like every approval, count in asks and
// ask_messages. timeout and by are only for approvals (timeout only for
// one with a timeout), and an approval cannot be cancelled: its page has
// no cancel. A client with tasks (client: {tasks: true}) gets a task
// that waits for the answer (statuses working); other clients wait
// inside the call, as on a server.
//
// Each approval asked with a webhook (notify: {webhook: …} that renders
// to a URL) gets the notification the server would post to it, built by
// approvals.NewNotification: tool and its title in text, the run's id
// (random, so not expected), task "", question (the ask's id), message,
// to, link https://flowserve.test/approve/<ask id>-<n> for the nth
// asking of that ask, and expires by the servers' rule
// (approvals.Expires): Clock plus the ask's timeout or, without one, the
// run's lifetime, a day (a server's default task lifetime). An answer asked again is no new approval and posts no
// notification. expect.notifications lists them in order, each a
// mapping of fields to the strings they equal, and text_contains, a text
// or list of texts the text contains; the number of notifications must
// match, and a case that expects some when its approvals have no webhook
// fails saying so.
//
// vars and secrets give the values of the names the flow declares (see
// dsl.File.Vars), strings, a case's over its file's. Cases never read the
// server's environment (FLOWSERVE_VAR_*, FLOWSERVE_SECRET_*): each case
// that runs must have a value for every declared name, and a name the
// flow does not declare is an error, as in the server.
//
// A step without a mock runs its action for real. A mocked step does not:
// its input is still rendered and checked, then the mock's output (or
// error) is journaled as if the action had returned it, without retries.
//
// # What counts
//
// path is the final round's trace: every round replays the flow from its
// first node, so the last one is the whole run, each ask once per answer
// that was kept and every loop iteration in order. Nodes without an id
// are left out of path; visits and not_visits take them as #N (the
// node's 1-based place in the file), as the failure output shows. When a
// step fails without on_error the call ends with an error result, as a
// server sends it (is_error: true, the message as text), and path is the
// one of the last round that returned. asks and ask_messages count every
// round: a question asked again after an invalid answer appears again.
//
// A case fails on the first round the flow asks a question it has no
// answer for, or no answer left for; on any expectation that is not met;
// on a tool error it did not expect (is_error defaults to false); on an
// error instead of a result (missing capabilities, a journal mismatch)
// unless error is given; and, after the call, on answers it gave for
// questions never asked or a list not used up, and on mocks for steps
// (or calls) that never ran. Problems in a test file (unknown keys, with a
// did-you-mean; nodes the flow does not have or of the wrong kind;
// mocked outputs that do not match their action) are reported as
// file:line:col diagnostics, and none of that file's cases run.
//
// A prompt flow (kind: prompt) runs the same way. Its cases check its
// messages: text and text_contains look at the text blocks of the
// messages, joined with newlines, messages compares each message (the
// same number of them; each contains the keys given), and description
// the prompt's description; structured and structured_contains belong to
// tool flows, and messages and description to prompt flows, and a case
// that mixes them is a file error. A fail node in a prompt flow ends the
// case with an error result, as in a tool flow (is_error: true), and its
// invalid arguments with an error (error: "invalid arguments: …"), as a
// server answers them with JSON-RPC errors.
//
// Coverage counts, for each flow, the nodes any round of any case that
// ran visited (an approval's on_timeout node once a case lets it time
// out), out of all its nodes; the report lists the others with
// their lines. A called flow's nodes count in its own file (see
// Sub-flows). Flows see a fixed clock (run.started is Clock), so
// results do not depend on when the tests run; run.id stays random.
//
// # Sub-flows
//
// A flow with call and link nodes runs the flows they name for real
// (private ones, expose: false, included): project.Load loads it with
// the flow files of its directory, checks its calls against them and
// links them. A flow that calls one with errors does not load, and its
// report holds the callee's errors and one at the call.
//
// The nodes of a called flow are named by their call path, as the
// engine names them in input requests and traces: the call node's id,
// "/", then the node's own id (confirm/ok is the ask ok of the flow call
// node confirm runs; a/b/ok one call deeper; confirm/#2 a node without
// an id). answers, mocks, path, visits, not_visits, asks, ask_messages
// and step_inputs take such keys; a bare id of a called flow's node is a
// file error that suggests its full key. path keeps the called flows'
// nodes that have ids.
//
// A mock keyed by a call (or link) node's key replaces running its flow
// (flow.Mocks.Call): its output is the call's result, checked, as
// the file is read, against the called flow's output schema, or a string
// (the text of its result) when it declares none; {error: …} is the
// flow failing, which the call's on_error takes with error set to the
// message, or which ends the run with that message as a tool error. A
// mocked link's output is the run's result. A mock keyed by a called
// flow's step (confirm/check) replaces that step only. step_inputs of a
// call node is the call's rendered with, the callee's input defaults
// added.
//
// Coverage of a called flow counts the nodes its callers' cases visit
// in it (a mocked call covers the call node only): Run runs the cases
// of a flow after those of the run's flows that call it, and reports
// the flows in their order. The vars and secrets a case gives are those
// of its flow and of the flows it calls, which share the server's
// values.
package flowtest
