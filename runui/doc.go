// Package runui runs a flow in a terminal, as `flowserve run` does: round
// by round through the engine and its request-state codec, exactly as an
// MCP client would drive it, with each question answered by a person at
// the terminal (Terminal: huh forms, or plain line-by-line prompts for
// screen readers and piped input) or by an answers file (Script).
//
// Every question starts with a choice of how to respond: answer (the
// default), decline or cancel. An answer the engine does not accept is
// shown with the engine's reason, and the question is asked again with
// the previous answer filled in. No entry a user types makes a prompt
// panic or guess: a prompt re-asks after an entry it does not take,
// saying why, a required select with no default waits for a choice, and
// the end of the input ends the run with an error naming the question
// and field (ErrInputEnded).
//
// An approval (an ask with to:, answered by someone other than the
// caller) goes to the Config's Approver: Page serves it on an approval
// page, as a server does, and waits for the page's answer or the
// approval's timeout; without one the Answerer asks it like any
// question, offering answer, decline or (with a timeout) letting it time
// out, and then who answers (answered_by).
package runui
