package dsl

import "github.com/flowserve/flowserve/internal/yamlx"

// The codes of the diagnostics Parse reports. The package documentation
// lists each with its meaning, and a test checks that the list and these
// constants agree. The YAML reader's codes are its own (internal/yamlx),
// under the same names.
const (
	// CodeBadAlias means an alias refers to its own anchor, or aliases
	// expand the file too much.
	CodeBadAlias = yamlx.CodeBadAlias
	// CodeBadBranch means a branch has no cases, an else that is not
	// last, or two elses.
	CodeBadBranch = "bad-branch"
	// CodeBadExpression means an expression has a syntax error, or a
	// condition is empty or wrapped in {{ }}; flow.Compile reports it too,
	// for an expression that does not compile.
	CodeBadExpression = "bad-expression"
	// CodeBadGroup means an all node holds something other than ask,
	// sample and roots nodes, or a question of it says next or
	// unavailable, or has to (an approval is asked on its own).
	CodeBadGroup = "bad-group"
	// CodeBadName means an id or set name does not match
	// ^[a-z_][a-z0-9_]*$.
	CodeBadName = "bad-name"
	// CodeBadTemplate means a template has a {{ without }}, or an empty
	// {{ }}.
	CodeBadTemplate = "bad-template"
	// CodeBadType means a value has the wrong YAML type.
	CodeBadType = yamlx.CodeBadType
	// CodeBadValue means a value has the right type but is invalid: a
	// negative retries, a malformed duration, an unknown content type,
	// kind or role, an infinite number, an empty to; Check reports it
	// too, for an input or output schema whose bounds leave no value
	// (minimum above maximum) or whose default breaks its own rules.
	CodeBadValue = yamlx.CodeBadValue
	// CodeBadYAML means the file is not valid YAML, or uses an unsupported
	// tag.
	CodeBadYAML = yamlx.CodeBadYAML
	// CodeConflictingKeys means a mapping has keys that exclude each
	// other: form and url, required with url, to with url, if and else,
	// a message's text and content.
	CodeConflictingKeys = "conflicting-keys"
	// CodeDuplicateID means two nodes have the same id.
	CodeDuplicateID = "duplicate-id"
	// CodeDuplicateKey means a mapping has the same key twice, or required
	// lists a name twice (Check: in an input or output schema).
	CodeDuplicateKey = yamlx.CodeDuplicateKey
	// CodeEmptyFile means the file has no content.
	CodeEmptyFile = "empty-file"
	// CodeMisplacedKey means a node has a key that belongs to another node
	// kind, or next on a branch, return or fail.
	CodeMisplacedKey = "misplaced-key"
	// CodeMissingKey means a required key is missing: nodes, an ask or
	// step id, form or url, rule, then, attempts, the to that notify,
	// timeout and on_timeout need, the on_timeout of a timeout (and the
	// other way round), and the like.
	CodeMissingKey = "missing-key"
	// CodeMissingKind means a node has none of the keys ask, step, branch,
	// set, return, fail, sample, roots and all.
	CodeMissingKind = "missing-kind"
	// CodeMultipleDocuments means the file holds more than one YAML
	// document.
	CodeMultipleDocuments = yamlx.CodeMultipleDocuments
	// CodeNameCollision means a set name is also the id of an ask or step
	// node.
	CodeNameCollision = "name-collision"
	// CodeNoNodes means the node list is empty.
	CodeNoNodes = "no-nodes"
	// CodeReservedName means an id or set name is input, run, client,
	// error, vars or secrets.
	CodeReservedName = "reserved-name"
	// CodeSecretOutsideWith means an expression outside a step's with
	// values reads secrets.
	CodeSecretOutsideWith = "secret-outside-with"
	// CodeTwoKinds means a node has more than one kind key.
	CodeTwoKinds = "two-kinds"
	// CodeUnknownKey means a key that no node kind or mapping accepts.
	CodeUnknownKey = "unknown-key"
	// CodeUnknownLanguage means expressions names a language that is not
	// supported; flow.Compile reports it too.
	CodeUnknownLanguage = "unknown-language"
	// CodeUnknownProperty means required names a property the form does
	// not have (Check: that an input or output schema whose properties
	// list them all does not have).
	CodeUnknownProperty = "unknown-property"
	// CodeUnknownTarget means a next, then, else, unavailable, on_error
	// or on_timeout names no node.
	CodeUnknownTarget = "unknown-target"
)

