// Package runui runs a flow in a terminal, as `flowserve run` does: round
// by round through the engine and its request-state codec, exactly as an
// MCP client would drive it, with each question answered by a person at
// the terminal (Terminal: huh forms, or huh's accessible line-by-line
// prompts) or by an answers file (Script).
//
// Every question starts with a choice of how to respond: answer (the
// default), decline or cancel. An answer the engine does not accept is
// shown with the engine's reason, and the question is asked again with
// the previous answer filled in.
package runui
