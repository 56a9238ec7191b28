package dsl

// Codes of the diagnostics that more than one package reports, or that
// callers test for. Each is listed with its meaning in the package
// documentation.
const (
	// CodeBadSchema: an input, output or form schema does not compile.
	CodeBadSchema = "bad-schema"
	// CodeBadExpression: an expression does not compile.
	CodeBadExpression = "bad-expression"
	// CodeTypeError: an expression or value has the wrong type.
	CodeTypeError = "type-error"
	// CodeUnknownLanguage: `expressions:` names no expression language.
	CodeUnknownLanguage = "unknown-language"
	// CodeUnknownAction: a step names an action that is not registered.
	CodeUnknownAction = "unknown-action"
	// CodeUnknownTarget: a next, then, else, unavailable or on_error names
	// no node.
	CodeUnknownTarget = "unknown-target"
	// CodeDuplicateTool: two flows define the same tool or prompt name.
	CodeDuplicateTool = "duplicate-tool"
	// CodeUnreadable: a file cannot be read.
	CodeUnreadable = "unreadable"
	// CodeNoFlow: there is no flow: a test file's flow file is missing, or
	// Compile was given none.
	CodeNoFlow = "no-flow"
	// CodePartial: Compile was given a file Parse found errors in.
	CodePartial = "partial-file"
	// CodeCompile: compiling failed for a reason that is not the flow's
	// (the expression environment could not be built).
	CodeCompile = "compile"
	// CodeNoSuchPath: a path given to load does not exist.
	CodeNoSuchPath = "no-such-path"
	// CodeNoFlows: the paths given to load hold no flow files.
	CodeNoFlows = "no-flows"
)
