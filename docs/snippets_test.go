package docs

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/flowserve/flowserve/cli"
)

// Files the guides show carry their path on their first line: a Go or
// go.mod block starts with "// path", a YAML block with "# path". The
// tests write them out, in a directory per document, and check them:
// flows lint cleanly and their tests pass, Go modules build. Console
// blocks ("$ flowserve ..." lines followed by their output) are run in
// that directory and must print what the document shows.

var (
	goPathRE   = regexp.MustCompile(`^// ([\w./-]+\.go|([\w./-]+/)?go\.mod)$`)
	yamlPathRE = regexp.MustCompile(`^# ([\w./-]+\.ya?ml)$`)
)

// docFile is a file a document shows.
type docFile struct {
	path string
	text string
	line int
}

// shownFiles returns the files of a markdown text. Their path line is
// part of them, a comment, so that a file copied from the page is the
// file tested, with the same line numbers.
func shownFiles(md string) []docFile {
	var out []docFile
	for _, b := range fencedBlocks(md) {
		first, _, _ := strings.Cut(b.text, "\n")
		var m []string
		switch b.lang {
		case "go", "":
			m = goPathRE.FindStringSubmatch(first)
		case "yaml":
			m = yamlPathRE.FindStringSubmatch(first)
		}
		if m == nil {
			continue
		}
		out = append(out, docFile{path: m[1], text: b.text, line: b.line})
	}
	return out
}

