package std

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/flowserve/flowserve/actions"
)

// Errors of the fs actions, for errors.Is.
var (
	// ErrNoRoot: no fs root is configured (neither Options.FSRoot nor the
	// Host's FSRoot).
	ErrNoRoot = errors.New("fs actions need a root directory; none is configured")
	// ErrOutsideRoot: the path is absolute or leads out of the root, by ".."
	// or through a symbolic link.
	ErrOutsideRoot = errors.New("path is outside the fs root")
)

// Limits of fs.read.
const (
	FSReadDefaultMax = 1 << 20  // max_bytes when the input gives none (1 MiB)
	FSReadMaxMax     = 64 << 20 // the largest max_bytes allowed (64 MiB)
)

const pathDesc = "A path relative to the fs root, with / as separator. Absolute paths and paths leading out of the root (by .. or through a symbolic link) are refused."

const fsDesc = " All fs actions are confined to the server's fs root directory; without one configured they fail."

// Inputs and outputs of the fs actions. A path's schema (pathProp) is set
// by an edit: its description is shared.

type pathIn struct {
	Path string `json:"path"`
}

type statOut struct {
	Name     string `json:"name" jsonschema:"The last element of the path."`
	Path     string `json:"path" jsonschema:"The path, cleaned, relative to the root."`
	Bytes    int64  `json:"bytes" jsonschema:"The file's size in bytes; 0 for a directory."`
	Dir      bool   `json:"dir" jsonschema:"Whether the path is a directory."`
	Mode     string `json:"mode" jsonschema:"The type and permission bits in ls form, like -rw-r--r-- or drwxr-xr-x."`
	Modified string `json:"modified" jsonschema:"The modification time, RFC 3339 in UTC."`
}

type readIn struct {
	Path     string `json:"path"`
	MaxBytes int64  `json:"max_bytes,omitempty" jsonschema:"The largest file to read, in bytes; bigger files are an error. At most 64 MiB."`
}

type readOut struct {
	Text  string `json:"text" jsonschema:"The file's content."`
	Bytes int64  `json:"bytes" jsonschema:"The content's size in bytes."`
}

type writeIn struct {
	Path       string `json:"path"`
	Text       string `json:"text" jsonschema:"The text to write."`
	Append     bool   `json:"append,omitempty" jsonschema:"Append to the file instead of replacing its content."`
	CreateDirs bool   `json:"create_dirs,omitempty" jsonschema:"Create missing parent directories (mode 0755, less the umask)."`
}

type writeOut struct {
	Bytes int64 `json:"bytes" jsonschema:"How many bytes were written."`
}

type listIn struct {
	Path string `json:"path,omitempty"`
}

type listOut struct {
	Entries []listEntry `json:"entries" jsonschema:"The directory's entries, sorted by name."`
}

type listEntry struct {
	Name  string `json:"name" jsonschema:"The entry's name."`
	Dir   bool   `json:"dir" jsonschema:"Whether the entry is a directory."`
	Bytes int64  `json:"bytes" jsonschema:"The entry's size in bytes; 0 for a directory."`
}

type removeIn struct {
	Path      string `json:"path"`
	Recursive bool   `json:"recursive,omitempty" jsonschema:"Remove a directory together with everything in it."`
}

type removeOut struct {
	Removed bool `json:"removed" jsonschema:"Whether something was removed; false when the path did not exist."`
}

func pathProp(extra ...func(*jsonschema.Schema)) actions.Option {
	return actions.InputProperty("path", prop(pathDesc, append([]func(*jsonschema.Schema){minLength(1)}, extra...)...))
}

