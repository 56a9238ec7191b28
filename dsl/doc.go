// Package dsl reads flow files (DSL v1, described key by key in
// docs/flow-reference.md) into an AST that keeps the file:line:col of every
// node, key and expression.
//
// Parse checks a file's structure: YAML syntax, keys and their types, node
// kinds, ids and references, template syntax and the syntax of every
// expression in the file's language. Type checks of expressions, action
// names, MCP form rules and the control flow belong to package check.
//
// A file with `kind: prompt` is a prompt flow: its input properties are
// the prompt's arguments (strings), and its returns hold description and
// messages instead of structured and content (see File.IsPrompt).
//
// An ask with `to` is an approval (Ask.Approval, File.HasApprovals): someone
// other than the caller answers it, on a page flowserve serves, while the
// run waits as an MCP task. notify, timeout and on_timeout belong to it;
// on_timeout is an edge of the flow's CFG like on_error.
//
// A call node runs another flow of the project and binds its result to
// the node's id; a link node hands the run over to another flow (Node.Call,
// Kind.IsCall). A flow with `expose: false` (File.Private) is not served
// as a tool of its own: other flows call it. Parse reads them; which flow
// a call names is checked once every file is parsed (check.Calls, which
// project.Load runs), since it lives in another file. A call's on_error is
// an edge of the CFG like a step's; a link ends the run like a return.
//
// A flow declares the settings it reads under vars and the secrets its
// steps need under secrets (File.Vars, File.Secrets): names, each with an
// optional description. Their values are the server's, never the file's;
// expressions read them as vars.NAME and secrets.NAME. A secret may only
// be read in a step's with values, which go to the step's action alone:
// Parse reports a read anywhere else (messages, URLs, form defaults,
// rules, conditions, set values, returns, fails), since those reach the
// client or decide what does.
//
// Columns count runes, as yaml.v3 does. An expression's position is the
// position of its first rune in the file, exact for plain, single-quoted,
// double-quoted (escapes map to their backslash), literal (|) and folded
// (>) scalars; Expr.PosAt maps any offset inside it, across folded lines.
//
// YAML anchors and aliases are resolved (an aliased value keeps the
// position of its anchor), and merge keys (<<) are honoured, the mapping's
// own keys winning. An alias inside its own anchor, or aliases expanding the
// file beyond 100000 values, are errors.
//
// Every problem is a Diagnostic with a stable code and one severity; the
// codes, what each means and which stage reports it, are those of package
// check/codes.
//
// BuildCFG gives a flow's control flow, the one graph check.File's graph
// codes (unreachable-node, falls-off-end, busy-loop, endless-loop,
// maybe-unbound, round-budget, unbounded-loop), flowserve graph and the
// engine are worked out from. Tree indexes the YAML a file was read from
// by position, so that the checks can point at a key Parse kept no
// position for.
//
// Templates that are one whole expression ("{{ x }}") can have any type and
// are left to the expression type checks of check.Types; a template that
// mixes text and expressions is a string.
package dsl