// writeFiles writes files under dir.
func writeFiles(t *testing.T, dir string, files []docFile) {
	t.Helper()
	for _, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f.path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(f.text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestShownFlows lints the flows that the README and the tutorial show
// (and testing.md) as files, runs their tests, and runs the console
// examples of those pages and cli.md with the flowserve command (in
// process, with the built-in actions).
func TestShownFlows(t *testing.T) {
	for _, name := range []string{filepath.Join(root, "README.md"), "tutorial.md", "cli.md", "testing.md"} {
		t.Run(filepath.Base(name), func(t *testing.T) {
			md := readFile(t, name)
			var flows []docFile
			for _, f := range shownFiles(md) {
				if strings.HasSuffix(f.path, ".yaml") || strings.HasSuffix(f.path, ".yml") {
					flows = append(flows, f)
				}
			}
			if len(flows) == 0 && name != "cli.md" && name != "testing.md" {
				t.Fatalf("%s shows no flow files (YAML blocks starting with # flows/NAME.yaml)", name)
			}
			dir := t.TempDir()
			writeFiles(t, dir, flows)
			t.Chdir(dir)
			run := func(args []string, stdin string) (string, int) {
				var out bytes.Buffer
				code := cli.Run(context.Background(), args, strings.NewReader(stdin), &out, &out)
				return out.String(), code
			}
			for _, f := range flows {
				if strings.HasSuffix(strings.TrimSuffix(f.path, filepath.Ext(f.path)), "_test") {
					continue
				}
				if out, code := run([]string{"lint", f.path}, ""); code != 0 {
					t.Errorf("%s:%d: flowserve lint %s: exit %d\n%s", name, f.line, f.path, code, out)
				}
			}
			if len(flows) > 0 {
				if out, code := run([]string{"test", "."}, ""); code != 0 {
					t.Errorf("%s: flowserve test: exit %d\n%s", name, code, out)
				}
			}
			checkConsole(t, name, md, "flowserve", func(c consoleCommand) (string, bool) {
				if len(c.args) == 0 || c.args[0] == "serve" || len(c.env) > 0 {
					return "", false // serve does not return; an environment is not ours to set
				}
				out, _ := run(c.args, c.stdin)
				return out, true
			})
		})
	}
}

// TestShownModules builds the Go modules the guides show (extending.md's
// custom build and embedding program, the tutorial's client) in scratch
// modules that use this repository, and runs extending.md's console
// examples with the custom build. It needs the go command and the
// module cache the repository's own build fills; -short skips it.
func TestShownModules(t *testing.T) {
	if testing.Short() {
		t.Skip("builds scratch modules; skipped with -short")
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	rootAbs, err := filepath.Abs(root)
	if err != nil {
		t.Fatal(err)
	}
	requires := moduleRequires(t, readFile(t, filepath.Join(root, "go.mod")))
	goSum := readFile(t, filepath.Join(root, "go.sum"))
	for _, name := range []string{"extending.md", "tutorial.md"} {
		t.Run(name, func(t *testing.T) {
			md := readFile(t, name)
			files := shownFiles(md)
			dir := t.TempDir()
			writeFiles(t, dir, files)
			var mods []string
			for _, f := range files {
				if filepath.Base(f.path) != "go.mod" {
					continue
				}
				mod := filepath.Join(dir, filepath.Dir(filepath.FromSlash(f.path)))
				mods = append(mods, mod)
				// Offline, against this checkout: flowserve from here, and
				// every other module at least at this repository's version,
				// which the module cache has.
				extra := "\nreplace github.com/flowserve/flowserve => " + rootAbs + "\n\nrequire (\n" + requires + ")\n"
				if err := os.WriteFile(filepath.Join(mod, "go.mod"), []byte(f.text+extra), 0o644); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(mod, "go.sum"), []byte(goSum), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if len(mods) == 0 {
				t.Fatalf("%s shows no go.mod (a block starting with // go.mod)", name)
			}
			gocmd := func(mod string, args ...string) {
				t.Helper()
				cmd := exec.Command(gobin, args...)
				cmd.Dir = mod
				cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off")
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("%s: in the module of %s: go %s: %v\n%s", name, mod, strings.Join(args, " "), err, out)
				}
			}
			for _, mod := range mods {
				gocmd(mod, "vet", "./...")
			}
			if name != "extending.md" {
				return
			}
			// The custom build: the main package at the module's root.
			bin := filepath.Join(t.TempDir(), "flowserve")
			gocmd(mods[0], "build", "-o", bin, ".")
			checkConsole(t, name, md, "./flowserve", func(c consoleCommand) (string, bool) {
				if len(c.args) > 0 && c.args[0] == "build" {
					return "", false
				}
				cmd := exec.Command(bin, c.args...)
				cmd.Dir = mods[0]
				cmd.Env = append(os.Environ(), c.env...)
				cmd.Stdin = strings.NewReader(c.stdin)
				var out bytes.Buffer
				cmd.Stdout, cmd.Stderr = &out, &out
				_ = cmd.Run()
				return out.String(), true
			})
		})
	}
}

// moduleRequires returns the require lines of a go.mod, one per line.
func moduleRequires(t *testing.T, gomod string) string {
	var b strings.Builder
	in := false
	for _, line := range strings.Split(gomod, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "require (":
			in = true
		case line == ")":
			in = false
		case in && line != "":
			b.WriteString("\t" + line + "\n")
		case strings.HasPrefix(line, "require "):
			b.WriteString("\t" + strings.TrimPrefix(line, "require ") + "\n")
		}
	}
	if b.Len() == 0 {
		t.Fatal("go.mod has no require lines")
	}
	return b.String()
}

// consoleCommand is one "$ ..." line of a console block.
type consoleCommand struct {
	line  int
	text  string
	env   []string // NAME=value prefixes
	stdin string   // from a printf '...' | prefix
	args  []string
	want  []string // the lines shown after it
}

var (
	durationRE = regexp.MustCompile(`\(\d+\.\d+s\)`)
	uuidRE     = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
)

// normalize makes output comparable: durations and random ids vary.
func normalize(s string) string {
	s = durationRE.ReplaceAllString(s, "(0.00s)")
	return uuidRE.ReplaceAllString(s, "00000000-0000-4000-8000-000000000000")
}

// checkConsole runs the commands of md's console blocks that start with
// prog, and compares their output with the lines shown under them. A
// line "..." in the shown output stands for any number of lines. exec
// runs a command and returns its output, or false to skip it.
func checkConsole(t *testing.T, name, md, prog string, exec func(consoleCommand) (string, bool)) {
	t.Helper()
	for _, b := range fencedBlocks(md) {
		if b.lang != "" && b.lang != "console" {
			continue
		}
		for _, c := range consoleCommands(b, prog) {
			got, ok := exec(c)
			if !ok {
				continue
			}
			gotLines := strings.Split(strings.TrimRight(normalize(got), "\n"), "\n")
			for i := range gotLines {
				gotLines[i] = strings.TrimRight(gotLines[i], " ")
			}
			want := make([]string, len(c.want))
			for i, w := range c.want {
				want[i] = strings.TrimRight(normalize(w), " ")
			}
			if !matchLines(want, gotLines) {
				t.Errorf("%s:%d: %s\nshows:\n\t%s\nprints:\n\t%s", name, c.line, c.text,
					strings.Join(want, "\n\t"), strings.Join(gotLines, "\n\t"))
			}
		}
	}
}

// consoleCommands reads the "$ prog ..." lines of a block, with the
// output lines under each.
func consoleCommands(b block, prog string) []consoleCommand {
	var out []consoleCommand
	lines := strings.Split(strings.TrimRight(b.text, "\n"), "\n")
	for i := 0; i < len(lines); i++ {
		if !strings.HasPrefix(lines[i], "$ ") {
			continue
		}
		c := consoleCommand{line: b.line + 1 + i, text: lines[i]}
		words, ok := shellWords(strings.TrimPrefix(lines[i], "$ "))
		for ok && len(words) > 0 && strings.Contains(words[0], "=") {
			c.env = append(c.env, words[0])
			words = words[1:]
		}
		if ok && len(words) > 2 && words[0] == "printf" {
			if pipe := indexOf(words, "|"); pipe == 2 {
				c.stdin = strings.ReplaceAll(words[1], `\n`, "\n")
				words = words[3:]
			}
		}
		for j := i + 1; j < len(lines) && !strings.HasPrefix(lines[j], "$ "); j++ {
			c.want = append(c.want, lines[j])
		}
		if !ok || len(words) == 0 || words[0] != prog || indexOf(words, "|") >= 0 || indexOf(words, ">") >= 0 {
			continue
		}
		c.args = words[1:]
		out = append(out, c)
	}
	return out
}

func indexOf(words []string, w string) int {
	for i, x := range words {
		if x == w {
			return i
		}
	}
	return -1
}

// shellWords splits a command line as a shell would, for the simple
// lines docs show: words, 'single' and "double" quotes, no expansions.
func shellWords(s string) ([]string, bool) {
	var out []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\'' || c == '"':
			end := strings.IndexByte(s[i+1:], c)
			if end < 0 {
				return nil, false
			}
			cur.WriteString(s[i+1 : i+1+end])
			i += end + 1
			inWord = true
		case c == ' ' || c == '\t':
			if inWord {
				out = append(out, cur.String())
				cur.Reset()
				inWord = false
			}
		case c == '$' || c == '`' || c == '\\' || c == ';' || c == '&':
			return nil, false
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		out = append(out, cur.String())
	}
	return out, true
}

// matchLines matches got against want, where a want line "..." matches
// any number of lines.
func matchLines(want, got []string) bool {
	if len(want) == 0 {
		return len(got) == 0 || len(got) == 1 && got[0] == ""
	}
	if want[0] == "..." {
		for i := 0; i <= len(got); i++ {
			if matchLines(want[1:], got[i:]) {
				return true
			}
		}
		return false
	}
	return len(got) > 0 && want[0] == got[0] && matchLines(want[1:], got[1:])
}

// TestShownLintError checks the lint error the tutorial, expressions.md
// and cli.md show: the tutorial's flow with order.content.sugars
// misspelt.
func TestShownLintError(t *testing.T) {
	var flow string
	for _, f := range shownFiles(readFile(t, "tutorial.md")) {
		if f.path == "flows/order_coffee.yaml" {
			flow = f.text
		}
	}
	typo := strings.Replace(flow, "order.content.sugars }}", "order.content.sugar }}", 1)
	if typo == flow {
		t.Fatal("tutorial.md: flows/order_coffee.yaml no longer reads order.content.sugars in a template")
	}
	docs := map[string]string{}
	for _, name := range []string{"tutorial.md", "expressions.md", "cli.md"} {
		docs[name] = readFile(t, name)
	}
	dir := t.TempDir()
	writeFiles(t, dir, []docFile{{path: "flows/order_coffee.yaml", text: typo}})
	t.Chdir(dir)
	var stdout, stderr bytes.Buffer
	if code := cli.Run(context.Background(), []string{"lint", "flows/"}, strings.NewReader(""), &stdout, &stderr); code != 1 {
		t.Fatalf("lint of the misspelt flow: exit %d, want 1\n%s%s", code, stdout.String(), stderr.String())
	}
	shown := "$ flowserve lint flows/\n" + stdout.String() + stderr.String()
	for _, name := range sortedKeys(docs) {
		if !strings.Contains(docs[name], shown) {
			t.Errorf("%s does not show what lint prints for the tutorial's flow with a misspelt field:\n%s", name, shown)
		}
	}
}
