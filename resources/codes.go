package resources

import (
	"github.com/flowserve/flowserve/check/codes"
)

// The codes of the diagnostics Parse and Check report. The package
// documentation lists each with its meaning, and a test checks that the
// list and these constants agree. A code flow files have too is dsl's, so
// it reads the same in both kinds of file.
const (
	// CodeBadAlias means an alias is inside its own anchor, or aliases
	// expand the file too much.
	CodeBadAlias = codes.BadAlias
	// CodeBadFile means a file path is absolute, has .. or \, leads out
	// through a link, or names a directory, an unreadable or a too large
	// file.
	CodeBadFile = "bad-file"
	// CodeBadTemplate means a text or file has a {{ without }}, an empty
	// {{ }}, or something other than a variable name inside.
	CodeBadTemplate = codes.BadTemplate
	// CodeBadType means a value has the wrong YAML type.
	CodeBadType = codes.BadType
	// CodeBadURI means a uri is empty, not a valid URI, not absolute, or
	// has a {variable}.
	CodeBadURI = "bad-uri"
	// CodeBadURITemplate means a uriTemplate is not an absolute RFC 6570
	// level-1 template with distinct, separated variables.
	CodeBadURITemplate = "bad-uri-template"
	// CodeBadValue means a value has the right type but is invalid: an
	// empty name, a mimeType that is no media type, a ttl that is no
	// duration, an unknown scope.
	CodeBadValue = codes.BadValue
	// CodeBadYAML means the file is not valid YAML.
	CodeBadYAML = codes.BadYAML
	// CodeConflictingKeys means a resource has both uri and uriTemplate,
	// or both text and file.
	CodeConflictingKeys = codes.ConflictingKeys
	// CodeDuplicateKey means a mapping has the same key twice.
	CodeDuplicateKey = codes.DuplicateKey
	// CodeDuplicateName means two resources have the same name (Check).
	CodeDuplicateName = "duplicate-name"
	// CodeDuplicateURI means two resources have the same uri or
	// uriTemplate (Check).
	CodeDuplicateURI = "duplicate-uri"
	// CodeEmptyContent means a text or a static file is empty (a warning).
	CodeEmptyContent = "empty-content"
	// CodeEmptyFile means the file has no content.
	CodeEmptyFile = codes.EmptyFile
	// CodeFileNotFound means a static resource's file does not exist.
	CodeFileNotFound = "file-not-found"
	// CodeMissingDescription means a resource has no description (a
	// warning).
	CodeMissingDescription = codes.MissingDescription
	// CodeMissingKey means the resources list, a name, a uri or
	// uriTemplate, or a text or file is missing.
	CodeMissingKey = codes.MissingKey
	// CodeMultipleDocuments means the file holds more than one YAML
	// document.
	CodeMultipleDocuments = codes.MultipleDocuments
	// CodeNoResources means the resources list is empty (a warning).
	CodeNoResources = "no-resources"
	// CodeNoVariables means a uriTemplate has no {variable} (a warning).
	CodeNoVariables = "no-variables"
	// CodeReservedScheme means a uri or uriTemplate uses the flow: scheme.
	CodeReservedScheme = "reserved-scheme"
	// CodeUnknownKey means a key no mapping of the file accepts.
	CodeUnknownKey = codes.UnknownKey
	// CodeUnknownVariable means a {{ name }} that is not a variable of the
	// uriTemplate.
	CodeUnknownVariable = "unknown-variable"
)
