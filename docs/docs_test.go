// Package docs holds flowserve's documentation and the tests that keep it
// true: the flow reference against schemas/flow.schema.json, the actions
// reference against the registry, the expression examples against the
// languages, the flows and Go programs the guides show against lint, the
// flow tests and the compiler, and every link against the files.
package docs

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
)

var update = flag.Bool("update", false, "rewrite the generated docs (actions.md)")

// root is the repository's root, relative to this directory.
const root = ".."

// docFiles returns the markdown files the tests read: the README and
// every docs/*.md, as paths relative to this directory.
func docFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	return append([]string{filepath.Join(root, "README.md")}, files...)
}

func readFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// block is a fenced code block of a markdown file.
type block struct {
	lang string // the info string's first word
	text string // the content, without the fences
	line int    // the line of the opening fence, from 1
	// before is the text between the previous block (or the start of
	// the file) and this one.
	before string
}

// fencedBlocks returns the ``` blocks of a markdown text.
func fencedBlocks(md string) []block {
	var out []block
	lines := strings.Split(md, "\n")
	start := 0 // the line after the previous block
	for i := 0; i < len(lines); i++ {
		l := strings.TrimLeft(lines[i], " ")
		if !strings.HasPrefix(l, "```") {
			continue
		}
		indent := len(lines[i]) - len(l)
		fence := l[:len(l)-len(strings.TrimLeft(l, "`"))]
		info := strings.Fields(strings.TrimPrefix(l, fence))
		b := block{line: i + 1, before: strings.Join(lines[start:i], "\n")}
		if len(info) > 0 {
			b.lang = info[0]
		}
		var body []string
		for i++; i < len(lines); i++ {
			if strings.HasPrefix(strings.TrimLeft(lines[i], " "), fence) {
				break
			}
			line := lines[i]
			if len(line) >= indent && strings.TrimSpace(line[:indent]) == "" {
				line = line[indent:]
			}
			body = append(body, line)
		}
		b.text = strings.Join(body, "\n") + "\n"
		out = append(out, b)
		start = i + 1
	}
	return out
}

// stripFences blanks the lines of code blocks, keeping line numbers.
func stripFences(md string) string {
	lines := strings.Split(md, "\n")
	in := false
	for i, l := range lines {
		fence := strings.HasPrefix(strings.TrimLeft(l, " "), "```")
		if in || fence {
			lines[i] = ""
		}
		if fence {
			in = !in
		}
	}
	return strings.Join(lines, "\n")
}

// headingSlugs returns the anchors GitHub gives a markdown text's headings.
func headingSlugs(md string) map[string]bool {
	slugs := map[string]bool{}
	count := map[string]int{}
	for _, line := range strings.Split(stripFences(md), "\n") {
		if !strings.HasPrefix(line, "#") {
			continue
		}
		h := strings.TrimLeft(line, "#")
		if !strings.HasPrefix(h, " ") {
			continue
		}
		s := slug(h)
		if n := count[s]; n > 0 {
			slugs[fmt.Sprintf("%s-%d", s, n)] = true
		} else {
			slugs[s] = true
		}
		count[s]++
	}
	return slugs
}

// slug is GitHub's anchor for a heading: lower case, punctuation dropped,
// spaces as hyphens.
func slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}
