// Package codes holds the code of every diagnostic a flow file can get,
// from any stage: dsl.Parse, check.File, check.Types, project.Load and
// flowserve lint --against. Each code is a constant named after it
// (BadAlias is bad-alias, BadURL is bad-url), and this documentation
// lists each with what it means; tests check that the lists, the
// constants, their severities and their explanations (check/explain)
// agree.
//
// Every problem is a Diagnostic with a stable code and one severity, by
// the rule docs/cli.md states (an error: the flow cannot load, or a run
// that can happen fails or misbehaves; a warning: suspicious but
// runnable): the codes marked warning below are warnings, the others
// errors. dsl.Parse reports these:
//
//	bad-alias            an alias refers to its own anchor, or aliases expand too much
//	bad-branch           a branch has no cases, an else that is not last, or two elses
//	bad-expression       an expression has a syntax error, or a condition is empty or wrapped in {{ }}
//	bad-group            an all node holds something other than ask, sample and roots nodes, or a question of it says next or unavailable, or has to (an approval is asked on its own)
//	bad-name             an id or set name does not match ^[a-z_][a-z0-9_]*$
//	bad-template         a template has a {{ without }}, or an empty {{ }}
//	bad-type             a value has the wrong YAML type ("retries must be an integer, not a string")
//	bad-value            a value has the right type but is invalid (negative retries, malformed duration, unknown content type, kind or role, infinite number, empty to; Check: input or output schema bounds no value fits, a schema default that breaks its own rules)
//	bad-yaml             the file is not valid YAML, or uses an unsupported tag
//	conflicting-keys     keys that exclude each other (form and url, required with url, to with url, if and else, a message's text and content)
//	duplicate-id         two nodes have the same id
//	duplicate-key        a mapping has the same key twice, or required lists a name twice (Check: in an input or output schema)
//	empty-file           the file has no content
//	misplaced-key        a key that belongs to another node kind, or next on a branch, return, fail or link
//	missing-key          a required key is missing (nodes, an ask, step, call or link id, form or url, rule, then, attempts, the to of notify, timeout and on_timeout, a timeout's on_timeout…)
//	missing-kind         a node has none of the keys ask, step, branch, set, return, fail, sample, roots, all, call, link
//	multiple-documents   the file holds more than one YAML document
//	name-collision       a set name is also the id of an ask, step or call node
//	no-nodes             the node list is empty
//	reserved-name        an id or set name is input, run, client, principal, error, vars or secrets
//	secret-outside-with  an expression outside a step's with values reads secrets (they would reach the client or the journal)
//	two-kinds            a node has more than one kind key
//	unknown-key          a key that no node kind or mapping accepts, with a suggestion when one is close
//	unknown-language     expressions names a language that is not supported
//	unknown-property     required names a property the form does not have (Check: or an input or output schema listing its properties)
//	unknown-target       a next, then, else, unavailable, on_error or on_timeout names no node
//
// check.File reports what needs more than the file's structure: the
// registered actions, what MCP allows, and the control flow. Its codes:
//
//	approval-needs-task  an ask has to (someone other than the caller answers it, as an MCP task) in a flow that says task: never
//	bad-content          a return content block (or a prompt message's content) lacks a field its type needs, has one it does not take, or has data that is not base64
//	bad-mcp-header       an input property's x-mcp-header is not a non-empty HTTP token, is on a property that is not a string, integer or boolean, or repeats another's (case-insensitively)
//	bad-tool-name        the tool name is not 1 to 64 letters, digits, _, - or .
//	bad-url              a url ask's url is not an absolute http(s) URL, or carries credentials
//	busy-loop            a loop neither asks nor runs a step, so only a branch on set names can end it (warning)
//	endless-loop         a loop that no node leads out of
//	enum-compare         an expression compares a field whose schema lists its values (enum, const, oneOf of consts) with a literal not among them: == never true, != always (warning)
//	falls-off-end        a path runs past the last node, which is not a return or fail (warning)
//	form-default         a form property's default breaks the property's own schema (type, choices, bounds, format), or its template has a {{ without }} (check.Types: or an expression of another type)
//	form-enum            a choice property's enum, oneOf, enumNames or items are not one of the MCP enum shapes
//	form-format          a string property's format is not email, uri, date or date-time
//	form-keyword         a form property has a keyword MCP forms do not take (pattern, nesting, a misspelt keyword…)
//	form-kind            a form property's type is missing or not a primitive (string, number, integer, boolean, array of choices)
//	form-value           a form property's title, description or bound has the wrong type, or a lower bound exceeds the upper
//	insecure-url         a url ask's url uses http:// for a host other than localhost (warning)
//	long-no-task         a step is long: true in a flow that says task: never, or in a prompt flow, so it never runs as a task (warning)
//	maybe-unbound        an expression reads an ask, step, sample or roots id or a set name that some path reaches without having run it, unguarded by has() (expr: x != nil, x?.): it fails at run time; the message names such a path
//	missing-description  the flow has no description, which MCP clients show to the model (warning; not for expose: false flows, which are never listed)
//	missing-structured   the flow declares an output schema and a return has no structured, which MCP requires of every result (clients that check it fail the call)
//	no-unavailable       a sample or roots question (or the all node holding one) has no unavailable: deprecated by SEP-2577, a client without it fails the call (warning)
//	prompt-argument      a prompt flow's input property is not of type string (MCP prompt arguments are strings)
//	prompt-only          a tool flow's return has description or messages, which only prompt flows return
//	round-budget         a path asks more rounds of questions than the round budget (DefaultRoundBudget, 9; lint --max-rounds), at the question that passes it; not for task: required flows (warning)
//	schema-not-object    the input or output schema is not of type object
//	schema-null-key      a schema has a key that is not a JSON Schema keyword and has no value, as when a comma in an unquoted flow-mapping value splits it (warning)
//	sensitive-form       a form-mode ask asks for a password, secret, token, API key, card number, CVV, PIN, SSN or one-time code
//	structured-missing   a return's structured lacks a property the output schema requires
//	structured-unknown   a return's structured has a property the output schema does not allow
//	structured-value     a literal in a return's structured has the wrong type, or breaks another rule of the output schema (enum, bounds, format…)
//	tool-only            a prompt flow declares output or task: required, has an ask with to, or a return of it has structured or content
//	tool-name-slash      the tool name has a '/', which the conformance suite allows but the MCP spec does not list (warning)
//	unknown-action       a step names an action that is not registered, with a suggestion when one is close
//	unbounded-loop       a loop asks questions with no counter bounding it (a set stepping a name by a constant, started at a constant by a set before the loop, a number or a template folding to one such as "{{ 0 }}", compared with a constant by a branch case), so it can ask forever (warning)
//	unreachable-node     no path from the first node leads to a node (warning; one per unreachable region)
//	validate-on-url      a url ask has validate rules, though it has no answers to check
//	with-missing         a step's with lacks a field the action's input schema requires (and gives no default for)
//	with-unknown         a step's with has a field the action's input schema does not allow
//	with-value           a literal in a step's with has the wrong type, or breaks another rule of the input schema (enum, bounds, format…)
//
// check.Types adds bad-schema (an input, output or form schema that does
// not compile), bad-expression and type-error (the expression type
// checks), form-default (a templated form default whose expression has
// another type than its property), unknown-language, partial-file (it was
// given a file Parse found errors in), no-flow (it was given no file) and
// compile (a failure that is not the flow's: the expression environment
// could not be built).
// project.Load adds duplicate-tool (two files define the same tool name),
// unreadable (a file that cannot be read), missing-value (a var or secret
// a flow declares has no value, when Load is given the values to check),
// and the usage errors no-such-path (a path that does not exist) and
// no-flows (paths with neither flows nor resource declarations). Its
// CheckCalls stage, once every file is parsed, checks call and link
// nodes against their callees: unknown-flow (a call or link names no flow
// loaded with the caller, with a suggestion when one is close), bad-callee
// (it names a prompt flow), call-cycle (flows call each other in a
// cycle), link-output (a flow with an output schema links to one
// without), with-missing, with-unknown and with-value against the
// callee's input schema, approval-needs-task for a callee that asks
// someone else from a flow that never runs as a task, and round-budget
// and unbounded-loop counting the callees' rounds.
// flowserve lint --against adds the warning breaks-runs (a change from the
// version compared with keeps its runs in flight from going on under this
// one, as diff.Compare works out).
//
// flowserve lint --explain CODE prints what a code means, why, an example
// and its fix (package check/explain).
package codes
