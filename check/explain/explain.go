// Package explain holds the explanation of every code flowserve lint
// reports (flowserve lint --explain CODE, and the language server's hover
// on a diagnostic): the rule, why it exists, a minimal flow that breaks
// it and the fix. Each is a Markdown file of its own, codes/CODE.md,
// embedded in the binary:
//
//	# CODE
//
//	The rule, in a paragraph or more.
//
//	## Why
//
//	Why the rule exists.
//
//	## Example
//
//	```yaml
//	a flow that lint reports CODE in (flow.yaml)
//	```
//
//	## Fix
//
//	```yaml
//	the same flow fixed
//	```
//
// A code block of the example or the fix whose info string names a file
// after the language (```yaml callee.yaml, ```text notes.txt) is that
// file of a flow directory, linted together; a yaml block that names none
// is flow.yaml, and other blocks that name none (a command line, a
// message) are no file. Files under old/ are the version lint compares
// with (--against). The fix's files replace the example's files of their
// names. A code that no flow file can make lint report (a path that does
// not exist) has no file in its example, which says in words what does.
// Tests check that every code of check/codes and resources has an
// explanation, that each example makes lint report its code and that each
// fix does not.
package explain

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/flowserve/flowserve/lang"
)

//go:embed codes/*.md
var files embed.FS

// Explanation is what the file of one code says.
type Explanation struct {
	// Code is the code explained.
	Code string
	// Text is the whole explanation, Markdown, as the file holds it.
	Text string
	// Example are the files of the example that breaks the rule; Fix are
	// those the fix replaces. Both are empty for a code no file can make
	// lint report.
	Example, Fix []File
}

// File is a file of an example: a path relative to the flow directory,
// and its text.
type File struct {
	Name, Text string
}

// Codes returns every code that has an explanation, sorted.
func Codes() []string {
	entries, _ := fs.ReadDir(files, "codes")
	var out []string
	for _, e := range entries {
		if code, ok := strings.CutSuffix(e.Name(), ".md"); ok {
			out = append(out, code)
		}
	}
	slices.Sort(out)
	return out
}

// Lookup returns the explanation of code, and whether there is one.
func Lookup(code string) (Explanation, bool) {
	if code == "" || strings.ContainsAny(code, "/\\.") {
		return Explanation{}, false
	}
	b, err := files.ReadFile(path.Join("codes", code+".md"))
	if err != nil {
		return Explanation{}, false
	}
	// A file that does not parse (the tests see that none does) still
	// has its text.
	e, _ := parse(code, string(b))
	return e, true
}

// Close returns the codes that code most likely stands for, best first
// (at most five): those it misspells (see lang.Suggest), then those that
// hold it whole, or a word of it, as a word of theirs.
func Close(code string) []string {
	code = strings.ToLower(strings.TrimSpace(code))
	all := Codes()
	var out []string
	if slices.Contains(all, code) {
		out = append(out, code) // spelt in capitals, or with blanks
	}
	options := slices.DeleteFunc(slices.Clone(all), func(o string) bool { return o == code })
	for len(out) < 3 {
		s := lang.Suggest(code, options)
		if s == "" {
			break
		}
		out = append(out, s)
		options = slices.DeleteFunc(options, func(o string) bool { return o == s })
	}
	words := strings.FieldsFunc(code, func(r rune) bool { return r == '-' || r == '_' || r == ' ' })
	for _, c := range all {
		if len(out) == 5 {
			break
		}
		if slices.Contains(out, c) {
			continue
		}
		if code != "" && strings.Contains(c, code) || sharesWord(c, words) {
			out = append(out, c)
		}
	}
	return out
}

// sharesWord reports whether code has one of words (of three letters or
// more) as a word of its own.
func sharesWord(code string, words []string) bool {
	for _, w := range strings.Split(code, "-") {
		for _, x := range words {
			if len(x) >= 3 && (w == x || len(x) >= 5 && strings.HasPrefix(w, x)) {
				return true
			}
		}
	}
	return false
}

// parse reads the explanation of code from text.
func parse(code, text string) (Explanation, error) {
	e := Explanation{Code: code, Text: text}
	first, _, _ := strings.Cut(text, "\n")
	if first != "# "+code {
		return e, fmt.Errorf("explanation of %s: the first line is %q, not \"# %s\"", code, first, code)
	}
	var section string
	sections := map[string]bool{}
	lines := strings.Split(text, "\n")
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if h, ok := strings.CutPrefix(line, "## "); ok {
			section = h
			sections[h] = true
			continue
		}
		info, ok := strings.CutPrefix(line, "```")
		if !ok {
			continue
		}
		var body []string
		for i++; i < len(lines) && lines[i] != "```"; i++ {
			body = append(body, lines[i])
		}
		if i == len(lines) {
			return e, fmt.Errorf("explanation of %s: a code block is never closed", code)
		}
		lang, name, _ := strings.Cut(info, " ")
		switch {
		case name != "":
		case lang == "yaml":
			name = "flow.yaml"
		default:
			continue // a command line, a message
		}
		f := File{Name: name, Text: strings.Join(body, "\n") + "\n"}
		switch section {
		case "Example":
			e.Example = append(e.Example, f)
		case "Fix":
			e.Fix = append(e.Fix, f)
		}
	}
	for _, s := range []string{"Why", "Example", "Fix"} {
		if !sections[s] {
			return e, fmt.Errorf("explanation of %s: no ## %s section", code, s)
		}
	}
	if len(e.Example) == 0 != (len(e.Fix) == 0) {
		return e, fmt.Errorf("explanation of %s: an example needs a fix in a yaml block, and a fix an example", code)
	}
	return e, nil
}
