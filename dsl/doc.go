// Package dsl reads flow files (DSL v1, see DESIGN.md §2–§3) into an AST
// that keeps the file:line:col of every node, key and expression.
//
// Parse checks a file's structure: YAML syntax, keys and their types, node
// kinds, ids and references, template syntax and the syntax of every
// expression in the file's language. Type checks of expressions, action
// names and MCP form rules belong to Check and lint.
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
// Every problem is a Diagnostic with a stable code:
//
//	bad-alias           an alias refers to its own anchor, or aliases expand too much
//	bad-branch          a branch has no cases, an else that is not last, or two elses
//	bad-expression      an expression has a syntax error, or a condition is empty or wrapped in {{ }}
//	bad-name            an id or set name does not match ^[a-z_][a-z0-9_]*$
//	bad-template        a template has a {{ without }}, or an empty {{ }}
//	bad-type            a value has the wrong YAML type ("retries must be an integer, not a string")
//	bad-value           a value has the right type but is invalid (negative retries, malformed duration, unknown content type, infinite number)
//	bad-yaml            the file is not valid YAML, or uses an unsupported tag
//	conflicting-keys    keys that exclude each other (form and url, required with url, if and else)
//	duplicate-id        two nodes have the same id
//	duplicate-key       a mapping has the same key twice, or required lists a name twice
//	empty-file          the file has no content
//	misplaced-key       a key that belongs to another node kind, or next on a branch, return or fail
//	missing-key         a required key is missing (nodes, an ask or step id, form or url, rule, then, attempts…)
//	missing-kind        a node has none of the keys ask, step, branch, set, return, fail
//	multiple-documents  the file holds more than one YAML document
//	name-collision      a set name is also the id of an ask or step node
//	no-nodes            the node list is empty
//	reserved-name       an id or set name is input, run, client or error
//	two-kinds           a node has more than one kind key
//	unknown-key         a key that no node kind or mapping accepts, with a suggestion when one is close
//	unknown-language    expressions names a language that is not supported
//	unknown-property    required names a property the form does not have
//	unknown-target      a next, then, else, unavailable or on_error names no node
package dsl
