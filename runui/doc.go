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
package runui
