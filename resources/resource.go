package resources

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/flowserve/flowserve/dsl"
)

// MaxFileSize bounds the files a resource serves: a larger one is a
// load-time error for a static resource and a read error for a
// templated one.
const MaxFileSize = 16 << 20

// ErrNotFound is returned (wrapped) by Read when the resource has nothing
// at the URI: the URI does not match, or names a file that does not exist.
var ErrNotFound = errors.New("resource not found")

// The cache scopes of SEP-2549.
const (
	// Public results may be cached by any client or intermediary.
	Public = "public"
	// Private results may be cached only by the requesting user's client.
	Private = "private"
)

// Cache is the caching hint sent with a resource's reads (SEP-2549:
// ttlMs and cacheScope).
type Cache struct {
	TTL   time.Duration // how long a read may be reused; 0: re-read every time
	Scope string        // Public or Private
}

// Resource is one served resource: a static one (URI) or a template
// (URITemplate) whose variables are substituted into its text or file
// path. It is immutable and safe for concurrent use.
type Resource struct {
	URI         string // a static resource's URI; "" for a template
	URITemplate string // a template's RFC 6570 level-1 URI template; "" for a static resource
	Name        string
	Title       string
	Description string
	// MIMEType is the declared type, or the one the file's extension (or
	// content) gives; "" only for a templated file path whose extension
	// is not known until a read.
	MIMEType string
	Cache    Cache
	// Pos is where the resource is declared; flows' own resources point
	// at their flow file.
	Pos dsl.Pos

	tmpl *uriTemplate  // the parsed URITemplate
	text *textTemplate // the text, or nil when the content is a file
	file *textTemplate // the file path, relative to dir
	dir  string        // the directory a file is confined to
}

// IsTemplate reports whether r is a resource template.
func (r *Resource) IsTemplate() bool { return r.URITemplate != "" }

// Key is what identifies r among the served resources: its URI, or its
// URI template.
func (r *Resource) Key() string {
	if r.IsTemplate() {
		return r.URITemplate
	}
	return r.URI
}

// Equal reports whether r and o serve the same thing to clients. Their
// declarations' positions are not compared.
func (r *Resource) Equal(o *Resource) bool {
	return r.URI == o.URI && r.URITemplate == o.URITemplate &&
		r.Name == o.Name && r.Title == o.Title && r.Description == o.Description &&
		r.MIMEType == o.MIMEType && r.Cache == o.Cache && r.dir == o.dir &&
		r.text.equal(o.text) && r.file.equal(o.file)
}

// Contents is what a read returns: text, or a blob when the content is
// not textual (see IsTextual) or not UTF-8.
type Contents struct {
	URI      string
	MIMEType string
	Text     string
	Blob     []byte // non-nil for binary content
}

// Read returns the content of the resource at uri, which must be r's URI
// or, for a template, a URI the template matches. A template's variables
// are substituted into its text (escaped as JSON string content when the
// MIME type is JSON) or its file path (where each value must be one path
// element: no /, \, . or ..). A file is read on every call, confined to
// the directory of its declaration. Read returns an error wrapping
// ErrNotFound when the URI does not match or the file does not exist.
func (r *Resource) Read(ctx context.Context, uri string) (*Contents, error) {
	var vars map[string]string
	switch {
	case r.tmpl != nil:
		v, ok := r.tmpl.Match(uri)
		if !ok {
			return nil, fmt.Errorf("%s does not match %s: %w", uri, r.URITemplate, ErrNotFound)
		}
		vars = v
	case uri != r.URI:
		return nil, fmt.Errorf("%s is not %s: %w", uri, r.URI, ErrNotFound)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if r.text == nil && r.file == nil {
		return nil, fmt.Errorf("resource %s has no content: it was not made by Parse or ForFlow", r.Key())
	}
	if r.text != nil {
		var escape func(string) string
		if isJSON(r.MIMEType) {
			escape = jsonEscape
		}
		mt := r.MIMEType
		if mt == "" {
			mt = TextPlain
		}
		return contents(uri, mt, []byte(r.text.expand(vars, escape)), true), nil
	}
	for _, p := range r.file.parts {
		if v, ok := vars[p.name]; p.name != "" && ok && !pathElement(v) {
			return nil, fmt.Errorf("%q cannot be part of a file path: %w", v, ErrNotFound)
		}
	}
	name := r.file.expand(vars, nil)
	data, err := readFile(r.dir, name)
	if err != nil {
		return nil, err
	}
	mt := r.MIMEType
	if mt == "" {
		if mt = typeByExtension(name); mt == "" {
			mt = sniff(data)
		}
	}
	return contents(uri, mt, data, false), nil
}

// contents makes the result of a read: text when the type is textual (or
// the content comes from text:) and the bytes are UTF-8, else a blob.
func contents(uri, mimeType string, data []byte, text bool) *Contents {
	if (text || IsTextual(mimeType)) && utf8.Valid(data) {
		return &Contents{URI: uri, MIMEType: mimeType, Text: string(data)}
	}
	if data == nil {
		data = []byte{}
	}
	return &Contents{URI: uri, MIMEType: mimeType, Blob: data}
}

// pathElement reports whether a template value can stand for one element
// of a file path.
func pathElement(v string) bool {
	return v != "" && v != "." && v != ".." && !strings.ContainsAny(v, "/\\\x00")
}

// jsonEscape escapes s as the content of a JSON string.
func jsonEscape(s string) string {
	b, err := json.Marshal(s)
	if err != nil {
		return s // a Go string always marshals
	}
	return string(b[1 : len(b)-1])
}

// readFile reads name inside dir, which it cannot leave (os.Root: no ..
// out of it, no symbolic link pointing outside). A file that does not
// exist is ErrNotFound.
func readFile(dir, name string) ([]byte, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", dir, err)
	}
	defer root.Close()
	f, err := root.Open(name)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("file %s: %w", name, ErrNotFound)
		}
		return nil, fmt.Errorf("file %s: %w", name, err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("file %s: %w", name, err)
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("file %s is not a regular file: %w", name, ErrNotFound)
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("file %s: %w", name, err)
	}
	if len(data) > MaxFileSize {
		return nil, fmt.Errorf("file %s is larger than %d bytes", name, MaxFileSize)
	}
	return data, nil
}
