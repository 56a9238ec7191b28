package resources_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/flowserve/flowserve/dsl"
	"github.com/flowserve/flowserve/resources"
)

// png is a 1x1 PNG.
var png = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\xff\xff?\x00\x05\xfe\x02\xfe\xa7\x35\x81\x84\x00\x00\x00\x00IEND\xaeB`\x82")

// readDecl is the declaration the read tests load, beside the files of
// readFiles.
const readDecl = `
resources:
  - uri: test://static-text
    name: static-text
    description: Text.
    text: This is the content of the static text resource.
  - uri: test://static-binary
    name: static-binary
    description: A PNG.
    mimeType: image/png
    file: pixel.png
  - uri: test://sniffed
    name: sniffed
    description: A PNG without an extension.
    file: pixel
  - uri: test://readme
    name: readme
    description: Markdown.
    file: docs/README.md
    cache: {ttl: 90s, scope: private}
  - uri: test://latin1
    name: latin1
    description: Text that is not UTF-8.
    file: latin1.txt
  - uri: test://json-file
    name: json-file
    description: JSON from a file.
    file: data.json
  - uriTemplate: test://template/{id}/data
    name: template-data
    description: A templated resource.
    mimeType: application/json
    text: '{"id":"{{ id }}","templateTest":true,"data":"Data for ID: {{ id }}"}'
  - uriTemplate: test://greet/{first}/{last}
    name: greet
    description: Plain text with two variables.
    text: 'Hello, {{ first }} {{ last }}!'
  - uriTemplate: docs://pages/{page}
    name: pages
    description: A page.
    file: docs/{{ page }}.md
  - uriTemplate: docs://any/{name}
    name: any
    description: Any file of docs.
    file: docs/{{ name }}
  - uriTemplate: docs://versions/{version}/{page}
    name: versioned
    description: A page; the version is not part of the path.
    file: docs/{{ page }}.md
