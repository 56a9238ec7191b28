package cli

import (
	"cmp"
	"fmt"
	"os"
	"slices"
	"unicode/utf8"

	"github.com/flowserve/flowserve/dsl"
	"github.com/flowserve/flowserve/internal/yamlx"
)

// applyFixes applies the first fix of each diagnostic to its file and
// says each change on standard error, as "file:line:col: fixed: title".
// Fixes are applied from the end of each file backwards, so that the
// positions of the others stay right; a fix that overlaps one before it
// in the file is left out (lint will report its diagnostic again). It
// reports whether any file changed; a file it cannot read or write is
// said on standard error and left as it was.
func applyFixes(env *Env, diags dsl.Diagnostics) bool {
	byFile := map[string][]dsl.Fix{}
	var files []string
	for _, d := range diags {
		if len(d.Fixes) == 0 {
			continue
		}
		f := d.Fixes[0]
		if f.Pos.File != d.Pos.File || f.End.File != d.Pos.File {
			continue
		}
		if _, ok := byFile[f.Pos.File]; !ok {
			files = append(files, f.Pos.File)
		}
		byFile[f.Pos.File] = append(byFile[f.Pos.File], f)
	}
	changed := false
	for _, file := range files {
		src, err := os.ReadFile(file)
		if err != nil {
			fmt.Fprintf(env.Stderr, "flowserve lint: --fix: %v\n", err)
			continue
		}
		out, applied := fixSource(src, byFile[file])
		if len(applied) == 0 {
			continue
		}
		if err := writeFile(file, out); err != nil {
			fmt.Fprintf(env.Stderr, "flowserve lint: --fix: %v\n", err)
			continue
		}
		for _, f := range applied {
			fmt.Fprintf(env.Stderr, "%s: fixed: %s\n", f.Pos, f.Title)
		}
		changed = true
	}
	return changed
}

// writeFile replaces the content of file, keeping its mode.
func writeFile(file string, data []byte) error {
	info, err := os.Stat(file)
	if err != nil {
		return err
	}
	return os.WriteFile(file, data, info.Mode().Perm())
}

// fixSource applies fixes to src and returns the result and the fixes
// applied, in file order: repeats are applied once, and a fix that
// overlaps one before it, or whose positions are not in src, is left out.
func fixSource(src []byte, fixes []dsl.Fix) ([]byte, []dsl.Fix) {
	type edit struct {
		fix        dsl.Fix
		start, end int // byte offsets
	}
	lines := yamlx.NewSource(src)
	var edits []edit
	for _, f := range fixes {
		start, ok1 := byteOffset(src, lines, f.Pos)
		end, ok2 := byteOffset(src, lines, f.End)
		if ok1 && ok2 && start <= end {
			edits = append(edits, edit{f, start, end})
		}
	}
	slices.SortStableFunc(edits, func(a, b edit) int {
		return cmp.Or(cmp.Compare(a.start, b.start), cmp.Compare(a.end, b.end))
	})
	var kept []edit
	for _, e := range edits {
		if n := len(kept); n > 0 {
			last := kept[n-1]
			if e.start == last.start && e.end == last.end && e.fix.NewText == last.fix.NewText {
				continue // the same fix, from another diagnostic
			}
			if e.start < last.end || e.start == last.start {
				continue // overlaps the one before it
			}
		}
		kept = append(kept, e)
	}
	out := slices.Clone(src)
	for i := len(kept) - 1; i >= 0; i-- {
		e := kept[i]
		out = slices.Concat(out[:e.start], []byte(e.fix.NewText), out[e.end:])
	}
	applied := make([]dsl.Fix, len(kept))
	for i, e := range kept {
		applied[i] = e.fix
	}
	return out, applied
}

// byteOffset returns the byte offset in src of p (a line and a column
// counted in runes; the column may be just past the line's end), and
// whether src has it.
func byteOffset(src []byte, lines *yamlx.Source, p dsl.Pos) (int, bool) {
	text, ok := lines.Line(p.Line)
	if !ok || p.Col < 1 || p.Col > len(text)+1 {
		return 0, false
	}
	off := lines.End(p.Line - 1) // the start of line p.Line
	if p.Line == 1 && len(src) >= 3 && src[0] == 0xEF && src[1] == 0xBB && src[2] == 0xBF {
		off = 3 // a byte order mark, which columns do not count
	}
	for range p.Col - 1 {
		_, size := utf8.DecodeRune(src[off:])
		off += size
	}
	return off, true
}
