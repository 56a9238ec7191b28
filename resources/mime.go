package resources

import (
	"mime"
	"net/http"
	"path"
	"strings"
)

// The MIME types flowserve gives its own resources.
const (
	// TextPlain is the MIME type of a text: resource that declares none.
	TextPlain = "text/plain"
	// OctetStream is the MIME type of a file nothing more is known about.
	OctetStream = "application/octet-stream"
	// YAML is the MIME type of a flow's source.
	YAML = "application/yaml"
	// Mermaid is the MIME type of a flow's diagram.
	Mermaid = "text/vnd.mermaid"
)

// knownType returns the MIME type of a lower-case file extension from
// flowserve's own table, or "". The table comes before the system's
// (mime.TypeByExtension), which differs between machines, so that the
// common types do not.
func knownType(ext string) string {
	switch ext {
	case ".avif":
		return "image/avif"
	case ".bmp":
		return "image/bmp"
	case ".css":
		return "text/css"
	case ".csv":
		return "text/csv"
	case ".gif":
		return "image/gif"
	case ".gz":
		return "application/gzip"
	case ".htm", ".html":
		return "text/html"
	case ".ico":
		return "image/vnd.microsoft.icon"
	case ".jpeg", ".jpg":
		return "image/jpeg"
	case ".js", ".mjs":
		return "text/javascript"
	case ".json":
		return "application/json"
	case ".jsonl":
		return "application/jsonl"
	case ".markdown", ".md":
		return "text/markdown"
	case ".mermaid", ".mmd":
		return Mermaid
	case ".mp3":
		return "audio/mpeg"
	case ".mp4":
		return "video/mp4"
	case ".ogg":
		return "audio/ogg"
	case ".pdf":
		return "application/pdf"
	case ".png":
		return "image/png"
	case ".svg":
		return "image/svg+xml"
	case ".toml":
		return "application/toml"
	case ".tsv":
		return "text/tab-separated-values"
	case ".txt":
		return TextPlain
	case ".wasm":
		return "application/wasm"
	case ".wav":
		return "audio/wav"
	case ".webp":
		return "image/webp"
	case ".xml":
		return "application/xml"
	case ".yaml", ".yml":
		return YAML
	case ".zip":
		return "application/zip"
	}
	return ""
}

// typeByExtension returns the MIME type of a file name's extension, or ""
// when it is not known.
func typeByExtension(name string) string {
	ext := strings.ToLower(path.Ext(name))
	if ext == "" {
		return ""
	}
	if t := knownType(ext); t != "" {
		return t
	}
	return bare(mime.TypeByExtension(ext))
}

// sniff guesses the MIME type of content from its first bytes.
func sniff(data []byte) string {
	return bare(http.DetectContentType(data))
}

// bare drops the parameters of a media type ("text/plain; charset=utf-8"
// is "text/plain").
func bare(t string) string {
	if mt, _, err := mime.ParseMediaType(t); err == nil {
		return mt
	}
	return t
}

// IsTextual reports whether content of the MIME type t is text, which a
// read returns as text (when it is UTF-8) rather than as a base64 blob:
// text/*, JSON, XML, YAML, JavaScript, TOML and the +json, +xml and +yaml
// structured syntaxes.
func IsTextual(t string) bool {
	t = strings.ToLower(bare(t))
	if strings.HasPrefix(t, "text/") {
		return true
	}
	for _, suffix := range []string{"+json", "+xml", "+yaml"} {
		if strings.HasSuffix(t, suffix) {
			return true
		}
	}
	switch t {
	case "application/json", "application/jsonl", "application/x-ndjson", "application/ld+json",
		"application/xml", "application/yaml", "application/x-yaml",
		"application/javascript", "application/ecmascript", "application/toml",
		"application/graphql", "application/sql", "application/x-sh":
		return true
	}
	return false
}

// isJSON reports whether t is a JSON MIME type, whose template values are
// escaped as JSON string content.
func isJSON(t string) bool {
	t = strings.ToLower(bare(t))
	return t == "application/json" || strings.HasSuffix(t, "+json")
}
