// Package flow compiles parsed flow files into Programs and runs them one
// round at a time on an Engine.
//
// Compile(file, env) is pure, like cel-go's Compile: it returns a Program
// and the diagnostics of package check (check.Types, which runs check.File
// first when nobody has; flow reports nothing of its own). It builds the
// Program on what check.Types worked out, so that every expression,
// template and JSON Schema is compiled once. A Program is immutable data,
// safe for concurrent use. It owns no key, store or clock: those
// belong to the Engine (EngineOptions: the codec that seals states, the
// reply store, the clock, the limits) that one server shares between all
// its Programs and keeps across reloads. Most callers load flows with
// project.Load rather than calling Compile.
//
// Engine.Run runs one round of a call: it opens the sealed request state (if any),
// replays the flow from its first node against the journal of earlier
// rounds, and stops either with a Complete tool result or with
// InputRequired — the questions to ask and a freshly sealed state that the
// client sends back with its answers.
//
// Each ask or step the run reaches takes the next position. The journal
// holds one entry per position: the answer to a question, or the output
// (or error) of a step. On replay a journaled position must be reached by
// the same node with the same fingerprint (a digest of the node's
// definition: its kind, id, message, form, URL, action and inputs);
// otherwise Engine.Run fails with a *MismatchError rather than hand an answer to
// the wrong question. Steps are run at least once: when the run first
// reaches them; later rounds replay the journaled output.
//
// A prompt flow (dsl.File.IsPrompt) runs the same way, but its returns end
// the run with Result.Prompt, the prompt's messages, and its invalid
// arguments are an *ArgumentsError rather than an error result, since
// prompts have no error results.
//
// Errors from Engine.Run fall in two groups. Errors about the request — a state
// that does not open (state.ErrInvalid, state.ErrExpired,
// state.ErrTooLarge), a malformed answer (*ResponseError), a prompt's
// invalid arguments (*ArgumentsError), a question the client cannot be
// asked (*MissingCapabilityError), a journal that no longer matches the
// flow (*MismatchError) — are the caller's to map onto
// protocol errors; IsInvalidParams tells which of them are JSON-RPC
// -32602. Every other error is a *RunError naming the node where the run
// failed: an expression that could not be evaluated, a step that failed
// with no on_error, or a limit hit.
package flow
