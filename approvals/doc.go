// Package approvals is the lifecycle of an approval: a flow's ask with
// `to:`, a question someone other than the caller answers on a page of
// its own (docs/approvals.md).
//
// A round that reaches such an ask ends with a [flow.Approval]. From
// there every place that runs flows (a server, `flowserve run`,
// `flowserve test`) goes the same way, with this package:
//
//   - The asking gets a key, [Key] (the ask's id and a number), which a
//     link answers; a [Ticket] carries it with the task (or run) and the
//     expiry, sealed by a [Sealer] into the token of a link, minted by
//     [Sealer.Link] whenever one is sent, never stored.
//   - Its expiry follows one rule, [Expires]: the ask's timeout, or,
//     without one, the run's lifetime; [Lifetime] keeps a run that waits
//     long enough to go on after its timeout.
//   - The link goes to the ask's webhook, in a [Notification] built by
//     [NewNotification] and posted by a [Notifier] (in the background,
//     retried), or, only when the ask has no webhook, to the caller
//     ([ToCaller]). What a run store keeps of the webhook is sealed
//     ([Sealer.SealAtRest]).
//   - The page, package approve (its HTTP part: form, handler, sign-in),
//     serves the question from a [Backend] and hands it the person's
//     [Answer], which [Answer.Engine] turns into the engine's
//     [flow.ApprovalAnswer] (or [Timeout] when nobody answered); a round
//     of its own journals it (flow/drive's Driver.Journal) and the run
//     goes on.
package approvals
