// Package lsp is flowserve's language server: `flowserve lsp` serves it
// over standard input and output to an editor, for flow files.
//
// # Features
//
//   - Diagnostics as you type: exactly flowserve lint's, by
//     construction: a project.Workspace (the pipeline project.Load runs,
//     run again as files change) loads the document's scope
//     (workspace.go: the nearest directory named flows above it,
//     subdirectories included, else its own directory) with the open
//     documents' texts in its overlay in place of their files, and the
//     server publishes what it reports for the document. Checks across
//     files (duplicate-tool, and the calls: unknown-flow, the with of a
//     call against the callee's input, call-cycle, the rounds asked
//     across calls, the call's result typed by the callee's output) see
//     the other files as lint does. The workspace parses again only the
//     files whose text changed and compiles again only the flows that
//     changed or call one that did, so that a run costs about what the
//     document costs; a test compares every lint fixture's diagnostics,
//     published over the protocol, with project.Load's. Published on
//     didOpen at once and, debounced (Options.Debounce, 200 ms by
//     default), after didChange; a change, open or close of a document
//     lints the other open documents of its scope again, and
//     didChangeWatchedFiles every one; a run that a newer one made stale
//     publishes nothing, and one that has not started yet never starts;
//     cleared on didClose. Each run publishes its own document's
//     diagnostics only.
//     Ranges are converted from flowserve's positions (1-based lines as
//     YAML counts them, 1-based columns in runes) to the protocol's
//     (0-based lines, UTF-16 code units) through byte offsets.
//   - Completion: node ids after next, then, else, unavailable, on_error
//     and on_timeout; action names after step (summaries as detail); the
//     tool flows of the scope after call and link (descriptions as
//     detail); a step's with keys from its action's input schema, a
//     call's or link's from its callee's; inside expressions (in {{ }},
//     if and rule), the names in scope and the fields of a path from its
//     type (check.Scope, with the scope's flows as callees: input's
//     schema, a form's properties under an ask's content, a step's
//     output, a call's callee's output, vars and secrets); top-level and
//     node keys from the flow schema.
//   - Hover: the type of the path or expression under the cursor
//     ("confirm.content.plan: string, one of free, team"), an action's
//     summary and schemas on a step's action, a flow's description and
//     schemas on the flow of a call or link, a node's kind on its id.
//   - Go to definition of node ids (also of set names and of vars and
//     secrets read in expressions, and of the flow of a call or link: its
//     name in its file), and rename of node ids: the id, every reference
//     to it, and every expression that reads it, at the positions the
//     parsed file gives; prepareRename.
//   - Code actions: the fixes of the diagnostics (did-you-mean
//     replacements) as quickfixes.
//
// # Library
//
// The server speaks JSON-RPC 2.0 through the go-sdk's jsonrpc package
// (github.com/modelcontextprotocol/go-sdk/jsonrpc, already a dependency
// for MCP: message encoding, decoding and error codes), with the base
// protocol's Content-Length framing (wire.go) and the few protocol types
// it uses (protocol.go) written here. The LSP libraries were weighed and
// left: github.com/tliron/glsp (v0.2.2, its last release in March 2024)
// has the protocol 3.16 types (3.17's only in part) and brings its own
// logging framework, a websocket stack, msgpack and a deadlock detector
// as dependencies; go.lsp.dev/protocol had its last release, v0.12.0, in
// March 2022; gopls keeps its protocol types internal. The few dozen
// types the server needs and a framing reader cost less than a
// dependency that lags the protocol, and they add nothing to go.mod.
package lsp
