package lsp

import (
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"time"
)

// document is a text document the client has open: its text is the
// source of truth, not the file on disk.
type document struct {
	uri     string
	path    string // the file path diagnostics are keyed by
	version int
	src     []byte
	snap    *snapshot // the analysis of src, built on first use

	// lint is the generation of the latest lint run asked for; a run
	// that finds a newer one is stale, and its result is dropped.
	lint  int
	timer *time.Timer
	// published are the diagnostics last published, for the version
	// published says.
	published        []published
	publishedVersion int
}

// published is one diagnostic as published, with its fixes.
type published struct {
	diag  Diagnostic
	fixes []fix
}

// uriPath returns the file path of a document URI: the path of a file
// URI, else the URI itself (an untitled document is linted alone).
func uriPath(uri string) string {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" {
		return uri
	}
	p := u.Path
	if len(p) >= 3 && p[0] == '/' && p[2] == ':' {
		p = p[1:] // file:///C:/x on Windows
	}
	return filepath.Clean(filepath.FromSlash(p))
}

// pathURI returns the file URI of an absolute path.
func pathURI(path string) string {
	p := filepath.ToSlash(path)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	return (&url.URL{Scheme: "file", Path: p}).String()
}

// applyChange applies one content change to src.
func applyChange(src []byte, c TextDocumentContentChangeEvent) ([]byte, error) {
	if c.Range == nil {
		return []byte(c.Text), nil
	}
	t := newText(src)
	start, end := t.offset(c.Range.Start), t.offset(c.Range.End)
	if end < start {
		return nil, fmt.Errorf("change range ends (%d:%d) before it starts (%d:%d)",
			c.Range.End.Line, c.Range.End.Character, c.Range.Start.Line, c.Range.Start.Character)
	}
	out := make([]byte, 0, len(src)-(end-start)+len(c.Text))
	out = append(out, src[:start]...)
	out = append(out, c.Text...)
	return append(out, src[end:]...), nil
}
