package codes

import "github.com/flowserve/flowserve/internal/yamlx"

// The codes of the diagnostics dsl.Parse reports. The package
// documentation lists each with its meaning, and a test checks that the
// list and these constants agree. The YAML reader's codes are its own
// (internal/yamlx): these are the same codes.
const (
	// BadAlias means an alias refers to its own anchor, or aliases
	// expand the file too much.
	BadAlias = yamlx.CodeBadAlias
	// BadBranch means a branch has no cases, an else that is not
	// last, or two elses.
	BadBranch = "bad-branch"
	// BadExpression means an expression has a syntax error, or a
	// condition is empty or wrapped in {{ }}; check.Types reports it too,
	// for an expression that does not compile.
	BadExpression = "bad-expression"
	// BadGroup means an all node holds something other than ask,
	// sample and roots nodes, or a question of it says next or
	// unavailable, or has to (an approval is asked on its own).
	BadGroup = "bad-group"
	// BadName means an id or set name does not match
	// ^[a-z_][a-z0-9_]*$.
	BadName = "bad-name"
	// BadTemplate means a template has a {{ without }}, or an empty
	// {{ }}.
	BadTemplate = "bad-template"
	// BadType means a value has the wrong YAML type.
	BadType = yamlx.CodeBadType
	// BadValue means a value has the right type but is invalid: a
	// negative retries, a malformed duration, an unknown content type,
	// kind or role, an infinite number, an empty to; Check reports it
	// too, for an input or output schema whose bounds leave no value
	// (minimum above maximum) or whose default breaks its own rules.
	BadValue = yamlx.CodeBadValue
	// BadYAML means the file is not valid YAML, or uses an unsupported
	// tag.
	BadYAML = yamlx.CodeBadYAML
	// ConflictingKeys means a mapping has keys that exclude each
	// other: form and url, required with url, to with url, if and else,
	// a message's text and content.
	ConflictingKeys = "conflicting-keys"
	// DuplicateID means two nodes have the same id.
	DuplicateID = "duplicate-id"
	// DuplicateKey means a mapping has the same key twice, or required
	// lists a name twice (Check: in an input or output schema).
	DuplicateKey = yamlx.CodeDuplicateKey
	// EmptyFile means the file has no content.
	EmptyFile = "empty-file"
	// MisplacedKey means a node has a key that belongs to another node
	// kind, or next on a branch, return or fail.
	MisplacedKey = "misplaced-key"
	// MissingKey means a required key is missing: nodes, an ask or
	// step id, form or url, rule, then, attempts, the to that notify,
	// timeout and on_timeout need, the on_timeout of a timeout (and the
	// other way round), and the like.
	MissingKey = "missing-key"
	// MissingKind means a node has none of the keys ask, step, branch,
	// set, return, fail, sample, roots and all.
	MissingKind = "missing-kind"
	// MultipleDocuments means the file holds more than one YAML
	// document.
	MultipleDocuments = yamlx.CodeMultipleDocuments
	// NameCollision means a set name is also the id of an ask or step
	// node.
	NameCollision = "name-collision"
	// NoNodes means the node list is empty.
	NoNodes = "no-nodes"
	// ReservedName means an id or set name is input, run, client,
	// error, vars or secrets.
	ReservedName = "reserved-name"
	// SecretOutsideWith means an expression outside a step's with
	// values reads secrets.
	SecretOutsideWith = "secret-outside-with"
	// TwoKinds means a node has more than one kind key.
	TwoKinds = "two-kinds"
	// UnknownKey means a key that no node kind or mapping accepts.
	UnknownKey = "unknown-key"
	// UnknownLanguage means expressions names a language that is not
	// supported; check.Types reports it too.
	UnknownLanguage = "unknown-language"
	// UnknownProperty means required names a property the form does
	// not have (Check: that an input or output schema whose properties
	// list them all does not have).
	UnknownProperty = "unknown-property"
	// UnknownTarget means a next, then, else, unavailable, on_error
	// or on_timeout names no node.
	UnknownTarget = "unknown-target"
)

