package project

import (
	"bytes"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// overlayFS is a file system with texts in place of some of its files,
// and in addition to them for texts whose file does not exist yet: an
// editor's buffers over the files on disk. A directory lists the texts
// in it with its files, so that a walk finds a buffer not saved yet.
// Names are cleaned, slash-separated paths (see overlayName).
type overlayFS struct {
	base  fs.FS
	texts map[string][]byte
}

// overlayName is the key of path among an overlay's texts: the form
// discovery gives names in.
func overlayName(p string) string {
	return path.Clean(filepath.ToSlash(p))
}

// text returns the text of name, if the overlay holds one.
func (o overlayFS) text(name string) ([]byte, bool) {
	src, ok := o.texts[overlayName(name)]
	return src, ok
}

// Open opens name.
func (o overlayFS) Open(name string) (fs.File, error) {
	if src, ok := o.text(name); ok {
		return &textFile{info: textInfo{name: path.Base(filepath.ToSlash(name)), size: int64(len(src))}, r: bytes.NewReader(src)}, nil
	}
	return o.base.Open(name)
}

// Stat describes name.
func (o overlayFS) Stat(name string) (fs.FileInfo, error) {
	if src, ok := o.text(name); ok {
		return textInfo{name: path.Base(filepath.ToSlash(name)), size: int64(len(src))}, nil
	}
	return fs.Stat(o.base, name)
}

// ReadFile returns the contents of name.
func (o overlayFS) ReadFile(name string) ([]byte, error) {
	if src, ok := o.text(name); ok {
		return bytes.Clone(src), nil
	}
	return fs.ReadFile(o.base, name)
}

// ReadDir lists the directory name: its entries, a text in it standing
// for the file of its name or added to them, sorted by name.
func (o overlayFS) ReadDir(name string) ([]fs.DirEntry, error) {
	entries, err := fs.ReadDir(o.base, name)
	if err != nil {
		return nil, err
	}
	dir := overlayName(name)
	var added bool
	for p, src := range o.texts {
		if path.Dir(p) != dir {
			continue
		}
		base := path.Base(p)
		if i := slices.IndexFunc(entries, func(e fs.DirEntry) bool { return e.Name() == base }); i >= 0 {
			if !entries[i].IsDir() {
				entries[i] = fs.FileInfoToDirEntry(textInfo{name: base, size: int64(len(src))})
			}
			continue
		}
		entries = append(entries, fs.FileInfoToDirEntry(textInfo{name: base, size: int64(len(src))}))
		added = true
	}
	if added {
		slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	}
	return entries, nil
}

// textFile is a text of an overlay, opened.
type textFile struct {
	info textInfo
	r    *bytes.Reader
}

// Stat, Read and Close make a textFile an fs.File.
func (f *textFile) Stat() (fs.FileInfo, error) { return f.info, nil }
func (f *textFile) Read(b []byte) (int, error) { return f.r.Read(b) }
func (f *textFile) Close() error               { return nil }

// textInfo describes a text of an overlay.
type textInfo struct {
	name string
	size int64
}

// Name, Size, Mode, ModTime, IsDir and Sys make a textInfo an
// fs.FileInfo.
func (i textInfo) Name() string       { return i.name }
func (i textInfo) Size() int64        { return i.size }
func (i textInfo) Mode() fs.FileMode  { return 0o644 }
func (i textInfo) ModTime() time.Time { return time.Time{} }
func (i textInfo) IsDir() bool        { return false }
func (i textInfo) Sys() any           { return nil }
