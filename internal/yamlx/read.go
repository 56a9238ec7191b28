package yamlx

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// The codes of the problems a Reader reports. The packages that read
// files with it report them as diagnostics under the same codes.
const (
	// CodeBadYAML: the file is not valid YAML, or uses an unsupported tag.
	CodeBadYAML = "bad-yaml"
	// CodeBadAlias: an alias is inside its own anchor, or aliases expand
	// the file too much.
	CodeBadAlias = "bad-alias"
	// CodeBadType: a key or a merged value has the wrong YAML type, or a
	// value read for a field has the wrong type.
	CodeBadType = "bad-type"
	// CodeBadValue: a scalar has the right type but cannot be read: an
	// integer out of range, a number that JSON cannot hold.
	CodeBadValue = "bad-value"
	// CodeDuplicateKey: a mapping has the same key twice.
	CodeDuplicateKey = "duplicate-key"
	// CodeMultipleDocuments: the file holds more than one YAML document.
	CodeMultipleDocuments = "multiple-documents"
)

// MaxExpanded bounds the size of a document once its aliases are
// expanded, so that a few lines of nested aliases cannot make a reader do
// exponential work.
const MaxExpanded = 100_000

// Problem is something wrong in a YAML file, found by a Reader.
type Problem struct {
	Pos     Pos
	Code    string
	Message string
}

// Reader reads the YAML of a file with positions, with one set of rules
// for every file flowserve reads: flows, resource declarations and test
// files. It reports each problem it finds to Report; the zero Reader
// reads without reporting.
//
// The rules: a file holds one document; an alias inside its own anchor,
// or aliases expanding the file beyond MaxExpanded values, resolve to
// null and are errors; mapping keys are strings and appear once; merge
// keys (<<) merge a mapping or a list of mappings, the mapping's own keys
// winning and earlier mappings winning over later ones; values use the
// core tags only, integers fit in int64 and numbers are finite.
type Reader struct {
	Report func(Problem)
}

// reportAt reports a problem at pos.
func (r Reader) reportAt(pos Pos, code, format string, args ...any) {
	if r.Report != nil {
		r.Report(Problem{Pos: pos, Code: code, Message: fmt.Sprintf(format, args...)})
	}
}

// report reports a problem at the position of n.
func (r Reader) report(n *yaml.Node, code, format string, args ...any) {
	r.reportAt(NodePos(n), code, format, args...)
}

// Read decodes the first YAML document of src, checks its aliases (see
// CheckAliases) and returns its top-level value, resolved: nil when src
// holds no document or an empty one. what names the file in messages ("a
// flow file"): a second document that is not empty is reported as one
// the file should not hold. ok is false when src is not valid YAML; the
// problem is reported at the line of the mistake (see Syntax).
func (r Reader) Read(src []byte, what string) (root *yaml.Node, ok bool) {
	docs, err := DecodeDocs(src)
	if err != nil {
		if r.Report != nil {
			r.Report(Syntax(src, err))
		}
		return nil, false
	}
	if len(docs) > 1 {
		if d := docs[1]; len(d.Content) > 0 && !IsNull(d.Content[0]) {
			r.report(d, CodeMultipleDocuments, "%s holds one YAML document; remove this second one", what)
		}
	}
	if len(docs) == 0 || len(docs[0].Content) == 0 {
		return nil, true
	}
	r.CheckAliases(docs[0])
	return Resolve(docs[0].Content[0]), true
}

// CheckAliases finds the aliases under root that are inside their own
// anchor (which would make the document infinite) and bounds the size of
// the document with its aliases expanded. Aliases that fail either check
// are cut from their anchor (their Alias is set to nil), so that Resolve
// reads them as null, and reported.
func (r Reader) CheckAliases(root *yaml.Node) {
	const (
		visiting = 1
		done     = 2
	)
	state := map[*yaml.Node]uint8{}
	size := map[*yaml.Node]int{}
	var aliases []*yaml.Node
	var walk func(n *yaml.Node) int
	walk = func(n *yaml.Node) int {
		switch state[n] {
		case visiting:
			return -1
		case done:
			return size[n]
		}
		state[n] = visiting
		total := 1
		if n.Kind == yaml.AliasNode {
			aliases = append(aliases, n)
			if n.Alias != nil {
				if s := walk(n.Alias); s < 0 {
					n.Alias = nil
					r.report(n, CodeBadAlias, "alias *%s is inside its own anchor &%s, which would make the value infinite", n.Value, n.Value)
				} else {
					total = min(total+s, MaxExpanded+1)
				}
			}
		}
		for _, c := range n.Content {
			if s := walk(c); s > 0 {
				total = min(total+s, MaxExpanded+1)
			}
		}
		state[n] = done
		size[n] = total
		return total
	}
	if walk(root) > MaxExpanded && len(aliases) > 0 {
		for _, a := range aliases {
			a.Alias = nil
		}
		r.report(aliases[0], CodeBadAlias, "aliases expand the file to more than %d values; write the values out instead", MaxExpanded)
	}
}

