package lsp

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/flowserve/flowserve/dsl"
)

// This file is where the server meets the diagnostics' ranges and fixes.
// dsl.Diagnostic is gaining an End position, a Range method and Fixes
// (issue #19); until it has them, diagRange works the range out from the
// token at the diagnostic's position and diagFixes the fix from the
// did-you-mean of its message. When they land, diagRange becomes
// d.Range(src) and diagFixes a copy of d.Fixes; nothing else changes.

// fix is a mechanical change that resolves a diagnostic: the text from
// Pos to End (exclusive) replaced by NewText. It mirrors dsl.Fix.
type fix struct {
	Title    string
	Pos, End dsl.Pos
	NewText  string
}

// diagRange returns where d is in t, from its start to its end
// (exclusive).
func diagRange(d dsl.Diagnostic, t *text) (start, end dsl.Pos) {
	off := t.offsetOfPos(d.Pos)
	return d.Pos, t.posOfOffset(tokenEnd(t.src, off))
}

// diagFixes returns the fixes of d.
func diagFixes(d dsl.Diagnostic, t *text) []fix {
	if f, ok := suggestedFix(d, t); ok {
		return []fix{f}
	}
	return nil
}

var (
	didYouMeanRE = regexp.MustCompile(`did you mean "((?:[^"\\]|\\.)+)"\?`)
	quotedRE     = regexp.MustCompile(`["']([^"']+)["']`)
)

// suggestedFix works out the fix of a diagnostic whose message names a
// misspelt name in quotes and suggests another ("unknown key "nxt" ...;
// did you mean "next"?"): replacing the name, when the file has it at the
// diagnostic's position (after an opening quote, for a quoted scalar).
func suggestedFix(d dsl.Diagnostic, t *text) (fix, bool) {
	m := didYouMeanRE.FindStringSubmatch(d.Message)
	w := quotedRE.FindStringSubmatch(d.Message)
	if m == nil || w == nil {
		return fix{}, false
	}
	suggestion, wrong := unescape(m[1]), w[1]
	off := t.offsetOfPos(d.Pos)
	if off < len(t.src) && (t.src[off] == '"' || t.src[off] == '\'') {
		off++
	}
	if !strings.HasPrefix(string(t.src[off:min(len(t.src), off+len(wrong))]), wrong) || suggestion == wrong {
		return fix{}, false
	}
	return fix{
		Title:   fmt.Sprintf("Change %q to %q", wrong, suggestion),
		Pos:     t.posOfOffset(off),
		End:     t.posOfOffset(off + len(wrong)),
		NewText: suggestion,
	}, true
}

// unescape undoes the escapes of a Go-quoted string's contents.
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var out string
	if _, err := fmt.Sscanf(`"`+s+`"`, "%q", &out); err != nil {
		return s
	}
	return out
}

// tokenEnd returns the end of the token that starts at off: a quoted
// scalar to its closing quote, a run of name characters (letters,
// digits, _ . - $), else one rune; never past the end of the line.
func tokenEnd(src []byte, off int) int {
	if off >= len(src) {
		return off
	}
	if q := src[off]; q == '"' || q == '\'' {
		return quotedEnd(src, off)
	}
	i := off
	for i < len(src) {
		r, size := utf8.DecodeRune(src[i:])
		if !isNameRune(r) {
			break
		}
		i += size
	}
	if i > off {
		return i
	}
	r, size := utf8.DecodeRune(src[off:])
	if isBreak(r) {
		return off
	}
	return off + size
}

// quotedEnd returns the offset after the quote that closes the scalar
// opened at off, or the end of the line when it is not closed there.
func quotedEnd(src []byte, off int) int {
	q := src[off]
	for i := off + 1; i < len(src); i++ {
		switch c := src[i]; {
		case c == '\n' || c == '\r':
			return i
		case q == '"' && c == '\\':
			i++
		case c == q && q == '\'' && i+1 < len(src) && src[i+1] == '\'':
			i++
		case c == q:
			return i + 1
		}
	}
	return len(src)
}

// isNameRune reports whether r may be part of a name token.
func isNameRune(r rune) bool {
	return r == '_' || r == '.' || r == '-' || r == '$' || unicode.IsLetter(r) || unicode.IsDigit(r)
}
