package cli

import (
	"os"

	"github.com/flowserve/flowserve/dsl"
	"github.com/flowserve/flowserve/resources"
)

// resourceFiles expands paths into resource declaration files
// (resources.yaml, *.resources.yaml, or .yml): a file stands for itself
// when it has such a name, a directory for every one below it. The
// result is sorted and without repeats.
func resourceFiles(paths []string) ([]string, error) {
	return findFiles(paths, resources.IsDeclarationFile, resources.IsDeclarationFile)
}

// loadResources parses every resource declaration file of paths and
// checks them together, the way lint does, so serve refuses what lint
// rejects. Problems are returned as diagnostics (sorted, warnings
// included) with only the resources that have none; err is for files
// that cannot be read.
func loadResources(paths []string) ([]*resources.Resource, dsl.Diagnostics, error) {
	files, err := resourceFiles(paths)
	if err != nil {
		return nil, nil, err
	}
	srcs := make([]lintSource, 0, len(files))
	for _, path := range files {
		src, err := os.ReadFile(path)
		if err != nil {
			return nil, nil, err
		}
		srcs = append(srcs, lintSource{path: path, src: src})
	}
	rs, diags := parseResources(srcs)
	return rs, diags, nil
}

// parseResources parses resource declaration files and checks them
// together. The diagnostics are sorted.
func parseResources(srcs []lintSource) ([]*resources.Resource, dsl.Diagnostics) {
	var (
		all   []*resources.Resource
		diags dsl.Diagnostics
	)
	for _, s := range srcs {
		rs, ds := resources.Parse(s.path, s.src)
		all = append(all, rs...)
		diags = append(diags, ds...)
	}
	diags = append(diags, resources.Check(all)...)
	diags.Sort()
	return all, diags
}