func fsSpecs(m *actions.Module[*builtins]) []actions.Spec {
	return []actions.Spec{
		actions.Method(m, "fs.stat", "Returns a file's or directory's size, kind, mode and modification time.", (*builtins).fsStat,
			actions.Describe("Follows symbolic links (inside the root). A missing path is an error."+fsDesc),
			pathProp(),
			actions.OutputProperty("modified", format("date-time"))),
		actions.Method(m, "fs.read", "Reads a text file.", (*builtins).fsRead,
			actions.Describe("Reads a whole regular file as UTF-8 text. A file larger than max_bytes, or one "+
				"that is not valid UTF-8 (a binary file), is an error rather than a truncated or mangled text."+fsDesc),
			pathProp(),
			actions.InputProperty("max_bytes", func(p *jsonschema.Schema) {
				byDefault(FSReadDefaultMax)(p)
				p.Minimum, p.Maximum = jsonschema.Ptr(1.0), jsonschema.Ptr(float64(FSReadMaxMax))
			})),
		actions.Method(m, "fs.write", "Writes text to a file, replacing it or appending to it.", (*builtins).fsWrite,
			actions.Describe("Creates the file (mode 0644, less the umask) if it does not exist. The step runs "+
				"at least once, so an append may happen twice when a client retries with an old requestState."+fsDesc),
			pathProp(),
			actions.InputProperty("append", byDefault(false)),
			actions.InputProperty("create_dirs", byDefault(false))),
		actions.Method(m, "fs.list", "Lists a directory's entries, sorted by name.", (*builtins).fsList,
			actions.Describe("Symbolic links are listed as they are (dir is false, bytes is the link's own size), not followed."+fsDesc),
			actions.InputProperty("path", prop(pathDesc+" The root itself when omitted.", byDefault("."), minLength(1))),
			actions.OutputProperty("entries", func(p *jsonschema.Schema) {
				array(p)
				p.Items.Description = "One directory entry."
			})),
		actions.Method(m, "fs.remove", "Removes a file or directory.", (*builtins).fsRemove,
			actions.Describe("A missing path is not an error: removed is then false. A directory that is not "+
				"empty needs recursive. A symbolic link is removed itself, never what it points to. "+
				"The root itself cannot be removed."+fsDesc),
			pathProp(),
			actions.InputProperty("recursive", byDefault(false))),
	}
}

// openRoot opens the fs root and checks and cleans p.
func (b *builtins) openRoot(ctx context.Context, p string) (*os.Root, string, error) {
	rootDir := b.fsRoot(ctx)
	if rootDir == "" {
		return nil, "", ErrNoRoot
	}
	clean, err := localPath(p)
	if err != nil {
		return nil, "", err
	}
	root, err := os.OpenRoot(rootDir)
	if err != nil {
		return nil, "", fmt.Errorf("open the fs root: %w", err)
	}
	return root, clean, nil
}