// The codes of the diagnostics check.File reports. The package documentation
// lists each with its meaning, and a test checks that the list and these
// constants agree.
const (
	// ApprovalNeedsTask means an ask has to (someone other than the
	// caller answers it, as an MCP task) in a flow that says task: never.
	ApprovalNeedsTask = "approval-needs-task"
	// BadContent means a return content block, or a prompt message's
	// content, lacks a field its type needs, has one it does not take, or
	// has data that is not base64.
	BadContent = "bad-content"
	// BadMcpHeader means an input property's x-mcp-header annotation
	// is not a non-empty HTTP token, is on a property whose type is not
	// string, integer or boolean, or names the header of another property
	// (case-insensitively).
	BadMcpHeader = "bad-mcp-header"
	// BadToolName means the tool name is not 1 to 64 letters, digits,
	// _, - or .
	BadToolName = "bad-tool-name"
	// BadURL means a url ask's url is not an absolute http(s) URL, or
	// carries credentials.
	BadURL = "bad-url"
	// BusyLoop means a loop neither asks nor runs a step, so only a
	// branch on set names can end it (a warning).
	BusyLoop = "busy-loop"
	// EndlessLoop means a loop that no node leads out of.
	EndlessLoop = "endless-loop"
	// EnumCompare means an expression compares a field whose schema
	// lists its values (an enum, a const, a oneOf of consts) with a
	// literal that is not one of them, so == is never true and != always
	// (a warning).
	EnumCompare = "enum-compare"
	// FallsOffEnd means a path runs past the last node, which is not a
	// return or fail (a warning).
	FallsOffEnd = "falls-off-end"
	// FormDefault means a form property's default breaks the
	// property's own schema (its type, choices, bounds or format), or is a
	// template with a {{ without }}; check.Types reports it too, for a
	// template whose expression has another type than the property.
	FormDefault = "form-default"
	// FormEnum means a choice property's enum, oneOf, enumNames or
	// items are not one of the MCP enum shapes.
	FormEnum = "form-enum"
	// FormFormat means a string property's format is not email, uri,
	// date or date-time.
	FormFormat = "form-format"
	// FormKeyword means a form property has a keyword MCP forms do not
	// take: pattern, nesting, a misspelt keyword and the like.
	FormKeyword = "form-keyword"
	// FormKind means a form property's type is missing or not a
	// primitive (string, number, integer, boolean, array of choices).
	FormKind = "form-kind"
	// FormValue means a form property's title, description or bound
	// has the wrong type, or a lower bound exceeds the upper.
	FormValue = "form-value"
	// InsecureURL means a url ask's url uses http:// for a host other
	// than localhost (a warning).
	InsecureURL = "insecure-url"
	// LongNoTask means a step is `long: true` in a flow that says
	// `task: never`, or in a prompt flow, so it never runs as a task (a
	// warning).
	LongNoTask = "long-no-task"
	// MaybeUnbound means an expression reads an ask, step, sample or
	// roots id, or a set name, where some path from the first node
	// reaches without having bound it, unguarded by has() (or x != nil in
	// expr): the read fails at run time.
	MaybeUnbound = "maybe-unbound"
	// MissingDescription means the flow has no description, which MCP
	// clients show to the model (a warning).
	MissingDescription = "missing-description"
	// MissingStructured means the flow declares an output schema and a
	// return has no structured, which MCP requires of every result: clients
	// that check it fail the call.
	MissingStructured = "missing-structured"
	// NoUnavailable means a sample or roots question has no
	// unavailable (the all node holding it has none): sampling and roots
	// are deprecated (SEP-2577), and a client without them fails the call
	// (a warning).
	NoUnavailable = "no-unavailable"
	// PromptArgument means a prompt flow's input property is not of
	// type string, as MCP prompt arguments are strings.
	PromptArgument = "prompt-argument"
	// PromptOnly means a tool flow's return has description or
	// messages, which only prompt flows return.
	PromptOnly = "prompt-only"
	// RoundBudget means a path from the first node asks the client
	// more rounds of questions than the round budget (a warning).
	RoundBudget = "round-budget"
	// SchemaNotObject means the input or output schema is not of type
	// object.
	SchemaNotObject = "schema-not-object"
	// SchemaNullKey means a schema (input, output, a form property,
	// or one inside them) has a key that is not a JSON Schema keyword and
	// has no value, as when a comma in an unquoted flow-mapping value
	// splits it (a warning).
	SchemaNullKey = "schema-null-key"
	// SensitiveForm means a form-mode ask asks for a password, secret,
	// token, API key, card number, CVV, PIN, SSN or one-time code.
	SensitiveForm = "sensitive-form"
	// StructuredMissing means a return's structured lacks a property
	// the output schema requires.
	StructuredMissing = "structured-missing"
	// StructuredUnknown means a return's structured has a property the
	// output schema does not allow.
	StructuredUnknown = "structured-unknown"
	// StructuredValue means a literal in a return's structured has the
	// wrong type, or breaks another rule of the output schema (its enum,
	// bounds or format).
	StructuredValue = "structured-value"
	// ToolOnly means a prompt flow declares output or task: required,
	// has an ask with to, or a return of it has structured or content.
	ToolOnly = "tool-only"
	// ToolNameSlash means the tool name has a '/', which the
	// conformance suite allows but the MCP spec does not list (a warning).
	ToolNameSlash = "tool-name-slash"
	// UnknownAction means a step names an action that is not
	// registered.
	UnknownAction = "unknown-action"
	// UnboundedLoop means a loop asks questions and no counter bounds
	// it, so it can ask forever (a warning).
	UnboundedLoop = "unbounded-loop"
	// UnreachableNode means no path from the first node leads to a
	// node (a warning, one per unreachable region).
	UnreachableNode = "unreachable-node"
	// ValidateOnURL means a url ask has validate rules, though it has
	// no answers to check.
	ValidateOnURL = "validate-on-url"
	// WithMissing means a step's with lacks a field the action's input
	// schema requires and gives no default for.
	WithMissing = "with-missing"
	// WithUnknown means a step's with has a field the action's input
	// schema does not allow.
	WithUnknown = "with-unknown"
	// WithValue means a literal in a step's with has the wrong type,
	// or breaks another rule of the input schema (its enum, bounds or
	// format).
	WithValue = "with-value"
)

