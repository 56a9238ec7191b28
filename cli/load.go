package cli

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/flowserve/flowserve/dsl"
	"github.com/flowserve/flowserve/flow"
	"github.com/flowserve/flowserve/resources"
)

// flowFiles expands paths into flow files: a file stands for itself
// (unless it is a resource declaration file), a directory for every
// *.yaml and *.yml below it except tests (*_test.yaml) and resource
// declarations (resources.yaml, *.resources.yaml). The result is sorted
// and without repeats.
func flowFiles(paths []string) ([]string, error) {
	return findFiles(paths, func(path string) bool { return !resources.IsDeclarationFile(path) }, isFlowFile)
}

// findFiles expands paths into files: a file that explicit accepts stands
// for itself, a directory for every file below it whose name match
// accepts (hidden directories are skipped). The result is sorted and
// without repeats.
func findFiles(paths []string, explicit, match func(string) bool) ([]string, error) {
	seen := map[string]bool{}
	var out []string
	add := func(p string) {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	for _, p := range paths {
		info, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, errNotFound(err))
		}
		if !info.IsDir() {
			if explicit(p) {
				add(filepath.Clean(p))
			}
			continue
		}
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if path != p && strings.HasPrefix(d.Name(), ".") {
					return filepath.SkipDir
				}
				return nil
			}
			if match(d.Name()) {
				add(path)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	sort.Strings(out)
	return out, nil
}

func isFlowFile(name string) bool {
	ext := filepath.Ext(name)
	if ext != ".yaml" && ext != ".yml" {
		return false
	}
	return !strings.HasSuffix(strings.TrimSuffix(name, ext), "_test") && !resources.IsDeclarationFile(name)
}

func errNotFound(err error) error {
	if os.IsNotExist(err) {
		return fmt.Errorf("no such file or directory")
	}
	return err
}

// loadFlows parses, checks and compiles every flow file of paths, the
// way lint does, so serve refuses what lint rejects. Problems in the flows
// are returned as diagnostics (sorted, from every file, warnings
// included); err is for files that cannot be read.
func loadFlows(paths []string, opts flow.Options) ([]*flow.Program, dsl.Diagnostics, error) {
	files, err := flowFiles(paths)
	if err != nil {
		return nil, nil, err
	}
	if len(files) == 0 {
		return nil, nil, fmt.Errorf("no flow files (*.yaml) in %s", strings.Join(paths, ", "))
	}
	var (
		progs  []*flow.Program
		diags  dsl.Diagnostics
		parsed []*dsl.File
	)
	for _, path := range files {
		src, err := os.ReadFile(path)
		if err != nil {
			return nil, nil, err
		}
		f, p, ds, err := lintFlow(path, src, opts)
		if err != nil {
			return nil, nil, err
		}
		diags = append(diags, ds...)
		parsed = append(parsed, f)
		if p != nil {
			progs = append(progs, p)
		}
	}
	diags = append(diags, duplicateTools(parsed)...)
	diags.Sort()
	return progs, diags, nil
}

// printDiagnostics writes one diagnostic per line.
func printDiagnostics(w io.Writer, diags dsl.Diagnostics) {
	for _, d := range diags {
		fmt.Fprintln(w, d.String())
	}
}
