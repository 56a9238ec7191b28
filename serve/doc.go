// Package serve serves compiled flows as MCP tools over
// github.com/modelcontextprotocol/go-sdk: each flow is a tool, and each
// tools/call runs the flow's engine. Prompt flows (`kind: prompt`) are
// prompts instead: prompts/list lists them, prompts/get runs them through
// the same round code as tools/call, and completion/complete offers their
// arguments' enum and examples. Prompts have no error results, so a
// prompt flow's invalid arguments are JSON-RPC -32602 and its failures
// -32603.
//
// It also serves resources: the declared ones (package resources) and
// each flow's source and Mermaid diagram (flow://<tool>/source and
// flow://<tool>/diagram), kept current as flows are replaced. The SDK
// answers resources/list, resources/templates/list and resources/read on
// both eras, with the ttlMs and cacheScope hints of SEP-2549; a URI
// nothing serves is JSON-RPC -32602 with data {"uri": …} (SEP-2164).
//
// One flow serves every client era:
//
//   - 2026-07-28 requests (recognised by the protocol version in their
//     _meta) are stateless multi round-trip requests: a round that needs
//     answers ends with an input_required result carrying the questions
//     and the sealed requestState, and the client calls again with
//     inputResponses. Client capabilities are read from each request's
//     _meta.
//   - 2025-06-18 and 2025-11-25 sessions run every round inside the one
//     tools/call, sending elicitation/create to the client and feeding its
//     answers back to the engine.
//
// The engine (package flow) never imports the SDK; this package maps its
// results and errors onto the wire: invalid requestState and malformed
// inputResponses are JSON-RPC -32602, a question the client cannot answer
// is -32021 (2026-07-28) or an error result (older eras), and failures of
// the run are error results the model can read.
//
// The package is the adapter: flows as tools and prompts on a go-sdk
// server (its own, or Options.MCP), the era routing of the HTTP
// endpoint, the lean path's dispatch, tasks, approvals and OAuth, all of
// which need the Server's flows, engine and stores. What needs none of
// them lives in packages of its own under it:
//
//   - internal/wire: the 2026-07-28 wire — request decoding and the
//     SDK's checks of it, _meta and header readers, the replies written
//     without reflection, JSON-RPC errors, SSE, the tasks extension's
//     messages, the protocol eras, the stdio transport;
//   - observe: what is recorded of each round (logs, metrics, spans) and
//     the log handlers (RedactingHandler);
//   - internal/dispatch: the task workers' scheduling over a run store
//     (claiming, fair shares across callers, hand-back, redispatch);
//   - internal/guard: the Host, Origin and bearer token checks.
//
// For operators (docs/operations.md): HTTPServer builds the http.Server
// with read, write and idle timeouts; HTTPOptions checks the Host and
// Origin headers against DNS rebinding, takes bearer tokens (LoadTokens),
// bounds request bodies and session-era sessions, and serves Prometheus
// metrics at /metrics; Options.MaxLegacyCalls bounds the session-era calls
// parked waiting for answers; Shutdown stops the server gracefully. Every
// round is logged with log/slog (tool, era, run, round, node, outcome) and
// counted in the server's own metrics registry (Metrics).
package serve
