package lsp

import "encoding/json"

// The types of the Language Server Protocol 3.17 that the server reads and
// writes, named and shaped as the specification names them. Only the
// fields the server uses are declared; the JSON decoder ignores the rest.

// Position is a position in a text document: a 0-based line and a 0-based
// character offset in UTF-16 code units (the protocol's default encoding).
type Position struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

// Range is a span of a text document; End is exclusive.
type Range struct {
	Start Position `json:"start"`
	End   Position `json:"end"`
}

// Location is a range in a document.
type Location struct {
	URI   string `json:"uri"`
	Range Range  `json:"range"`
}

// TextDocumentIdentifier names a document.
type TextDocumentIdentifier struct {
	URI string `json:"uri"`
}

// TextDocumentItem is a document the client opened.
type TextDocumentItem struct {
	URI        string `json:"uri"`
	LanguageID string `json:"languageId"`
	Version    int    `json:"version"`
	Text       string `json:"text"`
}

// VersionedTextDocumentIdentifier names a version of a document.
type VersionedTextDocumentIdentifier struct {
	URI     string `json:"uri"`
	Version int    `json:"version"`
}

// TextDocumentPositionParams is a position in a document, the parameters
// of hover, definition, completion and prepareRename.
type TextDocumentPositionParams struct {
	TextDocument TextDocumentIdentifier `json:"textDocument"`
	Position     Position               `json:"position"`
}

// DidOpenTextDocumentParams are the parameters of textDocument/didOpen.
type DidOpenTextDocumentParams struct {
	TextDocument TextDocumentItem `json:"textDocument"`
}

// TextDocumentContentChangeEvent is one change of a document: a range
// replaced by Text, or, without a range, the whole new text.
type TextDocumentContentChangeEvent struct {
	Range *Range `json:"range,omitempty"`
	Text  string `json:"text"`
}

// DidChangeTextDocumentParams are the parameters of textDocument/didChange.
type DidChangeTextDocumentParams struct {
	TextDocument   VersionedTextDocumentIdentifier  `json:"textDocument"`
	ContentChanges []TextDocumentContentChangeEvent `json:"contentChanges"`
}

// DidCloseTextDocumentParams are the parameters of textDocument/didClose.
type DidCloseTextDocumentParams struct {
	TextDocument TextDocumentIdentifier `json:"textDocument"`
}

// DiagnosticSeverity is how serious a diagnostic is.
type DiagnosticSeverity int

// The severities the server reports.
const (
	SeverityError   DiagnosticSeverity = 1
	SeverityWarning DiagnosticSeverity = 2
)

// Diagnostic is one problem in a document.
type Diagnostic struct {
	Range    Range              `json:"range"`
	Severity DiagnosticSeverity `json:"severity"`
	Code     string             `json:"code,omitempty"`
	Source   string             `json:"source"`
	Message  string             `json:"message"`
}

// PublishDiagnosticsParams are the parameters of
// textDocument/publishDiagnostics.
type PublishDiagnosticsParams struct {
	URI         string       `json:"uri"`
	Version     *int         `json:"version,omitempty"`
	Diagnostics []Diagnostic `json:"diagnostics"`
}

// CompletionParams are the parameters of textDocument/completion.
type CompletionParams struct {
	TextDocumentPositionParams
	Context *CompletionContext `json:"context,omitempty"`
}

// CompletionContext says how completion was triggered.
type CompletionContext struct {
	TriggerKind      int    `json:"triggerKind"` // 1 invoked, 2 a trigger character, 3 incomplete
	TriggerCharacter string `json:"triggerCharacter,omitempty"`
}

// CompletionItemKind is the kind of a completion item.
type CompletionItemKind int

// The kinds of completion items the server gives.
const (
	KindMethod    CompletionItemKind = 2  // an action
	KindFunction  CompletionItemKind = 3  // a flow a call or link runs
	KindField     CompletionItemKind = 5  // a field of an expression's value
	KindVariable  CompletionItemKind = 6  // a variable of the flow's scope
	KindProperty  CompletionItemKind = 10 // a key of a mapping
	KindReference CompletionItemKind = 18 // a node id
)

// MarkupContent is text for the user, in markdown.
type MarkupContent struct {
	Kind  string `json:"kind"` // "markdown" or "plaintext"
	Value string `json:"value"`
}

// TextEdit replaces a range with NewText.
type TextEdit struct {
	Range   Range  `json:"range"`
	NewText string `json:"newText"`
}