// localPath refuses absolute paths and paths that leave the root lexically
// (os.Root refuses symbolic-link escapes), and returns p cleaned.
func localPath(p string) (string, error) {
	if p == "" {
		return "", errors.New("path is empty")
	}
	if filepath.IsAbs(p) || strings.HasPrefix(p, "/") || strings.HasPrefix(p, `\`) {
		return "", &outsideError{fmt.Sprintf("path %q is absolute; give a path relative to the fs root", p), nil}
	}
	clean := filepath.Clean(filepath.FromSlash(p))
	if !filepath.IsLocal(clean) {
		return "", &outsideError{fmt.Sprintf("path %q leads out of the fs root", p), nil}
	}
	return clean, nil
}

// An outsideError is ErrOutsideRoot with a message naming the path (and
// the os.Root error behind it, if any).
type outsideError struct {
	msg string
	err error
}

func (e *outsideError) Error() string { return e.msg }
func (e *outsideError) Unwrap() []error {
	if e.err == nil {
		return []error{ErrOutsideRoot}
	}
	return []error{ErrOutsideRoot, e.err}
}

// pathError rewrites an os error about p: it names the path as the user
// wrote it, and turns os.Root's escape error into ErrOutsideRoot.
func pathError(p string, err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		if pe.Err.Error() == "path escapes from parent" {
			return &outsideError{fmt.Sprintf("path %q leads out of the fs root through a symbolic link", p), err}
		}
		return fmt.Errorf("path %q: %w", p, pe.Err)
	}
	return fmt.Errorf("path %q: %w", p, err)
}

func (b *builtins) fsStat(ctx context.Context, in pathIn) (statOut, error) {
	p := in.Path
	root, clean, err := b.openRoot(ctx, p)
	if err != nil {
		return statOut{}, err
	}
	defer root.Close()
	info, err := root.Stat(clean)
	if err != nil {
		return statOut{}, pathError(p, err)
	}
	return statOut{
		Name:     filepath.Base(clean),
		Path:     filepath.ToSlash(clean),
		Bytes:    size(info),
		Dir:      info.IsDir(),
		Mode:     info.Mode().String(),
		Modified: info.ModTime().UTC().Format(time.RFC3339),
	}, nil
}

func size(info fs.FileInfo) int64 {
	if info.IsDir() {
		return 0
	}
	return info.Size()
}

func (b *builtins) fsRead(ctx context.Context, in readIn) (readOut, error) {
	p, max := in.Path, in.MaxBytes
	if max == 0 { // absent: Run adds the default, a direct call may not
		max = FSReadDefaultMax
	}
	if max < 1 || max > FSReadMaxMax {
		return readOut{}, fmt.Errorf("max_bytes %d is out of range: 1 to %d", max, FSReadMaxMax)
	}
	root, clean, err := b.openRoot(ctx, p)
	if err != nil {
		return readOut{}, err
	}
	defer root.Close()
	f, err := root.Open(clean)
	if err != nil {
		return readOut{}, pathError(p, err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return readOut{}, pathError(p, err)
	}
	if info.IsDir() {
		return readOut{}, fmt.Errorf("path %q is a directory; fs.read reads files", p)
	}
	if !info.Mode().IsRegular() {
		return readOut{}, fmt.Errorf("path %q is not a regular file", p)
	}
	if info.Size() > max {
		return readOut{}, fmt.Errorf("file %q has %d bytes, more than max_bytes (%d)", p, info.Size(), max)
	}
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return readOut{}, pathError(p, err)
	}
	if int64(len(data)) > max {
		return readOut{}, fmt.Errorf("file %q has more than max_bytes (%d) bytes", p, max)
	}
	if !utf8.Valid(data) {
		return readOut{}, fmt.Errorf("file %q is not UTF-8 text; fs.read reads text files only", p)
	}
	return readOut{Text: string(data), Bytes: int64(len(data))}, nil
}

func (b *builtins) fsWrite(ctx context.Context, in writeIn) (writeOut, error) {
	p := in.Path
	root, clean, err := b.openRoot(ctx, p)
	if err != nil {
		return writeOut{}, err
	}
	defer root.Close()
	if clean == "." {
		return writeOut{}, fmt.Errorf("path %q is the fs root, a directory; fs.write writes files", p)
	}
	if in.CreateDirs {
		if dir := filepath.Dir(clean); dir != "." {
			if err := root.MkdirAll(dir, 0o755); err != nil {
				return writeOut{}, pathError(p, err)
			}
		}
	}
	flag := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	if in.Append {
		flag = os.O_WRONLY | os.O_CREATE | os.O_APPEND
	}
	f, err := root.OpenFile(clean, flag, 0o644)
	if err != nil {
		return writeOut{}, pathError(p, err)
	}
	n, err := io.WriteString(f, in.Text)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return writeOut{}, pathError(p, err)
	}
	return writeOut{Bytes: int64(n)}, nil
}

func (b *builtins) fsList(ctx context.Context, in listIn) (listOut, error) {
	p := in.Path
	if p == "" { // absent: Run adds the default, a direct call may not
		p = "."
	}
	root, clean, err := b.openRoot(ctx, p)
	if err != nil {
		return listOut{}, err
	}
	defer root.Close()
	f, err := root.Open(clean)
	if err != nil {
		return listOut{}, pathError(p, err)
	}
	defer f.Close()
	if info, err := f.Stat(); err != nil {
		return listOut{}, pathError(p, err)
	} else if !info.IsDir() {
		return listOut{}, fmt.Errorf("path %q is not a directory", p)
	}
	des, err := f.ReadDir(-1)
	if err != nil {
		return listOut{}, pathError(p, err)
	}
	slices.SortFunc(des, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	entries := make([]listEntry, 0, len(des))
	for _, de := range des {
		info, err := de.Info()
		if err != nil {
			continue // removed since it was listed
		}
		entries = append(entries, listEntry{Name: de.Name(), Dir: de.IsDir(), Bytes: size(info)})
	}
	return listOut{Entries: entries}, nil
}

func (b *builtins) fsRemove(ctx context.Context, in removeIn) (removeOut, error) {
	p := in.Path
	root, clean, err := b.openRoot(ctx, p)
	if err != nil {
		return removeOut{}, err
	}
	defer root.Close()
	if clean == "." {
		return removeOut{}, fmt.Errorf("path %q is the fs root, which cannot be removed", p)
	}
	info, err := root.Lstat(clean)
	if errors.Is(err, fs.ErrNotExist) {
		return removeOut{Removed: false}, nil
	}
	if err != nil {
		return removeOut{}, pathError(p, err)
	}
	if in.Recursive {
		err = root.RemoveAll(clean)
	} else {
		err = root.Remove(clean)
		if err != nil && info.IsDir() && isNotEmpty(root, clean) {
			return removeOut{}, fmt.Errorf("path %q is a directory that is not empty; set recursive to remove it with its content", p)
		}
	}
	if err != nil {
		return removeOut{}, pathError(p, err)
	}
	return removeOut{Removed: true}, nil
}

func isNotEmpty(root *os.Root, dir string) bool {
	f, err := root.Open(dir)
	if err != nil {
		return false
	}
	defer f.Close()
	names, _ := f.Readdirnames(1)
	return len(names) > 0
}
