package lsp

import (
	"regexp"
	"strings"

	"github.com/flowserve/flowserve/dsl"
)

// The cursor's context is read from the text around it, not from the
// parsed file alone: while an author types, the text often does not
// parse, and the parse of the last text that did has other positions.

// lineInfo is a line of a block mapping or sequence as the context
// needs it. Columns count bytes; what they measure (spaces, "- ") is
// ASCII.
type lineInfo struct {
	blank  bool   // empty or only a comment
	indent int    // leading spaces
	item   bool   // the line starts a sequence item ("- ")
	keyCol int    // where the line's key (or text) starts, after "- " markers
	key    string // the key of "key:" or "key: value"; "" when the line has none
	value  string // what follows "key:", trimmed
}

// keyLineRE matches a line's block key: a plain or quoted name, then a
// colon that ends the line or is followed by a blank.
var keyLineRE = regexp.MustCompile(`^("[^"]*"|'[^']*'|[^\s:#"'{}\[\],][^:#]*?)\s*:(?:\s+(.*))?$`)

// readLine reads one line.
func readLine(s string) lineInfo {
	li := lineInfo{}
	trimmed := strings.TrimLeft(s, " ")
	li.indent = len(s) - len(trimmed)
	if trimmed == "" || strings.HasPrefix(trimmed, "#") {
		li.blank = true
		return li
	}
	li.keyCol = li.indent
	for strings.HasPrefix(trimmed, "- ") || trimmed == "-" {
		li.item = true
		rest := strings.TrimLeft(trimmed[1:], " ")
		li.keyCol += len(trimmed) - len(rest)
		trimmed = rest
	}
	if m := keyLineRE.FindStringSubmatch(strings.TrimRight(trimmed, " \t")); m != nil {
		li.key = strings.Trim(m[1], `"'`)
		li.value = strings.TrimSpace(m[2])
	}
	return li
}

// mapping returns the lines of the block mapping whose keys are at
// column col around protocol line n (n itself left out): up to the
// sequence item that starts it or its parent key, down to a line less
// indented. parent is the line of the mapping's parent key, blank when
// the mapping is the top level.
func mapping(t *text, n, col int) (siblings []lineInfo, parent lineInfo) {
	parent = lineInfo{blank: true}
	if cur := readLine(t.lineAt(n)); !(cur.item && cur.keyCol == col) {
		for l := n - 1; l >= 0; l-- {
			li := readLine(t.lineAt(l))
			if li.blank || (li.indent > col) {
				continue
			}
			if li.keyCol == col {
				siblings = append(siblings, li)
				if li.item {
					parent = parentOf(t, l, li.indent)
					break
				}
				continue
			}
			if li.keyCol < col || li.indent < col {
				parent = li
				break
			}
		}
	} else {
		parent = parentOf(t, n, cur.indent)
	}
	for l := n + 1; l < len(t.lines); l++ {
		li := readLine(t.lineAt(l))
		if li.blank || li.indent > col {
			continue
		}
		if li.item || li.keyCol != col {
			break
		}
		siblings = append(siblings, li)
	}
	return siblings, parent
}

// parentOf returns the line of the key that holds the sequence whose
// item starts at line n, indented by indent.
func parentOf(t *text, n, indent int) lineInfo {
	for l := n - 1; l >= 0; l-- {
		li := readLine(t.lineAt(l))
		if li.blank {
			continue
		}
		if li.indent < indent || (li.indent == indent && !li.item) {
			return li
		}
	}
	return lineInfo{blank: true}
}

// keysOf returns the keys of lines.
func keysOf(lines []lineInfo) []string {
	var out []string
	for _, li := range lines {
		if li.key != "" {
			out = append(out, li.key)
		}
	}
	return out
}

// valueOf returns the value of key among lines.
func valueOf(lines []lineInfo, key string) string {
	for _, li := range lines {
		if li.key == key {
			return li.value
		}
	}
	return ""
}

// lead matches what may stand before a key on its line: the indentation
// and sequence markers, or the opening brace or comma of a flow mapping.
const lead = `(?:^\s*(?:-\s+)*|[{,]\s*)`

var (
	refKeyRE  = regexp.MustCompile(lead + `(next|then|else|unavailable|on_error|on_timeout):\s*["']?([\w]*)$`)
	stepKeyRE = regexp.MustCompile(lead + `step:\s*["']?([\w.]*)$`)
	callKeyRE = regexp.MustCompile(lead + `(call|link):\s*["']?([\w.-]*)$`)
	condRE    = regexp.MustCompile(lead + `(?:if|rule):\s*["']?(.*)$`)
	// flowWithRE matches a key being typed in a flow mapping under with:
	// "with: {path: x, re".
	flowWithRE = regexp.MustCompile(`with:\s*\{(?:[^{}]*,)?\s*([\w]*)$`)
	// blockKeyRE matches a key being typed on a line of its own.
	blockKeyRE   = regexp.MustCompile(`^(\s*(?:-\s+)*)([\w]*)$`)
	runsValueRE  = regexp.MustCompile(`(?:^|[{,\s])(step|call|link):\s*["']?([\w.-]+)`)
	chainRE      = regexp.MustCompile(`([A-Za-z_$][\w$]*(?:\??\.[A-Za-z_$][\w$]*|\[[^\[\]]*\])*)\??\.([\w$]*)$`)
	trailWordRE  = regexp.MustCompile(`[A-Za-z_$][\w$]*$`)
	identCharsRE = regexp.MustCompile(`[\w$]`)
)

// exprPrefix returns the source of the expression the cursor at off is
// in, from the expression's start to the cursor, and whether it is in
// one: from the parsed file when an expression holds off, else from the
// line: an unclosed {{ before the cursor, or the value of an if or rule
// key.
func exprPrefix(a *analysis, t *text, off int, line string) (string, bool) {
	if e, i, ok := exprAt(a, t, off); ok {
		return string([]rune(e.Src)[:i]), true
	}
	if i := strings.LastIndex(line, "{{"); i >= 0 && !strings.Contains(line[i:], "}}") {
		return line[i+2:], true
	}
	if m := condRE.FindStringSubmatch(line); m != nil {
		return m[1], true
	}
	return "", false
}

// exprAt returns the expression of the parsed file that holds the byte
// offset off, and the index of the rune of its source at off.
func exprAt(a *analysis, t *text, off int) (*dsl.Expr, int, bool) {
	if a.file == nil {
		return nil, 0, false
	}
	line := t.posOfOffset(off).Line
	for _, e := range fileExprs(a.file) {
		if e.Pos.Line > line {
			continue
		}
		n := len([]rune(e.Src))
		if last := e.PosAt(max(n-1, 0)); last.Line < line {
			continue
		}
		offs := exprOffsets(e, t)
		for i := n; i >= 0; i-- {
			if offs[i] == off && (i == 0 || offs[i-1] < off) {
				return e, i, true
			}
		}
	}
	return nil, 0, false
}
