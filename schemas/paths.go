package schemas

import (
	"cmp"
	"encoding/json"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// docLocation is where Compile places the schema document.
const docLocation = "flowserve:///schema.json"

// path reads an instance location (JSON Pointer tokens) against the
// value, to tell an array index from an object key that looks like one.
func (w wording) path(loc []string) []token {
	out := make([]token, len(loc))
	cur := w.inst
	for i, tok := range loc {
		out[i] = token{key: tok}
		switch c := cur.(type) {
		case []any:
			n, err := strconv.Atoi(tok)
			out[i].index = err == nil
			cur = nil
			if err == nil && n >= 0 && n < len(c) {
				cur = c[n]
			}
		case map[string]any:
			cur = c[tok]
		default:
			cur = nil
		}
	}
	return out
}

// valueAt returns the value at an instance location, or nil.
func (w wording) valueAt(loc []string) any {
	cur := w.inst
	for _, tok := range loc {
		switch c := cur.(type) {
		case []any:
			n, err := strconv.Atoi(tok)
			if err != nil || n < 0 || n >= len(c) {
				return nil
			}
			cur = c[n]
		case map[string]any:
			cur = c[tok]
		default:
			return nil
		}
	}
	return cur
}

// gotType names the JSON type of the value at loc for a type mismatch:
// the validator's name, except that a number is an integer when it is
// whole and a fractional number when an integer was wanted.
func (w wording) gotType(got string, loc []string, want []string) string {
	if got != "number" {
		return articleType(got)
	}
	if whole, ok := wholeNumber(w.valueAt(loc)); ok && whole {
		return "an integer"
	}
	if slices.Contains(want, "integer") {
		return "a fractional number"
	}
	return "a number"
}

// wholeNumber reports whether v, a number, has no fractional part; ok is
// false when v is not a number.
func wholeNumber(v any) (whole, ok bool) {
	switch n := v.(type) {
	case int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		return true, true
	case float64:
		return n == math.Trunc(n), true
	case float32:
		return float64(n) == math.Trunc(float64(n)), true
	case json.Number:
		if _, err := n.Int64(); err == nil {
			return true, true
		}
		f, err := n.Float64()
		return err == nil && f == math.Trunc(f), err == nil
	}
	return false, false
}

// schemaAt returns the keyword kw of the schema at loc, an absolute
// schema location inside the compiled document, or nil when loc is in
// another document.
func (w wording) schemaAt(loc, kw string) any {
	base, frag, _ := strings.Cut(loc, "#")
	if base != docLocation {
		return nil
	}
	frag, err := url.PathUnescape(frag)
	if err != nil {
		return nil
	}
	var cur any = w.doc
	if frag != "" {
		for _, tok := range strings.Split(strings.TrimPrefix(frag, "/"), "/") {
			tok = strings.NewReplacer("~1", "/", "~0", "~").Replace(tok)
			switch c := cur.(type) {
			case map[string]any:
				cur = c[tok]
			case []any:
				n, err := strconv.Atoi(tok)
				if err != nil || n < 0 || n >= len(c) {
					return nil
				}
				cur = c[n]
			default:
				return nil
			}
		}
	}
	m, _ := cur.(map[string]any)
	return m[kw]
}

// child returns path with one more token, never sharing path's array.
func child(path []token, t token) []token {
	return append(slices.Clip(path), t)
}

// fieldText writes a path as readers of JSON paths know it: keys joined
// by dots, indexes in brackets, and a key that is not a plain name quoted
// in brackets: list[1].name, headers["x.y"].
func fieldText(path []token) string {
	var b strings.Builder
	for i, t := range path {
		switch {
		case t.index:
			b.WriteString("[" + t.key + "]")
		case !plainKey(t.key):
			b.WriteString("[" + strconv.Quote(t.key) + "]")
		default:
			if i > 0 {
				b.WriteByte('.')
			}
			b.WriteString(t.key)
		}
	}
	return b.String()
}

// KeyField returns the field of key in the object at field path, as the
// fields of violations are written: path.key, or path["x y"] for a key
// that is not a plain name (see fieldText).
func KeyField(path, key string) string {
	if !plainKey(key) {
		return path + "[" + strconv.Quote(key) + "]"
	}
	if path == "" {
		return key
	}
	return path + "." + key
}

// plainKey reports whether an object key reads unambiguously bare in a
// path: not empty, without dots, brackets, quotes, backslashes, spaces or
// control characters.
func plainKey(k string) bool {
	if k == "" {
		return false
	}
	for _, r := range k {
		if r <= ' ' || r == 0x7f || strings.ContainsRune(`.[]"\`, r) {
			return false
		}
	}
	return true
}

// comparePaths orders paths token by token, indexes by number and before
// keys, a path before its children.
func comparePaths(a, b []token) int {
	for i := range min(len(a), len(b)) {
		x, y := a[i], b[i]
		if x.index != y.index {
			if x.index {
				return -1
			}
			return 1
		}
		if x.index {
			m, _ := strconv.Atoi(x.key)
			n, _ := strconv.Atoi(y.key)
			if c := cmp.Compare(m, n); c != 0 {
				return c
			}
			continue
		}
		if c := strings.Compare(x.key, y.key); c != 0 {
			return c
		}
	}
	return cmp.Compare(len(a), len(b))
}