// The codes of the diagnostics Check reports. The package documentation
// lists each with its meaning, and a test checks that the list and these
// constants agree.
const (
	// CodeApprovalNeedsTask means an ask has to (someone other than the
	// caller answers it, as an MCP task) in a flow that says task: never.
	CodeApprovalNeedsTask = "approval-needs-task"
	// CodeBadContent means a return content block, or a prompt message's
	// content, lacks a field its type needs, has one it does not take, or
	// has data that is not base64.
	CodeBadContent = "bad-content"
	// CodeBadMcpHeader means an input property's x-mcp-header annotation
	// is not a non-empty HTTP token, is on a property whose type is not
	// string, integer or boolean, or names the header of another property
	// (case-insensitively).
	CodeBadMcpHeader = "bad-mcp-header"
	// CodeBadToolName means the tool name is not 1 to 64 letters, digits,
	// _, - or .
	CodeBadToolName = "bad-tool-name"
	// CodeBadURL means a url ask's url is not an absolute http(s) URL, or
	// carries credentials.
	CodeBadURL = "bad-url"
	// CodeBusyLoop means a loop neither asks nor runs a step, so only a
	// branch on set names can end it (a warning).
	CodeBusyLoop = "busy-loop"
	// CodeEndlessLoop means a loop that no node leads out of.
	CodeEndlessLoop = "endless-loop"
	// CodeEnumCompare means an expression compares a field whose schema
	// lists its values (an enum, a const, a oneOf of consts) with a
	// literal that is not one of them, so == is never true and != always
	// (a warning).
	CodeEnumCompare = "enum-compare"
	// CodeFallsOffEnd means a path runs past the last node, which is not a
	// return or fail (a warning).
	CodeFallsOffEnd = "falls-off-end"
	// CodeFormDefault means a form property's default breaks the
	// property's own schema (its type, choices, bounds or format), or is a
	// template with a {{ without }}; flow.Compile reports it too, for a
	// template whose expression has another type than the property.
	CodeFormDefault = "form-default"
	// CodeFormEnum means a choice property's enum, oneOf, enumNames or
	// items are not one of the MCP enum shapes.
	CodeFormEnum = "form-enum"
	// CodeFormFormat means a string property's format is not email, uri,
	// date or date-time.
	CodeFormFormat = "form-format"
	// CodeFormKeyword means a form property has a keyword MCP forms do not
	// take: pattern, nesting, a misspelt keyword and the like.
	CodeFormKeyword = "form-keyword"
	// CodeFormKind means a form property's type is missing or not a
	// primitive (string, number, integer, boolean, array of choices).
	CodeFormKind = "form-kind"
	// CodeFormValue means a form property's title, description or bound
	// has the wrong type, or a lower bound exceeds the upper.
	CodeFormValue = "form-value"
	// CodeInsecureURL means a url ask's url uses http:// for a host other
	// than localhost (a warning).
	CodeInsecureURL = "insecure-url"
	// CodeLongNoTask means a step is `long: true` in a flow that says
	// `task: never`, or in a prompt flow, so it never runs as a task (a
	// warning).
	CodeLongNoTask = "long-no-task"
	// CodeMaybeUnbound means an expression reads an ask, step, sample or
	// roots id, or a set name, where some path from the first node
	// reaches without having bound it, unguarded by has() (or x != nil in
	// expr): the read fails at run time.
	CodeMaybeUnbound = "maybe-unbound"
	// CodeMissingDescription means the flow has no description, which MCP
	// clients show to the model (a warning).
	CodeMissingDescription = "missing-description"
	// CodeMissingStructured means the flow declares an output schema and a
	// return has no structured, which MCP requires of every result: clients
	// that check it fail the call.
	CodeMissingStructured = "missing-structured"
	// CodeNoUnavailable means a sample or roots question has no
	// unavailable (the all node holding it has none): sampling and roots
	// are deprecated (SEP-2577), and a client without them fails the call
	// (a warning).
	CodeNoUnavailable = "no-unavailable"
	// CodePromptArgument means a prompt flow's input property is not of
	// type string, as MCP prompt arguments are strings.
	CodePromptArgument = "prompt-argument"
	// CodePromptOnly means a tool flow's return has description or
	// messages, which only prompt flows return.
	CodePromptOnly = "prompt-only"
	// CodeRoundBudget means a path from the first node asks the client
	// more rounds of questions than the round budget (a warning).
	CodeRoundBudget = "round-budget"
	// CodeSchemaNotObject means the input or output schema is not of type
	// object.
	CodeSchemaNotObject = "schema-not-object"
	// CodeSchemaNullKey means a schema (input, output, a form property,
	// or one inside them) has a key that is not a JSON Schema keyword and
	// has no value, as when a comma in an unquoted flow-mapping value
	// splits it (a warning).
	CodeSchemaNullKey = "schema-null-key"
	// CodeSensitiveForm means a form-mode ask asks for a password, secret,
	// token, API key, card number, CVV, PIN, SSN or one-time code.
	CodeSensitiveForm = "sensitive-form"
	// CodeStructuredMissing means a return's structured lacks a property
	// the output schema requires.
	CodeStructuredMissing = "structured-missing"
	// CodeStructuredUnknown means a return's structured has a property the
	// output schema does not allow.
	CodeStructuredUnknown = "structured-unknown"
	// CodeStructuredValue means a literal in a return's structured has the
	// wrong type, or breaks another rule of the output schema (its enum,
	// bounds or format).
	CodeStructuredValue = "structured-value"
	// CodeToolOnly means a prompt flow declares output or task: required,
	// has an ask with to, or a return of it has structured or content.
	CodeToolOnly = "tool-only"
	// CodeToolNameSlash means the tool name has a '/', which the
	// conformance suite allows but the MCP spec does not list (a warning).
	CodeToolNameSlash = "tool-name-slash"
	// CodeUnknownAction means a step names an action that is not
	// registered.
	CodeUnknownAction = "unknown-action"
	// CodeUnboundedLoop means a loop asks questions and no counter bounds
	// it, so it can ask forever (a warning).
	CodeUnboundedLoop = "unbounded-loop"
	// CodeUnreachableNode means no path from the first node leads to a
	// node (a warning, one per unreachable region).
	CodeUnreachableNode = "unreachable-node"
	// CodeValidateOnURL means a url ask has validate rules, though it has
	// no answers to check.
	CodeValidateOnURL = "validate-on-url"
	// CodeWithMissing means a step's with lacks a field the action's input
	// schema requires and gives no default for.
	CodeWithMissing = "with-missing"
	// CodeWithUnknown means a step's with has a field the action's input
	// schema does not allow.
	CodeWithUnknown = "with-unknown"
	// CodeWithValue means a literal in a step's with has the wrong type,
	// or breaks another rule of the input schema (its enum, bounds or
	// format).
	CodeWithValue = "with-value"
)

