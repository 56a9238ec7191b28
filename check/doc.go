// Package check runs the static checks of flow files: everything lint
// reports beyond what dsl.Parse finds in a file's structure. File checks
// one parsed file against the registered actions (names, with values),
// what MCP allows (tool names, forms, content blocks, prompts) and its
// control flow (unreachable nodes, loops, paths that run past the end,
// reads of names a path never bound, the rounds of questions a path
// asks); Calls checks a file's call and link nodes against the flows they
// name, once every file of a project is parsed. The code of every
// diagnostic, and what it means, is in check/codes.
//
// The checks read the parsed file (dsl.File), its control-flow graph
// (dsl.BuildCFG) and the YAML it was read from (dsl.Tree), never the
// engine: package flow imports check, not the other way round.
package check
