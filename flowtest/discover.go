package flowtest

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/flowserve/flowserve/resources"
)

// Suite is a flow file and the test files that name it.
type Suite struct {
	Flow  string   // the flow file's path
	Tests []string // its test files, sorted; none when it has no tests
}

// Discover finds the suites of paths. A test file (*_test.yaml) stands
// for itself and its flow; a flow file for itself and the test files
// beside it that name it; a directory for every flow and test file below
// it (directories whose names start with a dot are skipped). Suites are
// sorted by flow path. A path that does not exist is an error.
func Discover(paths []string) ([]*Suite, error) {
	suites := map[string]*Suite{}
	tests := map[string]bool{}
	suite := func(flow string) *Suite {
		flow = filepath.Clean(flow)
		s := suites[flow]
		if s == nil {
			s = &Suite{Flow: flow}
			suites[flow] = s
		}
		return s
	}
	addTest := func(path string) {
		path = filepath.Clean(path)
		if tests[path] {
			return
		}
		tests[path] = true
		s := suite(flowOf(path))
		s.Tests = append(s.Tests, path)
	}
	for _, p := range paths {
		info, err := os.Stat(p)
		if err != nil {
			if os.IsNotExist(err) {
				return nil, fmt.Errorf("%s: no such file or directory", p)
			}
			return nil, err
		}
		switch {
		case !info.IsDir() && IsTestFile(filepath.Base(p)):
			addTest(p)
		case !info.IsDir():
			flow := filepath.Clean(p)
			suite(flow)
			// The test files beside it that name it.
			siblings, err := os.ReadDir(filepath.Dir(flow))
			if err != nil {
				return nil, err
			}
			for _, e := range siblings {
				if e.IsDir() || !IsTestFile(e.Name()) {
					continue
				}
				path := filepath.Join(filepath.Dir(flow), e.Name())
				if filepath.Clean(flowOf(path)) == flow {
					addTest(path)
				}
			}
		default:
			err := filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
				if err != nil {
					return err
				}
				name := d.Name()
				if d.IsDir() {
					if path != p && strings.HasPrefix(name, ".") {
						return filepath.SkipDir
					}
					return nil
				}
				switch {
				case IsTestFile(name):
					addTest(path)
				case isFlowFile(name):
					suite(path)
				}
				return nil
			})
			if err != nil {
				return nil, err
			}
		}
	}
	out := make([]*Suite, 0, len(suites))
	for _, s := range suites {
		sort.Strings(s.Tests)
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Flow < out[j].Flow })
	return out, nil
}

// isFlowFile reports whether name is a flow file's name: *.yaml or *.yml
// but not a test file or a resource declaration file.
func isFlowFile(name string) bool {
	ext := filepath.Ext(name)
	return (ext == ".yaml" || ext == ".yml") && !IsTestFile(name) && !resources.IsDeclarationFile(name)
}