// The codes of the diagnostics check.Types and project.Load add, named in
// the package documentation; flowtest reports some of them too.
const (
	// BadSchema means an input, output or form schema does not
	// compile.
	BadSchema = "bad-schema"
	// TypeError means an expression or value has the wrong type.
	TypeError = "type-error"
	// PartialFile means check.Types was given a file Parse found errors
	// in.
	PartialFile = "partial-file"
	// NoFlow means there is no flow: a test file's flow file is
	// missing, or check.Types was given none.
	NoFlow = "no-flow"
	// Compile means compiling failed for a reason that is not the
	// flow's, such as an expression environment that could not be built.
	Compile = "compile"
	// DuplicateTool means two flows define the same tool or prompt
	// name.
	DuplicateTool = "duplicate-tool"
	// Unreadable means a file cannot be read.
	Unreadable = "unreadable"
	// NoSuchPath means a path given to load does not exist.
	NoSuchPath = "no-such-path"
	// NoFlows means the paths given to load hold neither flow files
	// nor resource declarations.
	NoFlows = "no-flows"
	// MissingValue means a var or secret a flow declares has no value
	// among the values project.Load was given to check.
	MissingValue = "missing-value"
	// BreaksRuns means a change from the version lint was told to
	// compare with (flowserve lint --against) keeps runs in flight on that
	// version from going on under this one: a journaled node renamed,
	// removed or redefined, a new node ahead of it, a branch that may take
	// another way, as diff.Compare works out (a warning).
	BreaksRuns = "breaks-runs"
	// UnknownFlow means a call or link names no flow loaded with the
	// caller.
	UnknownFlow = "unknown-flow"
	// BadCallee means a call or link names a prompt flow.
	BadCallee = "bad-callee"
	// CallCycle means flows call each other in a cycle.
	CallCycle = "call-cycle"
	// LinkOutput means a flow with an output schema links to one
	// without.
	LinkOutput = "link-output"
)
