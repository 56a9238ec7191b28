package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The two commands the README must keep exactly: CI and reviewers run them.
const (
	serveCommand = `mkdir -p /tmp/flowserve-demo && echo "quarterly numbers" > /tmp/flowserve-demo/report.txt && go run ./cmd/flowserve serve --fs-root /tmp/flowserve-demo flows/`
	testCommand  = `.ci/run`
)

// readmeMaxLines is how long the README, the front door, may grow.
const readmeMaxLines = 200

func TestReadme(t *testing.T) {
	readme := readFile(t, filepath.Join(root, "README.md"))
	blocks := fencedBlocks(readme)
	for _, cmd := range []string{serveCommand, testCommand} {
		found := false
		for _, b := range blocks {
			for _, line := range strings.Split(b.text, "\n") {
				if line == cmd {
					found = true
				}
			}
		}
		if !found {
			t.Errorf("README.md has lost the command CI and reviewers run, byte for byte, on a line of its own in a code block:\n\t%s", cmd)
		}
	}
	if n := strings.Count(readme, "\n"); n > readmeMaxLines {
		t.Errorf("README.md has %d lines, more than %d: it is the front door; move details into docs/", n, readmeMaxLines)
	}
}

// TestLinks checks that every relative link of the README and docs/
// names a file of the repository, and its #fragment a heading there.
func TestLinks(t *testing.T) {
	linkRE := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	for _, file := range docFiles(t) {
		text := readFile(t, file)
		for i, line := range strings.Split(stripFences(text), "\n") {
			for _, m := range linkRE.FindAllStringSubmatch(line, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				path, frag, _ := strings.Cut(target, "#")
				dest := file
				if path != "" {
					dest = filepath.Join(filepath.Dir(file), path)
					if _, err := os.Stat(dest); err != nil {
						t.Errorf("%s:%d: link to %s: no such file", file, i+1, target)
						continue
					}
				}
				if frag == "" || !strings.HasSuffix(dest, ".md") {
					continue
				}
				if !headingSlugs(readFile(t, dest))[frag] {
					t.Errorf("%s:%d: link to %s: %s has no heading #%s", file, i+1, target, dest, frag)
				}
			}
		}
	}
}

// TestDocCitations checks that no package documentation (doc.go) cites a
// file outside the repository or one it does not have: readers of the
// package docs have the repository, nothing else.
func TestDocCitations(t *testing.T) {
	var docs []string
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") && path != root || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.Name() == "doc.go" {
			docs = append(docs, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// A citation: DESIGN.md (which lives outside the repository), a
	// path that climbs out (../), or a path into docs/.
	citeRE := regexp.MustCompile(`DESIGN(\.md)?|(\.\./)+[\w./-]+|\bdocs/[\w./-]+\.md`)
	for _, file := range docs {
		for i, line := range strings.Split(readFile(t, file), "\n") {
			for _, c := range citeRE.FindAllString(line, -1) {
				path := c
				if strings.HasPrefix(c, "../") {
					path = filepath.Join(filepath.Dir(file), c)
				} else if strings.HasPrefix(c, "docs/") {
					path = filepath.Join(root, c)
				} else {
					path = filepath.Join(root, "DESIGN.md")
				}
				if rel, err := filepath.Rel(root, path); err != nil || strings.HasPrefix(rel, "..") {
					t.Errorf("%s:%d: cites %s, which is outside the repository", file, i+1, c)
				} else if _, err := os.Stat(path); err != nil {
					t.Errorf("%s:%d: cites %s, which the repository does not have", file, i+1, c)
				}
			}
		}
	}
}
