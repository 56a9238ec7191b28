package project

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/flowserve/flowserve/check/codes"
	"github.com/flowserve/flowserve/dsl"
	"github.com/flowserve/flowserve/resources"
)

// IsFlowFile reports whether a file of this name, found in a directory, is
// a flow: *.yaml or *.yml, except tests (*_test.yaml) and resource
// declarations (resources.yaml, *.resources.yaml).
func IsFlowFile(name string) bool {
	ext := filepath.Ext(name)
	if ext != ".yaml" && ext != ".yml" {
		return false
	}
	return !strings.HasSuffix(strings.TrimSuffix(name, ext), "_test") && !resources.IsDeclarationFile(name)
}

// Files are the files paths stand for, sorted and without repeats.
type Files struct {
	Flows     []string // flow files
	Resources []string // resource declaration files
}

// Discover expands paths into flow files and resource declaration files.
// A file stands for itself: a resource declaration when it has such a name
// (resources.IsDeclarationFile), a flow otherwise, whatever its name. A
// directory stands for every flow file (see [IsFlowFile]) and declaration
// file below it; hidden directories are skipped. A path that does not
// exist is a CodeNoSuchPath error; a directory that cannot be walked is
// CodeUnreadable.
func Discover(paths []string) (Files, dsl.Diagnostics) {
	files, diags, _ := discover(osFS{}, paths, 0)
	return files, diags
}

// entriesPerFile is how many directory entries a bounded discovery (see
// discover) may read for each file it may find.
const entriesPerFile = 20

// discover is Discover over fsys. With max > 0 it gives up (fits false,
// and the files found so far) once it finds more than max files or reads
// more than entriesPerFile times as many directory entries, so that an
// editor pointed at a big tree learns so cheaply.
func discover(fsys fs.FS, paths []string, max int) (out Files, diags dsl.Diagnostics, fits bool) {
	var (
		seen    = map[string]bool{}
		entries int
		tooBig  bool
	)
	add := func(list *[]string, p string) {
		if !seen[p] {
			seen[p] = true
			*list = append(*list, p)
			tooBig = tooBig || max > 0 && len(out.Flows)+len(out.Resources) > max
		}
	}
	for _, p := range paths {
		if tooBig {
			break
		}
		info, err := fs.Stat(fsys, p)
		if err != nil {
			diags = append(diags, pathError(p, err))
			continue
		}
		if !info.IsDir() {
			if resources.IsDeclarationFile(p) {
				add(&out.Resources, path.Clean(p))
			} else {
				add(&out.Flows, path.Clean(p))
			}
			continue
		}
		err = fs.WalkDir(fsys, p, func(name string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if entries++; tooBig || max > 0 && entries > entriesPerFile*max {
				tooBig = true
				return fs.SkipAll
			}
			if d.IsDir() {
				if name != p && strings.HasPrefix(d.Name(), ".") {
					return fs.SkipDir
				}
				return nil
			}
			switch {
			case resources.IsDeclarationFile(d.Name()):
				add(&out.Resources, name)
			case IsFlowFile(d.Name()):
				add(&out.Flows, name)
			}
			return nil
		})
		if err != nil {
			diags = append(diags, fileError(p, codes.Unreadable, err.Error()))
		}
	}
	sort.Strings(out.Flows)
	sort.Strings(out.Resources)
	return out, diags, !tooBig
}

// pathError is the diagnostic of a path that cannot be opened.
func pathError(path string, err error) dsl.Diagnostic {
	if errors.Is(err, fs.ErrNotExist) {
		return fileError(path, codes.NoSuchPath, "no such file or directory")
	}
	return fileError(path, codes.Unreadable, err.Error())
}

// fileError is an error about a whole file, at its first line. A
// diagnostic's String prints it as "path:1:1: error: message [code]";
// [IsUsage] tells the ones about the paths themselves.
func fileError(path, code, msg string) dsl.Diagnostic {
	return dsl.Diagnostic{Pos: dsl.Pos{File: path, Line: 1, Col: 1}, Severity: dsl.Error, Code: code, Message: msg}
}

// osFS is the operating system's files as an fs.FS, with names passed to
// the os package as they are: unlike os.DirFS, it takes absolute paths
// and paths with "..", as a command line gives them.
type osFS struct{}

func (osFS) Open(name string) (fs.File, error)          { return os.Open(filepath.FromSlash(name)) }
func (osFS) Stat(name string) (fs.FileInfo, error)      { return os.Stat(filepath.FromSlash(name)) }
func (osFS) ReadFile(name string) ([]byte, error)       { return os.ReadFile(filepath.FromSlash(name)) }
func (osFS) ReadDir(name string) ([]fs.DirEntry, error) { return os.ReadDir(filepath.FromSlash(name)) }
