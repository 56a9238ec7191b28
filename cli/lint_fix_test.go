package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flowserve/flowserve/dsl"
)

// TestFixSource checks how fixes are applied to a file's bytes: from the
// end backwards, by rune columns, once each, leaving out one that overlaps
// another or is not in the file.
func TestFixSource(t *testing.T) {
	at := func(line, col int) dsl.Pos { return dsl.Pos{Line: line, Col: col} }
	fix := func(l1, c1, l2, c2 int, text string) dsl.Fix {
		return dsl.Fix{Title: "t", Pos: at(l1, c1), End: at(l2, c2), NewText: text}
	}
	tests := []struct {
		name    string
		src     string
		fixes   []dsl.Fix
		want    string
		applied int
	}{
		{"two on a line", "next: thn, els\n", []dsl.Fix{fix(1, 12, 1, 15, "else"), fix(1, 7, 1, 10, "then")}, "next: then, else\n", 2},
		{"runes", "ask: Größe {{ siz }}\n", []dsl.Fix{fix(1, 15, 1, 18, "size")}, "ask: Größe {{ size }}\n", 1},
		{"a byte order mark", "\uFEFFdescripton: d\n", []dsl.Fix{fix(1, 1, 1, 11, "description")}, "\uFEFFdescription: d\n", 1},
		{"CR LF", "a: 1\r\nthn: 2\r\n", []dsl.Fix{fix(2, 1, 2, 4, "then")}, "a: 1\r\nthen: 2\r\n", 1},
		{"over lines", "a: \"x\n  y\"\n", []dsl.Fix{fix(1, 4, 2, 5, "z")}, "a: z\n", 1},
		{"the same twice", "thn: 1\n", []dsl.Fix{fix(1, 1, 1, 4, "then"), fix(1, 1, 1, 4, "then")}, "then: 1\n", 1},
		{"overlapping", "abcdef\n", []dsl.Fix{fix(1, 1, 1, 4, "X"), fix(1, 3, 1, 6, "Y")}, "Xdef\n", 1},
		{"same start", "abcdef\n", []dsl.Fix{fix(1, 1, 1, 3, "X"), fix(1, 1, 1, 4, "Y")}, "Xcdef\n", 1},
		{"at the end of a line", "ab\n", []dsl.Fix{fix(1, 3, 1, 3, "c")}, "abc\n", 1},
		{"not in the file", "ab\n", []dsl.Fix{fix(1, 5, 1, 6, "c"), fix(9, 1, 9, 2, "d"), fix(1, 2, 1, 1, "e")}, "ab\n", 0},
	}
	for _, tc := range tests {
		got, applied := fixSource([]byte(tc.src), tc.fixes)
		if string(got) != tc.want || len(applied) != tc.applied {
			t.Errorf("%s: got %q with %d applied, want %q with %d", tc.name, got, len(applied), tc.want, tc.applied)
		}
	}
}

// TestLintFix runs lint --fix: it rewrites the files with the first fix
// of each diagnostic, pass after pass, says each change on stderr, and
// reports what is left as lint does.
func TestLintFix(t *testing.T) {
	const keys = `descripton: Asks.
nodes:
  - id: q
    ask: Go on?
    from: {ok: {type: boolean}}
    next: 'dne'
  - id: done
    step: fs.stt
    with: {path: x}
  - return: "{{ q.content.ok }} {{ qq.accepted }}"
`
	const fixed = `description: Asks.
nodes:
  - id: q
    ask: Go on?
    form: {ok: {type: boolean}}
    next: 'done'
  - id: done
    step: fs.stat
    with: {path: x}
  - return: "{{ q.content.ok }} {{ q.accepted }}"
`
	dir := writeFlows(t, map[string]string{"flows/keys.yaml": keys, "flows/warn.yaml": warningFlow, "flows/bad.yaml": "description: Bad.\nnodes: []\n"})
	out, errOut, code := run(t, "lint", "--fix", dir)
	got, err := os.ReadFile(filepath.Join(dir, "flows/keys.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != fixed {
		t.Errorf("after the fixes:\n%s\nwant\n%s", got, fixed)
	}
	path := filepath.Join(dir, "flows/keys.yaml")
	for _, want := range []string{
		path + `:1:1: fixed: replace "descripton" with "description"`,
		path + `:5:5: fixed: replace "from" with "form"`,
		path + `:6:11: fixed: replace "dne" with "done"`,
		path + `:8:11: fixed: replace "fs.stt" with "fs.stat"`,
	} {
		if !strings.Contains(errOut, want+"\n") {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	// The expression was not compiled before the file parsed: the second
	// pass fixes it.
	if !strings.Contains(errOut, path+`:10:36: fixed: replace "qq" with "q"`) {
		t.Errorf("stderr lacks the second pass's fix:\n%s", errOut)
	}
	if code != 1 || strings.Contains(out, path) || !strings.Contains(out, "[no-nodes]") ||
		!strings.HasSuffix(errOut, "1 error, 1 warning in 3 files\n") {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	out, errOut, code = run(t, "lint", "--fix", filepath.Join(dir, "flows/keys.yaml"))
	if code != 0 || out != "" || errOut != "0 errors, 0 warnings in 1 file\n" {
		t.Errorf("nothing to fix: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}