// CompletionItem is one suggestion.
type CompletionItem struct {
	Label         string             `json:"label"`
	Kind          CompletionItemKind `json:"kind,omitempty"`
	Detail        string             `json:"detail,omitempty"`
	Documentation *MarkupContent     `json:"documentation,omitempty"`
	SortText      string             `json:"sortText,omitempty"`
	FilterText    string             `json:"filterText,omitempty"`
	TextEdit      *TextEdit          `json:"textEdit,omitempty"`
}

// CompletionList is the result of textDocument/completion.
type CompletionList struct {
	IsIncomplete bool             `json:"isIncomplete"`
	Items        []CompletionItem `json:"items"`
}

// Hover is the result of textDocument/hover.
type Hover struct {
	Contents MarkupContent `json:"contents"`
	Range    *Range        `json:"range,omitempty"`
}

// RenameParams are the parameters of textDocument/rename.
type RenameParams struct {
	TextDocumentPositionParams
	NewName string `json:"newName"`
}

// PrepareRenameResult is the result of textDocument/prepareRename.
type PrepareRenameResult struct {
	Range       Range  `json:"range"`
	Placeholder string `json:"placeholder"`
}

// WorkspaceEdit is a set of edits, by document URI.
type WorkspaceEdit struct {
	Changes map[string][]TextEdit `json:"changes"`
}

// CodeActionContext is what the client knows at a code action request:
// the diagnostics at the range.
type CodeActionContext struct {
	Diagnostics []Diagnostic `json:"diagnostics"`
	Only        []string     `json:"only,omitempty"`
}

// CodeActionParams are the parameters of textDocument/codeAction.
type CodeActionParams struct {
	TextDocument TextDocumentIdentifier `json:"textDocument"`
	Range        Range                  `json:"range"`
	Context      CodeActionContext      `json:"context"`
}

// CodeAction is a change the user can apply.
type CodeAction struct {
	Title       string         `json:"title"`
	Kind        string         `json:"kind"`
	Diagnostics []Diagnostic   `json:"diagnostics,omitempty"`
	IsPreferred bool           `json:"isPreferred,omitempty"`
	Edit        *WorkspaceEdit `json:"edit,omitempty"`
}

// InitializeParams are the parameters of initialize.
type InitializeParams struct {
	ProcessID  *int            `json:"processId"`
	RootURI    string          `json:"rootUri,omitempty"`
	ClientInfo *ClientInfo     `json:"clientInfo,omitempty"`
	Caps       json.RawMessage `json:"capabilities,omitempty"`
}

// ClientInfo names the client.
type ClientInfo struct {
	Name    string `json:"name"`
	Version string `json:"version,omitempty"`
}

// InitializeResult is the result of initialize.
type InitializeResult struct {
	Capabilities ServerCapabilities `json:"capabilities"`
	ServerInfo   ServerInfo         `json:"serverInfo"`
}

// ServerInfo names the server.
type ServerInfo struct {
	Name    string `json:"name"`
	Version string `json:"version,omitempty"`
}

// ServerCapabilities are the features the server implements.
type ServerCapabilities struct {
	PositionEncoding   string                  `json:"positionEncoding"`
	TextDocumentSync   TextDocumentSyncOptions `json:"textDocumentSync"`
	CompletionProvider CompletionOptions       `json:"completionProvider"`
	HoverProvider      bool                    `json:"hoverProvider"`
	DefinitionProvider bool                    `json:"definitionProvider"`
	RenameProvider     RenameOptions           `json:"renameProvider"`
	CodeActionProvider CodeActionOptions       `json:"codeActionProvider"`
}

// TextDocumentSyncOptions say how the client sends document changes.
type TextDocumentSyncOptions struct {
	OpenClose bool `json:"openClose"`
	Change    int  `json:"change"` // 1 full, 2 incremental
}

// CompletionOptions say when the client asks for completion.
type CompletionOptions struct {
	TriggerCharacters []string `json:"triggerCharacters"`
}

// RenameOptions say that the server answers prepareRename.
type RenameOptions struct {
	PrepareProvider bool `json:"prepareProvider"`
}

// CodeActionOptions list the kinds of code actions the server gives.
type CodeActionOptions struct {
	CodeActionKinds []string `json:"codeActionKinds"`
}

// The error codes of the protocol beyond JSON-RPC's own.
const (
	codeServerNotInitialized = -32002
	codeRequestFailed        = -32803
)
