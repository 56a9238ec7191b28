package flowtest

import (
	"github.com/flowserve/flowserve/check/codes"
)

// The codes of the diagnostics about test files, and about running a
// flow's cases, that the runner reports besides the flow's own. A code flow
// files have too is dsl's, so it reads the same in both kinds of file.
const (
	// CodeBadAlias means an alias is inside its own anchor, or aliases
	// expand the file too much.
	CodeBadAlias = codes.BadAlias
	// CodeBadAnswer means an answer is not accept, decline, cancel,
	// timeout or one of the result mappings, its content goes with an
	// action other than accept or is not a mapping, its by is empty or
	// goes with a timeout, or a list of answers is empty.
	CodeBadAnswer = "bad-answer"
	// CodeBadMock means a mock's error message is empty, or a mocked
	// output does not match the output schema of the step's action.
	CodeBadMock = "bad-mock"
	// CodeBadType means a value has the wrong YAML type.
	CodeBadType = codes.BadType
	// CodeBadValue means a value has the right type but is invalid: an
	// empty name, a skip without a reason, args that are not a mapping, a
	// message with both text and content.
	CodeBadValue = codes.BadValue
	// CodeBadYAML means the file is not valid YAML, or uses an unsupported
	// tag.
	CodeBadYAML = codes.BadYAML
	// CodeCompile means the actions could not be provisioned for the
	// flow's cases, a failure that is not the flow's.
	CodeCompile = codes.Compile
	// CodeDuplicateCase means two cases of a flow have the same name.
	CodeDuplicateCase = "duplicate-case"
	// CodeDuplicateKey means a mapping has the same key twice.
	CodeDuplicateKey = codes.DuplicateKey
	// CodeMissingName means a test case has no name.
	CodeMissingName = "missing-name"
	// CodeMultipleDocuments means the file holds more than one YAML
	// document.
	CodeMultipleDocuments = codes.MultipleDocuments
	// CodeNoFlow means the flow file a test file runs does not exist.
	CodeNoFlow = codes.NoFlow
	// CodeNoTests means the test file is empty, has no tests list, or has
	// an empty one.
	CodeNoTests = "no-tests"
	// CodeUnknownKey means a key no mapping of a test file accepts.
	CodeUnknownKey = codes.UnknownKey
	// CodeUnknownNode means a case names a node the flow does not have.
	CodeUnknownNode = "unknown-node"
	// CodeUnreadable means a test file cannot be read.
	CodeUnreadable = codes.Unreadable
	// CodeWrongAnswer means an answer is of another kind than its
	// question: a model reply to a form, roots to a sampling request,
	// timeout or by for an ask that is not an approval (timeout for one
	// without a timeout), cancel for an approval.
	CodeWrongAnswer = "wrong-answer"
	// CodeWrongKind means a case names a node of the wrong kind (answers
	// to a step, a mock of an ask), or expects of a flow what only the
	// other kind of flow returns (structured of a prompt, messages of a
	// tool).
	CodeWrongKind = "wrong-kind"
)