// Resolve follows an alias to the node it refers to. An alias that cannot
// be used (see CheckAliases) resolves to null at the alias's position, and
// nil to null at 1:1.
func Resolve(n *yaml.Node) *yaml.Node {
	for range 8 {
		if n == nil {
			return &yaml.Node{Kind: yaml.ScalarNode, Tag: TagNull, Line: 1, Column: 1}
		}
		if n.Kind != yaml.AliasNode {
			return n
		}
		if n.Alias == nil {
			break
		}
		n = n.Alias
	}
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: TagNull, Line: n.Line, Column: n.Column}
}

// Syntax returns the problem (CodeBadYAML) for err, the error yaml.v3 gave
// decoding src: at the line and column of the mistake, which the decoder
// does not always name. yaml.v3 reports the line where the enclosing
// construct started (and sometimes none at all), and its errors carry no
// position of their own, so the line is found again as the end of the
// shortest prefix of the file that fails with the same error.
func Syntax(src []byte, err error) Problem {
	full := err.Error()
	msg := strings.TrimPrefix(full, "yaml: ")
	hint := 0
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		if num, text, ok := strings.Cut(rest, ": "); ok {
			if n, err := strconv.Atoi(num); err == nil {
				hint, msg = n, text
			}
		}
	}
	s := NewSource(src)
	if rest, ok := strings.CutPrefix(msg, "unknown anchor '"); ok {
		if name, ok := strings.CutSuffix(rest, "' referenced"); ok {
			if pos, ok := s.findAlias(name); ok {
				return Problem{Pos: pos, Code: CodeBadYAML, Message: fmt.Sprintf("unknown anchor &%s: define it before its alias *%s", name, name)}
			}
		}
	}
	line := s.failingLine(src, full, hint)
	text, _ := s.Line(line)
	col := 0
	for col < len(text) && IsBlank(text[col]) {
		col++
	}
	// Encoding problems point at the offending character.
	for i, r := range text {
		if r == utf8.RuneError || r < 0x20 && r != '\t' || r == 0x7f {
			col = i
			break
		}
	}
	return Problem{Pos: at(line, col+1), Code: CodeBadYAML, Message: msg}
}

// failingLine returns the last line of the shortest prefix of src that
// fails to decode with the error full, searching from line hint. It is
// found by bisection: a prefix that ends before the mistake parses (or
// fails otherwise), one that ends after it fails the same way. Bisection
// keeps this to a few dozen parses even for large or hostile files.
func (s *Source) failingLine(src []byte, full string, hint int) int {
	fails := func(n int) bool {
		_, e := DecodeDocs(src[:s.End(n)])
		return e != nil && e.Error() == full
	}
	if lo, hi := max(hint, 1), len(s.lines); lo <= hi && fails(hi) {
		for lo < hi {
			mid := lo + (hi-lo)/2
			if fails(mid) {
				hi = mid
			} else {
				lo = mid + 1
			}
		}
		return lo
	}
	return min(max(hint, 1), len(s.lines))
}

// findAlias returns the position of the first alias *name in the source.
func (s *Source) findAlias(name string) (Pos, bool) {
	want := []rune("*" + name)
	for i, text := range s.lines {
		for c := 0; c+len(want) <= len(text); c++ {
			if slices.Equal(text[c:c+len(want)], want) {
				after := c + len(want)
				if after == len(text) || IsBlank(text[after]) || strings.ContainsRune(",]}", text[after]) {
					return at(i+1, c+1), true
				}
			}
		}
	}
	return Pos{}, false
}
