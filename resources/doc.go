// Package resources loads MCP resource declarations and answers reads of
// them. A declaration file is named resources.yaml or *.resources.yaml
// (or .yml) and sits among the flows flowserve serves:
//
//	cache: {ttl: 5m, scope: public}   # optional: the default hint of every resource below
//	resources:
//	  - uri: docs://readme            # a static resource
//	    name: readme
//	    title: Read me first          # optional
//	    description: How to use these tools.
//	    file: README.md               # beside this file; text/markdown from the extension
//	  - uri: docs://greeting
//	    name: greeting
//	    description: A fixed text.
//	    text: Hello!                  # text/plain unless mimeType says otherwise
//	  - uriTemplate: docs://users/{id}/profile   # a resource template
//	    name: user-profile
//	    description: A user's profile.
//	    mimeType: application/json
//	    text: '{"id":"{{ id }}"}'
//	    cache: {ttl: 0s, scope: private}
//
// Each resource has exactly one of uri (an absolute URI) and uriTemplate
// (an RFC 6570 level-1 template: literal text and {name} variables), a
// name unique among every declaration served together, an optional title
// and description, and exactly one of text (the content, written in the
// file) and file (a path relative to the declaration file, which cannot
// leave its directory: no absolute paths, no .., no symbolic links out).
//
// A template's variables are substituted where its text or file path
// says {{ name }}; in a JSON text (application/json, +json) the value is
// escaped as JSON string content, and in a file path each value must be
// a single path element. A static resource's text is served as written.
//
// mimeType defaults to text/plain for text; for a file, to the type of
// its extension, else (for a static file) the type its first bytes
// show. A read returns a file as text when its type is textual (text/*,
// JSON, XML, YAML and the like; see IsTextual) and its bytes are UTF-8,
// else as a base64 blob. Files are read on every read, so edits show
// without a reload; a static resource's file must exist when the
// declaration is loaded.
//
// cache is the caching hint of a resource's reads (SEP-2549): ttl, a
// duration (default 0: re-read every time), and scope, public (default)
// or private. A resource's cache keys override the file's, key by key.
//
// Every flow served also has two resources of its own (ForFlow):
// flow://<tool>/source, the flow file, and flow://<tool>/diagram, its
// Mermaid flowchart. The flow: scheme is reserved for them.
//
// The file is read as flow files are (internal/yamlx): anchors and
// aliases are resolved, merge keys (<<) are honoured, the mapping's own
// keys winning, and columns count runes.
//
// Every problem is a dsl.Diagnostic with a position and a stable code,
// reported the way flow problems are:
//
//	bad-alias            an alias is inside its own anchor, or aliases expand the file too much
//	bad-file             a file path is absolute, has .. or \, leads out through a link, or names a directory, an unreadable or too large file
//	bad-template         a text or file has a {{ without }}, an empty {{ }}, or something other than a variable name inside
//	bad-type             a value has the wrong YAML type ("name must be a string, not a list")
//	bad-uri              a uri is empty, not a valid URI, not absolute, or has a {variable}
//	bad-uri-template     a uriTemplate is not an absolute RFC 6570 level-1 template with distinct, separated variables
//	bad-value            a value has the right type but is invalid (an empty name, a mimeType that is no media type, a ttl that is no duration, an unknown scope)
//	bad-yaml             the file is not valid YAML
//	conflicting-keys     a resource has both uri and uriTemplate, or both text and file
//	duplicate-key        a mapping has the same key twice
//	duplicate-name       two resources have the same name (Check)
//	duplicate-uri        two resources have the same uri or uriTemplate (Check)
//	empty-content        a text or a static file is empty (warning)
//	empty-file           the file has no content
//	file-not-found       a static resource's file does not exist
//	missing-description  a resource has no description (warning)
//	missing-key          the resources list, a name, a uri or uriTemplate, or a text or file is missing
//	multiple-documents   the file holds more than one YAML document
//	no-resources         the resources list is empty (warning)
//	no-variables         a uriTemplate has no {variable} (warning)
//	reserved-scheme      a uri or uriTemplate uses the flow: scheme
//	unknown-key          a key no mapping of the file accepts, with a suggestion when one is close
//	unknown-variable     a {{ name }} that is not a variable of the uriTemplate, with a suggestion when one is close
package resources