// The codes of the diagnostics flow.Compile and project.Load add, named in
// the package documentation; flowtest reports some of them too.
const (
	// CodeBadSchema means an input, output or form schema does not
	// compile.
	CodeBadSchema = "bad-schema"
	// CodeTypeError means an expression or value has the wrong type.
	CodeTypeError = "type-error"
	// CodePartialFile means Compile was given a file Parse found errors
	// in.
	CodePartialFile = "partial-file"
	// CodeNoFlow means there is no flow: a test file's flow file is
	// missing, or Compile was given none.
	CodeNoFlow = "no-flow"
	// CodeCompile means compiling failed for a reason that is not the
	// flow's, such as an expression environment that could not be built.
	CodeCompile = "compile"
	// CodeDuplicateTool means two flows define the same tool or prompt
	// name.
	CodeDuplicateTool = "duplicate-tool"
	// CodeUnreadable means a file cannot be read.
	CodeUnreadable = "unreadable"
	// CodeNoSuchPath means a path given to load does not exist.
	CodeNoSuchPath = "no-such-path"
	// CodeNoFlows means the paths given to load hold neither flow files
	// nor resource declarations.
	CodeNoFlows = "no-flows"
	// CodeMissingValue means a var or secret a flow declares has no value
	// among the values project.Load was given to check.
	CodeMissingValue = "missing-value"
	// CodeBreaksRuns means a change from the version lint was told to
	// compare with (flowserve lint --against) keeps runs in flight on that
	// version from going on under this one: a journaled node renamed,
	// removed or redefined, a new node ahead of it, a branch that may take
	// another way, as diff.Compare works out (a warning).
	CodeBreaksRuns = "breaks-runs"
	// CodeUnknownFlow means a call or link names no flow loaded with the
	// caller.
	CodeUnknownFlow = "unknown-flow"
	// CodeBadCallee means a call or link names a prompt flow.
	CodeBadCallee = "bad-callee"
	// CodeCallCycle means flows call each other in a cycle.
	CodeCallCycle = "call-cycle"
	// CodeLinkOutput means a flow with an output schema links to one
	// without.
	CodeLinkOutput = "link-output"
)
