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

	"github.com/flowserve/flowserve/actions"
)

// Errors of the fs actions, for errors.Is.
var (
	// ErrNoRoot: the Host has no FSRoot.
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

func init() {
	actions.Register(actions.Spec{
		Name:        "fs.stat",
		Summary:     "Returns a file's or directory's size, kind, mode and modification time.",
		Description: "Follows symbolic links (inside the root). A missing path is an error." + fsDesc,
		Input: object("", obj{
			"path": prop("string", pathDesc, "minLength", 1),
		}, "path"),
		Output: object("", obj{
			"name":     prop("string", "The last element of the path."),
			"path":     prop("string", "The path, cleaned, relative to the root."),
			"bytes":    prop("integer", "The file's size in bytes; 0 for a directory."),
			"dir":      prop("boolean", "Whether the path is a directory."),
			"mode":     prop("string", "The type and permission bits in ls form, like -rw-r--r-- or drwxr-xr-x."),
			"modified": prop("string", "The modification time, RFC 3339 in UTC.", "format", "date-time"),
		}, "name", "path", "bytes", "dir", "mode", "modified"),
		Func: fsStat,
	})
	actions.Register(actions.Spec{
		Name:    "fs.read",
		Summary: "Reads a text file.",
		Description: "Reads a whole regular file as UTF-8 text. A file larger than max_bytes, or one " +
			"that is not valid UTF-8 (a binary file), is an error rather than a truncated or mangled text." + fsDesc,
		Input: object("", obj{
			"path":      prop("string", pathDesc, "minLength", 1),
			"max_bytes": prop("integer", "The largest file to read, in bytes; bigger files are an error. At most 64 MiB.", "default", FSReadDefaultMax, "minimum", 1, "maximum", FSReadMaxMax),
		}, "path"),
		Output: object("", obj{
			"text":  prop("string", "The file's content."),
			"bytes": prop("integer", "The content's size in bytes."),
		}, "text", "bytes"),
		Func: fsRead,
	})
	actions.Register(actions.Spec{
		Name:    "fs.write",
		Summary: "Writes text to a file, replacing it or appending to it.",
		Description: "Creates the file (mode 0644, less the umask) if it does not exist. The step runs " +
			"at least once, so an append may happen twice when a client retries with an old requestState." + fsDesc,
		Input: object("", obj{
			"path":        prop("string", pathDesc, "minLength", 1),
			"text":        prop("string", "The text to write."),
			"append":      prop("boolean", "Append to the file instead of replacing its content.", "default", false),
			"create_dirs": prop("boolean", "Create missing parent directories (mode 0755, less the umask).", "default", false),
		}, "path", "text"),
		Output: object("", obj{
			"bytes": prop("integer", "How many bytes were written."),
		}, "bytes"),
		Func: fsWrite,
	})
	actions.Register(actions.Spec{
		Name:        "fs.list",
		Summary:     "Lists a directory's entries, sorted by name.",
		Description: "Symbolic links are listed as they are (dir is false, bytes is the link's own size), not followed." + fsDesc,
		Input: object("", obj{
			"path": prop("string", pathDesc+" The root itself when omitted.", "default", ".", "minLength", 1),
		}),
		Output: object("", obj{
			"entries": prop("array", "The directory's entries, sorted by name.", "items", object("One directory entry.", obj{
				"name":  prop("string", "The entry's name."),
				"dir":   prop("boolean", "Whether the entry is a directory."),
				"bytes": prop("integer", "The entry's size in bytes; 0 for a directory."),
			}, "name", "dir", "bytes")),
		}, "entries"),
		Func: fsList,
	})
	actions.Register(actions.Spec{
		Name:    "fs.remove",
		Summary: "Removes a file or directory.",
		Description: "A missing path is not an error: removed is then false. A directory that is not " +
			"empty needs recursive. A symbolic link is removed itself, never what it points to. " +
			"The root itself cannot be removed." + fsDesc,
		Input: object("", obj{
			"path":      prop("string", pathDesc, "minLength", 1),
			"recursive": prop("boolean", "Remove a directory together with everything in it.", "default", false),
		}, "path"),
		Output: object("", obj{
			"removed": prop("boolean", "Whether something was removed; false when the path did not exist."),
		}, "removed"),
		Func: fsRemove,
	})
}

// openRoot opens the host's fs root and checks and cleans p.
func openRoot(ctx context.Context, p string) (*os.Root, string, error) {
	rootDir := actions.HostFrom(ctx).FSRoot
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

func fsStat(ctx context.Context, in map[string]any) (any, error) {
	p := argString(in, "path", "")
	root, clean, err := openRoot(ctx, p)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	info, err := root.Stat(clean)
	if err != nil {
		return nil, pathError(p, err)
	}
	return map[string]any{
		"name":     filepath.Base(clean),
		"path":     filepath.ToSlash(clean),
		"bytes":    size(info),
		"dir":      info.IsDir(),
		"mode":     info.Mode().String(),
		"modified": info.ModTime().UTC().Format(time.RFC3339),
	}, nil
}

func size(info fs.FileInfo) int64 {
	if info.IsDir() {
		return 0
	}
	return info.Size()
}

func fsRead(ctx context.Context, in map[string]any) (any, error) {
	p := argString(in, "path", "")
	max, err := argInt(in, "max_bytes", FSReadDefaultMax)
	if err != nil {
		return nil, err
	}
	if max < 1 || max > FSReadMaxMax {
		return nil, fmt.Errorf("max_bytes %d is out of range: 1 to %d", max, FSReadMaxMax)
	}
	root, clean, err := openRoot(ctx, p)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	f, err := root.Open(clean)
	if err != nil {
		return nil, pathError(p, err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, pathError(p, err)
	}
	if info.IsDir() {
		return nil, fmt.Errorf("path %q is a directory; fs.read reads files", p)
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("path %q is not a regular file", p)
	}
	if info.Size() > max {
		return nil, fmt.Errorf("file %q has %d bytes, more than max_bytes (%d)", p, info.Size(), max)
	}
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, pathError(p, err)
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("file %q has more than max_bytes (%d) bytes", p, max)
	}
	if !utf8.Valid(data) {
		return nil, fmt.Errorf("file %q is not UTF-8 text; fs.read reads text files only", p)
	}
	return map[string]any{"text": string(data), "bytes": int64(len(data))}, nil
}

func fsWrite(ctx context.Context, in map[string]any) (any, error) {
	p := argString(in, "path", "")
	text := argString(in, "text", "")
	root, clean, err := openRoot(ctx, p)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	if clean == "." {
		return nil, fmt.Errorf("path %q is the fs root, a directory; fs.write writes files", p)
	}
	if argBool(in, "create_dirs") {
		if dir := filepath.Dir(clean); dir != "." {
			if err := root.MkdirAll(dir, 0o755); err != nil {
				return nil, pathError(p, err)
			}
		}
	}
	flag := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	if argBool(in, "append") {
		flag = os.O_WRONLY | os.O_CREATE | os.O_APPEND
	}
	f, err := root.OpenFile(clean, flag, 0o644)
	if err != nil {
		return nil, pathError(p, err)
	}
	n, err := io.WriteString(f, text)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, pathError(p, err)
	}
	return map[string]any{"bytes": int64(n)}, nil
}

func fsList(ctx context.Context, in map[string]any) (any, error) {
	p := argString(in, "path", ".")
	root, clean, err := openRoot(ctx, p)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	f, err := root.Open(clean)
	if err != nil {
		return nil, pathError(p, err)
	}
	defer f.Close()
	if info, err := f.Stat(); err != nil {
		return nil, pathError(p, err)
	} else if !info.IsDir() {
		return nil, fmt.Errorf("path %q is not a directory", p)
	}
	des, err := f.ReadDir(-1)
	if err != nil {
		return nil, pathError(p, err)
	}
	slices.SortFunc(des, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	entries := make([]any, 0, len(des))
	for _, de := range des {
		info, err := de.Info()
		if err != nil {
			continue // removed since it was listed
		}
		entries = append(entries, map[string]any{"name": de.Name(), "dir": de.IsDir(), "bytes": size(info)})
	}
	return map[string]any{"entries": entries}, nil
}

func fsRemove(ctx context.Context, in map[string]any) (any, error) {
	p := argString(in, "path", "")
	root, clean, err := openRoot(ctx, p)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	if clean == "." {
		return nil, fmt.Errorf("path %q is the fs root, which cannot be removed", p)
	}
	info, err := root.Lstat(clean)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]any{"removed": false}, nil
	}
	if err != nil {
		return nil, pathError(p, err)
	}
	if argBool(in, "recursive") {
		err = root.RemoveAll(clean)
	} else {
		err = root.Remove(clean)
		if err != nil && info.IsDir() && isNotEmpty(root, clean) {
			return nil, fmt.Errorf("path %q is a directory that is not empty; set recursive to remove it with its content", p)
		}
	}
	if err != nil {
		return nil, pathError(p, err)
	}
	return map[string]any{"removed": true}, nil
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