`

// readFiles are the data files beside readDecl.
func readFiles() map[string][]byte {
	return map[string][]byte{
		"resources.yaml": []byte(readDecl),
		"pixel.png":      png,
		"pixel":          png,
		"docs/README.md": []byte("# Read me\n"),
		"docs/intro.md":  []byte("# Intro\n"),
		"docs/logo.png":  png,
		"latin1.txt":     []byte("caf\xe9\n"),
		"data.json":      []byte(`{"a":1}`),
		"secret.txt":     []byte("not served through templates"),
	}
}

// loadRead writes readFiles to a temporary directory and parses the
// declaration.
func loadRead(t *testing.T) map[string]*resources.Resource {
	t.Helper()
	dir := t.TempDir()
	for name, data := range readFiles() {
		writeFile(t, dir, name, data)
	}
	path := filepath.Join(dir, "resources.yaml")
	rs, ds := resources.Parse(path, []byte(readDecl))
	if len(ds) > 0 {
		t.Fatalf("diagnostics:\n%v", ds)
	}
	byName := map[string]*resources.Resource{}
	for _, r := range rs {
		byName[r.Name] = r
	}
	return byName
}

func TestRead(t *testing.T) {
	rs := loadRead(t)
	tests := []struct {
		name     string
		resource string
		uri      string
		mimeType string
		text     string // want text content
		blob     []byte // want blob content (nil: want text)
	}{
		{"static text", "static-text", "test://static-text", "text/plain", "This is the content of the static text resource.", nil},
		{"static png", "static-binary", "test://static-binary", "image/png", "", png},
		{"sniffed png", "sniffed", "test://sniffed", "image/png", "", png},
		{"markdown file", "readme", "test://readme", "text/markdown", "# Read me\n", nil},
		{"not UTF-8 is a blob", "latin1", "test://latin1", "text/plain", "", []byte("caf\xe9\n")},
		{"json file", "json-file", "test://json-file", "application/json", `{"a":1}`, nil},
		{"template text", "template-data", "test://template/123/data", "application/json",
			`{"id":"123","templateTest":true,"data":"Data for ID: 123"}`, nil},
		{"template JSON escaping", "template-data", "test://template/a%22b%5C/data", "application/json",
			`{"id":"a\"b\\","templateTest":true,"data":"Data for ID: a\"b\\"}`, nil},
		{"template decoding", "greet", "test://greet/Ada/Lovelace%20King", "text/plain", "Hello, Ada Lovelace King!", nil},
		{"template file", "pages", "docs://pages/intro", "text/markdown", "# Intro\n", nil},
		{"template file of any type", "any", "docs://any/logo.png", "image/png", "", png},
		{"template file sniffed", "any", "docs://any/README.md", "text/markdown", "# Read me\n", nil},
		{"variable not in the path", "versioned", "docs://versions/../intro", "text/markdown", "# Intro\n", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := rs[tc.resource]
			c, err := r.Read(context.Background(), tc.uri)
			if err != nil {
				t.Fatal(err)
			}
			if c.URI != tc.uri || c.MIMEType != tc.mimeType {
				t.Errorf("uri, mimeType = %q, %q; want %q, %q", c.URI, c.MIMEType, tc.uri, tc.mimeType)
			}
			if tc.blob != nil {
				if c.Blob == nil || !bytes.Equal(c.Blob, tc.blob) || c.Text != "" {
					t.Errorf("got text %q, blob %q; want blob %q", c.Text, c.Blob, tc.blob)
				}
				return
			}
			if c.Blob != nil || c.Text != tc.text {
				t.Errorf("got text %q, blob %q; want text %q", c.Text, c.Blob, tc.text)
			}
		})
	}
}

func TestReadNotFound(t *testing.T) {
	rs := loadRead(t)
	tests := []struct {
		name     string
		resource string
		uri      string
	}{
		{"other static URI", "static-text", "test://static-textual"},
		{"template mismatch", "template-data", "test://template/123/other"},
		{"empty variable", "template-data", "test://template//data"},
		{"reserved character in a value", "template-data", "test://template/a/b/data"},
		{"missing file", "pages", "docs://pages/nothing"},
		{"value leaving the directory", "any", "docs://any/.."},
		{"encoded slash", "any", "docs://any/..%2Fsecret.txt"},
		{"encoded backslash", "any", "docs://any/..%5Csecret.txt"},
		{"a directory", "any", "docs://any/."},
		{"invalid escape", "any", "docs://any/%zz"},
		{"not UTF-8", "greet", "test://greet/%ff/x"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := rs[tc.resource].Read(context.Background(), tc.uri)
			if !errors.Is(err, resources.ErrNotFound) {
				t.Fatalf("Read(%q) = %+v, %v; want ErrNotFound", tc.uri, c, err)
			}
		})
	}
}

func TestReadCanceled(t *testing.T) {
	rs := loadRead(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := rs["readme"].Read(ctx, "test://readme"); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v; want context.Canceled", err)
	}
}

func TestReadSeesEdits(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "note.txt", []byte("one"))
	src := []byte("resources:\n  - {uri: test://note, name: note, description: N., file: note.txt}\n")
	rs, ds := resources.Parse(filepath.Join(dir, "resources.yaml"), src)
	if ds.HasErrors() || len(rs) != 1 {
		t.Fatalf("parse: %v", ds)
	}
	writeFile(t, dir, "note.txt", []byte("two"))
	c, err := rs[0].Read(context.Background(), "test://note")
	if err != nil || c.Text != "two" {
		t.Fatalf("Read = %+v, %v; want the edited text", c, err)
	}
	if err := os.Remove(filepath.Join(dir, "note.txt")); err != nil {
		t.Fatal(err)
	}
	if _, err := rs[0].Read(context.Background(), "test://note"); !errors.Is(err, resources.ErrNotFound) {
		t.Fatalf("err = %v after the file went; want ErrNotFound", err)
	}
}

func TestSymlinkOut(t *testing.T) {
	outside := t.TempDir()
	writeFile(t, outside, "secret.txt", []byte("secret"))
	dir := t.TempDir()
	if err := os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(dir, "link.txt")); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "out")); err != nil {
		t.Fatal(err)
	}
	src := []byte(`resources:
  - {uri: test://a, name: a, description: A., file: link.txt}
  - {uriTemplate: "test://b/{f}", name: b, description: B., file: "out/{{ f }}"}
`)
	rs, ds := resources.Parse(filepath.Join(dir, "resources.yaml"), src)
	if len(ds) != 1 || ds[0].Code != resources.CodeBadFile || !strings.Contains(ds[0].Message, "symbolic link") {
		t.Fatalf("diagnostics = %v; want one bad-file about the link", ds)
	}
	if len(rs) != 1 {
		t.Fatalf("got %d resources; want the template only", len(rs))
	}
	if c, err := rs[0].Read(context.Background(), "test://b/secret.txt"); err == nil {
		t.Fatalf("read through a link out of the directory: %+v", c)
	}
}

func TestCache(t *testing.T) {
	src := []byte(`cache: {ttl: 5m}
resources:
  - {uri: test://a, name: a, description: A., text: a}
  - {uri: test://b, name: b, description: B., text: b, cache: {scope: private}}
  - {uri: test://c, name: c, description: C., text: c, cache: {ttl: 1500ms, scope: public}}
`)
	rs, ds := resources.Parse("resources.yaml", src)
	if len(ds) > 0 {
		t.Fatal(ds)
	}
	want := []resources.Cache{
		{TTL: 5 * time.Minute, Scope: resources.Public},
		{TTL: 5 * time.Minute, Scope: resources.Private},
		{TTL: 1500 * time.Millisecond, Scope: resources.Public},
	}
	for i, r := range rs {
		if r.Cache != want[i] {
			t.Errorf("%s: cache = %+v; want %+v", r.Name, r.Cache, want[i])
		}
	}
}

func TestIsDeclarationFile(t *testing.T) {
	tests := []struct {
		name string
		want bool
	}{
		{"resources.yaml", true},
		{"resources.yml", true},
		{"flows/docs.resources.yaml", true},
		{"a.b.resources.yml", true},
		{"resources.json", false},
		{"myresources.yaml", false},
		{"resources_test.yaml", false},
		{"signup.yaml", false},
		{".resources.yaml", true},
	}
	for _, tc := range tests {
		if got := resources.IsDeclarationFile(tc.name); got != tc.want {
			t.Errorf("IsDeclarationFile(%q) = %v; want %v", tc.name, got, tc.want)
		}
	}
}

func TestIsTextual(t *testing.T) {
	tests := []struct {
		mimeType string
		want     bool
	}{
		{"text/plain", true},
		{"text/html; charset=utf-8", true},
		{"application/json", true},
		{"application/vnd.api+json", true},
		{"image/svg+xml", true},
		{"application/yaml", true},
		{"text/vnd.mermaid", true},
		{"image/png", false},
		{"application/octet-stream", false},
		{"application/pdf", false},
	}
	for _, tc := range tests {
		if got := resources.IsTextual(tc.mimeType); got != tc.want {
			t.Errorf("IsTextual(%q) = %v; want %v", tc.mimeType, got, tc.want)
		}
	}
}

func TestForFlow(t *testing.T) {
	src := []byte("name: greet\ndescription: Greets.\nnodes:\n  - return: hello\n")
	f, ds := dsl.Parse("flows/greet.yaml", src)
	if ds.HasErrors() {
		t.Fatal(ds)
	}
	rs := resources.ForFlow(f, nil)
	if len(rs) != 2 {
		t.Fatalf("got %d resources; want 2", len(rs))
	}
	src0, err := rs[0].Read(context.Background(), "flow://greet/source")
	if err != nil || src0.Text != string(src) || src0.MIMEType != "application/yaml" {
		t.Errorf("source = %+v, %v", src0, err)
	}
	diagram, err := rs[1].Read(context.Background(), "flow://greet/diagram")
	if err != nil || !strings.Contains(diagram.Text, "flowchart TD") || diagram.MIMEType != "text/vnd.mermaid" {
		t.Errorf("diagram = %+v, %v", diagram, err)
	}
	if rs[0].Pos.File != "flows/greet.yaml" {
		t.Errorf("pos = %v; want the flow file", rs[0].Pos)
	}
	// The same flow gives equal resources; a changed one does not.
	again := resources.ForFlow(f, nil)
	if !rs[0].Equal(again[0]) || !rs[1].Equal(again[1]) {
		t.Error("ForFlow of the same file gives unequal resources")
	}
	f2, _ := dsl.Parse("flows/greet.yaml", append(src, "# changed\n"...))
	if rs[0].Equal(resources.ForFlow(f2, nil)[0]) {
		t.Error("a changed source is Equal to the old one")
	}
}

func TestEqualIgnoresPositions(t *testing.T) {
	a, _ := resources.Parse("r.yaml", []byte("resources:\n  - {uri: test://a, name: a, description: A., text: a}\n"))
	b, _ := resources.Parse("r.yaml", []byte("# moved down\nresources:\n  - {uri: test://a, name: a, description: A., text: a}\n"))
	c, _ := resources.Parse("r.yaml", []byte("resources:\n  - {uri: test://a, name: a, description: A., text: b}\n"))
	if !a[0].Equal(b[0]) {
		t.Error("a moved declaration is not Equal")
	}
	if a[0].Equal(c[0]) {
		t.Error("a changed text is Equal")
	}
}
